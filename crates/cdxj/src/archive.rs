//! The lines of one archive, made as its records arrive ([`ArchiveLines`]): whoever reads the
//! archive (the build's own workers, or another pass over the same records, such as the
//! fingerprint pipeline of `crawlsift index`) hands each batch of records to
//! [`ArchiveLines::records`] and the reader's report to [`ArchiveLines::done`]. A record's length
//! is known when the next member starts (or, for an uncompressed WARC or ARC file, at the end of
//! its block), so captures wait in a [`Pending`] member until then. A member that turns out to
//! hold more than one record (a file compressed whole) leaves a [`MemberTable`] of where each
//! record is, for the build to keep ([`crate::seek`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use bytes::Bytes;
use crawlsift_reader::{detect::detect_compression, Compression, FileReport, Record, RecordKind};

use crate::error::CdxjError;
use crate::extent::{block_end, member_end};
use crate::line::{capture, Capture};
use crate::seek::{line_hash, MemberTable};
use crate::sort::Sorter;

/// Lines an archive gathers before handing them to the shared sorter.
const HAND_OVER_LINES: usize = 4096;

/// What indexing one archive gave.
#[derive(Debug, Default)]
pub struct InputSummary {
    /// The archive as given.
    pub path: PathBuf,
    /// Records read.
    pub records: u64,
    /// Lines made.
    pub lines: u64,
    /// Records without a line, by reason ([`crate::line::skip`]).
    pub skipped: BTreeMap<&'static str, u64>,
    /// The reader's report (record errors with their offsets).
    pub report: FileReport,
    /// Set when the input was not indexed: why (`not_archive`, `already_indexed`, an I/O error).
    pub not_indexed: Option<String>,
    /// The members that hold more than one record, with where each is.
    pub tables: Vec<MemberTable>,
}

/// Captures waiting for their member's end: all records of one gzip member (one, except in a
/// file gzipped whole), the member's offset.
struct Pending {
    offset: u64,
    captures: Vec<Capture>,
    /// Every record of the member: its `uoffset` and its line's hash (0 without a line).
    places: Vec<(u64, u64)>,
}

/// The lines of one archive in the making (see the module documentation).
pub struct ArchiveLines<'a> {
    data: Bytes,
    compression: Compression,
    name: String,
    sorter: &'a Mutex<Sorter>,
    lines: Vec<String>,
    pending: Option<Pending>,
    counts: InputSummary,
    error: Option<CdxjError>,
}

impl<'a> ArchiveLines<'a> {
    /// Starts the lines of the archive whose bytes are `data` (the very bytes its records are read
    /// from: an uncompressed record's end is found from where its block lies in them), named
    /// `name` in its lines, handing them to `sorter`.
    pub fn new(data: Bytes, name: &str, sorter: &'a Mutex<Sorter>) -> Self {
        ArchiveLines {
            compression: detect_compression(&data),
            data,
            name: name.to_string(),
            sorter,
            lines: Vec::new(),
            pending: None,
            counts: InputSummary::default(),
            error: None,
        }
    }

    /// The archive's bytes (what its reader must read).
    pub fn data(&self) -> &Bytes {
        &self.data
    }

    /// Makes the lines of a batch of records (in file order); `false` once the sorter failed
    /// (reading may stop: [`done`](Self::done) returns the error).
    pub fn records(&mut self, batch: &[Record]) -> bool {
        for rec in batch {
            self.record(rec);
        }
        if self.lines.len() >= HAND_OVER_LINES {
            self.hand_over();
        }
        self.error.is_none()
    }

    fn record(&mut self, rec: &Record) {
        let offset = rec.pos.offset;
        if let Some(p) = self.pending.take() {
            if p.offset == offset {
                self.pending = Some(p);
            } else {
                self.flush(p, offset);
            }
        }
        // Uncompressed WARC and ARC records end with their block; the rest end where the next
        // member (or TREC document) starts.
        let own_end = (self.compression == Compression::None
            && !matches!(rec.kind, RecordKind::TrecWeb | RecordKind::TrecText))
        .then(|| block_end(&self.data, &rec.block))
        .flatten();
        let made = capture(rec, offset, 0, &self.name);
        if own_end.is_none() {
            let hash = made.as_ref().map_or(0, |c| line_hash(&c.key, &c.timestamp));
            self.pending
                .get_or_insert_with(|| Pending {
                    offset,
                    captures: Vec::new(),
                    places: Vec::new(),
                })
                .places
                .push((rec.uoffset, hash));
        }
        match made {
            Ok(mut c) => {
                self.counts.lines += 1;
                match (own_end, self.pending.as_mut()) {
                    (Some(end), _) => {
                        c.length = end.saturating_sub(offset);
                        self.lines.push(c.to_line());
                    }
                    (None, Some(p)) => p.captures.push(c),
                    (None, None) => unreachable!("a member's records wait in it"),
                }
            }
            Err(why) => *self.counts.skipped.entry(why).or_default() += 1,
        }
    }

    /// The lines of a member's captures, now that the member is known to end at `end`; its
    /// table when it holds more than one record.
    fn flush(&mut self, p: Pending, end: u64) {
        for mut c in p.captures {
            c.length = end.saturating_sub(p.offset);
            self.lines.push(c.to_line());
        }
        if p.places.len() > 1 {
            self.counts.tables.push(MemberTable {
                offset: p.offset,
                records: p.places,
            });
        }
    }

    fn hand_over(&mut self) {
        let mut s = self.sorter.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = s.extend(self.lines.drain(..)) {
            self.error.get_or_insert(e);
        }
    }

    /// The archive was read to its end, as `report` says: the last member's lines are made and
    /// everything is handed to the sorter. What indexing it gave (`path` left empty), or the
    /// sorter's error.
    pub fn done(mut self, report: FileReport) -> Result<InputSummary, CdxjError> {
        if let Some(p) = self.pending.take() {
            let end = if p.captures.is_empty() {
                0 // no line needs it
            } else if self.compression == Compression::None {
                self.data.len() as u64
            } else {
                member_end(&self.data, p.offset, self.compression)
            };
            self.flush(p, end);
        }
        self.hand_over();
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut counts = self.counts;
        counts.records = report.records;
        if report.records == 0 && report.error_count() > 0 {
            counts.not_indexed = Some("not_archive".into());
        }
        counts.report = report;
        Ok(counts)
    }
}
