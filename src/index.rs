//! `crawlsift index`: builds, or with `--append` extends, an index directory in two halves: the
//! CDXJ index for random access by URL and the fingerprint index `IDX/fp/`. The build is the
//! library's (`crawlsift_pipeline::run::index`, which reads each archive once for both halves);
//! this module parses the arguments, prints what each half did and gives the exit status.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use crawlsift_cdxj::{BuildSummary, INDEX};
use crawlsift_pipeline::run::index::{self, Request};
use crawlsift_pipeline::run::segment::IndexSummary;

use crate::ExitCode;

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
        inputs: args.inputs,
        out: args.out,
        append: args.append,
        compress: args.compress,
        threads: crate::threads(args.threads),
        force: args.force,
        cdxj_only: args.cdxj_only,
        judging: args.judging.judging(),
        quiet: args.quiet,
    };
    let outcome = crate::with_hooks("index", args.quiet, |hooks| index::run(&req, hooks))?;
    let Some(cdxj) = outcome.cdxj else {
        // Nothing of the CDXJ half is written: the same command reads what it misses.
        eprintln!("crawlsift index: interrupted; run the same command again to finish");
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    };
    if !args.quiet {
        print_summary(&cdxj, &req.out.join(INDEX), !args.cdxj_only);
    }
    let cdxj = cdxj_status(&cdxj);
    let Some(summary) = outcome.fingerprints else {
        return Ok(cdxj);
    };
    if !args.quiet {
        print_fingerprints(&summary, &req, started);
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

/// What the fingerprint half did, on stderr.
fn print_fingerprints(summary: &IndexSummary, req: &Request, started: Instant) {
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
    eprintln!("  index: {}", req.out.join("fp").display());
}

/// The CDXJ half's status: fatal when an input could not be indexed, problems when one was no
/// archive or had record errors.
fn cdxj_status(summary: &BuildSummary) -> ExitCode {
    let failed = summary.inputs.iter().any(|i| {
        i.not_indexed
            .as_deref()
            .is_some_and(|w| !matches!(w, "not_archive" | "already_indexed"))
    });
    let skipped = summary
        .inputs
        .iter()
        .any(|i| i.not_indexed.as_deref() == Some("not_archive"));
    if failed {
        ExitCode::from(crate::EXIT_FATAL)
    } else if skipped || summary.record_errors() > 0 {
        ExitCode::from(crate::EXIT_PROBLEMS)
    } else {
        ExitCode::SUCCESS
    }
}

/// `fp_said`: the fingerprint half read the inputs too and has named those it skipped (already
/// indexed, no archive), so they are not named again.
fn print_summary(s: &BuildSummary, index: &std::path::Path, fp_said: bool) {
    let mut records = 0;
    for i in &s.inputs {
        records += i.records;
        let why = i.not_indexed.as_deref();
        if fp_said && matches!(why, Some("not_archive" | "already_indexed")) {
            continue;
        }
        if let Some(why) = why {
            eprintln!("crawlsift: {}: not indexed: {why}", i.path.display());
        }
        for e in i.report.error_examples.iter().take(5) {
            eprintln!(
                "crawlsift: {}: byte {}: {}: {}",
                i.path.display(),
                e.offset,
                e.kind.as_str(),
                e.message
            );
        }
    }
    let skipped: std::collections::BTreeMap<&str, u64> = s
        .inputs
        .iter()
        .flat_map(|i| i.skipped.iter())
        .fold(std::collections::BTreeMap::new(), |mut m, (k, v)| {
            *m.entry(*k).or_default() += v;
            m
        });
    let skipped: Vec<String> = skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
    eprintln!(
        "crawlsift: {} inputs, {records} records, {} lines added, {} in {} (records without a \
         line: {}; record errors: {})",
        s.inputs.len(),
        s.new_lines,
        s.total_lines,
        index.display(),
        if skipped.is_empty() {
            "none".into()
        } else {
            skipped.join(", ")
        },
        s.record_errors()
    );
}
