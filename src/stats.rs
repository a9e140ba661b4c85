//! `crawlsift stats`: term statistics of the documents' main text (the text `dedup` clusters:
//! TREC text bodies, extracted page text), with Zipf's and Heaps' laws and how unusual each
//! document is; with `--after-dedup OUT`, the same over the documents a dedup run kept. The work
//! is `crawlsift_stats`'s and the reading `crawlsift_pipeline::run::stats`'; this module prints.

use crate::ExitCode;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use crawlsift_common::limits::STATS_TOP_WORDS;
use crawlsift_extractor::Method;
use crawlsift_pipeline::run::stats::{self, StatsRequest};
use crawlsift_stats::table;

/// What `stats` counts, said in its `--help` (before the exit statuses).
pub(crate) const WORDS_HELP: &str = "Words are maximal runs of Unicode letters and digits (what \
     `[^\\W_]+` matches), lower-cased; no stemming, no stop list. Documents are the pages `dedup` \
     clusters (feeds and robots.txt are not documents).";

/// Arguments of `crawlsift stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Rows of the Zipf table.
    #[arg(long, value_name = "N", default_value_t = STATS_TOP_WORDS)]
    pub top: usize,
    /// The output folder of a `crawlsift dedup` run over the same inputs: also give the figures
    /// of the documents it kept (unique ones and one per cluster), and the words the duplicates
    /// inflated most.
    #[arg(long, value_name = "OUT")]
    pub after_dedup: Option<PathBuf>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `crawlsift stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let req = StatsRequest {
        inputs: args.inputs.paths()?,
        threads: crate::threads(args.threads),
        method: args.method,
        top: args.top,
        after_dedup: args.after_dedup,
    };
    let quiet = args.quiet;
    let c = crate::with_hooks("stats", quiet, |h| stats::run(&req, h, quiet))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        out.write_all(c.json()?.as_bytes())?;
        out.write_all(b"\n")?;
    } else {
        let inflated = c.inflated.as_deref().unwrap_or(&[]);
        let text = table::render(&c.raw, c.after_dedup.as_ref(), inflated);
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    if !quiet {
        for line in c.summary_lines() {
            eprintln!("{line}");
        }
    }
    Ok(crate::exit_code(crate::cancelled(), &c.tally))
}
