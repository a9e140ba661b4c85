//! Reading one record back from where a run found it: [`record_at`] and [`RecordReader`].
//!
//! A record's place is its [`SourcePos::offset`](crate::SourcePos) (the record in an
//! uncompressed file, else the gzip member or LZ4 / zstd frame holding its start) and its
//! [`Record::uoffset`] (where it starts in that member's or frame's decoded bytes: 0 when each
//! record has a member of its own, the offset in the decompressed stream for a file compressed
//! whole). The decoded bytes from there are split as a run splits them, and the first record is
//! the one asked for.
//!
//! Inside a gzip member, reading resumes at the last checkpoint of the inflate state before the
//! record ([`compress::seek`](crate::compress::seek)); a [`RecordReader`] keeps each member's
//! checkpoints, so reading many records of one file gzipped whole inflates it about once in all.
//! A [`SeekIndex`] is those checkpoints taken over a whole member and saved (an index keeps them
//! beside its lines), so another process reads a record there inflating at most one span.
//! LZ4 and zstd frames are read from their start (the offset is the frame's start: a file of
//! many frames is read from the frame holding the record); a zstd or LZ4 frame's decoder state
//! cannot be resumed mid-frame.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use crawlsift_common::limits::{MAX_HEADER_BYTES, MAX_RECORD_BYTES, SEEK_MAX_MEMBERS};

use super::split::Splitter;
use crate::compress::decode::Decode;
use crate::compress::detect::{detect_compression, Compression};
use crate::compress::members::Members;
use crate::compress::seek::GzSeek;
use crate::config::ReaderConfig;
use crate::error::ReadError;
use crate::input;
use crate::record::Record;
use crate::report::FileReport;

/// Decoded bytes read for a record at first; the window grows fourfold while the record goes on
/// past it.
const FIRST_WINDOW: usize = 256 << 10;

/// Open files kept by a [`RecordReader`]; past it, all are closed.
const MAX_OPEN_FILES: usize = 64;

/// The inflate checkpoints of one whole gzip member ([`RecordReader::seek_index`]), as bytes to
/// keep beside a run's outputs and give back to a later reader ([`RecordReader::add_seek_index`]):
/// a record `uoffset` bytes into the member is then read inflating at most
/// `limits::SEEK_CHECKPOINT_SPAN` (doubled past `limits::SEEK_MAX_CHECKPOINTS` checkpoints),
/// not the member up to it. 32 KiB a checkpoint.
#[derive(Clone)]
pub struct SeekIndex(GzSeek);

impl SeekIndex {
    /// The checkpoints as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes()
    }

    /// The member's decoded size (known once it was inflated to its end, as
    /// [`RecordReader::seek_index`] does).
    pub fn decoded_size(&self) -> Option<u64> {
        self.0.size()
    }

    /// Checkpoints saved by [`to_bytes`](Self::to_bytes); bytes that are not (another file,
    /// damage) are an error, never a panic. Checkpoints of another member read wrong bytes or
    /// fail: a caller that may have mixed them checks the record it gets.
    pub fn from_bytes(b: &[u8]) -> std::io::Result<SeekIndex> {
        GzSeek::from_bytes(b).map(SeekIndex)
    }
}

/// Reads the record at `offset` / `uoffset` of the file at `path` (see the module
/// documentation). The record's `pos.file` and `pos.index` are 0: the caller knows them.
pub fn record_at(path: &Path, offset: u64, uoffset: u64) -> Result<Record, ReadError> {
    RecordReader::new().record_at(path, offset, uoffset)
}

/// Reads records back from their places, keeping files open and the inflate checkpoints of the
/// gzip members read so far (bounded: [`SEEK_MAX_MEMBERS`] members, 64 files).
#[derive(Default)]
pub struct RecordReader {
    cfg: ReaderConfig,
    files: HashMap<PathBuf, Bytes>,
    members: HashMap<(PathBuf, u64), GzSeek>,
}

impl RecordReader {
    /// A reader with nothing open.
    pub fn new() -> RecordReader {
        RecordReader::default()
    }

    /// Reads the record at `offset` / `uoffset` of the file at `path`; see [`record_at`].
    pub fn record_at(
        &mut self,
        path: &Path,
        offset: u64,
        uoffset: u64,
    ) -> Result<Record, ReadError> {
        let data = self.open(path)?;
        let no_record = |why: String| no_record_at(path, offset, uoffset, why);
        if offset >= data.len() as u64 {
            return Err(no_record(format!(
                "the file has {} bytes; was it changed?",
                data.len()
            )));
        }
        let compression = detect_compression(&data);
        let mut size = FIRST_WINDOW;
        loop {
            let (window, eof) = self
                .window(path, &data, compression, offset, uoffset, size)
                .map_err(|e| no_record(e.to_string()))?;
            let mut first = Vec::new();
            let mut s = Splitter::new(&self.cfg, 0, None);
            s.run_bytes(Bytes::from(window), 0, &mut |batch| {
                first = batch;
                false
            });
            // A record that is not followed by another may go on past the window.
            let whole = eof || first.len() >= 2 || size >= MAX_RECORD_BYTES + MAX_HEADER_BYTES;
            match first.into_iter().next() {
                Some(rec) if rec.pos.offset != 0 => {
                    return Err(no_record(format!(
                        "no record starts there (the next one is {} bytes on)",
                        rec.pos.offset
                    )))
                }
                Some(mut rec) if whole => {
                    rec.pos.offset = offset;
                    rec.uoffset = uoffset;
                    return Ok(rec);
                }
                None if eof => return Err(no_record("no record starts there".into())),
                _ => {
                    size = size
                        .saturating_mul(4)
                        .min(MAX_RECORD_BYTES + MAX_HEADER_BYTES)
                }
            }
        }
    }

    /// Inflates the gzip member at `offset` of `path` to its end once and gives its checkpoints
    /// (kept by this reader too); `None` when the file is not gzip-compressed.
    pub fn seek_index(&mut self, path: &Path, offset: u64) -> Result<Option<SeekIndex>, ReadError> {
        let data = self.open(path)?;
        if detect_compression(&data) != Compression::Gzip {
            return Ok(None);
        }
        let no_member = |why: String| no_record_at(path, offset, 0, why);
        let member = data
            .get(offset as usize..)
            .ok_or_else(|| no_member("the file ends before it".into()))?;
        let seek = self
            .member(path, offset, member)
            .map_err(|e| no_member(e.to_string()))?;
        seek.complete(member)
            .map_err(|e| no_member(e.to_string()))?;
        Ok(Some(SeekIndex(seek.clone())))
    }

    /// Reads the member at `offset` of `path` with `index`'s checkpoints (from
    /// [`seek_index`](Self::seek_index), saved and read back) instead of inflating it again.
    pub fn add_seek_index(&mut self, path: &Path, offset: u64, index: SeekIndex) {
        if self.members.len() >= SEEK_MAX_MEMBERS {
            self.members.clear();
        }
        self.members.insert((path.to_path_buf(), offset), index.0);
    }

    /// Up to `len` decoded bytes from `uoffset` of the member or frame at `offset` of `path`
    /// (running on into those after it): a record's bytes as stored, decompressed, when `len`
    /// is its length.
    pub fn bytes_at(
        &mut self,
        path: &Path,
        offset: u64,
        uoffset: u64,
        len: usize,
    ) -> Result<Vec<u8>, ReadError> {
        let data = self.open(path)?;
        let compression = detect_compression(&data);
        let fail = |why: String| no_record_at(path, offset, uoffset, why);
        if offset >= data.len() as u64 {
            return Err(fail("past the end of the file".into()));
        }
        let (bytes, _) = self
            .window(path, &data, compression, offset, uoffset, len)
            .map_err(|e| fail(e.to_string()))?;
        Ok(bytes)
    }

    /// The checkpoints of the gzip member at `offset` of `path` (whose bytes run on as `member`),
    /// made at the first read.
    fn member(&mut self, path: &Path, offset: u64, member: &[u8]) -> std::io::Result<&mut GzSeek> {
        let key = (path.to_path_buf(), offset);
        if !self.members.contains_key(&key) {
            let seek = GzSeek::new(member).ok_or_else(|| invalid("no gzip member starts there"))?;
            if self.members.len() >= SEEK_MAX_MEMBERS {
                self.members.clear();
            }
            self.members.insert(key.clone(), seek);
        }
        Ok(self.members.get_mut(&key).expect("inserted above"))
    }

    /// The file at `path`, mapped (kept open).
    fn open(&mut self, path: &Path) -> Result<Bytes, ReadError> {
        if let Some(d) = self.files.get(path) {
            return Ok(d.clone());
        }
        let data = match input::open(path)? {
            input::Opened::Mapped(d) => d,
            input::Opened::Stream(_) => {
                let why = "not a regular file: records cannot be read back from a pipe";
                return Err(no_record_at(path, 0, 0, why.into()));
            }
        };
        if self.files.len() >= MAX_OPEN_FILES {
            self.files.clear();
        }
        self.files.insert(path.to_path_buf(), data.clone());
        Ok(data)
    }

    /// Up to `size` decoded bytes from `uoffset` in the member or frame at `offset` (running on
    /// into the members after it), and whether they reach the end of the input.
    fn window(
        &mut self,
        path: &Path,
        data: &Bytes,
        compression: Compression,
        offset: u64,
        uoffset: u64,
        size: usize,
    ) -> std::io::Result<(Vec<u8>, bool)> {
        let at = offset as usize;
        match compression {
            Compression::None => {
                if uoffset != 0 {
                    return Err(invalid("the file is not compressed: uoffset must be 0"));
                }
                let end = at.saturating_add(size).min(data.len());
                Ok((data[at..end].to_vec(), end == data.len()))
            }
            Compression::Gzip => {
                let w = self
                    .member(path, offset, &data[at..])?
                    .read(&data[at..], uoffset, size)?;
                let mut bytes = w.bytes;
                match w.member_end {
                    // The window goes on into the members after this one.
                    Some(end) if bytes.len() < size => {
                        let next = at + end as usize;
                        let eof = decode_into(
                            data.slice(next..),
                            next as u64,
                            compression,
                            0,
                            &mut bytes,
                            size,
                            None,
                        )?;
                        Ok((bytes, eof))
                    }
                    Some(end) => Ok((bytes, at + end as usize >= data.len())),
                    None => Ok((bytes, false)),
                }
            }
            Compression::Lz4 | Compression::Zstd => {
                // A frame of a `.warc.zst` file with a dictionary needs the dictionary its
                // first frame holds.
                let dict = match crate::compress::members::zstd_dictionary(&data[..]) {
                    Some(Ok((dict, len))) if at >= len => Some(dict),
                    Some(Err(e)) if at > 0 => return Err(e),
                    _ => None,
                };
                let mut bytes = Vec::new();
                let eof = decode_into(
                    data.slice(at..),
                    offset,
                    compression,
                    uoffset,
                    &mut bytes,
                    size,
                    dict,
                )?;
                Ok((bytes, eof))
            }
            Compression::Bzip2 | Compression::Xz => Err(invalid(
                "the file's compression is not supported: decompress it first",
            )),
        }
    }
}

/// Decodes the members or frames of `data` (at file offset `base`) with the reader's member
/// loop, passes over the first `skip` decoded bytes and appends what follows to `out` until it
/// holds `size` bytes; zstd frames with `zstd_dictionary` when given. Returns whether the input
/// ended. Damage the run counted is met again here; it fails the read only where it leaves no
/// bytes.
fn decode_into(
    data: Bytes,
    base: u64,
    compression: Compression,
    skip: u64,
    out: &mut Vec<u8>,
    size: usize,
    zstd_dictionary: Option<Vec<u8>>,
) -> std::io::Result<bool> {
    let mut members = Members::mapped(data, base, compression);
    if let Some(dict) = zstd_dictionary {
        members = members.with_zstd_dictionary(dict);
    }
    let mut report = FileReport::default();
    let mut marks = Vec::new();
    let mut skipped = 0u64;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        marks.clear();
        let want = (64 << 10).min(size.saturating_sub(out.len()).max(1));
        let eof = members.fill(&mut buf, want, &mut marks, &mut report)?;
        let mut chunk = &buf[..];
        if skipped < skip {
            let k = (skip - skipped).min(chunk.len() as u64) as usize;
            skipped += k as u64;
            chunk = &chunk[k..];
        }
        let room = size - out.len();
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if eof {
            if skipped < skip {
                return Err(invalid("the decoded stream ends before that position"));
            }
            return Ok(true);
        }
        if out.len() >= size {
            return Ok(false);
        }
    }
}

/// The error of a place in `path` where no record can be read, and why.
fn no_record_at(path: &Path, offset: u64, uoffset: u64, why: String) -> ReadError {
    ReadError::NoRecord {
        path: path.to_path_buf(),
        offset,
        uoffset,
        why,
    }
}

fn invalid(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.to_string())
}
