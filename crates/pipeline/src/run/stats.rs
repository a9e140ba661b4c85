//! `stats` ([`run`]): term statistics of the documents' main text (the text `dedup` clusters),
//! counted in input order, and with `after_dedup` the same over the documents a dedup run kept.
//! The counting is `crawlsift_stats`'s; this module reads and feeds it.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crawlsift_extractor::{Extractor, ExtractorBuilder, Method};
use crawlsift_reader::{ReaderConfig, Record};
use crawlsift_stats::{inflated, Corpus, DocRef, DocTerms, Inflated, Summary};
use serde::Deserialize;

use super::Hooks;
use crate::error::{Error, IoContext, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::page::clustered_page;
use crate::write::DOCUMENTS_FILE;

/// What a statistics run is asked to do.
#[derive(Debug, Clone)]
pub struct StatsRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The main-text method.
    pub method: Method,
    /// Rows of the Zipf table.
    pub top: usize,
    /// The output folder of a dedup run over the same inputs.
    pub after_dedup: Option<PathBuf>,
}

/// What a statistics run counted.
pub struct Counted {
    /// The figures of every document.
    pub raw: Summary,
    /// The figures of the documents the dedup run kept.
    pub after_dedup: Option<Summary>,
    /// The words the duplicates inflated most.
    pub inflated: Option<Vec<Inflated>>,
    /// Duplicates listed by the dedup run that were not among the documents read.
    pub unmatched: Option<usize>,
    /// Records that gave no document, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// How the reading went.
    pub tally: ReadTally,
}

/// What `stats --json` prints.
#[derive(serde::Serialize)]
struct StatsJson<'a> {
    #[serde(flatten)]
    raw: &'a Summary,
    /// Records that gave no document, by reason.
    skipped: &'a BTreeMap<&'static str, u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_dedup: Option<&'a Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inflated: Option<&'a [Inflated]>,
}

impl Counted {
    /// What `stats --json` prints: the figures, the skips, and after a dedup run its figures and
    /// the words the duplicates inflated most.
    pub fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&StatsJson {
            raw: &self.raw,
            skipped: &self.skipped,
            after_dedup: self.after_dedup.as_ref(),
            inflated: self.inflated.as_deref(),
        })
    }

    /// The closing lines on stderr: documents and skips, and duplicates of a dedup run that
    /// were not met among the documents read (the run was over other inputs).
    pub fn summary_lines(&self) -> Vec<String> {
        let s: Vec<String> = self
            .skipped
            .iter()
            .map(|(k, n)| format!("{k}={n}"))
            .collect();
        let skipped = if s.is_empty() {
            "none".into()
        } else {
            s.join(" ")
        };
        let mut lines = vec![format!(
            "crawlsift stats: {} documents from {} records; skipped: {skipped}",
            self.raw.documents, self.tally.records
        )];
        if let Some(n) = self.unmatched.filter(|&n| n > 0) {
            lines.push(format!(
                "crawlsift stats: {n} duplicates listed in {DOCUMENTS_FILE} were not among the \
                 documents read: was the dedup run over the same inputs?"
            ));
        }
        lines
    }
}

/// Reads every input and counts the terms of its documents, in input order.
pub fn run(req: &StatsRequest, hooks: &Hooks<'_>, quiet: bool) -> Result<Counted> {
    if req.top > crawlsift_common::limits::STATS_MAX_TOP_WORDS {
        let max = crawlsift_common::limits::STATS_MAX_TOP_WORDS;
        return Err(Error::failed(format!("--top is at most {max}")));
    }
    let inputs = InputSet::expand(&req.inputs)?;
    let builder = ExtractorBuilder::new().method(req.method);
    builder.clone().build()?;
    let scratch = |e| Error::io("a temporary file for counting", std::env::temp_dir(), e);
    let dedup = match &req.after_dedup {
        Some(out) => Some((Corpus::new(false).map_err(scratch)?, Duplicates::load(out)?)),
        None => None,
    };
    let mut counting = Counting {
        raw: Corpus::new(true).map_err(scratch)?,
        dedup,
        skipped: BTreeMap::new(),
    };
    let cfg = ReaderConfig {
        threads: req.threads,
        ..ReaderConfig::default()
    };
    hooks.progress.start(inputs.total_bytes());
    let init = || {
        builder
            .clone()
            .build()
            .expect("the configuration was checked before any thread started")
    };
    let names = &inputs;
    let map = move |ex: &mut Extractor, batch: Vec<Record>| {
        batch
            .iter()
            .map(|rec| Item {
                input: rec.pos.file,
                read_to: rec.read_to,
                doc: DocRef {
                    id: rec.id.clone(),
                    url: rec.url.clone(),
                    file: names.name(rec.pos.file).to_string(),
                    offset: rec.pos.offset,
                    duplicate: None,
                },
                terms: clustered_page(rec, ex).map(|p| DocTerms::of_text(&p.text, true)),
            })
            .collect::<Vec<Item>>()
    };
    let mut documents = 0u64;
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "stats",
        init,
        map,
        |batch: Vec<Item>| -> Result<()> {
            let last = batch.last().map(|i| (i.input, i.read_to));
            for item in batch {
                documents += u64::from(item.terms.is_ok());
                counting.add(item).map_err(scratch)?;
            }
            if let Some((input, read_to)) = last {
                hooks
                    .progress
                    .update(inputs.bytes_before(input) + read_to, documents);
            }
            Ok(())
        },
    );
    hooks.progress.finish();
    let reports = reports?;
    let tally = inputs.tally(&reports, quiet);
    let Counting {
        raw,
        dedup,
        skipped,
    } = counting;
    let inflated_words = dedup
        .as_ref()
        .map(|(d, _)| inflated(raw.vocabulary(), d.vocabulary()));
    let unmatched = dedup.as_ref().map(|(_, dups)| dups.unmatched());
    let raw = raw.finish(req.top).map_err(scratch)?;
    let after_dedup = dedup
        .map(|(d, _)| d.finish(req.top))
        .transpose()
        .map_err(scratch)?;
    Ok(Counted {
        raw,
        after_dedup,
        inflated: inflated_words,
        unmatched,
        skipped,
        tally,
    })
}

/// One record as the workers leave it: its place and its terms, or why it is no document.
struct Item {
    /// The input it came from (its index).
    input: u32,
    /// How far the input had been read ([`crawlsift_reader::Record::read_to`]), for progress.
    read_to: u64,
    doc: DocRef,
    terms: Result<DocTerms, &'static str>,
}

/// The corpora being counted, in input order.
struct Counting {
    raw: Corpus,
    dedup: Option<(Corpus, Duplicates)>,
    skipped: BTreeMap<&'static str, u64>,
}

impl Counting {
    fn add(&mut self, mut item: Item) -> std::io::Result<()> {
        let terms = match item.terms {
            Ok(t) => t,
            Err(why) => {
                *self.skipped.entry(why).or_default() += 1;
                return Ok(());
            }
        };
        if let Some((corpus, dups)) = self.dedup.as_mut() {
            let duplicate = dups.take(&item.doc.id, item.doc.offset);
            item.doc.duplicate = Some(duplicate);
            if !duplicate {
                corpus.add(&item.doc, &terms)?;
            }
        }
        self.raw.add(&item.doc, &terms)?;
        Ok(())
    }
}

/// The documents a dedup run found duplicates, by record id and byte offset (the file names of
/// two runs may be spelt differently; ids and offsets are the archive's own).
struct Duplicates {
    left: HashSet<(String, u64)>,
}

/// The fields of a `documents.jsonl.gz` line this command reads.
#[derive(Deserialize)]
struct DocumentLine {
    id: String,
    offset: u64,
    duplicate_of: Option<String>,
}

impl Duplicates {
    /// Reads `OUT/documents.jsonl.gz` of a dedup run.
    fn load(out: &Path) -> Result<Self> {
        let path = out.join(DOCUMENTS_FILE);
        let file =
            std::fs::File::open(&path).at(&path, || format!("cannot open {}", path.display()))?;
        let reader = BufReader::new(flate2::read::MultiGzDecoder::new(file));
        let mut left = HashSet::new();
        for (n, line) in reader.lines().enumerate() {
            let line = line.at(&path, || format!("reading {}", path.display()))?;
            let d: DocumentLine = serde_json::from_str(&line).map_err(|e| Error::Failed {
                what: format!("{}: line {}", path.display(), n + 1),
                source: Some(Box::new(e)),
            })?;
            if d.duplicate_of.is_some() {
                left.insert((d.id, d.offset));
            }
        }
        Ok(Duplicates { left })
    }

    /// Whether the record is a duplicate (each is found once).
    fn take(&mut self, id: &str, offset: u64) -> bool {
        self.left.remove(&(id.to_string(), offset))
    }

    /// Duplicates not met among the documents read.
    fn unmatched(&self) -> usize {
        self.left.len()
    }
}
