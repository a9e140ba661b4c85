//! `crawlsift rewrite` and `crawlsift wacz`: the arguments of `crawlsift_pipeline::run::rewrite`
//! and `::wacz` (the same for both), and their summaries.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::run::rewrite::{self, RewriteRequest};
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
    /// `wacz` only, for tests and gates: index lines packed plain at most, ZipNum past them.
    #[arg(long, hide = true)]
    pub plain_index_max_lines: Option<u64>,
}

/// Runs `crawlsift rewrite`.
pub fn run(args: ArchivesOutArgs) -> anyhow::Result<ExitCode> {
    if args.plain_index_max_lines.is_some() {
        let what = "--plain-index-max-lines is an option of `crawlsift wacz`";
        return Err(crawlsift_pipeline::Error::Usage(what.into()).into());
    }
    let threads = crate::threads(args.threads);
    let (inputs, out, force) = (args.inputs, args.out, args.force);
    let req = RewriteRequest {
        inputs,
        out,
        threads,
        force,
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
        plain_index_max_lines: args
            .plain_index_max_lines
            .unwrap_or(crawlsift_common::limits::WACZ_PLAIN_INDEX_MAX_LINES),
    };
    let packed = crate::with_hooks("wacz", args.quiet, |h| wacz::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift wacz: {}", packed.summary(&req.out));
    }
    Ok(crate::exit_code(crate::cancelled(), &packed.tally))
}
