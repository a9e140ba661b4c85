//! `crawlsift dedup`: the main job. Reads archives, extracts each page's main text, fingerprints
//! it and writes clusters of exact and near-duplicate documents, with a report.
//!
//! The run is the library's (`crawlsift_pipeline::run::dedup`); this module parses the
//! arguments, prints the run's notes and summary and gives the exit status.

use std::path::PathBuf;

use clap::Args;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_extractor::Method;
use crawlsift_pipeline::run::dedup::{self, DedupOutcome, DedupRequest};
use crawlsift_pipeline::shard::ShardSpec;

use crate::ExitCode;

/// Arguments of `crawlsift dedup`.
#[derive(Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Also write the clean corpus: every unique document and one representative per cluster.
    #[arg(long, value_name = "FILE.jsonl.gz")]
    pub text: Option<PathBuf>,
    /// `documents` as `json` lines (`documents.jsonl.gz`) or `parquet` (`documents.parquet`, the
    /// same rows and columns); the --text file is Parquet when its name ends in `.parquet`.
    #[arg(long, default_value = "json")]
    pub format: crawlsift_pipeline::columns::LineFormat,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
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
    /// What makes two documents near-duplicates.
    #[command(flatten)]
    pub judging: crate::JudgingArgs,
    /// Read only shard I of N (0 <= I < N) of the inputs (split by file, the same way in every
    /// shard) and keep its documents and fingerprints in --out for `crawlsift merge`, which
    /// writes the outputs; with --text the shard keeps the texts (the merge writes the file).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<ShardSpec>,
    /// Also report which documents duplicate documents of this index (made by `crawlsift
    /// index`; its archives are not read): `against.jsonl`, and counts in `report.json`.
    #[arg(long, value_name = "IDX")]
    pub against: Option<PathBuf>,
    /// Also find phrase-level duplication: pages stitched from sentences of many other pages
    /// (`slice_and_dice.jsonl`, `popular_phrases.jsonl`, `phrases` in `report.json`).
    #[arg(long)]
    pub phrases: bool,
    /// With --text: drop from the kept texts the sentences (5 words or more) an earlier kept
    /// document already holds; `report.json` counts them (`drop_popular_phrases`).
    #[arg(long, requires = "text")]
    pub drop_popular_phrases: bool,
    /// Also find the passages documents share (partial copies, pasted paragraphs), in the same
    /// pass, and the documents telling the same story: `reuse.jsonl` and `stories.jsonl`, as
    /// `crawlsift reuse` writes them, and `reuse` in `report.json`.
    #[arg(long, conflicts_with = "shard")]
    pub reuse: bool,
    /// Also write the web graph of the pages' links, as `crawlsift links` does, in the same pass;
    /// with --text each kept line carries the anchor texts its URL is given (`anchors`).
    #[arg(long, conflicts_with = "shard")]
    pub links: bool,
    /// Memory for what the run keeps per document and for clustering (e.g. 512M, 2G; default
    /// 2G): past half of it, word profiles go to a temporary file in the output folder, and
    /// clustering steps work in parts within the rest. The outputs are the same bytes whatever it
    /// is. (A shard, or a run with --against, keeps its profiles in memory.)
    #[arg(long, value_name = "SIZE", value_parser = crawlsift_pipeline::run::parse_size)]
    pub memory: Option<usize>,
}

/// Runs `crawlsift dedup`.
pub fn run(args: DedupArgs) -> anyhow::Result<ExitCode> {
    let req = DedupRequest {
        inputs: args.inputs.paths()?,
        out: args.out,
        text: args.text,
        threads: crate::threads(args.threads),
        method: args.method,
        force: args.force,
        judging: args.judging.judging(),
        shard: args.shard,
        against: args.against,
        phrases: args.phrases,
        drop_popular_phrases: args.drop_popular_phrases,
        reuse: args.reuse,
        links: args.links,
        memory: args.memory.unwrap_or(DEDUP_MEMORY_DEFAULT),
        quiet: args.quiet,
        format: args.format,
    };
    let quiet = req.quiet;
    let outcome = crate::with_hooks("dedup", quiet, |hooks| dedup::run(&req, hooks))?;
    match outcome {
        DedupOutcome::Finished(done) => {
            if !quiet {
                for line in done.summary_lines("dedup", &req.out, req.text.as_deref()) {
                    eprintln!("{line}");
                }
            }
            Ok(crate::exit_code(false, &done.tally))
        }
        DedupOutcome::Interrupted {
            checkpointed,
            inputs,
        } => {
            eprintln!(
                "crawlsift dedup: interrupted; {checkpointed} of {inputs} inputs are checkpointed in {}; run the same command again to finish",
                req.out.display()
            );
            Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
        }
        DedupOutcome::Shard(s) => {
            if !quiet {
                eprintln!(
                    "crawlsift dedup: shard {}: {} of {} inputs, {} documents, kept in {}; \
                     when every shard is done: crawlsift merge DIR_0 ... DIR_{} --out OUT",
                    s.spec,
                    s.inputs,
                    s.all_inputs,
                    s.documents,
                    req.out.display(),
                    s.spec.count - 1
                );
            }
            Ok(crate::exit_code(false, &s.tally))
        }
    }
}
