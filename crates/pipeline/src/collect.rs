//! The collector of a dedup run: takes record outcomes ([`Entry`]) in input order, live or replayed
//! from a checkpoint, feeds the clusterer, keeps per-record metadata for `documents.jsonl.gz`
//! ([`Catalog`]), counts what both hold into the run's [`MemoryBudget`] and, when the budget
//! says so ([`MemoryBudget::keep`]), has the part it names move its oldest items to disk
//! (profiles, then catalog records, then signatures); spills texts for `--text` and checkpoints
//! each input once it is read.

use crate::error::{Error, IoContext, Result};
use std::collections::BTreeMap;

use crawlsift_common::budget::{MemoryBudget, Part, Spilled};
use crawlsift_dedup::Clusterer;
use crawlsift_extractor::Extractor;
use crawlsift_reader::{FileReport, Record};
use crawlsift_reuse::ReuseConfig;
use std::path::Path;

use crate::catalog::{Catalog, DocMeta, FingerprintSummary};
use crate::checkpoint::{Checkpoints, Entry};
use crate::links::{LinkGatherer, LinkThread};
use crate::page::{clustered_page, Origin};
use crate::phrases::PhraseStore;
use crate::reuse::ReuseGatherer;
use crate::write::TextSpill;

/// The reason name of a record that reached the collector without a fingerprint.
const NO_FINGERPRINT: &str = "no_fingerprint";

/// Skip reasons counted but given no line in `documents.jsonl.gz` (records that cannot hold a
/// page: requests, metadata, ...).
const UNLISTED_SKIPS: [&str; 1] = ["record_type"];

/// What travels between the stages of a dedup run, in input order.
#[derive(Debug)]
pub enum Batch<T> {
    /// Records (then entries) of the current input.
    Items(Vec<T>),
    /// An input read to its end, with its summary: the collector checkpoints it.
    FileDone(u32, Result<FileReport, String>),
    /// An input checkpointed by an earlier run: the collector replays it.
    Replay(u32),
}

impl<T> Batch<T> {
    /// Maps the items of a batch, passing file events through.
    pub fn map_items<U>(self, f: impl FnOnce(Vec<T>) -> Vec<U>) -> Batch<U> {
        match self {
            Batch::Items(v) => Batch::Items(f(v)),
            Batch::FileDone(i, r) => Batch::FileDone(i, r),
            Batch::Replay(i) => Batch::Replay(i),
        }
    }
}

/// The extract stage's work on one record: an entry without its fingerprint yet.
pub fn entry_of(rec: &Record, ex: &mut Extractor) -> Entry {
    let mut e = Entry {
        pos: (rec.pos.file, rec.pos.offset, rec.pos.index),
        uoffset: rec.uoffset,
        id: rec.id.clone(),
        url: rec.url.clone(),
        skipped: None,
        title: String::new(),
        fp: None,
        text: None,
        phrases: None,
        reuse: None,
        links: None,
        date: rec.date.clone(),
        read_to: rec.read_to,
    };
    match clustered_page(rec, ex) {
        Ok(p) => {
            e.title = p.title;
            e.text = Some(p.text);
        }
        Err(why) => e.skipped = Some(why.into()),
    }
    e
}

/// What the collector gathered once every input was read (or replayed).
pub struct Collected {
    /// The clusterer holding every document's fingerprint, in input order.
    pub clusterer: Clusterer,
    /// The run's memory budget, as it stands once every document is held: clustering works in
    /// what it leaves ([`Clusterer::cluster_within`]).
    pub budget: MemoryBudget,
    /// Per-record metadata.
    pub catalog: Catalog,
    /// Records that gave no document, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// The spilled texts, for `--text`.
    pub spill: Option<TextSpill>,
    /// Per input, its summary if it was read (or replayed).
    pub reports: Vec<Option<Result<FileReport, String>>>,
    /// Every document's phrase sketch, for `--phrases`.
    pub phrases: Option<PhraseStore>,
    /// Every document's text and reuse sketch, for `--reuse`.
    pub reuse: Option<ReuseGatherer>,
    /// Every page's links, for `--links`.
    pub links: Option<LinkGatherer>,
}

impl Collected {
    /// What went to disk past `--memory`, a sentence each (without the command's name): word
    /// profiles, signatures, records of the catalog; nothing when everything stayed in memory.
    pub fn spilled(&self) -> Vec<String> {
        let (docs, records) = (self.clusterer.len(), self.catalog.records());
        let profiles = self.clusterer.spilled_documents();
        let signatures = self.clusterer.spilled_signatures();
        let rows = self.catalog.spilled();
        [
            (
                profiles,
                format!("the word profiles of {profiles} of {docs} documents"),
            ),
            (
                signatures,
                format!("the signatures of {signatures} of {docs} documents"),
            ),
            (rows, format!("{rows} of {records} records of the catalog")),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(_, what)| format!("{what} were spilled to disk past --memory"))
        .collect()
    }
}

/// Takes entries in input order and keeps what the outputs need (see the module doc).
pub struct Collector<'a> {
    clusterer: Clusterer,
    budget: MemoryBudget,
    catalog: Catalog,
    skipped: BTreeMap<String, u64>,
    spill: Option<TextSpill>,
    checkpoints: &'a mut Checkpoints,
    keep_text: bool,
    /// Entries of the input being read, for its checkpoint.
    pending: Vec<Entry>,
    reports: Vec<Option<Result<FileReport, String>>>,
    phrases: Option<PhraseStore>,
    reuse: Option<(ReuseGatherer, ReuseConfig)>,
    links: Option<LinkThread>,
}

impl<'a> Collector<'a> {
    /// A collector over `inputs` inputs into `clusterer`, within `budget`, checkpointing into
    /// `checkpoints`, spilling page texts into `spill` when given (and then keeping them in
    /// checkpoints).
    pub fn new(
        (clusterer, budget): (Clusterer, MemoryBudget),
        inputs: usize,
        checkpoints: &'a mut Checkpoints,
        spill: Option<TextSpill>,
    ) -> Self {
        Collector {
            clusterer,
            budget,
            catalog: Catalog::default(),
            skipped: BTreeMap::new(),
            keep_text: spill.is_some(),
            spill,
            checkpoints,
            pending: Vec::new(),
            reports: vec![None; inputs],
            phrases: None,
            reuse: None,
            links: None,
        }
    }

    /// Gathers every page's links into the web graph, in input order (`--links`).
    pub fn with_links(mut self) -> Result<Self> {
        self.links = Some(LinkThread::start()?);
        Ok(self)
    }

    /// Gathers every document's text and reuse sketch for `--reuse` (its scratch file in `out`);
    /// checkpoints then keep the texts, which a replayed input's sketches are made again from.
    pub fn with_reuse(mut self, cfg: &ReuseConfig, out: &Path) -> Result<Self> {
        self.reuse = Some((ReuseGatherer::new(cfg, out)?, cfg.clone()));
        self.keep_text = true;
        Ok(self)
    }

    /// Keeps every document's phrase sketch (`--phrases`).
    pub fn with_phrases(mut self) -> Self {
        self.phrases = Some(PhraseStore::default());
        self
    }

    /// The checkpoints being written.
    pub fn checkpoints(&self) -> &Checkpoints {
        self.checkpoints
    }

    /// Documents so far.
    pub fn documents(&self) -> u64 {
        self.catalog.documents() as u64
    }

    /// Takes one record's entry; `live` entries (not replayed) go into the input's checkpoint.
    pub fn accept(&mut self, mut e: Entry, live: bool) -> Result<()> {
        if live {
            let mut kept = e.clone();
            if !self.keep_text {
                kept.text = None;
            }
            self.pending.push(kept);
        }
        if let (Some(g), Some(page)) = (self.links.as_mut(), e.links.take()) {
            g.add(page)?;
        }
        let origin = Origin {
            pos: e.source_pos(),
            uoffset: e.uoffset,
            id: e.id,
            url: e.url,
        };
        if let (None, Some(text), Some((g, cfg))) = (&e.skipped, &e.text, self.reuse.as_mut()) {
            let sketch = e
                .reuse
                .take()
                .unwrap_or_else(|| crawlsift_reuse::TextSketch::of(text, cfg));
            let place = (origin.pos.file, origin.pos.offset);
            g.add(place, origin.id.clone(), origin.url.clone(), text, &sketch)?;
        }
        match (e.skipped, e.fp.take()) {
            (None, Some(fp)) => {
                let summary = FingerprintSummary {
                    words: fp.words,
                    exact: fp.exact,
                    simhash: fp.simhash,
                };
                let site = crate::site::site_of(origin.url.as_deref());
                let doc = self.clusterer.add_counted(fp, &site, &mut self.budget);
                if let Some(store) = self.phrases.as_mut() {
                    store.push(e.phrases.take());
                }
                if let Some(sp) = self.spill.as_mut() {
                    sp.push(
                        &origin,
                        e.date.as_deref(),
                        &e.title,
                        e.text.as_deref().unwrap_or(""),
                    )?;
                }
                let held = self.catalog.push(DocMeta {
                    origin,
                    title: e.title,
                    fp: Some(summary),
                    skipped: None,
                    doc: Some(doc),
                });
                self.budget.count(Part::Catalog, held);
                self.keep_within_budget()?;
            }
            (why, _) => {
                let why = why.unwrap_or_else(|| NO_FINGERPRINT.into());
                *self.skipped.entry(why.clone()).or_default() += 1;
                if !UNLISTED_SKIPS.contains(&why.as_str()) {
                    let held = self.catalog.push(DocMeta {
                        origin,
                        title: String::new(),
                        fp: None,
                        skipped: Some(why),
                        doc: None,
                    });
                    self.budget.count(Part::Catalog, held);
                    self.keep_within_budget()?;
                }
            }
        }
        Ok(())
    }

    /// Past the budget's resident share, has the parts it names, in its order, move their oldest
    /// items to its spill folder. A spill file that cannot be written (the disk is full) stops
    /// the run now.
    fn keep_within_budget(&mut self) -> Result<()> {
        let (clusterer, catalog) = (&mut self.clusterer, &mut self.catalog);
        self.budget.keep(|part, bytes, dir| -> Result<Spilled> {
            Ok(match part {
                Part::Profiles => clusterer.spill_profiles(bytes, dir)?,
                Part::Signatures => clusterer.spill_signatures(bytes, dir)?,
                Part::Catalog => Spilled {
                    freed: catalog.spill_oldest(bytes, dir).at(dir, || {
                        format!(
                            "writing the catalog of records to a temporary file in {}",
                            dir.display()
                        )
                    })?,
                    kept: 0,
                },
                Part::Fixed => Spilled::default(),
            })
        })
    }

    /// Input `file` was read to its end: keeps its summary and, when `checkpoint`, saves its
    /// entries.
    pub fn file_done(
        &mut self,
        file: u32,
        summary: Result<FileReport, String>,
        checkpoint: bool,
    ) -> Result<()> {
        let entries = std::mem::take(&mut self.pending);
        if let (true, Ok(s)) = (checkpoint, &summary) {
            self.checkpoints.save(file, s, entries)?;
        }
        if let Some(slot) = self.reports.get_mut(file as usize) {
            *slot = Some(summary);
        }
        Ok(())
    }

    /// Replays input `file` from its checkpoint, as if it had been read.
    pub fn replay(&mut self, file: u32) -> Result<()> {
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

    /// Everything gathered (the catalog's spilled records written out).
    pub fn finish(mut self) -> Result<Collected> {
        self.catalog.finish_spill().map_err(|e| Error::Failed {
            what: "writing the catalog of records to a temporary file".into(),
            source: Some(Box::new(e)),
        })?;
        Ok(Collected {
            clusterer: self.clusterer,
            budget: self.budget,
            catalog: self.catalog,
            skipped: self.skipped,
            spill: self.spill,
            reports: self.reports,
            phrases: self.phrases,
            reuse: self.reuse.map(|r| r.0),
            links: self.links.map(LinkThread::finish).transpose()?,
        })
    }
}
