//! `crawlsift records`: one JSON line per record, or with `--summary` only counts per file and in
//! total (every payload is still inflated and decoded, so this is the reading benchmark).

use crate::ExitCode;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use crawlsift_common::limits::TEXT_QUEUE_CAP;
use crawlsift_reader::{ReaderConfig, Record};

use crawlsift_pipeline::describe::{describe, HttpTally};
use crawlsift_pipeline::inputs::{
    add_counts, errors_by_name, not_an_archive, skip_kind, SKIP_DUPLICATE,
};
use crawlsift_pipeline::lines::RecordLine;
use crawlsift_pipeline::stages::{self, Reorder};
use crawlsift_pipeline::{InputSet, ReadTally};
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

/// Per input, its summary if it was read to its end.
type Reports = Vec<Option<Result<FileReport, String>>>;

/// One batch's output: its JSON lines, and HTTP tallies per input.
type Decoded = (Vec<u8>, Vec<(u32, HttpTally)>);

/// Runs `crawlsift records`.
pub fn run(args: RecordsArgs) -> anyhow::Result<ExitCode> {
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads);
    let reader_cfg = ReaderConfig {
        threads,
        verify_digests: args.verify_digests,
        ..ReaderConfig::default()
    };
    let mut tallies: Vec<HttpTally> = vec![HttpTally::default(); inputs.inputs.len()];
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let summary = args.summary;
    let result = read_and_print(&inputs, &reader_cfg, summary, &mut tallies, &mut out);
    let broken_pipe = matches!(&result, Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe));
    if broken_pipe {
        return Ok(ExitCode::SUCCESS);
    }
    let reports = result?;
    out.flush()?;
    drop(out);

    let tally = inputs.tally(&reports, summary);
    if summary {
        print_summaries(&inputs, &reports, &tallies, &tally);
    }
    Ok(crate::exit_code(crate::cancelled(), &tally))
}

/// Reads every input, decoding records on `cfg.threads` workers, and writes their lines to `out`
/// in input order (none with `summary`), adding HTTP tallies per input to `tallies`.
fn read_and_print(
    inputs: &InputSet,
    cfg: &ReaderConfig,
    summary: bool,
    tallies: &mut [HttpTally],
    out: &mut impl Write,
) -> anyhow::Result<Reports> {
    std::thread::scope(|s| -> anyhow::Result<Reports> {
        let (reader, raw_rx) = inputs.spawn_record_reader(s, cfg, &crate::cancelled)?;
        let lines = stages::stage(
            s,
            "decode",
            cfg.threads,
            raw_rx,
            TEXT_QUEUE_CAP,
            || (),
            |_, batch: Vec<Record>| decode_batch(&batch, inputs, summary),
        );
        let drained = Reorder::drain(lines, |(text, per_file): Decoded| -> anyhow::Result<()> {
            for (f, t) in per_file {
                if let Some(acc) = tallies.get_mut(f as usize) {
                    acc.add(&t);
                }
            }
            out.write_all(&text).map_err(anyhow::Error::from)
        });
        let outcome = reader.join().expect("the reader thread does not panic");
        drained.map(|()| outcome.reports)
    })
}

/// Decodes a batch of records: their JSON lines (unless `summary`) and HTTP tallies per input.
fn decode_batch(batch: &[Record], inputs: &InputSet, summary: bool) -> Decoded {
    let mut text = Vec::new();
    let mut per_file: Vec<(u32, HttpTally)> = Vec::new();
    for rec in batch {
        let (status, payload_len, t) = describe(rec);
        match per_file.last_mut() {
            Some((f, acc)) if *f == rec.pos.file => acc.add(&t),
            _ => per_file.push((rec.pos.file, t)),
        }
        if !summary {
            let line = RecordLine {
                file: inputs.name(rec.pos.file),
                offset: rec.pos.offset,
                uoffset: rec.uoffset,
                index: rec.pos.index,
                kind: rec.kind.as_str(),
                id: &rec.id,
                url: rec.url.as_deref(),
                date: rec.date.as_deref(),
                content_type: rec.content_type.as_deref(),
                http_status: status,
                payload_length: payload_len,
            };
            serde_json::to_writer(&mut text, &line).expect("writing JSON to memory cannot fail");
            text.push(b'\n');
        }
    }
    (text, per_file)
}

/// Prints the `--summary` lines: one per input read (or skipped), then the total, which counts
/// skipped inputs by kind and leaves their bytes out of the other counts.
fn print_summaries(inputs: &InputSet, reports: &Reports, tallies: &[HttpTally], tally: &ReadTally) {
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
        "{name}: records={} [{}] bytes_in={} block_bytes={} http={} http_errors={} lying_headers={} payload_bytes={} errors={} [{}] digests ok={} mismatch={} unsupported={}{skipped}",
        r.records,
        kinds.join(" "),
        r.bytes_in,
        r.block_bytes,
        t.http,
        t.http_errors,
        t.lied,
        t.payload_bytes,
        r.error_count(),
        errors.join(" "),
        r.digests.ok,
        r.digests.mismatch,
        r.digests.unsupported,
    );
}
