//! `reuse` ([`run`]): the passages documents share (partial copies, quotations, pasted
//! paragraphs), written to `reuse.jsonl` in the output folder. This module checks the request,
//! prepares the output folder and calls [`crate::reuse::run_reuse`], which does the work.

use std::path::PathBuf;

use crawlsift_common::limits::{REUSE_MAX_POSTING, REUSE_MIN_PASSAGE_WORDS};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_reader::ReaderConfig;
use crawlsift_reuse::{Corpus, ReuseConfig};

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::output;
use crate::reuse::{run_reuse, ReuseSettings, ReuseSummary, REUSE_FILE, STORIES_FILE};

/// What a reuse run is asked to do.
#[derive(Debug, Clone)]
pub struct ReuseRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// Fewest words of a reported passage, in each document.
    pub min_passage_words: usize,
    /// Most documents one fingerprint may pair.
    pub max_posting: usize,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The main-text method.
    pub method: Method,
    /// Overwrite the output of an earlier run.
    pub force: bool,
}

impl ReuseRequest {
    /// A request with the default settings.
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf) -> Self {
        ReuseRequest {
            inputs,
            out,
            min_passage_words: REUSE_MIN_PASSAGE_WORDS,
            max_posting: REUSE_MAX_POSTING,
            threads: super::threads(None),
            method: Method::default(),
            force: false,
        }
    }
}

/// What a reuse run did.
pub struct ReuseOutcome {
    /// The figures of the run.
    pub summary: ReuseSummary,
    /// How the reading went.
    pub tally: ReadTally,
    /// The file written.
    pub target: PathBuf,
}

/// Reads every input and writes the pairs of documents that share passages to
/// `out/reuse.jsonl` and the stories to `out/stories.jsonl`. Errors before any reading: a bad setting, an unwritable folder, an
/// existing output without `force`.
pub fn run(req: &ReuseRequest, hooks: &Hooks<'_>, quiet: bool) -> Result<ReuseOutcome> {
    let cfg = ReuseConfig {
        min_passage_words: req.min_passage_words,
        max_posting: req.max_posting,
        ..ReuseConfig::default()
    };
    Corpus::new(&cfg).map_err(|e| Error::Usage(e.to_string()))?;
    let inputs = InputSet::expand(&req.inputs)?;
    let threads = req.threads.max(1);
    let extractor = ExtractorBuilder::new().method(req.method);
    extractor.clone().build()?;
    let reader = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    output::writable_dir(&req.out)?;
    let target = req.out.join(REUSE_FILE);
    let outputs = [REUSE_FILE, STORIES_FILE].map(|f| req.out.join(f));
    output::refuse_existing(&outputs, req.force)?;
    for path in &outputs {
        output::check_writable(path)?;
    }
    hooks.progress.start(inputs.total_bytes());
    let settings = ReuseSettings {
        inputs: &inputs,
        reader: &reader,
        extractor: &extractor,
        reuse: &cfg,
        threads,
    };
    let summary = run_reuse(&settings, &req.out, hooks.cancelled, &|bytes, docs| {
        hooks.progress.update(bytes, docs)
    })?;
    hooks.progress.finish();
    let tally = inputs.tally(&summary.reports, quiet);
    Ok(ReuseOutcome {
        summary,
        tally,
        target,
    })
}
