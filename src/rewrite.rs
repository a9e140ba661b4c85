//! `crawlsift rewrite`: the arguments of `crawlsift_pipeline::run::rewrite`, and its summary.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::run::rewrite::{self, RewriteRequest};

/// Arguments of `crawlsift rewrite`.
#[derive(Args, Debug)]
pub struct RewriteArgs {
    /// Archive files or directories (recursed in sorted order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The output folder: one NAME.warc.gz per input.
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

/// Runs `crawlsift rewrite`.
pub fn run(args: RewriteArgs) -> anyhow::Result<ExitCode> {
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
