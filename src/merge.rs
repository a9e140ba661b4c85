//! `crawlsift merge`: the outputs of a dedup run that was split into shards
//! (`crawlsift dedup INPUT... --shard I/N --out DIR_I`), made from the shards' folders alone.
//!
//! The checks and the plan are `crawlsift_pipeline::shard`'s: the shards must be of one run and
//! complete. Every input is replayed from the shard that read it, in input order, into the same
//! collector a single run fills, and the end of the run is the same code
//! ([`crate::conclude`]), so `clusters.jsonl`, `documents.jsonl.gz`, `report.json` (timings and
//! the command line aside) and `--text` are the same bytes as a single run's.

use crate::ExitCode;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_dedup::Clusterer;
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::checkpoint::Checkpoints;
use crawlsift_pipeline::collect::{Collected, Collector};
use crawlsift_pipeline::dedup::StageTimes;
use crawlsift_pipeline::output;
use crawlsift_pipeline::shard::plan_merge;
use crawlsift_pipeline::write::TextSpill;
use crawlsift_pipeline::InputSet;

use crate::conclude::{conclude, refuse_old_outputs, unix_seconds, RunContext, RunOutputs};

/// Arguments of `crawlsift merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The output folder of every shard (`crawlsift dedup ... --shard I/N --out DIR`), any order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Output directory (created if missing): the same files a single `dedup` run writes.
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Also write the clean corpus (the shards must have been run with --text).
    #[arg(long, value_name = "FILE.jsonl.gz")]
    pub text: Option<PathBuf>,
    /// With --text: drop repeated sentences from the kept texts, as `dedup` does.
    #[arg(long, requires = "text")]
    pub drop_popular_phrases: bool,
    /// Memory for what the merge keeps per document and for clustering (e.g. 512M, 2G), as for
    /// `dedup` (word profiles spill to disk past half of it): the outputs are the same bytes
    /// whatever it is.
    #[arg(long, value_name = "SIZE", value_parser = crate::dedup::memory_arg)]
    pub memory: Option<usize>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Overwrite outputs of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `crawlsift merge`.
pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let started_at = unix_seconds();
    let plan = plan_merge(&args.shards)?;
    let method: Method = plan
        .key
        .method
        .parse()
        .map_err(|e| anyhow::anyhow!("the shards name an unknown method: {e}"))?;
    if args.text.is_some() && !plan.key.keep_text {
        return Err(crate::UsageError(
            "--text: the shards were run without --text, so they hold no texts".into(),
        )
        .into());
    }
    if args.shards.iter().any(|d| same_dir(d, &args.out)) {
        return Err(
            crate::UsageError("--out must not be one of the shards' folders".into()).into(),
        );
    }
    output::writable_dir(&args.out)?;
    if let Some(text) = &args.text {
        output::check_writable(text)?;
    }
    refuse_old_outputs(&args.out, args.force)?;

    let inputs = InputSet::from_list(plan.inputs);
    let dedup = plan.key.dedup.clone();
    let extractor = ExtractorBuilder::new().method(method);
    let mut checkpoints = Checkpoints::of_shards(plan.sources);
    let spill = match &args.text {
        Some(_) => Some(TextSpill::create(
            &TextSpill::path_in(&args.out),
            inputs.list().names,
        )?),
        None => None,
    };
    let phrases = plan.key.phrases.is_some();
    let mut clusterer = Clusterer::new(&dedup)?;
    let memory = args.memory.unwrap_or(DEDUP_MEMORY_DEFAULT);
    clusterer.bound_memory(memory, Some(&args.out));
    let collected = replay(
        &inputs,
        clusterer,
        &mut checkpoints,
        spill,
        &plan.failed,
        phrases,
    )?;
    crate::dedup::tell_spilled("merge", &collected, args.quiet);
    if crate::cancelled() {
        drop(collected);
        eprintln!("crawlsift merge: interrupted; nothing was written");
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    }
    let run = RunOutputs {
        command: "merge",
        out: &args.out,
        text: args.text.as_deref(),
        drop_repeats: args.drop_popular_phrases,
        quiet: args.quiet,
        method,
    };
    let ctx = RunContext {
        inputs: &inputs,
        threads: crate::threads(args.threads),
        dedup: &dedup,
        extractor: &extractor,
        against: None,
    };
    let times = StageTimes::default();
    conclude(
        &run,
        &ctx,
        collected,
        checkpoints,
        &times,
        started,
        started_at,
    )
}

/// Replays every input from its shard, in input order (inputs no shard could read are reported
/// with their error, as a single run reports them), keeping the phrase sketches when the shards
/// made them (`--phrases`).
fn replay(
    inputs: &InputSet,
    clusterer: Clusterer,
    checkpoints: &mut Checkpoints,
    spill: Option<TextSpill>,
    failed: &[(u32, String)],
    phrases: bool,
) -> anyhow::Result<Collected> {
    let n = inputs.inputs.len();
    let mut col = Collector::new(clusterer, n, checkpoints, spill);
    if phrases {
        col = col.with_phrases();
    }
    for f in 0..n as u32 {
        if crate::cancelled() {
            break;
        }
        if col.checkpoints().has(f) {
            col.replay(f)?;
        } else if let Some((_, e)) = failed.iter().find(|(g, _)| *g == f) {
            col.file_done(f, Err(e.clone()), false)?;
        }
    }
    col.finish()
}

/// Whether two paths name the same folder.
fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
