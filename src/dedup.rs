//! `crawlsift dedup`: the main job. Reads archives, extracts each page's main text, fingerprints
//! it and writes clusters of exact and near-duplicate documents, with a report.
//!
//! Threads: one reader (which itself inflates a large file on all cores), extract workers,
//! fingerprint workers, and the collector on the calling thread, joined by bounded channels
//! (`pipeline`). The collector restores input order, so outputs are the same bytes for any
//! `--threads`.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use crawlsift_common::limits::{RAW_QUEUE_CAP, TEXT_QUEUE_CAP};
use crawlsift_dedup::{probability, Clusterer, Clustering, DedupConfig, Fingerprinter, MatchKind};
use crawlsift_extractor::{Extractor, ExtractorBuilder, Method, TextMethod};
use crawlsift_reader::{ReaderConfig, Record};
use serde::Serialize;
use serde_json::json;

use crate::checkpoint::{Checkpoints, Entry, RunKey};
use crate::docs::{extract_record, Origin, Outcome};
use crate::inputs::{FileSummary, InputSet, ReadEvent, ReadTally};
use crate::output::{write_gzip_chunks, AtomicFile};
use crate::pipeline::{self, Reorder};
use crate::progress::Progress;

/// The files `dedup` writes into `--out`; an existing one needs `--force`.
const OUTPUT_FILES: [&str; 3] = ["clusters.jsonl", "documents.jsonl.gz", "report.json"];

/// Arguments of `crawlsift dedup`.
#[derive(Args, Debug)]
pub struct DedupArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Also write the clean corpus: every unique document and one representative per cluster.
    #[arg(long, value_name = "FILE.jsonl.gz")]
    pub text: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Overwrite outputs of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// What travels between the stages, in input order.
enum Batch<T> {
    /// Records (then entries) of the current input.
    Items(Vec<T>),
    /// An input read to its end, with its summary: the collector checkpoints it.
    FileDone(u32, Result<FileSummary, String>),
    /// An input checkpointed by an earlier run: the collector replays it.
    Replay(u32),
}

impl<T> Batch<T> {
    /// Maps the items of a batch, passing file events through.
    fn map_items<U>(self, f: impl FnOnce(Vec<T>) -> Vec<U>) -> Batch<U> {
        match self {
            Batch::Items(v) => Batch::Items(f(v)),
            Batch::FileDone(i, r) => Batch::FileDone(i, r),
            Batch::Replay(i) => Batch::Replay(i),
        }
    }
}

/// What the collector keeps per record for `documents.jsonl.gz`.
struct DocMeta {
    origin: Origin,
    title: String,
    /// Words, exact hash and SimHash of a page.
    fp: Option<(u32, u128, u64)>,
    skipped: Option<String>,
    doc: Option<u32>,
}

/// Busy time per stage, summed over its threads.
#[derive(Default)]
struct StageTimes {
    read_ns: AtomicU64,
    extract_ns: AtomicU64,
    fingerprint_ns: AtomicU64,
}

fn timed<T>(acc: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    acc.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// The extract stage's work on one record: an entry without its fingerprint yet.
fn entry_of(rec: &Record, ex: &mut Extractor) -> Entry {
    let mut e = Entry {
        pos: (rec.pos.file, rec.pos.offset, rec.pos.index),
        id: rec.id.clone(),
        url: rec.url.clone(),
        skipped: None,
        title: String::new(),
        fp: None,
        text: None,
    };
    match extract_record(rec, ex) {
        // Feeds are lists of other pages' items, not pages: they are not clustered.
        Outcome::Page(p, _) if p.method == TextMethod::Feed => e.skipped = Some("feed".into()),
        Outcome::Page(p, _) => {
            e.title = p.title;
            e.text = Some(p.text);
        }
        Outcome::Skipped(why) => e.skipped = Some(why.into()),
    }
    e
}

/// The collector: takes entries in input order (live or replayed from a checkpoint), feeds the
/// clusterer, keeps per-document metadata, spills texts for `--text` and checkpoints each input.
struct Collector<'a> {
    clusterer: Clusterer,
    metas: Vec<DocMeta>,
    skipped: BTreeMap<String, u64>,
    spill: Option<TextSpill>,
    checkpoints: &'a mut Checkpoints,
    keep_text: bool,
    /// Entries of the input being read, for its checkpoint.
    pending: Vec<Entry>,
    reports: Vec<Option<Result<FileSummary, String>>>,
    documents: u64,
}

impl Collector<'_> {
    fn accept(&mut self, mut e: Entry, live: bool) -> anyhow::Result<()> {
        if live {
            let mut kept = e.clone();
            if !self.keep_text {
                kept.text = None;
            }
            self.pending.push(kept);
        }
        let origin = Origin {
            pos: e.source_pos(),
            id: e.id,
            url: e.url,
        };
        match (e.skipped, e.fp.take()) {
            (None, Some(fp)) => {
                let summary = (fp.words, fp.exact, fp.simhash);
                let doc = self.clusterer.add(fp);
                if let Some(sp) = self.spill.as_mut() {
                    sp.push(&origin, &e.title, e.text.as_deref().unwrap_or(""))?;
                }
                self.metas.push(DocMeta {
                    origin,
                    title: e.title,
                    fp: Some(summary),
                    skipped: None,
                    doc: Some(doc),
                });
                self.documents += 1;
            }
            (why, _) => {
                let why = why.unwrap_or_else(|| "no_fingerprint".into());
                *self.skipped.entry(why.clone()).or_default() += 1;
                if why != "record_type" {
                    self.metas.push(DocMeta {
                        origin,
                        title: String::new(),
                        fp: None,
                        skipped: Some(why),
                        doc: None,
                    });
                }
            }
        }
        Ok(())
    }

    fn file_done(
        &mut self,
        file: u32,
        summary: Result<FileSummary, String>,
        checkpoint: bool,
    ) -> anyhow::Result<()> {
        let entries = std::mem::take(&mut self.pending);
        if let (true, Ok(s)) = (checkpoint, &summary) {
            self.checkpoints.save(file, s, entries)?;
        }
        if let Some(slot) = self.reports.get_mut(file as usize) {
            *slot = Some(summary);
        }
        Ok(())
    }

    fn replay(&mut self, file: u32) -> anyhow::Result<()> {
        let checkpoints: &Checkpoints = self.checkpoints;
        let mut entries = Vec::new();
        let summary = checkpoints.load(file, &mut |e| {
            entries.push(e);
            Ok(())
        })?;
        for e in entries {
            self.accept(e, false)?;
        }
        if let Some(slot) = self.reports.get_mut(file as usize) {
            *slot = Some(Ok(summary));
        }
        Ok(())
    }
}

/// Runs `crawlsift dedup`.
pub fn run(args: DedupArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads)?;
    let dedup_cfg = DedupConfig::default();
    Clusterer::new(&dedup_cfg).context("dedup configuration")?;
    let extractor = ExtractorBuilder::new().method(args.method);
    extractor
        .clone()
        .build()
        .context("extractor configuration")?;
    let reader_cfg = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };

    // Outputs: an unfinished run with the same arguments is resumed; anything else needs --force.
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output directory {}", args.out.display()))?;
    let key = RunKey::new(
        &inputs,
        args.method.as_str(),
        &dedup_cfg,
        args.text.is_some(),
    );
    if !Checkpoints::resumable(&args.out, &key) {
        refuse_old_outputs(&args.out, args.force)?;
    }
    let (mut checkpoints, resuming) = Checkpoints::open(&args.out, &key, args.force)?;
    if resuming && !args.quiet {
        eprintln!(
            "crawlsift dedup: resuming an unfinished run: {} of {} inputs are checkpointed",
            checkpoints.count(),
            inputs.inputs.len()
        );
    }
    let times = StageTimes::default();
    let progress = Progress::new(inputs.total_bytes(), args.quiet);
    let spill_path = args
        .out
        .join(format!(".text-spill.jsonl.tmp-{}", std::process::id()));
    let spill = match &args.text {
        Some(_) => Some(TextSpill::create(&spill_path)?),
        None => None,
    };
    let mut col = Collector {
        clusterer: Clusterer::new(&dedup_cfg)?,
        metas: Vec::new(),
        skipped: BTreeMap::new(),
        spill,
        checkpoints: &mut checkpoints,
        keep_text: args.text.is_some(),
        pending: Vec::new(),
        reports: vec![None; inputs.inputs.len()],
        documents: 0,
    };
    // Stdin cannot be identified again, so it is never checkpointed.
    let checkpointable: Vec<bool> = (0..inputs.inputs.len() as u32)
        .map(|i| inputs.identity(i).is_some())
        .collect();
    let done: Vec<bool> = (0..inputs.inputs.len() as u32)
        .map(|i| col.checkpoints.has(i))
        .collect();

    let collected = std::thread::scope(|s| -> anyhow::Result<()> {
        let (mut producer, raw_rx) = pipeline::producer::<Batch<Record>>(RAW_QUEUE_CAP);
        let (inputs_ref, reader_cfg, done) = (&inputs, &reader_cfg, &done);
        let reader = std::thread::Builder::new()
            .name("reader".into())
            .spawn_scoped(s, move || {
                let skip = |f: u32| done[f as usize];
                inputs_ref.read_all(reader_cfg, &skip, &mut |event| {
                    producer.send(match event {
                        ReadEvent::Records(b) => Batch::Items(b),
                        ReadEvent::FileDone(f, r) => Batch::FileDone(f, r),
                        ReadEvent::Skipped(f) => Batch::Replay(f),
                    })
                })
            })?;
        let init_extractor = || {
            extractor
                .clone()
                .build()
                .expect("the configuration was checked before any thread started")
        };
        let extract_rx = pipeline::stage(
            s,
            "extract",
            threads,
            raw_rx,
            TEXT_QUEUE_CAP,
            init_extractor,
            |ex, batch: Batch<Record>| {
                timed(&times.extract_ns, || {
                    batch.map_items(|recs| recs.iter().map(|r| entry_of(r, ex)).collect())
                })
            },
        );
        let cfg = &dedup_cfg;
        let fp_rx = pipeline::stage(
            s,
            "fingerprint",
            threads,
            extract_rx,
            TEXT_QUEUE_CAP,
            || Fingerprinter::new(cfg),
            |fper, batch: Batch<Entry>| {
                timed(&times.fingerprint_ns, || {
                    batch.map_items(|mut entries| {
                        for e in entries.iter_mut() {
                            if let Some(text) = &e.text {
                                e.fp = Some(fper.fingerprint(text));
                            }
                        }
                        entries
                    })
                })
            },
        );
        let drained = Reorder::drain(fp_rx, |batch: Batch<Entry>| -> anyhow::Result<()> {
            match batch {
                Batch::Items(entries) => {
                    let last = entries.last().map(Entry::source_pos);
                    for e in entries {
                        col.accept(e, true)?;
                    }
                    if let Some(pos) = last {
                        progress.update(inputs.bytes_before(pos.file) + pos.offset, col.documents);
                    }
                }
                Batch::FileDone(f, r) => col.file_done(f, r, checkpointable[f as usize])?,
                Batch::Replay(f) => col.replay(f)?,
            }
            Ok(())
        });
        let outcome = reader.join().expect("the reader thread does not panic");
        times
            .read_ns
            .fetch_add(outcome.busy.as_nanos() as u64, Ordering::Relaxed);
        drained
    });
    progress.finish();
    collected?;
    if crate::cancelled() {
        let _ = fs::remove_file(&spill_path);
        col.checkpoints.flush()?;
        eprintln!(
            "crawlsift dedup: interrupted; {} of {} inputs are checkpointed in {}; run the same command again to finish",
            col.checkpoints.count(),
            inputs.inputs.len(),
            args.out.display()
        );
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    }
    let Collector {
        clusterer,
        metas,
        skipped,
        spill,
        reports,
        ..
    } = col;
    let tally = inputs.tally(&reports, args.quiet);
    let read_done = started.elapsed();

    let cluster_start = Instant::now();
    let index_bytes = clusterer.index_bytes_per_document();
    let clustering = clusterer.finish_on(threads);
    let cluster_time = cluster_start.elapsed();

    // Everything below writes outputs: each appears whole or not at all.
    let doc_metas: Vec<usize> = metas
        .iter()
        .enumerate()
        .filter(|(_, m)| m.doc.is_some())
        .map(|(i, _)| i)
        .collect();
    let write_start = Instant::now();
    // The outputs are independent: write them at the same time (each is serialised and
    // compressed on its own thread).
    std::thread::scope(|s| -> anyhow::Result<()> {
        let clusters_out = args.out.join("clusters.jsonl");
        let (clustering, metas, doc_metas, inputs) = (&clustering, &metas, &doc_metas, &inputs);
        let clusters = std::thread::Builder::new()
            .name("write-clusters".into())
            .spawn_scoped(s, move || {
                write_clusters(&clusters_out, clustering, metas, doc_metas, inputs)
            })?;
        let text = match (&args.text, spill) {
            (Some(path), Some(sp)) => Some(
                std::thread::Builder::new()
                    .name("write-text".into())
                    .spawn_scoped(s, move || {
                        sp.write_clean_corpus(path, clustering, doc_metas.len())
                    })?,
            ),
            _ => None,
        };
        let documents = write_documents(
            &args.out.join("documents.jsonl.gz"),
            clustering,
            metas,
            doc_metas,
            inputs,
            threads,
        );
        let joined = |h: std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>| {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        };
        let clusters = joined(clusters);
        let text = text.map(joined).transpose();
        documents.and(clusters).and(text.map(|_| ()))
    })?;
    let _ = fs::remove_file(&spill_path);
    let write_time = write_start.elapsed();
    let total = started.elapsed();
    let report = build_report(ReportParts {
        reports: &reports,
        inputs: &inputs,
        tally: &tally,
        skipped: &skipped,
        clustering: &clustering,
        documents: doc_metas.len(),
        cfg: &dedup_cfg,
        threads,
        times: &times,
        read_done,
        cluster_time,
        write_time,
        total,
        input_bytes: inputs.total_bytes(),
        index_bytes,
    });
    let mut f = AtomicFile::create(&args.out.join("report.json"))?;
    serde_json::to_writer_pretty(&mut f, &report)?;
    f.write_all(b"\n")?;
    f.commit()?;
    checkpoints.finish()?;

    if !args.quiet {
        let st = &clustering.stats;
        eprintln!(
            "crawlsift dedup: {} documents from {} records in {:.1} s; {} clusters, {} duplicates ({} exact, {} near), {} too short to judge, {} mostly template text",
            doc_metas.len(),
            tally.records,
            total.as_secs_f64(),
            st.clusters,
            st.exact_duplicates + st.near_duplicates,
            st.exact_duplicates,
            st.near_duplicates,
            st.too_short,
            st.boilerplate,
        );
        eprintln!("  clusters:  {}", args.out.join("clusters.jsonl").display());
        eprintln!(
            "  documents: {}",
            args.out.join("documents.jsonl.gz").display()
        );
        eprintln!("  report:    {}", args.out.join("report.json").display());
        if let Some(t) = &args.text {
            eprintln!("  text:      {}", t.display());
        }
    }
    // A Ctrl-C that comes once every input is read no longer stops anything: the outputs above
    // are whole, and the status says how the reading went.
    Ok(crate::exit_code(
        false,
        tally.failed_inputs,
        tally.record_errors,
    ))
}

/// Refuses to overwrite an earlier run's outputs in `out` without `force`.
fn refuse_old_outputs(out: &Path, force: bool) -> anyhow::Result<()> {
    let existing: Vec<&str> = OUTPUT_FILES
        .iter()
        .copied()
        .filter(|f| out.join(f).exists())
        .collect();
    if !existing.is_empty() && !force {
        bail!(
            "{} already holds outputs of a run ({}); pass --force to overwrite them",
            out.display(),
            existing.join(", ")
        );
    }
    Ok(())
}

/// One member of a `clusters.jsonl` line.
#[derive(Serialize)]
struct MemberLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    file: &'a str,
    offset: u64,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// One line of `clusters.jsonl`.
#[derive(Serialize)]
struct ClusterLine<'a> {
    cluster: usize,
    size: usize,
    representative: &'a str,
    members: Vec<MemberLine<'a>>,
}

/// One line of `documents.jsonl.gz` for a page.
#[derive(Serialize)]
struct DocumentLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    file: &'a str,
    offset: u64,
    title: &'a str,
    words: Option<u32>,
    exact_hash: Option<String>,
    simhash: Option<String>,
    cluster: Option<u32>,
    duplicate_of: Option<&'a str>,
    too_short: bool,
    boilerplate: bool,
    skipped: Option<&'a str>,
}

/// One line of `documents.jsonl.gz` for a record that gave no page.
#[derive(Serialize)]
struct SkippedLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    file: &'a str,
    offset: u64,
    cluster: Option<u32>,
    duplicate_of: Option<&'a str>,
    skipped: Option<&'a str>,
}

fn write_clusters(
    path: &Path,
    c: &Clustering,
    metas: &[DocMeta],
    doc_metas: &[usize],
    inputs: &InputSet,
) -> anyhow::Result<()> {
    let mut f = AtomicFile::create(path)?;
    for (ci, cl) in c.clusters.iter().enumerate() {
        let members = cl
            .members
            .iter()
            .map(|m| {
                let o = &metas[doc_metas[m.doc as usize]].origin;
                MemberLine {
                    id: &o.id,
                    url: o.url.as_deref(),
                    file: inputs.name(o.pos.file),
                    offset: o.pos.offset,
                    similarity: (m.similarity as f64 * 10_000.0).round() / 10_000.0,
                    kind: match m.kind {
                        MatchKind::Representative => "representative",
                        MatchKind::Exact => "exact",
                        MatchKind::Near => "near",
                    },
                }
            })
            .collect();
        let line = ClusterLine {
            cluster: ci,
            size: cl.members.len(),
            representative: &metas[doc_metas[cl.representative as usize]].origin.id,
            members,
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    f.commit()
}

fn write_documents(
    path: &Path,
    c: &Clustering,
    metas: &[DocMeta],
    doc_metas: &[usize],
    inputs: &InputSet,
    threads: usize,
) -> anyhow::Result<()> {
    let assign = c.assignments(doc_metas.len());
    let mut dup_of: Vec<Option<u32>> = vec![None; doc_metas.len()];
    for cl in &c.clusters {
        for m in &cl.members {
            if m.doc != cl.representative {
                dup_of[m.doc as usize] = Some(cl.representative);
            }
        }
    }
    let mut flags = vec![(false, false); doc_metas.len()]; // (too short, boilerplate)
    for &d in &c.too_short {
        flags[d as usize].0 = true;
    }
    for &d in &c.boilerplate {
        flags[d as usize].1 = true;
    }
    write_gzip_chunks(path, metas.len(), threads, |range, out| {
        for m in &metas[range] {
            let o = &m.origin;
            let file = inputs.name(o.pos.file);
            match m.doc {
                Some(d) => {
                    let fp = m.fp;
                    let line = DocumentLine {
                        id: &o.id,
                        url: o.url.as_deref(),
                        file,
                        offset: o.pos.offset,
                        title: &m.title,
                        words: fp.map(|f| f.0),
                        exact_hash: fp.map(|f| format!("{:032x}", f.1)),
                        simhash: fp.map(|f| format!("{:016x}", f.2)),
                        cluster: assign[d as usize],
                        duplicate_of: dup_of[d as usize]
                            .map(|r| metas[doc_metas[r as usize]].origin.id.as_str()),
                        too_short: flags[d as usize].0,
                        boilerplate: flags[d as usize].1,
                        skipped: None,
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                }
                None => {
                    let line = SkippedLine {
                        id: &o.id,
                        url: o.url.as_deref(),
                        file,
                        offset: o.pos.offset,
                        cluster: None,
                        duplicate_of: None,
                        skipped: m.skipped.as_deref(),
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                }
            }
            out.push(b'\n');
        }
        Ok(())
    })
}

/// Page texts, written as they come to a temporary file, so `--text` can keep the unique ones
/// after clustering without holding every text in memory.
struct TextSpill {
    file: BufWriter<File>,
    path: PathBuf,
}

impl Drop for TextSpill {
    /// The spill is scratch: it goes, whether the run finished or failed.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

impl TextSpill {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(TextSpill {
            file: BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    fn push(&mut self, o: &Origin, title: &str, text: &str) -> anyhow::Result<()> {
        let line = json!({"id": o.id, "url": o.url, "title": title, "text": text});
        serde_json::to_writer(&mut self.file, &line)
            .map_err(io::Error::from)
            .and_then(|()| self.file.write_all(b"\n"))
            .with_context(|| format!("writing {}", self.path.display()))
    }

    /// Writes the lines of documents that are in no cluster or represent one.
    fn write_clean_corpus(
        mut self,
        target: &Path,
        c: &Clustering,
        docs: usize,
    ) -> anyhow::Result<()> {
        let mut keep = vec![true; docs];
        for cl in &c.clusters {
            for m in &cl.members {
                if m.doc != cl.representative {
                    keep[m.doc as usize] = false;
                }
            }
        }
        self.file
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        let spill =
            File::open(&self.path).with_context(|| format!("reading {}", self.path.display()))?;
        let mut out = AtomicFile::create(target)?;
        for (line, keep) in BufReader::new(spill).lines().zip(keep) {
            let line = line?;
            if keep {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        out.commit()
    }
}

struct ReportParts<'a> {
    reports: &'a [Option<Result<FileSummary, String>>],
    inputs: &'a InputSet,
    tally: &'a ReadTally,
    skipped: &'a BTreeMap<String, u64>,
    clustering: &'a Clustering,
    documents: usize,
    cfg: &'a DedupConfig,
    threads: usize,
    times: &'a StageTimes,
    read_done: Duration,
    cluster_time: Duration,
    write_time: Duration,
    total: Duration,
    input_bytes: u64,
    index_bytes: f64,
}

fn build_report(p: ReportParts) -> serde_json::Value {
    let mut total = FileSummary::default();
    let mut files = Vec::new();
    for (fi, r) in p.reports.iter().enumerate() {
        let path = p.inputs.name(fi as u32);
        match r {
            Some(Ok(r)) => {
                total.add(r);
                files.push(json!({
                    "file": path, "records": r.records, "bytes": r.bytes_in,
                    "errors": r.errors, "error_examples": r.error_examples,
                }));
            }
            Some(Err(e)) => files.push(json!({"file": path, "error": e})),
            None => files.push(json!({"file": path, "error": "not read"})),
        }
    }
    let st = &p.clustering.stats;
    let secs = |d: Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    let ns = |a: &AtomicU64| (a.load(Ordering::Relaxed) as f64 / 1e9 * 1000.0).round() / 1000.0;
    let bounds = candidate_bounds(p.cfg, st);
    json!({
        "records": total.records,
        "records_by_type": total.records_by_kind,
        "record_errors": total.errors,
        "skipped": p.skipped,
        "documents": p.documents,
        "too_short": st.too_short,
        "boilerplate": st.boilerplate,
        "clusters": st.clusters,
        "duplicates": {"exact": st.exact_duplicates, "near": st.near_duplicates},
        "adler32_collisions": st.adler32_collisions,
        "cluster_stats": st,
        "parameters": p.cfg,
        "candidate_probabilities": bounds,
        "threads": p.threads,
        "seconds": {
            "read_extract_fingerprint": secs(p.read_done), "cluster": secs(p.cluster_time),
            "write": secs(p.write_time), "total": secs(p.total),
            "busy": {"read": ns(&p.times.read_ns), "extract": ns(&p.times.extract_ns), "fingerprint": ns(&p.times.fingerprint_ns)},
        },
        "throughput": {
            "documents_per_second": p.documents as f64 / p.total.as_secs_f64().max(1e-9),
            "input_mb_per_second": p.input_bytes as f64 / 1e6 / p.total.as_secs_f64().max(1e-9),
        },
        "peak_memory_bytes": crate::peak_rss_bytes(),
        "index_bytes_per_document": p.index_bytes,
        "inputs_not_archives": p.tally.not_archives,
        "files": files,
    })
}

/// The seed formulas at a few similarities, for the chosen parameters, beside the rates measured
/// in this run: SimHash with L groups of K bits, P(miss) = (1 - p^K)^L for a pair agreeing on a
/// fraction p of bits and P(false candidate) = 1 - (1 - q^K)^L; b-bit MinHash LSH with b bands of
/// r rows, P(candidate) = 1 - (1 - s'^r)^b.
fn candidate_bounds(cfg: &DedupConfig, st: &crawlsift_dedup::ClusterStats) -> serde_json::Value {
    let l = cfg.simhash_max_hamming + 1; // pigeonhole blocks: a pair within the bound shares one
    let k = 64 / l;
    let simhash: Vec<_> = [0u32, 2, 3, 4, 6, 10, 16, 20, 32]
        .iter()
        .map(|&h| {
            let p = 1.0 - f64::from(h) / 64.0;
            json!({
                "hamming": h, "bit_agreement": p,
                "p_miss": probability::simhash_miss(p, k, l),
                "p_candidate": probability::simhash_false_candidate(p, k, l),
            })
        })
        .collect();
    let minhash: Vec<_> = [0.05f64, 0.1, 0.19, 0.3, 0.5, 0.8]
        .iter()
        .map(|&s| {
            let c = probability::bbit_minhash_candidate(
                s,
                crawlsift_common::limits::DEDUP_MINHASH_BITS,
                cfg.lsh_rows as u32,
                cfg.lsh_bands as u32,
            );
            json!({"jaccard": s, "p_candidate": c, "p_miss": 1.0 - c})
        })
        .collect();
    let checks = st.minhash_candidate_checks + st.simhash_candidate_checks;
    json!({
        "simhash": {"groups_l": l, "bits_per_group_k": k, "by_hamming_distance": simhash},
        "minhash_lsh": {"bands": cfg.lsh_bands, "rows": cfg.lsh_rows, "by_jaccard": minhash},
        "measured": {
            "candidate_checks": checks,
            "verified_pairs": st.verified_pairs,
            "rejected_fraction": if checks > 0 { 1.0 - st.verified_pairs as f64 / checks as f64 } else { 0.0 },
        },
    })
}
