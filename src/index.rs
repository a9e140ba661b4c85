//! `crawlsift index` (the CDXJ half): builds, or with `--append` extends, an index directory
//! (`index.cdxj`, `archives.jsonl`, with `--compress` the ZipNum files) by calling
//! `crawlsift_cdxj::build` / `append`, and prints what it did.

use crate::ExitCode;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use crawlsift_cdxj::{BuildOptions, BuildSummary, INDEX};
use crawlsift_reader::{expand_inputs, Input};

use crate::UsageError;

/// Arguments of `crawlsift index`.
#[derive(Args, Debug)]
pub struct IndexArgs {
    /// Archive files or directories (recursed in sorted order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The index directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Add the inputs to the index in --out: archives already indexed are not read again.
    #[arg(long)]
    pub append: bool,
    /// Also write a ZipNum index (index.cdxj.gz, index.idx, index.loc) as pywb reads it.
    #[arg(long)]
    pub compress: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Replace an index already in --out.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `crawlsift index`.
pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
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
        threads: crate::threads(args.threads),
        compress: args.compress,
    };
    let summary = if args.append {
        crawlsift_cdxj::append(&inputs, &args.out, &opts)?
    } else {
        crawlsift_cdxj::build(&inputs, &args.out, &opts)?
    };
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
