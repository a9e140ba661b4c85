//! The record splitter: runs a format's step function over decoded batch buffers, turns the
//! parsed ranges into [`Record`]s that slice the buffer (no copy), carries an incomplete record's
//! bytes over into the next buffer, counts errors with their input offsets, and hands records on
//! in batches.

use std::io;

use bytes::Bytes;
use crawlsift_common::limits::{MAX_RECORD_BYTES, MAX_SKIP_DECODED_BYTES};
use crawlsift_common::SourcePos;

use crate::compress::decode::{offset_of, rebase, uoffset_of, Decode, Mark};
use crate::config::ReaderConfig;
use crate::container::detect::detect_format;
use crate::container::parse::{Parsed, Step};
use crate::container::step;
use crate::digest::{self, Digests};
use crate::error::ErrorKind;
use crate::pool::POOL;
use crate::record::{Format, Record};
use crate::report::FileReport;

/// A run of blanks this long at the end of a buffer is taken as the end of the record before it
/// (see `Splitter::ends_before_blanks`). Real archives pad records with a few bytes, NUL padding
/// of tape blocks with at most a few KiB.
const BLANK_RUN_BYTES: usize = 64 << 10;

/// CR, LF, space, tab and NUL: what the formats skip between records.
fn is_blank(c: u8) -> bool {
    matches!(c, b'\r' | b'\n' | b' ' | b'\t' | 0)
}

/// Where the run of blanks that ends `b` starts (`b.len()` when `b` ends in a non-blank), not
/// before `from`; in 64-byte blocks, as [`first_non_blank`].
fn blank_tail_start(b: &[u8], from: usize) -> usize {
    let mut i = b.len();
    while i >= from + 64 && b[i - 64..i].iter().fold(true, |all, &c| all & is_blank(c)) {
        i -= 64;
    }
    while i > from && is_blank(b[i - 1]) {
        i -= 1;
    }
    i
}

/// First position `>= from` of `b` that is not blank ([`is_blank`]), in 64-byte blocks without
/// a branch per byte.
fn first_non_blank(b: &[u8], from: usize) -> usize {
    let mut i = from.min(b.len());
    while i + 64 <= b.len() && b[i..i + 64].iter().fold(true, |all, &c| all & is_blank(c)) {
        i += 64;
    }
    while i < b.len() && is_blank(b[i]) {
        i += 1;
    }
    i
}

/// Splits one input's decoded bytes into records.
pub(crate) struct Splitter<'c> {
    cfg: &'c ReaderConfig,
    file: u32,
    pub format: Option<Format>,
    pub next_index: u64,
    pub report: FileReport,
    batch: Vec<Record>,
    /// Kind of the last skip error and where that skip ended, so one garbage region that spans
    /// buffers is counted once.
    last_skip: Option<(ErrorKind, u64)>,
    pub stopped: bool,
    /// How far the decoder had read into the input after the last batch it filled
    /// ([`Decode::position`]): each record's [`Record::read_to`] is at least this.
    read_to: u64,
}

impl<'c> Splitter<'c> {
    pub(crate) fn new(cfg: &'c ReaderConfig, file: u32, format: Option<Format>) -> Self {
        Splitter {
            cfg,
            file,
            format,
            next_index: 0,
            report: FileReport {
                every_error: cfg.every_error,
                ..FileReport::default()
            },
            batch: Vec::new(),
            last_skip: None,
            stopped: false,
            read_to: 0,
        }
    }

    fn flush(&mut self, sink: &mut dyn FnMut(Vec<Record>) -> bool) {
        if !self.batch.is_empty() && !self.stopped {
            let b = std::mem::take(&mut self.batch);
            if !sink(b) {
                self.stopped = true;
            }
        }
    }

    /// Splits records out of `buf`; returns how many bytes were consumed and, if the rest is an
    /// incomplete record, how many bytes it needs.
    fn process(
        &mut self,
        buf: &Bytes,
        marks: &[Mark],
        eof: bool,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> (usize, Option<usize>) {
        let format = match self.format {
            Some(f) => f,
            None => match detect_format(buf, eof) {
                Ok(Some(f)) => {
                    self.format = Some(f);
                    self.report.format = Some(f);
                    f
                }
                Ok(None) => {
                    if !buf.trim_ascii().is_empty() {
                        self.report.error(
                            ErrorKind::BadHeader,
                            offset_of(marks, 0),
                            "not a WARC, ARC or TREC file".into(),
                        );
                    }
                    self.stopped = true;
                    return (buf.len(), None);
                }
                Err(()) => return (0, Some(buf.len() + 1)),
            },
        };
        // Blanks and NUL padding start no record; passing over them here is much faster than
        // the step functions' byte loop (which matters for gigabytes of zeros).
        let mut at = first_non_blank(buf, 0);
        self.skip_goes_on(marks, 0, at);
        while !self.stopped {
            match step(format, buf, at, eof) {
                Step::Rec(p) => {
                    self.last_skip = None;
                    let next = p.next.max(at + 1).min(buf.len());
                    let rec = self.record(buf, marks, p);
                    self.batch.push(rec);
                    if self.batch.len() >= self.cfg.batch_records.max(1) {
                        self.flush(sink);
                    }
                    at = next;
                }
                Step::Skip { to, err } => {
                    let to = to.max(at + 1).min(buf.len());
                    if let Some((kind, pos, msg)) = err {
                        let off = offset_of(marks, pos);
                        let cont = self.last_skip == Some((kind, offset_of(marks, at)))
                            && matches!(kind, ErrorKind::Garbage | ErrorKind::TooLarge);
                        if !cont {
                            self.report.error(kind, off, msg);
                        }
                        self.last_skip = Some((kind, offset_of(marks, to)));
                    }
                    at = to;
                }
                Step::Need(n) => {
                    debug_assert!(!eof);
                    if eof {
                        // A step function must not ask for more at the end; treat as the end.
                        return (buf.len(), None);
                    }
                    if let Some(p) = self.ends_before_blanks(format, buf, at) {
                        let next = p.next;
                        let rec = self.record(buf, marks, p);
                        self.batch.push(rec);
                        if self.batch.len() >= self.cfg.batch_records.max(1) {
                            self.flush(sink);
                        }
                        at = next;
                        continue;
                    }
                    return (at, Some(n));
                }
                Step::End => return (buf.len(), None),
            }
            if at >= buf.len() {
                if eof {
                    return (buf.len(), None);
                }
                return (at, Some(1));
            }
        }
        (buf.len(), None)
    }

    /// The record at `at` when a step function waits for more input only to see what follows a
    /// whole record, and a run of at least `BLANK_RUN_BYTES` blanks or NULs ends the buffer: the
    /// record as it reads when the input ends where that run starts, if it reads so without
    /// error and ends before the run. Otherwise a record followed by gigabytes of zeros (a bomb's
    /// body) would be carried from buffer to buffer, growing, until something else showed up.
    fn ends_before_blanks(&self, format: Format, buf: &Bytes, at: usize) -> Option<Parsed> {
        let cut = blank_tail_start(buf, at);
        if buf.len() - cut < BLANK_RUN_BYTES || cut <= at {
            return None;
        }
        match step(format, &buf[..cut], at, true) {
            Step::Rec(p) if p.error.is_none() && p.next <= cut && p.next > at => Some(p),
            _ => None,
        }
    }

    /// Blanks from `from` to `to` are passed over: a garbage region that ended at `from` goes on
    /// to `to`, so garbage split by blanks at a buffer's edge is still one region, counted once.
    fn skip_goes_on(&mut self, marks: &[Mark], from: usize, to: usize) {
        if let Some((kind, end)) = self.last_skip {
            if to > from && end == offset_of(marks, from) {
                self.last_skip = Some((kind, offset_of(marks, to)));
            }
        }
    }

    fn record(&mut self, buf: &Bytes, marks: &[Mark], p: Parsed) -> Record {
        let offset = offset_of(marks, p.start);
        if let Some((kind, msg)) = &p.error {
            self.report.error(*kind, offset, msg.clone());
        }
        let mut rec = Record {
            pos: SourcePos {
                file: self.file,
                offset,
                index: self.next_index,
            },
            uoffset: uoffset_of(marks, p.start),
            format: self.format.unwrap_or(Format::Warc),
            kind: p.kind,
            id: p.id,
            url: p.url,
            date: p.date,
            content_type: p.content_type,
            headers: p.headers,
            block: buf.slice(p.block),
            http_head: p.http_head.map(|r| buf.slice(r)),
            error: p.error.map(|e| e.0),
            quirk: p.quirk,
            digests: Digests::default(),
            read_to: offset.max(self.read_to),
        };
        self.next_index += 1;
        self.report.records += 1;
        self.report.block_bytes += rec.block.len() as u64;
        match self.report.records_by_kind.get_mut(rec.kind.as_str()) {
            Some(n) => *n += 1,
            None => {
                let k = rec.kind.as_str().to_string();
                self.report.records_by_kind.insert(k, 1);
            }
        }
        if crate::date::is_invalid(rec.date.as_deref()) {
            self.report.invalid_dates += 1;
        }
        if self.cfg.verify_digests {
            rec.digests = digest::verify(&rec, &mut self.report.digests);
        }
        rec
    }

    /// Splits an input that is already whole in memory (uncompressed map): records slice it.
    pub(crate) fn run_bytes(
        &mut self,
        data: Bytes,
        base: u64,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) {
        let marks = [Mark {
            at: 0,
            src: base,
            linear: true,
            usrc: 0,
        }];
        self.process(&data, &marks, true, sink);
        self.flush(sink);
    }

    /// Splits the output of a decoder, one batch buffer at a time.
    pub(crate) fn run(
        &mut self,
        dec: &mut dyn Decode,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> io::Result<()> {
        let step_bytes = self.cfg.buffer_bytes.max(1);
        let mut carry = Bytes::new();
        let mut carry_marks: Vec<Mark> = Vec::new();
        let mut need = 0usize;
        // Decoded bytes passed over since the last buffer that gave a record (see
        // `MAX_SKIP_DECODED_BYTES`).
        let mut skipped = 0u64;
        while !self.stopped {
            let want = carry.len() + step_bytes.max(need.saturating_sub(carry.len()));
            // Room for the target plus a quarter, so the batch is rarely reallocated (the
            // decoder ends a batch rather than grow it).
            let cap = want
                .saturating_add(want / 4)
                .min(want.saturating_add(MAX_RECORD_BYTES));
            let mut v = POOL.take(cap.max(carry.len()));
            v.extend_from_slice(&carry);
            let mut marks = std::mem::take(&mut carry_marks);
            let eof = dec.fill(&mut v, want, &mut marks, &mut self.report)?;
            if let Some(at) = dec.position() {
                self.read_to = self.read_to.max(at);
            }
            let buf = POOL.freeze(v);
            let records = self.report.records;
            let (mut consumed, mut more) = self.process(&buf, &marks, eof, sink);
            if eof || self.stopped {
                break;
            }
            if more.is_some()
                && self.format.is_some()
                && first_non_blank(&buf, consumed) == buf.len()
            {
                // Only blanks or NUL padding wait for more input: they start no record, so they
                // are dropped rather than carried (a member of gigabytes of zeros would
                // otherwise be gathered whole).
                self.skip_goes_on(&marks, consumed, buf.len());
                (consumed, more) = (buf.len(), None);
            }
            skipped = if self.report.records > records {
                0
            } else {
                skipped + consumed as u64
            };
            if skipped > MAX_SKIP_DECODED_BYTES {
                if dec.abandon(skipped, &mut self.report)? {
                    // What is left of the abandoned member is part of the skip.
                    (consumed, more) = (buf.len(), None);
                }
                skipped = 0;
            }
            carry = buf.slice(consumed.min(buf.len())..);
            carry_marks = rebase(&marks, consumed);
            need = more.unwrap_or(0);
        }
        self.flush(sink);
        Ok(())
    }
}
