//! `crawlsift index`: builds, or with `--append` extends, an index directory in two halves, each
//! the work of a library: the CDXJ index for random access by URL (`index.cdxj`,
//! `archives.jsonl`, with `--compress` the ZipNum files: `crawlsift_cdxj::Build`) and the
//! fingerprint index `IDX/fp/` (segments, state, clusters: reading archives as `crawlsift dedup`
//! does, `crawlsift_pipeline::segment::build_index`). The archives are read once: the CDXJ half
//! taps the fingerprint half's reading ([`CdxjTap`]) and then reads itself only what that did not
//! (archives the fingerprint half had already, by content, or replayed from its checkpoints).
//! This module parses the arguments, runs the two halves and prints what each did.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use crawlsift_cdxj::{Build, BuildOptions, BuildSummary, Reading, INDEX};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::dedup::{DedupHooks, StageTimes};
use crawlsift_pipeline::inputs::{RecordTap, TapFile};
use crawlsift_pipeline::segment::{build_index, IndexRequest};
use crawlsift_reader::{expand_inputs, FileReport, Input, ReaderConfig, Record};

use crate::progress::Progress;
use crate::{ExitCode, UsageError};

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
    let threads = crate::threads(args.threads);
    let dedup = args.judging.config()?;
    let cdxj = start_cdxj(&args, threads)?;
    if args.cdxj_only {
        return finish_cdxj(&args, cdxj);
    }
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
        tap: Some(&CdxjTap(&cdxj)),
    };
    let summary = build_index(&req, &hooks);
    progress.finish();
    let summary = summary?;
    if summary.interrupted {
        // Nothing of the CDXJ half is written: the same command reads what it misses.
        eprintln!("crawlsift index: interrupted; run the same command again to finish");
        return Ok(ExitCode::from(crate::EXIT_INTERRUPTED));
    }
    let cdxj = finish_cdxj(&args, cdxj)?;
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

/// The CDXJ half as a tap on the fingerprint half's reading: the archives it must index are read
/// through it, so each is read and inflated once.
struct CdxjTap<'a>(&'a Build);

impl RecordTap for CdxjTap<'_> {
    fn open(&self, _file: u32, path: &Path) -> Option<Box<dyn TapFile + '_>> {
        self.0
            .archive(path)
            .map(|r| Box::new(Tapped(r)) as Box<dyn TapFile>)
    }
}

/// One archive read for both halves.
struct Tapped<'a>(Reading<'a>);

impl TapFile for Tapped<'_> {
    fn read(
        &mut self,
        file: u32,
        cfg: &ReaderConfig,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> FileReport {
        self.0.read(file, cfg, sink)
    }

    fn done(self: Box<Self>, report: FileReport) {
        self.0.done(report)
    }
}

/// The CDXJ half's start: checks the inputs and the index folder and plans which archives to
/// read (`crawlsift_cdxj::Build::start`).
fn start_cdxj(args: &IndexArgs, threads: usize) -> anyhow::Result<Build> {
    let mut inputs = Vec::new();
    for input in expand_inputs(&args.inputs)? {
        match input {
            Input::Path(p) => inputs.push(p),
            Input::Stdin => {
                return Err(UsageError(
                    "`-` cannot be indexed: an index points into files by offset".into(),
                )
                .into())
            }
        }
    }
    let index = args.out.join(INDEX);
    if !args.append && index.exists() && !args.force {
        anyhow::bail!(
            "{} already exists (--force replaces it, --append adds to it)",
            index.display()
        );
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let opts = BuildOptions {
        threads,
        compress: args.compress,
    };
    Ok(Build::start(&inputs, &args.out, &opts, args.append)?)
}

/// The CDXJ half's end: reads the archives the fingerprint half did not, writes or extends
/// `index.cdxj` (and the ZipNum files); returns its status.
fn finish_cdxj(args: &IndexArgs, build: Build) -> anyhow::Result<ExitCode> {
    let summary = build.finish()?;
    let index = args.out.join(INDEX);
    if !args.quiet {
        print_summary(&summary, &index);
    }
    let failed = summary.inputs.iter().any(|i| {
        i.not_indexed
            .as_deref()
            .is_some_and(|w| !matches!(w, "not_archive" | "already_indexed"))
    });
    let skipped = summary
        .inputs
        .iter()
        .any(|i| i.not_indexed.as_deref() == Some("not_archive"));
    Ok(if failed {
        ExitCode::from(crate::EXIT_FATAL)
    } else if skipped || summary.record_errors() > 0 {
        ExitCode::from(crate::EXIT_PROBLEMS)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_summary(s: &BuildSummary, index: &std::path::Path) {
    let mut records = 0;
    for i in &s.inputs {
        records += i.records;
        if let Some(why) = &i.not_indexed {
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
