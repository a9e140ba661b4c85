//! Reads web crawl archives into records, fast and without giving up on broken files.
//!
//! `crawlsift-reader` detects the format (WARC 0.17/0.18/1.0/1.1 incl. WET/WAT, ARC v1, TREC Web,
//! TREC text) and the compression (none, gzip in any member layout, LZ4 frames, zstd) from the
//! bytes, memory-maps files (stdin is streamed), and hands [`Record`]s to a sink in file order, in
//! batches. Records of uncompressed files are slices of the map; gzip members are inflated into one
//! buffer per batch that the records slice. One large per-record gzip file is inflated on
//! [`ReaderConfig::threads`] threads ([`parallel`](crate::parallel) cuts it at confirmed member
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

pub mod arc;
mod decode;
pub mod detect;
pub mod digest;
pub mod error;
mod fields;
mod frames;
pub mod gzip;
pub mod http;
mod inflate;
mod input;
mod parallel;
mod pool;
mod record;
mod report;
mod split;
pub mod trec;
pub mod warc;

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use bytes::Bytes;
use crawlsift_common::limits::{PARALLEL_MIN_FILE_BYTES, PARALLEL_RANGE_BYTES, READ_BUFFER_BYTES};

pub use crate::error::{ErrorKind, HttpError, ReadError, RecordError};
pub use crate::fields::Fields;
pub use crate::http::{HttpFlags, HttpResponse};
pub use crate::input::{expand_inputs, Input};
pub use crate::record::{Format, Record, RecordKind};
pub use crate::report::{Compression, DigestCounts, FileReport};
pub use crawlsift_common::SourcePos;

use crate::decode::ReadDecoder;
use crate::detect::detect_compression;
use crate::gzip::GzipStream;
use crate::split::Splitter;

/// How to read. `Default` reads with all cores and the bounds from `crawlsift_common::limits`.
#[derive(Debug, Clone)]
pub struct ReaderConfig {
    /// Threads used to inflate one large multi-member gzip file (1 = sequential).
    pub threads: usize,
    /// Check `WARC-Block-Digest` / `WARC-Payload-Digest` and count results in the report.
    pub verify_digests: bool,
    /// Decoded bytes per batch buffer (tests drive this down to 1 to hit every boundary).
    pub buffer_bytes: usize,
    /// Compressed bytes per range of the parallel gzip reader.
    pub parallel_range_bytes: usize,
    /// Files smaller than this are read by one thread.
    pub parallel_min_file_bytes: usize,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            verify_digests: false,
            buffer_bytes: READ_BUFFER_BYTES,
            parallel_range_bytes: PARALLEL_RANGE_BYTES,
            parallel_min_file_bytes: PARALLEL_MIN_FILE_BYTES,
        }
    }
}

/// Reads one input (a file, memory-mapped, or stdin, streamed), calling `sink` with batches of
/// records in file order; `sink` returns `false` to stop early. `file_idx` goes into every
/// record's [`SourcePos`].
pub fn read_input(
    input: &Input,
    file_idx: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> Result<FileReport, ReadError> {
    match input {
        Input::Path(p) => match input::open(p)? {
            input::Opened::Mapped(data) => Ok(read_bytes(data, file_idx, cfg, sink)),
            // Pipes, sockets and devices have no size to map: they are streamed like stdin.
            input::Opened::Stream(file) => {
                read_stream(file, file_idx, cfg, sink).map_err(|(offset, source)| ReadError::Io {
                    path: p.clone(),
                    offset,
                    source,
                })
            }
        },
        Input::Stdin => {
            read_stream(io::stdin().lock(), file_idx, cfg, sink).map_err(|(offset, source)| {
                ReadError::Io {
                    path: "-".into(),
                    offset,
                    source,
                }
            })
        }
    }
}

/// Reads an input that is whole in memory (a map, a test buffer). Never fails: every problem is
/// counted in the report.
pub fn read_bytes(
    data: Bytes,
    file_idx: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> FileReport {
    let compression = detect_compression(&data);
    let mut report = match compression {
        Compression::None => {
            let mut s = Splitter::new(cfg, file_idx, None);
            s.run_bytes(data.clone(), 0, sink);
            s.report
        }
        Compression::Gzip => match parallel::read(&data, file_idx, cfg, sink) {
            Some(r) => r,
            None => run_decoder(&mut GzipStream::new(data.clone(), 0), file_idx, cfg, sink),
        },
        Compression::Lz4 | Compression::Zstd => run_decoder(
            &mut frames::FrameStream::new(data.clone(), compression),
            file_idx,
            cfg,
            sink,
        ),
    };
    report.compression = compression;
    report.bytes_in = data.len() as u64;
    report
}

fn run_decoder(
    dec: &mut dyn decode::Decode,
    file_idx: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> FileReport {
    let mut s = Splitter::new(cfg, file_idx, None);
    if let Err(e) = s.run(dec, sink) {
        // In-memory decoders report problems as record errors; keep this one too.
        s.report.error(ErrorKind::BadCompression, 0, e.to_string());
    }
    s.report
}

/// Counts bytes read through it (stdin's consumed size for the report and errors).
struct Counting<R> {
    inner: R,
    n: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n.set(self.n.get() + k as u64);
        Ok(k)
    }
}

/// Reads a stream (stdin, a pipe) without mapping it: compression is detected from its first
/// bytes; gzip members, LZ4 and zstd frames are decoded one at a time, and records carry the
/// offset of their member or frame, as from a mapped file.
/// Fails only when the stream itself fails; the error carries the bytes consumed before it.
pub fn read_stream<R: Read>(
    r: R,
    file_idx: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> Result<FileReport, (u64, io::Error)> {
    let n = Rc::new(Cell::new(0u64));
    let mut r = Counting {
        inner: r,
        n: n.clone(),
    };
    let mut head = Vec::with_capacity(4);
    while head.len() < 4 {
        let mut b = [0u8; 4];
        match r.read(&mut b[..4 - head.len()]) {
            Ok(0) => break,
            Ok(k) => head.extend_from_slice(&b[..k]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((n.get(), e)),
        }
    }
    let compression = detect_compression(&head);
    let chained = Read::chain(io::Cursor::new(head), r);
    let mut s = Splitter::new(cfg, file_idx, None);
    let res = match compression {
        Compression::None => s.run(&mut ReadDecoder::new(chained), sink),
        Compression::Gzip | Compression::Lz4 | Compression::Zstd => {
            s.run(&mut decode::Members::new(chained, compression), sink)
        }
    };
    res.map_err(|e| (n.get(), e))?;
    let mut report = s.report;
    report.compression = compression;
    report.bytes_in = n.get();
    Ok(report)
}
