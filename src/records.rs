//! `crawlsift records`: one JSON line per record, or with `--summary` only counts per file and in
//! total. The reading is the library's (`crawlsift_pipeline::run::records`); this module gives
//! it the arguments and prints the summaries.

use crate::ExitCode;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::run::records::{self, RecordsRequest};
use crawlsift_pipeline::{columns::LineFormat, output::Target};

/// Arguments of `crawlsift records`.
#[derive(Args, Debug)]
pub struct RecordsArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// Print only counts per file and in total (payloads are still decoded).
    #[arg(long)]
    pub summary: bool,
    /// Check WARC-Block-Digest and WARC-Payload-Digest and count mismatches.
    #[arg(long)]
    pub verify_digests: bool,
    /// Write the lines to this file (whole at the end; `.gz`, `.zst` compressed), not stdout.
    #[arg(short = 'o', long = "output", conflicts_with = "summary")]
    pub output: Option<PathBuf>,
    /// Overwrite the `-o` file if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// `json` lines, or `parquet`: their rows and columns as a Parquet file (with `-o`).
    #[arg(long, default_value = "json")]
    pub format: LineFormat,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
}

/// Runs `crawlsift records`.
pub fn run(args: RecordsArgs) -> anyhow::Result<ExitCode> {
    let req = RecordsRequest {
        inputs: args.inputs.paths()?,
        threads: crate::threads(args.threads),
        verify_digests: args.verify_digests,
        summary: args.summary,
        format: args.format,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let target = Target::new(args.output, args.force, &mut out);
    let listed = crate::with_hooks("records", true, |h| records::run(&req, target, h))?;
    drop(out);
    if args.summary {
        for line in records::summary_lines(&listed) {
            println!("{line}");
        }
    }
    Ok(crate::exit_code(crate::cancelled(), &listed.tally))
}
