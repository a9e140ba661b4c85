//! `crawlsift index` (fingerprint half): reads archives as `crawlsift dedup` does and writes the
//! fingerprint index `IDX/fp/` (segments, state, clusters), or adds new inputs with `--append`.
//! The work is `crawlsift_pipeline::segment::build_index`'s; this module parses the arguments
//! and prints a summary.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use crawlsift_common::limits;
use crawlsift_dedup::{Clusterer, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::dedup::{DedupHooks, StageTimes};
use crawlsift_pipeline::segment::{build_index, IndexRequest};

use crate::progress::Progress;

/// Arguments of `crawlsift index`.
#[derive(Args, Debug)]
pub struct IndexArgs {
    /// Archive files or directories (recursed in sorted order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The index folder (created if missing).
    #[arg(long, short = 'o', value_name = "IDX")]
    pub out: PathBuf,
    /// Add the inputs not yet in the index (by content) as a new segment, and cluster again.
    #[arg(long)]
    pub append: bool,
    /// Write the CDXJ index in compressed blocks (the CDXJ half; no effect on fingerprints).
    #[arg(long)]
    pub compress: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Replace an existing index.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Near-duplicates share at least this much of their words (as `crawlsift dedup`).
    #[arg(long, value_name = "SHARE", default_value_t = limits::DEDUP_THRESHOLD)]
    pub threshold: f64,
    /// Texts with fewer words are too short to judge (as `crawlsift dedup`).
    #[arg(long, value_name = "WORDS", default_value_t = limits::DEDUP_MIN_WORDS)]
    pub min_words: usize,
}

/// Runs `crawlsift index`.
pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let threads = crate::threads(args.threads);
    let dedup = DedupConfig {
        threshold: args.threshold,
        min_words: args.min_words,
        ..DedupConfig::default()
    };
    Clusterer::new(&dedup).map_err(|e| crate::UsageError(e.to_string()))?;
    let method = Method::default();
    let extractor = ExtractorBuilder::new().method(method);
    let progress = Progress::new(0, args.quiet);
    let times = StageTimes::default();
    let hooks = DedupHooks {
        cancelled: &crate::cancelled,
        progress: &|bytes, docs| progress.update(bytes, docs),
        times: &times,
    };
    let req = IndexRequest {
        inputs: &args.inputs,
        out: &args.out,
        append: args.append,
        force: args.force,
        threads,
        dedup: &dedup,
        extractor: &extractor,
        method: method.as_str(),
        quiet: args.quiet,
    };
    let summary = build_index(&req, &hooks);
    progress.finish();
    let summary = summary?;
    if summary.interrupted {
        eprintln!("crawlsift index: interrupted; run the same command again to finish");
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    }
    if !args.quiet {
        let per_doc = |b: u64| b as f64 / summary.documents.max(1) as f64;
        eprintln!(
            "crawlsift index: {} documents added, {} in {} segments, {} clusters, in {:.1} s",
            summary.added,
            summary.documents,
            summary.segments,
            summary.clusters,
            started.elapsed().as_secs_f64()
        );
        eprintln!(
            "  bytes per document: {:.0} fingerprints and band tables, {:.0} document table, {:.0} word profiles",
            per_doc(summary.sizes.fingerprints_and_tables),
            per_doc(summary.sizes.documents),
            per_doc(summary.sizes.profiles),
        );
        eprintln!("  index: {}", args.out.join("fp").display());
    }
    Ok(match &summary.tally {
        Some(t) => crate::exit_code(false, t),
        None => ExitCode::SUCCESS,
    })
}
