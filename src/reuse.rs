//! `crawlsift reuse`: the passages documents share (partial copies, quotations, pasted
//! paragraphs), as `reuse.jsonl` in the output folder, and the documents telling the same story
//! in other words, as `stories.jsonl`. The work is
//! `crawlsift_pipeline::run::reuse`'s; this module parses the arguments and prints the summary.

use crate::ExitCode;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use crawlsift_common::limits::{REUSE_MAX_POSTING, REUSE_MIN_PASSAGE_WORDS};
use crawlsift_extractor::Method;
use crawlsift_pipeline::run::reuse::{self, ReuseRequest};

/// Arguments of `crawlsift reuse`.
#[derive(Args, Debug)]
pub struct ReuseArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Fewest words of a reported passage, in each document.
    #[arg(long, value_name = "WORDS", default_value_t = REUSE_MIN_PASSAGE_WORDS)]
    pub min_passage_words: usize,
    /// Most documents one fingerprint may pair: text held by more is boilerplate and pairs
    /// nobody.
    #[arg(long, value_name = "DOCS", default_value_t = REUSE_MAX_POSTING)]
    pub max_posting: usize,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Overwrite the output of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `crawlsift reuse`.
pub fn run(args: ReuseArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let req = ReuseRequest {
        inputs: args.inputs.paths()?,
        out: args.out,
        min_passage_words: args.min_passage_words,
        max_posting: args.max_posting,
        threads: crate::threads(args.threads),
        method: args.method,
        force: args.force,
    };
    let quiet = args.quiet;
    let o = crate::with_hooks("reuse", quiet, |h| reuse::run(&req, h, quiet))?;
    if !quiet {
        let s = &o.summary;
        eprintln!(
            "crawlsift reuse: {} documents, {} fingerprints ({} common, {} site template), \
             {} candidate pairs, {} pairs sharing {} passages, {} stories of {} documents \
             in {:.1} s -> {}",
            s.documents,
            s.fingerprints,
            s.common_fingerprints,
            s.template_fingerprints,
            s.candidates,
            s.pairs,
            s.passages,
            s.stories,
            s.story_documents,
            started.elapsed().as_secs_f64(),
            o.target.display()
        );
    }
    Ok(crate::exit_code(crate::cancelled(), &o.tally))
}
