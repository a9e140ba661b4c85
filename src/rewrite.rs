//! `crawlsift rewrite` and `crawlsift wacz`: the arguments of `crawlsift_pipeline::run::rewrite`
//! and `::wacz` (the same for both), and their summaries.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::run::rewrite::{self, OutCompression, RewriteRequest};
use crawlsift_pipeline::run::wacz::{self, WaczRequest};

/// Arguments of `crawlsift rewrite` and `crawlsift wacz`.
#[derive(Args, Debug)]
pub struct ArchivesOutArgs {
    /// Archive files or directories (recursed in sorted order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Where to write: the output folder (`rewrite`: one NAME.warc.gz per input) or the package
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

/// Arguments of `crawlsift rewrite`: those of [`ArchivesOutArgs`] and the compression.
#[derive(Args, Debug)]
pub struct RewriteArgs {
    #[command(flatten)]
    pub common: ArchivesOutArgs,
    /// Write NAME.warc.zst, a zstd frame per record, starting with a dictionary trained on the
    /// inputs' records (IIPC's WARC zstd proposal), instead of NAME.warc.gz.
    #[arg(long)]
    pub zstd: bool,
    /// zstd level, 1 (fast) to 22.
    #[arg(long, value_name = "LEVEL", default_value_t = 3, requires = "zstd")]
    pub zstd_level: i32,
    /// zstd frames without a dictionary.
    #[arg(long, requires = "zstd")]
    pub no_dictionary: bool,
}

/// Runs `crawlsift rewrite`.
pub fn run(a: RewriteArgs) -> anyhow::Result<ExitCode> {
    let args = a.common;
    let threads = crate::threads(args.threads);
    let (inputs, out, force) = (args.inputs, args.out, args.force);
    let compression = match a.zstd {
        false => OutCompression::Gzip,
        true => OutCompression::Zstd {
            level: a.zstd_level,
            dictionary: !a.no_dictionary,
        },
    };
    let req = RewriteRequest {
        inputs,
        out,
        threads,
        force,
        compression,
    };
    let done = crate::with_hooks("rewrite", args.quiet, |h| rewrite::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift rewrite: {}", done.summary());
    }
    Ok(crate::exit_code(crate::cancelled(), &done.tally))
}

/// Runs `crawlsift wacz`.
pub fn run_wacz(args: ArchivesOutArgs) -> anyhow::Result<ExitCode> {
    let threads = crate::threads(args.threads);
    let (inputs, out, force) = (args.inputs, args.out, args.force);
    let req = WaczRequest {
        inputs,
        out,
        threads,
        force,
    };
    let packed = crate::with_hooks("wacz", args.quiet, |h| wacz::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift wacz: {}", packed.summary(&req.out));
    }
    Ok(crate::exit_code(crate::cancelled(), &packed.tally))
}
