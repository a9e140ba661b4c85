//! `crawlsift reuse`: the passages documents share (partial copies, quotations, pasted
//! paragraphs), as `reuse.jsonl` in the output folder. The work is `crawlsift_pipeline::reuse`'s;
//! this module parses the arguments, runs it and prints the summary.

use crate::ExitCode;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use crawlsift_common::limits::{REUSE_MAX_POSTING, REUSE_MIN_PASSAGE_WORDS};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::output;
use crawlsift_pipeline::reuse::{run_reuse, ReuseSettings, REUSE_FILE};
use crawlsift_pipeline::InputSet;
use crawlsift_reader::ReaderConfig;
use crawlsift_reuse::{Corpus, ReuseConfig};

use crate::progress::Progress;
use crawlsift_pipeline::run::Progress as _;

/// Arguments of `crawlsift reuse`.
#[derive(Args, Debug)]
pub struct ReuseArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
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
    let cfg = ReuseConfig {
        min_passage_words: args.min_passage_words,
        max_posting: args.max_posting,
        ..ReuseConfig::default()
    };
    Corpus::new(&cfg).map_err(|e| crawlsift_pipeline::Error::Usage(e.to_string()))?;
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads);
    let extractor = ExtractorBuilder::new().method(args.method);
    extractor
        .clone()
        .build()
        .context("extractor configuration")?;
    let reader = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    output::writable_dir(&args.out)?;
    let target = args.out.join(REUSE_FILE);
    if target.exists() && !args.force {
        anyhow::bail!(
            "{} already exists (--force overwrites it)",
            target.display()
        );
    }
    output::check_writable(&target)?;
    let progress = Progress::hidden_if(args.quiet);
    progress.start(inputs.total_bytes());
    let settings = ReuseSettings {
        inputs: &inputs,
        reader: &reader,
        extractor: &extractor,
        reuse: &cfg,
        threads,
    };
    let summary = run_reuse(&settings, &args.out, &crate::cancelled, &|bytes, docs| {
        progress.update(bytes, docs)
    })?;
    progress.finish();
    let tally = inputs.tally(&summary.reports, args.quiet);
    if !args.quiet {
        eprintln!(
            "crawlsift reuse: {} documents, {} fingerprints ({} common, {} site template), \
             {} candidate pairs, {} pairs sharing {} passages in {:.1} s -> {}",
            summary.documents,
            summary.fingerprints,
            summary.common_fingerprints,
            summary.template_fingerprints,
            summary.candidates,
            summary.pairs,
            summary.passages,
            started.elapsed().as_secs_f64(),
            target.display()
        );
    }
    Ok(crate::exit_code(crate::cancelled(), &tally))
}
