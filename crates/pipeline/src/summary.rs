//! What reading one input gave ([`FileSummary`]): plain data, so a checkpoint can keep it and a
//! report can add it up. A serde mirror of the reader's `FileReport`, kept here until the reader's
//! report serialises with the same JSON field names.

use std::collections::BTreeMap;

use crawlsift_reader::FileReport;
use serde::{Deserialize, Serialize};

/// What reading one input gave: plain data, so a checkpoint can keep it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileSummary {
    /// Whether any archive format was recognised.
    pub archive: bool,
    /// Records read.
    pub records: u64,
    /// Records by type name.
    pub records_by_kind: BTreeMap<String, u64>,
    /// Input bytes consumed.
    pub bytes_in: u64,
    /// Bytes of record blocks (decompressed).
    pub block_bytes: u64,
    /// WARC digests checked (with `--verify-digests`): matching, mismatching, unsupported.
    pub digests: [u64; 3],
    /// Record errors by kind name.
    pub errors: BTreeMap<String, u64>,
    /// The first few errors, each naming its byte offset.
    pub error_examples: Vec<String>,
}

impl FileSummary {
    /// Record errors of all kinds.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

impl FileSummary {
    /// Adds another input's counts to these (for totals).
    pub fn add(&mut self, o: &FileSummary) {
        self.archive |= o.archive;
        self.records += o.records;
        self.bytes_in += o.bytes_in;
        self.block_bytes += o.block_bytes;
        for (a, b) in self.digests.iter_mut().zip(o.digests) {
            *a += b;
        }
        for (k, n) in &o.records_by_kind {
            *self.records_by_kind.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &o.errors {
            *self.errors.entry(k.clone()).or_default() += n;
        }
    }
}

impl From<&FileReport> for FileSummary {
    fn from(r: &FileReport) -> Self {
        FileSummary {
            archive: r.format.is_some(),
            records: r.records,
            records_by_kind: r.records_by_kind.clone(),
            bytes_in: r.bytes_in,
            block_bytes: r.block_bytes,
            digests: [r.digests.ok, r.digests.mismatch, r.digests.unsupported],
            errors: r
                .errors
                .iter()
                .map(|(k, n)| (k.as_str().to_string(), *n))
                .collect(),
            error_examples: r.error_examples.iter().map(|e| e.to_string()).collect(),
        }
    }
}
