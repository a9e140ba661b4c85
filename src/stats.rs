//! `crawlsift stats`: term statistics of the documents' main text (the text `dedup` clusters:
//! TREC text bodies, extracted page text), with Zipf's and Heaps' laws and how unusual each
//! document is; with `--after-dedup OUT`, the same over the documents a dedup run kept. The work
//! is `crawlsift_stats`'s; this module reads, counts in input order and prints.

use crate::ExitCode;
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use crawlsift_common::limits::{STATS_MAX_TOP_WORDS, STATS_TOP_WORDS, TEXT_QUEUE_CAP};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::page::clustered_page;
use crawlsift_pipeline::stages::{self, Reorder};
use crawlsift_pipeline::write::DOCUMENTS_FILE;
use crawlsift_pipeline::InputSet;
use crawlsift_reader::{ReaderConfig, Record};
use crawlsift_stats::{inflated, table, Corpus, DocRef, DocTerms, Inflated, Summary};
use serde::{Deserialize, Serialize};

use crate::progress::Progress;

/// What `stats` counts, said in its `--help` (before the exit statuses).
pub(crate) const WORDS_HELP: &str = "Words are maximal runs of Unicode letters and digits (what \
     `[^\\W_]+` matches), lower-cased; no stemming, no stop list. Documents are the pages `dedup` \
     clusters (feeds and robots.txt are not documents).";

/// Arguments of `crawlsift stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Rows of the Zipf table.
    #[arg(long, value_name = "N", default_value_t = STATS_TOP_WORDS)]
    pub top: usize,
    /// The output folder of a `crawlsift dedup` run over the same inputs: also give the figures
    /// of the documents it kept (unique ones and one per cluster), and the words the duplicates
    /// inflated most.
    #[arg(long, value_name = "OUT")]
    pub after_dedup: Option<PathBuf>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
struct StatsOutput<'a> {
    #[serde(flatten)]
    raw: &'a Summary,
    /// Records that gave no document, by reason.
    skipped: &'a BTreeMap<&'static str, u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_dedup: Option<&'a Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inflated: Option<&'a [Inflated]>,
}

/// One record as the workers leave it: its place and its terms, or why it is no document.
struct Item {
    /// The input it came from (its index).
    input: u32,
    doc: DocRef,
    terms: Result<DocTerms, &'static str>,
}

/// The corpora being counted, in input order.
struct Counting {
    raw: Corpus,
    dedup: Option<(Corpus, Duplicates)>,
    skipped: BTreeMap<&'static str, u64>,
}

/// Runs `crawlsift stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    if args.top > STATS_MAX_TOP_WORDS {
        anyhow::bail!("--top is at most {STATS_MAX_TOP_WORDS}");
    }
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads);
    let builder = ExtractorBuilder::new().method(args.method);
    builder.clone().build().context("extractor configuration")?;
    let dedup = match &args.after_dedup {
        Some(out) => Some((Corpus::new(false)?, Duplicates::load(out)?)),
        None => None,
    };
    let mut counting = Counting {
        raw: Corpus::new(true)?,
        dedup,
        skipped: BTreeMap::new(),
    };
    let reader = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    let progress = Progress::new(inputs.total_bytes(), args.quiet);
    let reports = std::thread::scope(|s| -> anyhow::Result<_> {
        let (handle, raw_rx) = inputs.spawn_record_reader(s, &reader, &crate::cancelled)?;
        let inputs = &inputs;
        let init = || {
            builder
                .clone()
                .build()
                .expect("the configuration was checked before any thread started")
        };
        let items = stages::stage(
            s,
            "stats",
            threads,
            raw_rx,
            TEXT_QUEUE_CAP,
            init,
            move |ex, batch: Vec<Record>| {
                batch
                    .iter()
                    .map(|rec| Item {
                        input: rec.pos.file,
                        doc: DocRef {
                            id: rec.id.clone(),
                            url: rec.url.clone(),
                            file: inputs.name(rec.pos.file).to_string(),
                            offset: rec.pos.offset,
                            duplicate: None,
                        },
                        terms: clustered_page(rec, ex).map(|p| DocTerms::of_text(&p.text, true)),
                    })
                    .collect::<Vec<Item>>()
            },
        );
        let mut documents = 0u64;
        let drained = Reorder::drain(items, |batch: Vec<Item>| -> anyhow::Result<()> {
            let last = batch.last().map(|i| (i.input, i.doc.offset));
            for item in batch {
                documents += u64::from(item.terms.is_ok());
                counting.add(item)?;
            }
            if let Some((input, offset)) = last {
                progress.update(inputs.bytes_before(input) + offset, documents);
            }
            Ok(())
        });
        let outcome = handle.join().expect("the reader thread does not panic");
        drained.map(|()| outcome.reports)
    })?;
    progress.finish();
    let tally = inputs.tally(&reports, args.quiet);
    let Counting {
        raw,
        dedup,
        skipped,
    } = counting;
    let inflated_words = dedup
        .as_ref()
        .map(|(d, _)| inflated(raw.vocabulary(), d.vocabulary()));
    let unmatched = dedup.as_ref().map(|(_, dups)| dups.unmatched());
    let raw = raw.finish(args.top)?;
    let dedup = dedup.map(|(d, _)| d.finish(args.top)).transpose()?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let o = StatsOutput {
            raw: &raw,
            skipped: &skipped,
            after_dedup: dedup.as_ref(),
            inflated: inflated_words.as_deref(),
        };
        serde_json::to_writer_pretty(&mut out, &o)?;
        out.write_all(b"\n")?;
    } else {
        let text = table::render(
            &raw,
            dedup.as_ref(),
            inflated_words.as_deref().unwrap_or(&[]),
        );
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    if !args.quiet {
        let s: Vec<String> = skipped.iter().map(|(k, n)| format!("{k}={n}")).collect();
        eprintln!(
            "crawlsift stats: {} documents from {} records; skipped: {}",
            raw.documents,
            tally.records,
            if s.is_empty() {
                "none".into()
            } else {
                s.join(" ")
            }
        );
        if let Some(n) = unmatched.filter(|&n| n > 0) {
            eprintln!(
                "crawlsift stats: {n} duplicates listed in {} were not among the documents read: \
                 was the dedup run over the same inputs?",
                DOCUMENTS_FILE
            );
        }
    }
    Ok(crate::exit_code(crate::cancelled(), &tally))
}

impl Counting {
    fn add(&mut self, mut item: Item) -> anyhow::Result<()> {
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
    fn load(out: &Path) -> anyhow::Result<Self> {
        let path = out.join(DOCUMENTS_FILE);
        let file = std::fs::File::open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let reader = BufReader::new(flate2::read::MultiGzDecoder::new(file));
        let mut left = HashSet::new();
        for (n, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("reading {}", path.display()))?;
            let d: DocumentLine = serde_json::from_str(&line)
                .with_context(|| format!("{}: line {}", path.display(), n + 1))?;
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
