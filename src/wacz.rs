//! `crawlsift wacz`: the arguments of `crawlsift_pipeline::run::wacz`, and its summary.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::run::wacz::{self, WaczRequest};

/// Arguments of `crawlsift wacz`.
#[derive(Args, Debug)]
pub struct WaczArgs {
    /// Archive files or directories (recursed in sorted order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The package to write (FILE.wacz).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Overwrite an existing package.
    #[arg(long)]
    pub force: bool,
    /// No progress or summary on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `crawlsift wacz`.
pub fn run(args: WaczArgs) -> anyhow::Result<ExitCode> {
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
