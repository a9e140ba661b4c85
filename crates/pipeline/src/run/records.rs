//! `records` ([`run`]): one JSON line per record of the inputs, in input order, and HTTP tallies
//! per input (with `summary`, only the tallies: every payload is still inflated and decoded, so
//! this is the reading benchmark).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crawlsift_reader::{FileReport, ReaderConfig, Record};

use super::Hooks;
use crate::columns::{LineFormat, RECORDS};
use crate::describe::{describe, HttpTally};
use crate::error::Result;
use crate::flow::inputs::{
    add_counts, errors_by_name, not_an_archive, skip_kind, InputSet, ReadTally, SKIP_DUPLICATE,
};
use crate::flow::{map_inputs, Reports};
use crate::lines::{DateFields, RecordLine};
use crate::output::Target;

/// What a listing of records is asked to do.
#[derive(Debug, Clone)]
pub struct RecordsRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Check WARC-Block-Digest and WARC-Payload-Digest.
    pub verify_digests: bool,
    /// Only count: no lines.
    pub summary: bool,
    /// JSON lines, or their rows as Parquet (into a file).
    pub format: LineFormat,
}

/// What the listing read.
pub struct Listed {
    /// The inputs, in order.
    pub inputs: InputSet,
    /// Per input, its summary if it was read to its end.
    pub reports: Reports,
    /// Per input, its HTTP tally.
    pub http: Vec<HttpTally>,
    /// How the reading went.
    pub tally: ReadTally,
}

/// One batch's output: its JSON lines, and HTTP tallies per input.
type Decoded = (Vec<u8>, Vec<(u32, HttpTally)>);

/// Reads every input, decoding records on `threads` workers, and writes their lines to `target`
/// in input order (none with `summary`). A file target is opened before any input is read, and
/// appears whole at the end.
pub fn run(req: &RecordsRequest, target: Target<'_>, hooks: &Hooks<'_>) -> Result<Listed> {
    let inputs = InputSet::expand(&req.inputs)?;
    let mut out = target.open(req.format, &RECORDS)?;
    let cfg = ReaderConfig {
        threads: req.threads,
        verify_digests: req.verify_digests,
        ..ReaderConfig::default()
    };
    let mut http: Vec<HttpTally> = vec![HttpTally::default(); inputs.inputs.len()];
    let summary = req.summary;
    let map = |_: &mut (), batch: Vec<Record>| decode_batch(&batch, &inputs, summary);
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "decode",
        || (),
        map,
        |(text, per_file): Decoded| {
            for (f, t) in per_file {
                if let Some(acc) = http.get_mut(f as usize) {
                    acc.add(&t);
                }
            }
            out.write_lines(&text)
        },
    )?;
    out.finish()?;
    let tally = inputs.tally(&reports, summary);
    Ok(Listed {
        inputs,
        reports,
        http,
        tally,
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
                date: DateFields::of(rec.date.as_deref()),
                content_type: rec.content_type.as_deref(),
                http_status: status,
                payload_length: payload_len,
                block_digest: rec.digests.block.map(|d| d.as_str()),
                payload_digest: rec.digests.payload.map(|d| d.as_str()),
            };
            serde_json::to_writer(&mut text, &line).expect("writing JSON to memory cannot fail");
            text.push(b'\n');
        }
    }
    (text, per_file)
}

/// The `--summary` lines: one per input read (or skipped), then the total, which counts
/// skipped inputs by kind and leaves their bytes out of the other counts.
pub fn summary_lines(listed: &Listed) -> Vec<String> {
    let mut lines = Vec::new();
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
                lines.push(format!(
                    "{}: skipped: {}",
                    inputs.name(fi as u32),
                    skip_kind(r)
                ));
            }
            Some(Ok(r)) => {
                add_counts(&mut total, r);
                total_tally.add(&tallies[fi]);
                lines.push(summary_line(inputs.name(fi as u32), r, &tallies[fi], None));
            }
            _ => {}
        }
    }
    for (name, first) in &inputs.duplicates {
        lines.push(format!(
            "{name}: skipped: {SKIP_DUPLICATE} (the same file as {first})"
        ));
    }
    lines.push(summary_line(
        "TOTAL",
        &total,
        &total_tally,
        Some(&tally.skipped_inputs),
    ));
    lines
}

/// Prints one `--summary` line; the total's (`skipped` given) ends with skipped inputs by kind.
fn summary_line(
    name: &str,
    r: &FileReport,
    t: &HttpTally,
    skipped: Option<&BTreeMap<&'static str, u64>>,
) -> String {
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
    format!(
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
    )
}
