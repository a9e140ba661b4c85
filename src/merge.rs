//! `crawlsift merge`: the outputs of a dedup run that was split into shards
//! (`crawlsift dedup INPUT... --shard I/N --out DIR_I`), made from the shards' folders alone.
//!
//! The merge is the library's (`crawlsift_pipeline::run::merge`): the same collector and the
//! same end of the run as a single `dedup`, so the outputs are the same bytes. This module
//! parses the arguments and prints.

use std::path::PathBuf;

use clap::Args;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_pipeline::run::merge::{self, MergeRequest};

use crate::ExitCode;

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
    /// `documents` as `json` lines (`documents.jsonl.gz`) or `parquet` (`documents.parquet`, the
    /// same rows and columns); the --text file is Parquet when its name ends in `.parquet`.
    #[arg(long, default_value = "json")]
    pub format: crawlsift_pipeline::columns::LineFormat,
    /// With --text: drop repeated sentences from the kept texts, as `dedup` does.
    #[arg(long, requires = "text")]
    pub drop_popular_phrases: bool,
    /// Memory for what the merge keeps per document and for clustering (e.g. 512M, 2G), as for
    /// `dedup` (word profiles spill to disk past half of it): the outputs are the same bytes
    /// whatever it is.
    #[arg(long, value_name = "SIZE", value_parser = crawlsift_pipeline::run::parse_size)]
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
    let req = MergeRequest {
        shards: args.shards,
        out: args.out,
        text: args.text,
        drop_popular_phrases: args.drop_popular_phrases,
        memory: args.memory.unwrap_or(DEDUP_MEMORY_DEFAULT),
        threads: crate::threads(args.threads),
        force: args.force,
        quiet: args.quiet,
        format: args.format,
    };
    match crate::with_hooks("merge", args.quiet, |hooks| merge::run(&req, hooks))? {
        Some(done) => {
            if !args.quiet {
                let text = req.text.as_deref();
                for line in done.summary_lines("merge", &req.out, text) {
                    eprintln!("{line}");
                }
            }
            Ok(crate::exit_code(false, &done.tally))
        }
        None => {
            eprintln!("crawlsift merge: interrupted; nothing was written");
            Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
        }
    }
}
