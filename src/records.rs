//! `crawlsift records`: one JSON line per record, or with `--summary` only counts per file and in
//! total. The reading is the library's (`crawlsift_pipeline::run::records`); this module gives
//! it the arguments and prints the summaries.

use crate::ExitCode;

use clap::Args;
use crawlsift_pipeline::run::records::{self, RecordsRequest};

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
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let listed = crate::with_hooks("records", true, |h| records::run(&req, &mut out, h))?;
    drop(out);
    if args.summary {
        for line in records::summary_lines(&listed) {
            println!("{line}");
        }
    }
    Ok(crate::exit_code(crate::cancelled(), &listed.tally))
}
