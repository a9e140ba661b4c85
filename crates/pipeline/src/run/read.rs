//! The threads of a dedup run up to clustering: one reader (which itself inflates a large file on
//! all cores), workers that extract and fingerprint, and the [`Collector`] on the calling thread,
//! joined by bounded channels ([`crate::flow::stages`]). The collector restores input order, so
//! what it gathers is the same for any thread count.

use crate::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crawlsift_common::budget::MemoryBudget;
use crawlsift_common::limits::TEXT_QUEUE_CAP;
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprinter};
use crawlsift_extractor::{CharsetMode, ExtractorBuilder};
use crawlsift_phrases::{SketchConfig, Sketcher};
use crawlsift_reader::{ReaderConfig, Record};
use crawlsift_reuse::ReuseConfig;
use std::path::Path;

use crate::checkpoint::{Checkpoints, Entry};
use crate::collect::{entry_of, Batch, Collected, Collector};
use crate::flow::inputs::{Cancelled, InputSet, ReadEvent, RecordTap};
use crate::flow::stages;
use crate::flow::{read_in_order, Reading};
use crate::write::TextSpill;

/// Busy time per stage, summed over its threads (nanoseconds).
#[derive(Debug, Default)]
pub struct StageTimes {
    /// Reading (not waiting on a full channel).
    pub read_ns: AtomicU64,
    /// Extracting main text.
    pub extract_ns: AtomicU64,
    /// Fingerprinting.
    pub fingerprint_ns: AtomicU64,
}

fn timed<T>(acc: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    acc.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// The settings of a dedup run's reading part.
pub struct DedupSettings<'a> {
    /// The inputs.
    pub inputs: &'a InputSet,
    /// Reader settings.
    pub reader: &'a ReaderConfig,
    /// Extractor settings (checked: building it must not fail).
    pub extractor: &'a ExtractorBuilder,
    /// Dedup parameters (checked).
    pub dedup: &'a DedupConfig,
    /// Workers that extract and fingerprint (each does both steps of a batch).
    pub threads: usize,
    /// For a shard (`--shard I/N`): the inputs it reads; the others are neither read nor
    /// replayed. `None` reads every input.
    pub only: Option<&'a [bool]>,
    /// Phrase sketches to make next to each fingerprint (`--phrases`).
    pub phrases: Option<&'a SketchConfig>,
    /// Text-reuse sketches to make next to each fingerprint, and the folder of the texts'
    /// scratch file (`--reuse`).
    pub reuse: Option<(&'a ReuseConfig, &'a Path)>,
    /// Read each page's links into the web graph too (`--links`).
    pub links: bool,
}

/// Hooks of a dedup run into its caller.
pub struct DedupHooks<'a> {
    /// Whether the run was asked to stop.
    pub cancelled: Cancelled<'a>,
    /// Called on the collector's thread after each batch: bytes of input done, documents so far.
    pub progress: &'a dyn Fn(u64, u64),
    /// Busy time per stage, added to.
    pub times: &'a StageTimes,
}

/// Reads, extracts and fingerprints every input (replaying those `checkpoints` holds and
/// checkpointing the others), spilling page texts into `spill` when given, and returns what the
/// collector gathered. When the run was cancelled, what was gathered is partial: check the
/// `cancelled` hook before clustering it.
pub fn read_documents(
    settings: &DedupSettings<'_>,
    hooks: &DedupHooks<'_>,
    checkpoints: &mut Checkpoints,
    spill: Option<TextSpill>,
) -> Result<Collected> {
    let clusterer = Clusterer::new(settings.dedup)?;
    let held = (clusterer, MemoryBudget::default());
    read_documents_into(settings, hooks, checkpoints, spill, held, None)
}

/// As [`read_documents`], adding the documents to `clusterer` (made for `settings.dedup`) within
/// `budget` (which may spill: [`MemoryBudget::new`]),
/// with the inputs `tap` takes read through it ([`RecordTap`]: the CDXJ half of an index build
/// sees the records of this one pass).
pub fn read_documents_into(
    settings: &DedupSettings<'_>,
    hooks: &DedupHooks<'_>,
    checkpoints: &mut Checkpoints,
    spill: Option<TextSpill>,
    (clusterer, budget): (Clusterer, MemoryBudget),
    tap: Option<&dyn RecordTap>,
) -> Result<Collected> {
    let inputs = settings.inputs;
    let n = inputs.inputs.len() as u32;
    // Stdin cannot be identified again, so it is never checkpointed.
    let checkpointable: Vec<bool> = (0..n).map(|i| inputs.identity(i).is_some()).collect();
    let mine = |f: u32| {
        settings
            .only
            .is_none_or(|m| m.get(f as usize) == Some(&true))
    };
    // Inputs of other shards are passed over like checkpointed ones, and then not replayed.
    let done: Vec<bool> = (0..n).map(|i| checkpoints.has(i) || !mine(i)).collect();
    let mut col = Collector::new((clusterer, budget), inputs.inputs.len(), checkpoints, spill);
    if settings.phrases.is_some() {
        col = col.with_phrases();
    }
    if let Some((cfg, out)) = settings.reuse {
        col = col.with_reuse(cfg, out)?;
    }
    if settings.links {
        col = col.with_links()?;
    }
    let skip = |f: u32| done[f as usize];
    let reading = Reading {
        cfg: settings.reader,
        skip: &skip,
        tap,
        cancelled: hooks.cancelled,
    };
    let event = |event| {
        Some(match event {
            ReadEvent::Records(b) => Batch::Items(b),
            ReadEvent::FileDone(f, r) => Batch::FileDone(f, r),
            ReadEvent::Skipped(f) => Batch::Replay(f),
        })
    };
    let outcome = std::thread::scope(|s| {
        let workers = |rx| extract_and_fingerprint(s, settings, hooks.times, rx);
        read_in_order(s, inputs, reading, event, workers, |batch| -> Result<()> {
            match batch {
                Batch::Items(entries) => {
                    let last = entries.last().map(|e| (e.pos.0, e.read_to));
                    for e in entries {
                        col.accept(e, true)?;
                    }
                    if let Some((file, read_to)) = last {
                        (hooks.progress)(inputs.bytes_before(file) + read_to, col.documents());
                    }
                }
                Batch::FileDone(f, r) => col.file_done(f, r, checkpointable[f as usize])?,
                Batch::Replay(f) if mine(f) => col.replay(f)?,
                Batch::Replay(_) => {}
            }
            Ok(())
        })
    })?;
    hooks
        .times
        .read_ns
        .fetch_add(outcome.busy.as_nanos() as u64, Ordering::Relaxed);
    col.finish()
}

/// Whether this run's fingerprints keep wide bytes for 32-bit band keys: from
/// [`DEDUP_WIDE_KEYS_FROM_BYTES`](crawlsift_common::limits::DEDUP_WIDE_KEYS_FROM_BYTES) of input (all of it, not a shard's part, so every shard of a
/// run decides as the single run does).
pub fn wide_keys(inputs: &InputSet) -> bool {
    inputs.total_bytes() >= crawlsift_common::limits::DEDUP_WIDE_KEYS_FROM_BYTES
}

/// Starts the workers on the reader's channel; returns the channel of fingerprinted entries.
/// Each worker extracts and fingerprints a whole batch: one pool of `threads` workers, not a pool
/// per step, so `-j N` keeps N cores busy beside the reader and the collector rather than 2N
/// threads contending for them (issue #36), and a batch's text is fingerprinted while it is still
/// in the worker's cache. The two steps are still timed apart for the report.
fn extract_and_fingerprint<'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    settings: &'scope DedupSettings<'_>,
    times: &'scope StageTimes,
    raw_rx: crossbeam_channel::Receiver<stages::Numbered<Batch<Record>>>,
) -> crossbeam_channel::Receiver<stages::Numbered<Batch<Entry>>> {
    let extractor = settings.extractor;
    let cfg = settings.dedup;
    let phrases = settings.phrases;
    let reuse = settings.reuse.map(|r| r.0);
    let links = settings.links;
    let wide = wide_keys(settings.inputs);
    let init = move || {
        (
            extractor
                .clone()
                .links(links)
                .build()
                .expect("the configuration was checked before any thread started"),
            Fingerprinter::new(cfg).wide_keys(wide),
            phrases.map(Sketcher::new),
        )
    };
    stages::stage(
        s,
        "extract",
        settings.threads,
        raw_rx,
        TEXT_QUEUE_CAP,
        init,
        move |(ex, fper, sketcher), batch: Batch<Record>| {
            let batch = timed(&times.extract_ns, || {
                batch.map_items(|recs| {
                    recs.iter()
                        .map(|r| {
                            let mut e = entry_of(r, ex);
                            if links {
                                // The extractor's own parse, when it decoded as the links do.
                                let same = ex.config().charset == CharsetMode::Auto;
                                let parsed = ex.take_links().filter(|_| same);
                                e.links = crate::links::page_links(r, parsed);
                            }
                            e
                        })
                        .collect()
                })
            });
            timed(&times.fingerprint_ns, || {
                batch.map_items(|mut entries: Vec<Entry>| {
                    for e in entries.iter_mut() {
                        if let Some(text) = &e.text {
                            e.fp = Some(fper.fingerprint(text));
                            if let Some(sk) = sketcher.as_mut() {
                                let (norm, words) = fper.last_words();
                                e.phrases = Some(sk.sketch_words(norm, words));
                            }
                            if let Some(cfg) = reuse {
                                e.reuse = Some(crawlsift_reuse::TextSketch::of(text, cfg));
                            }
                        }
                    }
                    entries
                })
            })
        },
    )
}
