//! Reads web crawl archives into records, fast and without giving up on broken files.
//!
//! `crawlsift-reader` detects the format (WARC 0.17/0.18/1.0/1.1 incl. WET/WAT, ARC v1, TREC Web,
//! TREC text) and the compression (none, gzip in any member layout, LZ4 frames, zstd) from the
//! bytes, memory-maps files (stdin, pipes and `http(s)://` / `s3://` URLs are streamed), and hands [`Record`]s to a sink in file order, in
//! batches. Records of uncompressed files are slices of the map; gzip members are inflated into one
//! buffer per batch that the records slice. One large per-record gzip file is inflated on
//! [`ReaderConfig::threads`] threads (the parallel reader cuts it at confirmed member
//! starts); the output is the same for any thread count.
//!
//! Damage is counted, not fatal: every record-level problem is an [`ErrorKind`] in the
//! [`FileReport`] with a byte offset, and the reader resyncs on the next `WARC/` line, ARC header
//! line or `<DOC>`. Only an input that cannot be opened is a [`ReadError`].
//!
//! HTTP messages are parsed lazily by [`Record::http`] (status, headers, body de-chunked and
//! content-decoded, lying headers fall back to the raw body), so callers can do it on their own
//! worker threads.
//!
//! ```
//! use crawlsift_reader::{read_bytes, ReaderConfig, RecordKind};
//! let warc = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
//! WARC-Target-URI: <http://example.com/>\r\nContent-Type: application/http; msgtype=response\r\n\
//! Content-Length: 43\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n";
//! let mut records = Vec::new();
//! let report = read_bytes(bytes::Bytes::from_static(warc), 0, &ReaderConfig::default(), &mut |batch| {
//!     records.extend(batch);
//!     true // keep going
//! });
//! assert_eq!(report.records, 1);
//! assert_eq!(report.error_count(), 0);
//! let r = &records[0];
//! assert_eq!((r.kind.clone(), r.id.as_str()), (RecordKind::Response, "<urn:uuid:1>"));
//! assert_eq!(r.url.as_deref(), Some("http://example.com/"));
//! let http = r.http().unwrap().unwrap();
//! assert_eq!((http.status, &http.body[..]), (200, &b"hello"[..]));
//! ```
//!
//! # Layout
//!
//! The source is in three layers; files only depend on files of their own layer or below, and
//! `scripts/check_structure.py` checks there is no import circle.
//!
//! - `read/` (top): [`read_input`], [`read_bytes`], [`read_stream`] pick a decoder per compression;
//!   `read/split.rs` is the record splitter that runs a format over decoded batch buffers;
//!   `read/parallel.rs` reads a large per-record gzip file on several threads.
//! - `container/`: the archive formats. `container/mod.rs` dispatches to [`warc`], [`arc`] and
//!   [`trec`], which share `container/parse.rs` (the step vocabulary and blank/padding helpers);
//!   `container/detect.rs` tells the format from the bytes.
//! - `compress/`: from input bytes to decoded bytes. `compress/members.rs` is the one loop over
//!   gzip members and LZ4 / zstd frames, for mapped files (`compress/input.rs`) and streams
//!   (`compress/stream.rs`) alike; around it: compression detection and magic numbers, the
//!   `Decode` trait, frame decoders, gzip headers, the libdeflate inflater and
//!   [`gzip::find_member_start`] (where the parallel reader may cut).
//! - Leaves at the top level: `record.rs` ([`Record`]), `http.rs` ([`HttpResponse`], uses the
//!   inflater in `compress/`), `report.rs` ([`FileReport`]), `error.rs`, `fields.rs`,
//!   `digest.rs`, `config.rs` ([`ReaderConfig`]), `input.rs`, `pool.rs` (batch buffers), and
//!   `remote/` (`http(s)://` and `s3://` inputs as resumable streams, beside the layers: it
//!   depends only on `input.rs` and `error.rs`).

#![deny(missing_docs)]

mod compress;
mod config;
mod container;
pub mod date;
pub mod digest;
pub mod error;
mod fields;
pub mod http;
mod input;
mod pool;
mod read;
mod record;
mod remote;
mod report;

pub use crate::compress::detect::{Compression, ZSTD_DICTIONARY_FRAME_MAGIC};
pub use crate::compress::gzip;
pub use crate::config::ReaderConfig;
pub use crate::container::{arc, trec, warc};
pub use crate::error::{ErrorKind, HttpError, ReadError, RecordError, RemoteError};
pub use crate::fields::Fields;
pub use crate::http::{HttpFlags, HttpResponse};
pub use crate::input::{expand_inputs, read_input_list, Input};
pub use crate::read::at::{record_at, RecordReader, SeekIndex};
pub use crate::read::{holds_archive, read_bytes, read_input, read_stream};
pub use crate::record::{Format, Record, RecordKind};
pub use crate::report::{DigestCounts, FileReport};
pub use crawlsift_common::SourcePos;

/// Format and compression detection from the bytes (never from file names).
pub mod detect {
    pub use crate::compress::detect::detect_compression;
    pub use crate::container::detect::detect_format;
}
