//! `crawlsift index`: builds, or with `--append` extends, an index directory in two halves: the
//! CDXJ index for random access by URL and the fingerprint index `IDX/fp/`. The build is the
//! library's (`crawlsift_pipeline::run::index`, which reads each archive once for both halves);
//! this module parses the arguments, prints what each half did and gives the exit status.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use crawlsift_cdxj::INDEX;
use crawlsift_pipeline::run::index::{self, Request};

use crate::ExitCode;

/// Arguments of `crawlsift index`.
#[derive(Args, Debug)]
pub struct IndexArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// The index folder (created if missing).
    #[arg(long, short = 'o', value_name = "IDX")]
    pub out: PathBuf,
    /// Add the inputs not yet in the index (by content) as a new segment, and cluster again.
    #[arg(long)]
    pub append: bool,
    /// Also keep the anchor texts the pages give each URL (IDX/anchors/, shown by `get --format
    /// json`); an index that keeps them goes on with --append.
    #[arg(long)]
    pub anchors: bool,
    /// Also write a ZipNum index (index.cdxj.gz, index.idx, index.loc) as pywb reads it.
    #[arg(long)]
    pub compress: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Replace an existing index.
    #[arg(long)]
    pub force: bool,
    /// Build only the CDXJ half (what pywb and `crawlsift get` read), not `IDX/fp/`.
    #[arg(long)]
    pub cdxj_only: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// What makes two documents near-duplicates (as `crawlsift dedup`).
    #[command(flatten)]
    pub judging: crate::JudgingArgs,
}

/// Runs `crawlsift index`.
pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let req = Request {
        inputs: args.inputs.paths()?,
        out: args.out,
        append: args.append,
        compress: args.compress,
        threads: crate::threads(args.threads),
        force: args.force,
        cdxj_only: args.cdxj_only,
        judging: args.judging.judging(),
        quiet: args.quiet,
        anchors: args.anchors,
    };
    let outcome = crate::with_hooks("index", args.quiet, |hooks| index::run(&req, hooks))?;
    let Some(cdxj) = outcome.cdxj else {
        // Nothing of the CDXJ half is written: the same command reads what it misses.
        eprintln!("crawlsift index: interrupted; run the same command again to finish");
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    };
    if !args.quiet {
        for line in index::cdxj_lines(&cdxj, &req.out.join(INDEX), !args.cdxj_only) {
            eprintln!("crawlsift: {line}");
        }
    }
    let cdxj = match index::cdxj_ending(&cdxj) {
        index::Ending::Failed => ExitCode::from(crate::EXIT_FATAL),
        index::Ending::Problems => ExitCode::from(crate::EXIT_PROBLEMS),
        index::Ending::Clean => ExitCode::SUCCESS,
    };
    let Some(summary) = outcome.fingerprints else {
        return Ok(cdxj);
    };
    if !args.quiet {
        for line in summary.lines(&req.out.join("fp"), started.elapsed()) {
            eprintln!("{line}");
        }
    }
    let fingerprints = match &summary.tally {
        Some(t) => crate::exit_code(false, t),
        None => ExitCode::SUCCESS,
    };
    // The graver of the two halves' statuses: fatal, then problems in the input, then clean.
    Ok([cdxj, fingerprints]
        .into_iter()
        .max_by_key(|c| match c.0 {
            0 => 0,
            crate::EXIT_PROBLEMS => 1,
            _ => 2,
        })
        .unwrap_or(ExitCode::SUCCESS))
}
