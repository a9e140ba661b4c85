//! `crawlsift rewrite` and `crawlsift wacz`: the arguments of `crawlsift_pipeline::run::rewrite`
//! and `::wacz` (the same for both), and their summaries.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_common::limits::{REWRITE_MEMORY_DEFAULT, WACZ_PLAIN_INDEX_MAX_LINES};
use crawlsift_pipeline::run::rewrite::{self, OutCompression, RewriteRequest};
use crawlsift_pipeline::run::wacz::{self, WaczRequest};

/// Arguments of `crawlsift rewrite`, `crawlsift wacz` and `crawlsift links`.
#[derive(Args, Debug)]
pub struct ArchivesOutArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// The output folder (`rewrite`: a NAME.warc.gz per input; `links`: the graphs) or package
    /// (`wacz`: FILE.wacz).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Overwrite the outputs of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No progress or summary on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Arguments of `crawlsift wacz`; for tests and gates, the most index lines packed plain.
#[derive(Args, Debug)]
pub struct WaczArgs {
    #[command(flatten)]
    pub common: ArchivesOutArgs,
    #[arg(long, hide = true)]
    pub plain_index_max_lines: Option<u64>,
}

/// Arguments of `crawlsift rewrite`: those of [`ArchivesOutArgs`] and the compression.
#[derive(Args, Debug)]
pub struct RewriteArgs {
    #[command(flatten)]
    pub common: ArchivesOutArgs,
    /// NAME.warc.zst: a zstd frame per record after a dictionary trained on the inputs' records.
    #[arg(long)]
    pub zstd: bool,
    /// zstd level, 1 (fast) to 22.
    #[arg(long, value_name = "LEVEL", default_value_t = 3, requires = "zstd")]
    pub zstd_level: i32,
    /// zstd frames without a dictionary.
    #[arg(long, requires = "zstd")]
    pub no_dictionary: bool,
    /// Memory for the table of payloads written (default 256M); past it, a file in --out.
    #[arg(long, value_name = "SIZE", value_parser = crawlsift_pipeline::run::parse_size)]
    pub memory: Option<usize>,
    /// A dedup run's clusters.jsonl of the same inputs: rewrite-report.json lists its near-dups.
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<PathBuf>,
}

/// Runs `crawlsift rewrite`.
pub fn run(a: RewriteArgs) -> anyhow::Result<ExitCode> {
    let args = a.common;
    let req = RewriteRequest {
        threads: crate::threads(args.threads),
        compression: OutCompression::of_flags(a.zstd, a.zstd_level, !a.no_dictionary),
        memory: a.memory.unwrap_or(REWRITE_MEMORY_DEFAULT),
        clusters: a.clusters,
        report: true,
        inputs: args.inputs.paths()?,
        out: args.out,
        force: args.force,
    };
    let done = crate::with_hooks("rewrite", args.quiet, |h| rewrite::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift rewrite: {}", done.summary());
    }
    Ok(crate::exit_code(crate::cancelled(), &done.tally))
}

/// Runs `crawlsift wacz`.
pub fn run_wacz(a: WaczArgs) -> anyhow::Result<ExitCode> {
    let args = a.common;
    let req = WaczRequest {
        threads: crate::threads(args.threads),
        inputs: args.inputs.paths()?,
        out: args.out,
        force: args.force,
        plain_index_max_lines: a
            .plain_index_max_lines
            .unwrap_or(WACZ_PLAIN_INDEX_MAX_LINES),
    };
    let packed = crate::with_hooks("wacz", args.quiet, |h| wacz::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift wacz: {}", packed.summary(&req.out));
    }
    Ok(crate::exit_code(crate::cancelled(), &packed.tally))
}
