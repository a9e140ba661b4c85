//! `crawlsift links`: the web graph of archives (page and host graphs in cc-webgraph's layout,
//! the anchor text each URL is given). The work is `crawlsift_pipeline::run::links`'s; this
//! module turns the arguments into its request and prints the summary.

use crate::rewrite::ArchivesOutArgs;
use crate::ExitCode;
use crawlsift_pipeline::run::links::{self, LinksRequest};

/// Runs `crawlsift links`.
pub fn run(args: ArchivesOutArgs) -> anyhow::Result<ExitCode> {
    let req = LinksRequest {
        threads: crate::threads(args.threads),
        inputs: args.inputs,
        out: args.out,
        force: args.force,
    };
    let done = crate::with_hooks("links", args.quiet, |h| links::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift links: {}", done.summary());
    }
    Ok(crate::exit_code(crate::cancelled(), &done.tally))
}
