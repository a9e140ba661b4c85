//! [`FileReport`]: what reading one input produced: records by kind, bytes, errors by kind with the
//! first few examples (offset + message), and digest verification counts.

use std::collections::BTreeMap;

use crawlsift_common::limits::MAX_ERROR_EXAMPLES;

use crate::compress::detect::Compression;
use crate::error::{ErrorKind, RecordError};
use crate::record::Format;

/// Results of `WARC-Block-Digest` / `WARC-Payload-Digest` checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestCounts {
    /// Digests that matched.
    pub ok: u64,
    /// Digests that did not match.
    pub mismatch: u64,
    /// Digests in an algorithm or encoding the reader does not know.
    pub unsupported: u64,
}

/// What reading one input produced.
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    /// Format detected (None when the input was empty or unrecognised).
    pub format: Option<Format>,
    /// Compression detected.
    pub compression: Compression,
    /// Records handed to the sink.
    pub records: u64,
    /// Records by kind name (`response`, `arc`, `trec_web`, ...).
    pub records_by_kind: BTreeMap<String, u64>,
    /// Input bytes (compressed size for compressed input).
    pub bytes_in: u64,
    /// Bytes of record blocks handed on.
    pub block_bytes: u64,
    /// Record-level errors by kind.
    pub errors: BTreeMap<ErrorKind, u64>,
    /// The first few errors with offsets and messages.
    pub error_examples: Vec<RecordError>,
    /// Digest checks (only with `verify_digests`).
    pub digests: DigestCounts,
    /// Ranges decoded in parallel (0 when read by one thread).
    pub parallel_ranges: u64,
}

impl FileReport {
    /// Counts an error and keeps it as an example if there is room.
    pub fn error(&mut self, kind: ErrorKind, offset: u64, message: String) {
        *self.errors.entry(kind).or_insert(0) += 1;
        if self.error_examples.len() < MAX_ERROR_EXAMPLES {
            self.error_examples.push(RecordError {
                kind,
                offset,
                message,
            });
        }
    }

    /// Total record-level errors.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Adds another report's counts to this one (format/compression kept unless unset).
    pub fn merge(&mut self, o: &FileReport) {
        if self.format.is_none() {
            self.format = o.format;
        }
        self.records += o.records;
        for (k, v) in &o.records_by_kind {
            *self.records_by_kind.entry(k.clone()).or_insert(0) += v;
        }
        self.block_bytes += o.block_bytes;
        for (k, v) in &o.errors {
            *self.errors.entry(*k).or_insert(0) += v;
        }
        for e in &o.error_examples {
            if self.error_examples.len() < MAX_ERROR_EXAMPLES {
                self.error_examples.push(e.clone());
            }
        }
        self.digests.ok += o.digests.ok;
        self.digests.mismatch += o.digests.mismatch;
        self.digests.unsupported += o.digests.unsupported;
        self.parallel_ranges += o.parallel_ranges;
    }
}
