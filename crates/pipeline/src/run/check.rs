//! `check` ([`run`]): strict validation of archives. Where every other command reads leniently
//! (a damaged record is skipped or kept and counted, and the run goes on), `check` names each
//! problem on a line of its own: the file, the byte offset (and the decoded byte in a file
//! compressed whole), the record id where the problem is a record's, its kind and what is wrong.
//!
//! Problems are those the reader meets (every one, not the first few: [`ReaderConfig::every_error`]:
//! a record header that does not parse, a truncated record or gzip member, a length that does
//! not match where the next record starts, bytes that belong to no record, ...) and those of a
//! record read whole: a `WARC-Block-Digest` or `WARC-Payload-Digest` that does not match, a WARC
//! record missing a field WARC 1.1 makes mandatory (`WARC-Record-ID`, `WARC-Date`, `WARC-Type`,
//! `Content-Length`), an HTTP response that does not parse, says `chunked` of a body that is not,
//! or whose body does not decode as its `Content-Encoding` says, a capture date that names no
//! date, and a WARC record not followed by exactly two line ends (one, none, more, or NUL
//! padding: what lenient reading passes over, [`Record::quirk`]). Lines come in input order, then by offset.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use crawlsift_reader::digest::DigestCheck;
use crawlsift_reader::{Format, ReaderConfig, Record};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;

/// The fields WARC 1.1 makes mandatory in every record (section 5).
const MANDATORY: [&str; 4] = ["WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type"];

/// What a check is asked to do.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
}

/// One problem found.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The input (its index), for ordering.
    #[serde(skip)]
    pub input: u32,
    /// The input's name as given.
    pub file: String,
    /// Byte offset in the file (of the gzip member or frame holding it, in a compressed file).
    pub offset: u64,
    /// Where the record starts in its member's or frame's decoded bytes, when not 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uoffset: Option<u64>,
    /// The record's id, where the problem is a record's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What kind of problem: the reader's error kinds (`bad_header`, `truncated`, `bad_gzip`,
    /// `bad_length`, `missing_length`, `too_large`, `garbage`, ...), `block_digest`,
    /// `payload_digest`, `missing_field`, `http`, `http_chunked`, `http_encoding`,
    /// `http_truncated`, `invalid_date`, `record_trailer`.
    pub kind: String,
    /// What is wrong.
    pub message: String,
}

/// What a check found.
pub struct Checked {
    /// Records read.
    pub records: u64,
    /// Problems by kind.
    pub by_kind: BTreeMap<String, u64>,
    /// Inputs checked.
    pub inputs: usize,
    /// How the reading went.
    pub tally: ReadTally,
}

impl Checked {
    /// Problems found.
    pub fn problems(&self) -> u64 {
        self.by_kind.values().sum()
    }

    /// The summary line: records and inputs read, then the problems by kind or that none was
    /// found.
    pub fn summary(&self) -> String {
        let found = match self.problems() {
            0 => "no problem found".to_string(),
            n => {
                let kinds: Vec<String> = self
                    .by_kind
                    .iter()
                    .map(|(k, n)| format!("{k}={n}"))
                    .collect();
                format!("{n} problems [{}]", kinds.join(" "))
            }
        };
        format!(
            "{} records in {} inputs: {found}",
            self.records, self.inputs
        )
    }
}

/// Checks every input and writes one JSON line per problem to `out`, in input order, then by
/// offset.
pub fn run(req: &CheckRequest, out: &mut dyn Write, hooks: &Hooks<'_>) -> Result<Checked> {
    let inputs = InputSet::expand(&req.inputs)?;
    let cfg = ReaderConfig {
        threads: req.threads,
        verify_digests: true,
        every_error: true,
        ..ReaderConfig::default()
    };
    let names = &inputs;
    let map = |_: &mut (), batch: Vec<Record>| {
        let mut found = Vec::new();
        for rec in &batch {
            record_problems(rec, names, &mut found);
        }
        let kept: Vec<(u32, u64, u64, String, Option<&'static str>)> = batch
            .iter()
            .filter(|r| r.error.is_some())
            .map(|r| {
                let kind = r.error.map(|k| k.as_str());
                (r.pos.file, r.pos.offset, r.uoffset, r.id.clone(), kind)
            })
            .collect();
        (batch.len() as u64, found, kept)
    };
    let mut records = 0u64;
    let mut problems: Vec<Problem> = Vec::new();
    // Records kept despite an error: their place and id, to name them on the reader's lines.
    let mut kept: BTreeMap<(u32, u64, &'static str), (u64, String)> = BTreeMap::new();
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "check",
        || (),
        map,
        |(n, found, k): (u64, Vec<Problem>, Vec<_>)| -> Result<()> {
            records += n;
            problems.extend(found);
            for (file, offset, uoffset, id, kind) in k {
                if let Some(kind) = kind {
                    kept.entry((file, offset, kind)).or_insert((uoffset, id));
                }
            }
            Ok(())
        },
    )?;
    for (i, r) in reports.iter().enumerate() {
        let Some(Ok(report)) = r else { continue };
        let input = i as u32;
        for e in &report.error_examples {
            let place = kept.get(&(input, e.offset, e.kind.as_str()));
            problems.push(Problem {
                input,
                file: inputs.name(input).to_string(),
                offset: e.offset,
                uoffset: place.map(|p| p.0).filter(|&u| u != 0),
                id: place.map(|p| p.1.clone()),
                kind: e.kind.as_str().to_string(),
                message: e.message.clone(),
            });
        }
    }
    problems.sort();
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for p in &problems {
        *by_kind.entry(p.kind.clone()).or_default() += 1;
        serde_json::to_writer(&mut *out, p)?;
        out.write_all(b"\n").map_err(Error::Stream)?;
    }
    out.flush().map_err(Error::Stream)?;
    let tally = inputs.tally(&reports, true);
    Ok(Checked {
        records,
        by_kind,
        inputs: inputs.inputs.len(),
        tally,
    })
}

/// The problems of one record read whole: digests, mandatory WARC fields, its date.
fn record_problems(rec: &Record, inputs: &InputSet, out: &mut Vec<Problem>) {
    let mut say = |kind: &str, message: String| {
        out.push(Problem {
            input: rec.pos.file,
            file: inputs.name(rec.pos.file).to_string(),
            offset: rec.pos.offset,
            uoffset: (rec.uoffset != 0).then_some(rec.uoffset),
            id: Some(rec.id.clone()),
            kind: kind.to_string(),
            message,
        })
    };
    for (kind, check, field) in [
        ("block_digest", rec.digests.block, "WARC-Block-Digest"),
        ("payload_digest", rec.digests.payload, "WARC-Payload-Digest"),
    ] {
        if check == Some(DigestCheck::Mismatch) {
            let written = rec.header(field).unwrap_or_default();
            say(kind, format!("{field} {written} does not match the bytes"));
        }
    }
    if rec.format == Format::Warc {
        for field in MANDATORY {
            if rec.header(field).is_none_or(|v| v.trim().is_empty()) {
                say(
                    "missing_field",
                    format!("no {field}, which WARC 1.1 requires"),
                );
            }
        }
    }
    match rec.http() {
        Some(Err(e)) => say("http", format!("the HTTP response does not parse: {e}")),
        Some(Ok(resp)) => {
            let f = resp.flags;
            for (bad, kind, what) in [
                (
                    f.chunked_lie,
                    "http_chunked",
                    "Transfer-Encoding: chunked, but the body is not chunked",
                ),
                (
                    f.encoding_lie,
                    "http_encoding",
                    "the body does not decode as its Content-Encoding says (a cut or damaged body)",
                ),
                (
                    f.truncated,
                    "http_truncated",
                    "the chunked body ends before its last chunk",
                ),
            ] {
                if bad {
                    say(kind, what.to_string());
                }
            }
        }
        None => {}
    }
    if let Some(q) = rec.quirk {
        say("record_trailer", q.to_string());
    }
    if crawlsift_reader::date::is_invalid(rec.date.as_deref()) {
        let raw = rec.date.as_deref().unwrap_or_default();
        say(
            "invalid_date",
            format!("the capture date {raw:?} names no date"),
        );
    }
}
