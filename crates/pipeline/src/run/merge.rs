//! The merge of a dedup run split into shards ([`run`]): the outputs of a single run, made from
//! the shards' folders alone.
//!
//! The checks and the plan are [`crate::shard`]'s: the shards must be of one run and complete.
//! Every input is replayed from the shard that read it, in input order, into the same collector
//! a single run fills, and the end of the run is the same code ([`super::conclude`]), so
//! `clusters.jsonl`, `documents.jsonl.gz`, `report.json` (timings and the command line aside)
//! and the clean corpus are the same bytes as a single run's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crawlsift_common::budget::MemoryBudget;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_dedup::Clusterer;
use crawlsift_extractor::{ExtractorBuilder, Method};

use super::conclude::{
    conclude, refuse_old_outputs, unix_seconds, Concluded, RunContext, RunOutputs,
};
use super::read::StageTimes;
use super::Hooks;
use crate::checkpoint::Checkpoints;
use crate::collect::{Collected, Collector};
use crate::columns::LineFormat;
use crate::error::{Error, Result};
use crate::flow::inputs::InputSet;
use crate::output;
use crate::shard::plan_merge;
use crate::write::TextSpill;

/// What a merge is asked to do.
#[derive(Debug, Clone)]
pub struct MergeRequest {
    /// The output folder of every shard, in any order.
    pub shards: Vec<PathBuf>,
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// The clean corpus file, if asked for (the shards must have kept their texts).
    pub text: Option<PathBuf>,
    /// With `text`: drop sentences an earlier kept document already holds.
    pub drop_popular_phrases: bool,
    /// The memory budget (bytes), as for a dedup run.
    pub memory: usize,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Overwrite the outputs of an earlier run.
    pub force: bool,
    /// No notes on stderr about inputs that are no archives.
    pub quiet: bool,
    /// How `documents` is written: `documents.jsonl.gz`, or `documents.parquet` (the `--text`
    /// corpus follows its own name: Parquet when it ends in `.parquet`).
    pub format: LineFormat,
}

impl MergeRequest {
    /// A request with the defaults of `crawlsift merge SHARDS --out OUT`.
    pub fn new(shards: Vec<PathBuf>, out: PathBuf) -> Self {
        MergeRequest {
            shards,
            out,
            text: None,
            drop_popular_phrases: false,
            memory: DEDUP_MEMORY_DEFAULT,
            threads: super::threads(None),
            force: false,
            quiet: false,
            format: LineFormat::Json,
        }
    }
}

/// Merges the shards; `None` when the cancellation hook stopped it before anything was written.
pub fn run(req: &MergeRequest, hooks: &Hooks<'_>) -> Result<Option<Concluded>> {
    let started = Instant::now();
    let started_at = unix_seconds();
    let plan = plan_merge(&req.shards)?;
    let method: Method = plan
        .key
        .method
        .parse()
        .map_err(|e| Error::Shards(format!("the shards name an unknown method: {e}")))?;
    if req.text.is_some() && !plan.key.keep_text {
        let why = "--text: the shards were run without --text, so they hold no texts";
        return Err(Error::Usage(why.into()));
    }
    if req.shards.iter().any(|d| same_dir(d, &req.out)) {
        let why = "--out must not be one of the shards' folders";
        return Err(Error::Usage(why.into()));
    }
    output::writable_dir(&req.out)?;
    if let Some(text) = &req.text {
        output::check_writable(text)?;
    }
    refuse_old_outputs(&req.out, req.force)?;

    let inputs = InputSet::from_list(plan.inputs);
    let dedup = plan.key.dedup.clone();
    let extractor = ExtractorBuilder::new().method(method);
    let mut checkpoints = Checkpoints::of_shards(plan.sources);
    let spill = match &req.text {
        Some(_) => Some(TextSpill::create(
            &TextSpill::path_in(&req.out),
            inputs.list().names,
        )?),
        None => None,
    };
    let phrases = plan.key.phrases.is_some();
    let clusterer = Clusterer::new(&dedup)?;
    let budget = MemoryBudget::new(req.memory, Some(&req.out));
    let replayed = Replay {
        inputs: &inputs,
        failed: &plan.failed,
        phrases,
    };
    let collected = replayed.run((clusterer, budget), &mut checkpoints, spill, hooks)?;
    for line in collected.spilled() {
        (hooks.notice)(&line);
    }
    if (hooks.cancelled)() {
        return Ok(None);
    }
    let outputs = RunOutputs {
        out: &req.out,
        text: req.text.as_deref(),
        drop_repeats: req.drop_popular_phrases,
        quiet: req.quiet,
        format: req.format,
        method,
    };
    let ctx = RunContext {
        inputs: &inputs,
        threads: req.threads,
        dedup: &dedup,
        extractor: &extractor,
        against: None,
    };
    let times = StageTimes::default();
    let run = (started, started_at);
    conclude(&outputs, &ctx, collected, checkpoints, &times, run).map(Some)
}

/// What the merge replays.
struct Replay<'a> {
    inputs: &'a InputSet,
    /// Inputs no shard could read, with their error.
    failed: &'a [(u32, String)],
    /// Whether the shards made phrase sketches (`phrases`).
    phrases: bool,
}

impl Replay<'_> {
    /// Replays every input from its shard, in input order (inputs no shard could read are
    /// reported with their error, as a single run reports them).
    fn run(
        &self,
        held: (Clusterer, MemoryBudget),
        checkpoints: &mut Checkpoints,
        spill: Option<TextSpill>,
        hooks: &Hooks<'_>,
    ) -> Result<Collected> {
        let n = self.inputs.inputs.len();
        let mut col = Collector::new(held, n, checkpoints, spill);
        if self.phrases {
            col = col.with_phrases();
        }
        for f in 0..n as u32 {
            if (hooks.cancelled)() {
                break;
            }
            if col.checkpoints().has(f) {
                col.replay(f)?;
            } else if let Some((_, e)) = self.failed.iter().find(|(g, _)| *g == f) {
                col.file_done(f, Err(e.clone()), false)?;
            }
        }
        col.finish()
    }
}

/// Whether two paths name the same folder.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
