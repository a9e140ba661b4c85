//! Reading one input end to end: [`read_input`] opens it (map or stream), [`read_bytes`] and
//! [`read_stream`] pick the decoder for its compression and run the record splitter
//! ([`split`]) over it, or the parallel reader ([`parallel`]) for a large per-record gzip file;
//! [`at`] reads one record back from its place.
//! This is the top of the crate: it depends on [`compress`](crate::compress) and
//! [`container`](crate::container), and nothing but `lib.rs` depends on it.

pub(crate) mod at;
pub(crate) mod parallel;
pub(crate) mod split;

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use bytes::Bytes;

use crate::compress::decode::Decode;
use crate::compress::detect::{detect_compression, Compression};
use crate::compress::members::Members;
use crate::compress::stream::{ReadDecoder, StreamInput};
use crate::config::ReaderConfig;
use crate::error::{ErrorKind, ReadError};
use crate::input::{self, Input};
use crate::record::Record;
use crate::report::FileReport;
use split::Splitter;

/// Whether the file at `path` holds an archive: read until its first batch of records, it has a
/// record or a format the reader knows (a WARC, ARC or TREC file, even a damaged one). A README,
/// an image or an empty file holds none. A file the reader could not look into (a compression it
/// does not read, such as bzip2 or xz, or a broken stream) counts as one: the run names its own
/// problem, which says more than "no archive". Meant for regular files: a pipe would be consumed.
pub fn holds_archive(path: &std::path::Path) -> Result<bool, ReadError> {
    let input = Input::Path(path.to_path_buf());
    let r = read_input(&input, 0, &ReaderConfig::default(), &mut |_| false)?;
    let unread = r.errors.keys().any(|k| *k != ErrorKind::BadHeader);
    Ok(r.records > 0 || r.format.is_some() || unread)
}

/// Reads one input (a file, memory-mapped, or stdin, a pipe or a URL, streamed), calling `sink` with batches of
/// records in file order; `sink` returns `false` to stop early. `file_idx` goes into every
/// record's [`SourcePos`](crate::SourcePos).
pub fn read_input(
    input: &Input,
    file_idx: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> Result<FileReport, ReadError> {
    let name = input.path();
    let opened = match input {
        Input::Stdin => {
            return read_stream(io::stdin().lock(), file_idx, cfg, sink).map_err(
                |(offset, source)| ReadError::Io {
                    path: name,
                    offset,
                    source,
                },
            )
        }
        Input::Path(_) | Input::Remote(_) => input::open_input(input)?,
    };
    match opened {
        input::Opened::Mapped(data) => Ok(read_bytes(data, file_idx, cfg, sink)),
        // Pipes, sockets, devices and remote objects have no size to map: they are streamed.
        input::Opened::Stream(r) => {
            read_stream(r, file_idx, cfg, sink).map_err(|(offset, source)| ReadError::Io {
                path: name,
                offset,
                source,
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
            None => run_decoder(
                &mut Members::mapped(data.clone(), 0, compression),
                file_idx,
                cfg,
                sink,
            ),
        },
        Compression::Lz4 | Compression::Zstd => run_decoder(
            &mut Members::mapped(data.clone(), 0, compression),
            file_idx,
            cfg,
            sink,
        ),
        Compression::Bzip2 | Compression::Xz => unsupported(compression),
    };
    report.compression = compression;
    report.bytes_in = data.len() as u64;
    report
}

/// The report of an input in a compression the reader recognises but does not decode.
fn unsupported(compression: Compression) -> FileReport {
    let mut report = FileReport::default();
    report.error(
        ErrorKind::BadCompression,
        0,
        format!(
            "unsupported compression {}: decompress the input first",
            compression.as_str()
        ),
    );
    report
}

fn run_decoder(
    dec: &mut dyn Decode,
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
    // Enough bytes for the longest magic number (xz's six).
    const HEAD: usize = 6;
    let mut head = Vec::with_capacity(HEAD);
    while head.len() < HEAD {
        let mut b = [0u8; HEAD];
        match r.read(&mut b[..HEAD - head.len()]) {
            Ok(0) => break,
            Ok(k) => head.extend_from_slice(&b[..k]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((n.get(), e)),
        }
    }
    let compression = detect_compression(&head);
    let chained = Read::chain(io::Cursor::new(head), r);
    if !compression.is_supported() {
        let mut report = unsupported(compression);
        report.compression = compression;
        report.bytes_in = n.get();
        return Ok(report);
    }
    let mut s = Splitter::new(cfg, file_idx, None);
    let res = match compression {
        Compression::None => s.run(&mut ReadDecoder::new(chained), sink),
        Compression::Bzip2 | Compression::Xz => Ok(()),
        Compression::Gzip | Compression::Lz4 | Compression::Zstd => s.run(
            &mut Members::new(StreamInput::new(chained), compression),
            sink,
        ),
    };
    res.map_err(|e| (n.get(), e))?;
    let mut report = s.report;
    report.compression = compression;
    report.bytes_in = n.get();
    Ok(report)
}
