//! [`FileReport`]: what reading one input produced: records by kind, bytes, errors by kind with the
//! first few examples (offset + message), and digest verification counts.

use std::collections::BTreeMap;

use crawlsift_common::limits::MAX_ERROR_EXAMPLES;

use crate::compress::detect::Compression;
use crate::error::{ErrorKind, RecordError};
use crate::record::Format;

/// Results of `WARC-Block-Digest` / `WARC-Payload-Digest` checks. With the `serde` feature it is
/// (de)serialized as the array `[ok, mismatch, unsupported]`, as the binary's summaries hold it.
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
///
/// With the `serde` feature it is (de)serialized with the field names, order and value shapes of
/// the binary's per-file summary: `archive` (whether a format was detected), `records`,
/// `records_by_kind`, `bytes_in`, `block_bytes`, `digests` (`[ok, mismatch, unsupported]`),
/// `errors` (count by [`ErrorKind`] name, in name order) and `error_examples` (each error's
/// `Display` line); then the fields that summary does not have: `format`, `compression` and
/// `parallel_ranges`. Those three may be absent when deserializing (a summary written before
/// them): they default, and `format` then stays `None` even when `archive` is true.
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
    /// Records whose capture date is written but is no valid date (ClueWeb09's
    /// `2009-03-78T08:13:42-0700`): outputs give `"date": null` and the written `date_raw`.
    pub invalid_dates: u64,
    /// Keep every error in `error_examples` ([`ReaderConfig::every_error`](crate::ReaderConfig));
    /// not serialized.
    pub every_error: bool,
}

impl FileReport {
    /// Counts an error and keeps it as an example if there is room.
    pub fn error(&mut self, kind: ErrorKind, offset: u64, message: String) {
        *self.errors.entry(kind).or_insert(0) += 1;
        if self.every_error || self.error_examples.len() < MAX_ERROR_EXAMPLES {
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
            if self.every_error || self.error_examples.len() < MAX_ERROR_EXAMPLES {
                self.error_examples.push(e.clone());
            }
        }
        self.digests.ok += o.digests.ok;
        self.digests.mismatch += o.digests.mismatch;
        self.digests.unsupported += o.digests.unsupported;
        self.parallel_ranges += o.parallel_ranges;
        self.invalid_dates += o.invalid_dates;
    }
}

#[cfg(feature = "serde")]
mod wire {
    //! The JSON shape of a [`FileReport`] (see its documentation).

    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{DigestCounts, FileReport};
    use crate::compress::detect::Compression;
    use crate::error::{ErrorKind, RecordError};
    use crate::record::Format;

    impl Serialize for DigestCounts {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            [self.ok, self.mismatch, self.unsupported].serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for DigestCounts {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let [ok, mismatch, unsupported] = <[u64; 3]>::deserialize(d)?;
            Ok(DigestCounts {
                ok,
                mismatch,
                unsupported,
            })
        }
    }

    /// Field order is the JSON order: the binary's summary fields first.
    #[derive(Serialize)]
    struct Out<'a> {
        archive: bool,
        records: u64,
        records_by_kind: &'a BTreeMap<String, u64>,
        bytes_in: u64,
        block_bytes: u64,
        digests: DigestCounts,
        /// By name, so the keys come out in the order the summary's string keys do.
        errors: BTreeMap<&'static str, u64>,
        error_examples: &'a [RecordError],
        format: Option<Format>,
        compression: Compression,
        parallel_ranges: u64,
        invalid_dates: u64,
    }

    #[derive(Deserialize)]
    struct In {
        #[allow(dead_code)]
        #[serde(default)]
        archive: bool,
        records: u64,
        records_by_kind: BTreeMap<String, u64>,
        bytes_in: u64,
        block_bytes: u64,
        digests: DigestCounts,
        errors: BTreeMap<String, u64>,
        error_examples: Vec<RecordError>,
        #[serde(default)]
        format: Option<Format>,
        #[serde(default)]
        compression: Compression,
        #[serde(default)]
        parallel_ranges: u64,
        #[serde(default)]
        invalid_dates: u64,
    }

    impl Serialize for FileReport {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            Out {
                archive: self.format.is_some(),
                records: self.records,
                records_by_kind: &self.records_by_kind,
                bytes_in: self.bytes_in,
                block_bytes: self.block_bytes,
                digests: self.digests,
                errors: self.errors.iter().map(|(k, n)| (k.as_str(), *n)).collect(),
                error_examples: &self.error_examples,
                format: self.format,
                compression: self.compression,
                parallel_ranges: self.parallel_ranges,
                invalid_dates: self.invalid_dates,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for FileReport {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let w = In::deserialize(d)?;
            let mut errors = BTreeMap::new();
            for (name, n) in w.errors {
                let kind = ErrorKind::from_name(&name).ok_or_else(|| {
                    serde::de::Error::custom(format!("unknown error kind {name:?}"))
                })?;
                errors.insert(kind, n);
            }
            Ok(FileReport {
                format: w.format,
                compression: w.compression,
                records: w.records,
                records_by_kind: w.records_by_kind,
                bytes_in: w.bytes_in,
                block_bytes: w.block_bytes,
                errors,
                error_examples: w.error_examples,
                digests: w.digests,
                parallel_ranges: w.parallel_ranges,
                invalid_dates: w.invalid_dates,
                every_error: false,
            })
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn sample() -> FileReport {
            let mut r = FileReport {
                format: Some(Format::Warc),
                compression: Compression::Gzip,
                records: 3,
                bytes_in: 1000,
                block_bytes: 700,
                digests: DigestCounts {
                    ok: 2,
                    mismatch: 1,
                    unsupported: 0,
                },
                parallel_ranges: 4,
                invalid_dates: 1,
                ..FileReport::default()
            };
            r.records_by_kind.insert("response".into(), 2);
            r.records_by_kind.insert("warcinfo".into(), 1);
            // Declaration order (truncated before bad_gzip) differs from name order.
            r.error(
                ErrorKind::Truncated,
                500,
                "input ends inside a record".into(),
            );
            r.error(ErrorKind::BadGzip, 12, "gzip member trailer missing".into());
            r
        }

        #[test]
        fn field_names_and_shapes_match_the_binarys_file_summary() {
            let json = serde_json::to_string(&sample()).unwrap();
            // The first eight fields are byte for byte what the binary's `FileSummary` writes
            // (src/inputs.rs); the reader's own fields follow.
            assert_eq!(
                json,
                concat!(
                    r#"{"archive":true,"records":3,"#,
                    r#""records_by_kind":{"response":2,"warcinfo":1},"#,
                    r#""bytes_in":1000,"block_bytes":700,"digests":[2,1,0],"#,
                    r#""errors":{"bad_gzip":1,"truncated":1},"#,
                    r#""error_examples":["byte 500: truncated: input ends inside a record","#,
                    r#""byte 12: bad_gzip: gzip member trailer missing"],"#,
                    r#""format":"warc","compression":"gzip","parallel_ranges":4,"invalid_dates":1}"#
                )
            );
        }

        #[test]
        fn round_trips_and_reads_a_summary_without_the_reader_fields() {
            let r = sample();
            let back: FileReport =
                serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
            assert_eq!(
                serde_json::to_value(&back).unwrap(),
                serde_json::to_value(&r).unwrap()
            );
            let old = r#"{"archive":false,"records":0,"records_by_kind":{},"bytes_in":5,
                "block_bytes":0,"digests":[0,0,0],"errors":{"bad_header":1},
                "error_examples":["byte 0: bad_header: not a WARC, ARC or TREC file"]}"#;
            let back: FileReport = serde_json::from_str(old).unwrap();
            assert_eq!(back.errors.get(&ErrorKind::BadHeader), Some(&1));
            assert_eq!(
                back.error_examples[0].message,
                "not a WARC, ARC or TREC file"
            );
            assert_eq!((back.format, back.compression), (None, Compression::None));
        }

        #[test]
        fn error_kinds_serialize_as_their_names() {
            for k in ErrorKind::ALL {
                assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
                assert_eq!(ErrorKind::from_name(k.as_str()), Some(k));
            }
        }
    }
}
