//! `crawlsift links` (the web graph of archives: page and host graphs in cc-webgraph's layout,
//! the anchor text each URL is given) and `crawlsift rank` (PageRank, HITS and harmonic
//! centrality of one of those graphs). The work is `crawlsift_pipeline::run::links`' and
//! `::rank`'s; this module turns the arguments into their requests and prints the summaries.

use crate::rewrite::ArchivesOutArgs;
use crate::ExitCode;
use crawlsift_pipeline::run::links::{self, LinksRequest};
use crawlsift_pipeline::run::rank::{self, RankRequest};
use std::path::PathBuf;

/// Runs `crawlsift links`.
pub fn run(args: ArchivesOutArgs) -> anyhow::Result<ExitCode> {
    let req = LinksRequest {
        threads: crate::threads(args.threads),
        inputs: args.inputs.paths()?,
        out: args.out,
        force: args.force,
    };
    let done = crate::with_hooks("links", args.quiet, |h| links::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift links: {}", done.summary());
    }
    Ok(crate::exit_code(crate::cancelled(), &done.tally))
}

/// Arguments of `crawlsift rank`.
#[derive(clap::Args, Debug)]
pub struct RankArgs {
    /// A `crawlsift links` output folder: its host graph is ranked (`--pages`: its page graph).
    pub dir: PathBuf,
    /// Rank the page graph instead of the host graph.
    #[arg(long)]
    pub pages: bool,
    /// PageRank's damping factor.
    #[arg(long, default_value_t = 0.85)]
    pub damping: f64,
    /// Convergence tolerance of PageRank and HITS, per vertex (networkx's `tol`).
    #[arg(long, default_value_t = 1e-9)]
    pub tolerance: f64,
    /// A dedup run's clusters.jsonl of the same archives: also rank the page graph with
    /// duplicates collapsed into their representative (into pages/collapsed/).
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<PathBuf>,
    /// Harmonic centrality: exact (one search per vertex, up to 100,000 vertices), HyperBall's
    /// estimate, or auto (exact where it may be, HyperBall past that).
    #[arg(long, value_enum, default_value_t = HarmonicArg::Auto)]
    pub harmonic: HarmonicArg,
    /// HyperBall's counters have 2^N registers (4 to 16): each more doubles their memory and
    /// divides the error by √2.
    #[arg(long, value_name = "N", default_value_t = rank::DEFAULT_LOG2M)]
    pub registers: u32,
    /// Threads for harmonic centrality (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// No summary on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `--harmonic`'s values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum HarmonicArg {
    Auto,
    Exact,
    Hyperball,
}

/// Runs `crawlsift rank`.
pub fn run_rank(args: RankArgs) -> anyhow::Result<ExitCode> {
    let req = RankRequest {
        dir: args.dir,
        pages: args.pages,
        damping: args.damping,
        tolerance: args.tolerance,
        max_iterations: 100_000,
        threads: crate::threads(args.threads),
        harmonic: match args.harmonic {
            HarmonicArg::Auto => rank::Harmonic::Auto,
            HarmonicArg::Exact => rank::Harmonic::Exact,
            HarmonicArg::Hyperball => rank::Harmonic::HyperBall,
        },
        log2m: args.registers,
        clusters: args.clusters,
    };
    let done = crate::with_hooks("rank", args.quiet, |h| rank::run(&req, h))?;
    if !args.quiet {
        eprintln!("crawlsift rank: {}", done.summary());
    }
    Ok(ExitCode::SUCCESS)
}
