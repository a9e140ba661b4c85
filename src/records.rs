//! `crawlsift records`: one JSON line per record, or with `--summary` only counts per file and in
//! total. The reading is the library's (`crawlsift_pipeline::run::records`); this module gives
//! it the arguments and prints the summaries.

use crate::ExitCode;
use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use crawlsift_pipeline::describe::HttpTally;
use crawlsift_pipeline::inputs::{
    add_counts, errors_by_name, not_an_archive, skip_kind, SKIP_DUPLICATE,
};
use crawlsift_pipeline::run::records::{self, Listed, RecordsRequest};
use crawlsift_reader::FileReport;

/// Arguments of `crawlsift records`.
#[derive(Args, Debug)]
pub struct RecordsArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
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
        inputs: args.inputs,
        threads: crate::threads(args.threads),
        verify_digests: args.verify_digests,
        summary: args.summary,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let listed = crate::with_hooks("records", true, |h| records::run(&req, &mut out, h))?;
    drop(out);
    if args.summary {
        print_summaries(&listed);
    }
    Ok(crate::exit_code(crate::cancelled(), &listed.tally))
}

/// Prints the `--summary` lines: one per input read (or skipped), then the total, which counts
/// skipped inputs by kind and leaves their bytes out of the other counts.
fn print_summaries(listed: &Listed) {
    let Listed {
        inputs,
        reports,
        http: tallies,
        tally,
    } = listed;
    let mut total = FileReport::default();
    let mut total_tally = HttpTally::default();
    for (fi, r) in reports.iter().enumerate() {
        match r {
            Some(Ok(r)) if not_an_archive(r) => {
                println!("{}: skipped: {}", inputs.name(fi as u32), skip_kind(r));
            }
            Some(Ok(r)) => {
                add_counts(&mut total, r);
                total_tally.add(&tallies[fi]);
                print_summary(inputs.name(fi as u32), r, &tallies[fi], None);
            }
            _ => {}
        }
    }
    for (name, first) in &inputs.duplicates {
        println!("{name}: skipped: {SKIP_DUPLICATE} (the same file as {first})");
    }
    print_summary("TOTAL", &total, &total_tally, Some(&tally.skipped_inputs));
}

/// Prints one `--summary` line; the total's (`skipped` given) ends with skipped inputs by kind.
fn print_summary(
    name: &str,
    r: &FileReport,
    t: &HttpTally,
    skipped: Option<&BTreeMap<&'static str, u64>>,
) {
    let kinds: Vec<String> = r
        .records_by_kind
        .iter()
        .map(|(k, n)| format!("{k}={n}"))
        .collect();
    let errors: Vec<String> = errors_by_name(r)
        .iter()
        .map(|(k, n)| format!("{k}={n}"))
        .collect();
    let skipped = skipped.map_or(String::new(), |s| {
        let kinds: Vec<String> = s.iter().map(|(k, n)| format!("{k}={n}")).collect();
        format!(
            " skipped_inputs={} [{}]",
            s.values().sum::<u64>(),
            kinds.join(" ")
        )
    });
    println!(
        "{name}: records={} [{}] bytes_in={} block_bytes={} http={} http_errors={} lying_headers={} payload_bytes={} invalid_dates={} errors={} [{}] digests ok={} mismatch={} unsupported={}{skipped}",
        r.records,
        kinds.join(" "),
        r.bytes_in,
        r.block_bytes,
        t.http,
        t.http_errors,
        t.lied,
        t.payload_bytes,
        t.invalid_dates,
        r.error_count(),
        errors.join(" "),
        r.digests.ok,
        r.digests.mismatch,
        r.digests.unsupported,
    );
}
