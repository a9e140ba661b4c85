//! `records` ([`run`]): one JSON line per record of the inputs, in input order, and HTTP tallies
//! per input (with `summary`, only the tallies: every payload is still inflated and decoded, so
//! this is the reading benchmark).

use std::io::Write;
use std::path::PathBuf;

use crawlsift_reader::{ReaderConfig, Record};

use super::Hooks;
use crate::describe::{describe, HttpTally};
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::{map_inputs, Reports};
use crate::lines::{DateFields, RecordLine};

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

/// Reads every input, decoding records on `threads` workers, and writes their lines to `out` in
/// input order (none with `summary`).
pub fn run(req: &RecordsRequest, out: &mut dyn Write, hooks: &Hooks<'_>) -> Result<Listed> {
    let inputs = InputSet::expand(&req.inputs)?;
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
            out.write_all(&text).map_err(Error::Stream)
        },
    )?;
    out.flush().map_err(Error::Stream)?;
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
            };
            serde_json::to_writer(&mut text, &line).expect("writing JSON to memory cannot fail");
            text.push(b'\n');
        }
    }
    (text, per_file)
}
