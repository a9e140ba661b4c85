//! The one file layout every store file shares, and bounds-checked little-endian reads of it.
//!
//! ```text
//! offset  size  field
//! 0       8     magic (one per file kind)
//! 8       4     version (u32)
//! 12      4     header length H (u32): the fixed part, the section table and the configuration
//! 16      8     documents (u64)
//! 24      8     body checksum: XXH3-64 of bytes H.. (u64)
//! 32      8     header checksum: XXH3-64 of bytes 0..H with this field zero (u64)
//! 40      4     configuration length C (u32)
//! 44      4     sections S (u32)
//! 48      8     file length (u64): a truncated file is refused on opening
//! 56      16 S  per section: offset (u64), length (u64), absolute, 8-byte aligned
//! 56+16S  C     the `DedupConfig` as JSON
//! H       ...   the sections
//! ```
//!
//! Every integer is little-endian. Opening checks the fixed part, the header checksum and that
//! every section lies inside the file; the body checksum costs a full read, so it is checked by
//! [`StoreFile::verify`] (before a segment is merged or re-clustered), not by a query, which reads
//! a few pages. Every read of a section is bounds-checked: a damaged file gives
//! [`StoreError::Damaged`] naming the file and offset, never a panic.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crawlsift_common::fs::{self as cfs, AtomicFile, FileBytes};
use crawlsift_common::limits::{STORE_MAX_HEADER_BYTES, STORE_WRITE_BUFFER_BYTES};
use crawlsift_dedup::DedupConfig;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{Result, StoreError};

/// Version of the layout; a file of another version is refused.
pub const VERSION: u32 = 2;

const FIXED: usize = 56;
const HEADER_CHECKSUM_AT: usize = 32;
/// Bytes hashed at a time when a file read with [`Access::Read`] is verified.
const VERIFY_CHUNK: usize = 1 << 20;

/// How a store file's bytes are reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A memory map: for reading the whole file (clustering again, merging, many searches).
    Map,
    /// `pread` of each piece read: for one search, whose memory then does not depend on the
    /// file's size or on how the page cache holds it (a mapped page brings the whole cached
    /// folio around it into the process, up to megabytes at a time).
    Read,
}

#[derive(Debug)]
enum Data {
    Map(FileBytes),
    Read(File),
}

/// A store file, memory-mapped or read piece by piece, its header checked.
#[derive(Debug)]
pub struct StoreFile {
    path: PathBuf,
    data: Data,
    len: usize,
    docs: u64,
    config: DedupConfig,
    sections: Vec<Range<usize>>,
    body: Range<usize>,
    body_checksum: u64,
}

impl StoreFile {
    /// Maps `path` and checks its header: `magic`, version, checksum and `sections` sections
    /// inside the file.
    pub fn open(path: &Path, magic: &[u8; 8], sections: usize) -> Result<Self> {
        Self::open_as(path, magic, sections, Access::Map)
    }

    /// [`open`](Self::open) with the given access.
    pub fn open_as(path: &Path, magic: &[u8; 8], sections: usize, access: Access) -> Result<Self> {
        let io = |e| StoreError::io(path, e);
        let file = File::open(path).map_err(io)?;
        let len = usize::try_from(file.metadata().map_err(io)?.len())
            .map_err(|_| StoreError::damaged(path, 0, "larger than this machine can address"))?;
        let (data, head) = match access {
            Access::Map => {
                // Every read below is bounds-checked, so even a file changed under the map
                // gives wrong bytes (caught as damage), not reads past it.
                let map = cfs::map_open(&file).map_err(io)?;
                // A search reads scattered pages: no read-ahead around them. Only a hint.
                map.advise(cfs::Access::Random);
                let head = map[..len.min(map.len()).min(STORE_MAX_HEADER_BYTES)].to_vec();
                (Data::Map(map), head)
            }
            Access::Read => {
                let mut head = vec![0u8; len.min(STORE_MAX_HEADER_BYTES)];
                file.read_exact_at(&mut head, 0).map_err(io)?;
                (Data::Read(file), head)
            }
        };
        Self::parse(path.to_path_buf(), data, len, &head, magic, sections)
    }

    /// Checks the header in `b` (the file's first bytes, at least its header when the file is
    /// whole) of a file of `len` bytes.
    fn parse(
        path: PathBuf,
        data: Data,
        len: usize,
        b: &[u8],
        magic: &[u8; 8],
        want: usize,
    ) -> Result<Self> {
        let bad = |offset: usize, what: String| StoreError::damaged(&path, offset as u64, what);
        if b.len() < FIXED {
            return Err(bad(0, format!("{len} bytes, shorter than a header")));
        }
        if &b[..8] != magic {
            return Err(bad(
                0,
                "not a crawlsift index file of this kind (magic)".into(),
            ));
        }
        let version = le32(b, 8);
        if version != VERSION {
            return Err(bad(
                8,
                format!("version {version}, this crawlsift reads {VERSION}"),
            ));
        }
        let header_len = le32(b, 12) as usize;
        let config_len = le32(b, 40) as usize;
        let count = le32(b, 44) as usize;
        if count != want {
            return Err(bad(44, format!("{count} sections, expected {want}")));
        }
        let needed = FIXED + 16 * count + config_len;
        if header_len > STORE_MAX_HEADER_BYTES || header_len < needed || header_len > b.len() {
            return Err(bad(12, format!("header length {header_len} impossible")));
        }
        if le64(b, 48) != len as u64 {
            return Err(bad(
                48,
                format!(
                    "{len} bytes, written as {}: truncated or extended",
                    le64(b, 48)
                ),
            ));
        }
        let mut zeroed = b[..header_len].to_vec();
        zeroed[HEADER_CHECKSUM_AT..HEADER_CHECKSUM_AT + 8].fill(0);
        if xxh3_64(&zeroed) != le64(b, HEADER_CHECKSUM_AT) {
            return Err(bad(
                HEADER_CHECKSUM_AT,
                "header checksum does not match".into(),
            ));
        }
        let mut sections = Vec::with_capacity(count);
        for i in 0..count {
            let at = FIXED + 16 * i;
            let (off, n) = (le64(b, at), le64(b, at + 8));
            let end = off.checked_add(n);
            match (
                usize::try_from(off),
                end.and_then(|e| usize::try_from(e).ok()),
            ) {
                (Ok(s), Some(e)) if s >= header_len && e <= len => sections.push(s..e),
                _ => return Err(bad(at, format!("section {i} ({off}+{n}) outside the file"))),
            }
        }
        let config_at = FIXED + 16 * count;
        let config: DedupConfig = serde_json::from_slice(&b[config_at..config_at + config_len])
            .map_err(|e| bad(config_at, format!("configuration: {e}")))?;
        let docs = le64(b, 16);
        let body_checksum = le64(b, 24);
        Ok(StoreFile {
            path,
            data,
            len,
            docs,
            config,
            sections,
            body: header_len..len,
            body_checksum,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a file of no bytes (never one that opened).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Documents the file describes.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// The settings it was made with.
    pub fn config(&self) -> &DedupConfig {
        &self.config
    }

    /// Checks the body checksum (reads the whole file).
    pub fn verify(&self) -> Result<()> {
        let sum = match &self.data {
            Data::Map(map) => {
                // A whole read: read ahead while it lasts, then back to scattered reads.
                map.advise(cfs::Access::Sequential);
                let sum = xxh3_64(&map[self.body.clone()]);
                map.advise(cfs::Access::Random);
                sum
            }
            Data::Read(file) => {
                let mut h = Xxh3::new();
                let mut buf = vec![0u8; VERIFY_CHUNK.min(self.body.len())];
                let mut at = self.body.start;
                while at < self.body.end {
                    let n = buf.len().min(self.body.end - at);
                    file.read_exact_at(&mut buf[..n], at as u64)
                        .map_err(|e| StoreError::io(&self.path, e))?;
                    h.update(&buf[..n]);
                    at += n;
                }
                h.digest()
            }
        };
        if sum != self.body_checksum {
            return Err(StoreError::damaged(
                &self.path,
                self.body.start as u64,
                "body checksum does not match: the file was changed or truncated",
            ));
        }
        Ok(())
    }

    /// Section `i` as a checked view.
    pub fn section(&self, i: usize) -> Section<'_> {
        let r = self.sections.get(i).cloned().unwrap_or(0..0);
        Section {
            file: self,
            start: r.start,
            len: r.len(),
        }
    }

    /// A damage error at absolute `offset` of this file.
    pub fn damaged(&self, offset: usize, what: impl Into<String>) -> StoreError {
        StoreError::damaged(&self.path, offset as u64, what)
    }

    /// Bytes `start..start + n` of the file (inside it: sections are checked on opening).
    fn bytes(&self, start: usize, n: usize) -> Result<Cow<'_, [u8]>> {
        match &self.data {
            Data::Map(map) => map
                .get(start..start.saturating_add(n))
                .map(Cow::Borrowed)
                .ok_or_else(|| self.damaged(start, "past the end of the file")),
            Data::Read(file) => {
                let mut b = vec![0u8; n];
                file.read_exact_at(&mut b, start as u64)
                    .map_err(|e| StoreError::io(&self.path, e))?;
                Ok(Cow::Owned(b))
            }
        }
    }
}

/// One section of a store file: every read is bounds-checked against it.
#[derive(Clone, Copy)]
pub struct Section<'a> {
    file: &'a StoreFile,
    start: usize,
    len: usize,
}

impl<'a> Section<'a> {
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes `at..at + n`: borrowed from the map, or read.
    pub fn slice(&self, at: usize, n: usize) -> Result<Cow<'a, [u8]>> {
        match at.checked_add(n) {
            Some(end) if end <= self.len => self.file.bytes(self.start + at, n),
            _ => Err(self.file.damaged(
                self.start.saturating_add(at),
                format!(
                    "{n} bytes at {at} past the end of a {}-byte section",
                    self.len
                ),
            )),
        }
    }

    /// The u32 at byte `at`.
    pub fn u32(&self, at: usize) -> Result<u32> {
        Ok(le32(&self.slice(at, 4)?, 0))
    }

    /// The u64 at byte `at`.
    pub fn u64(&self, at: usize) -> Result<u64> {
        Ok(le64(&self.slice(at, 8)?, 0))
    }

    /// The u128 at byte `at`.
    pub fn u128(&self, at: usize) -> Result<u128> {
        let s = self.slice(at, 16)?;
        Ok(u128::from(le64(&s, 0)) | u128::from(le64(&s, 8)) << 64)
    }

    /// A damage error at byte `at` of this section.
    pub fn damaged(&self, at: usize, what: impl Into<String>) -> StoreError {
        self.file.damaged(self.start.saturating_add(at), what)
    }

    /// Requires the section to be exactly `n` bytes long.
    pub fn expect_len(&self, n: usize, what: &str) -> Result<()> {
        if self.len() != n {
            return Err(self.damaged(0, format!("{what}: {} bytes, expected {n}", self.len())));
        }
        Ok(())
    }
}

/// The little-endian u32 at `at` of `b` (which the caller has checked holds it).
pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// The little-endian u64 at `at` of `b` (which the caller has checked holds it).
pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Writes a store file: header, then `sections` in order (each 8-byte aligned), under a temporary
/// name, fsynced and renamed, so the file appears whole or not at all.
pub fn write_file(
    path: &Path,
    magic: &[u8; 8],
    docs: u64,
    config: &DedupConfig,
    sections: &[&[u8]],
) -> Result<()> {
    let lens: Vec<usize> = sections.iter().map(|s| s.len()).collect();
    write_file_with(path, magic, docs, config, &lens, |i, w| w.put(sections[i]))
}

/// [`write_file`] with each section written by `fill` (called once a section, in order) instead
/// of gathered first: a section of `lens[i]` bytes goes from where its data lies to the file
/// through one reused buffer, hashed on its way. A `fill` that writes another length than it
/// announced is an error, and no file appears.
pub fn write_file_with(
    path: &Path,
    magic: &[u8; 8],
    docs: u64,
    config: &DedupConfig,
    lens: &[usize],
    mut fill: impl FnMut(usize, &mut SectionWriter) -> std::io::Result<()>,
) -> Result<()> {
    let config_json = serde_json::to_vec(config).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let header_len = align8(FIXED + 16 * lens.len() + config_json.len());
    let mut layout = Vec::with_capacity(lens.len());
    let mut at = header_len;
    for &len in lens {
        layout.push((at, len));
        at = align8(at + len);
    }
    let mut header = Vec::with_capacity(header_len);
    header.extend_from_slice(magic);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(header_len as u32).to_le_bytes());
    header.extend_from_slice(&docs.to_le_bytes());
    header.extend_from_slice(&[0u8; 16]); // body and header checksums, filled below
    header.extend_from_slice(&(config_json.len() as u32).to_le_bytes());
    header.extend_from_slice(&(lens.len() as u32).to_le_bytes());
    header.extend_from_slice(&(align8(at) as u64).to_le_bytes());
    for &(off, len) in &layout {
        header.extend_from_slice(&(off as u64).to_le_bytes());
        header.extend_from_slice(&(len as u64).to_le_bytes());
    }
    header.extend_from_slice(&config_json);
    header.resize(header_len, 0);

    let io = |e| StoreError::io(path, e);
    // Temporary name, fsync, rename, folder fsync; dropped on an error, the temporary goes.
    let mut file = AtomicFile::create(path).map_err(io)?;
    // The header goes first as a placeholder: its checksums are known once the body is written.
    file.write_all(&header).map_err(io)?;
    let mut w = SectionWriter {
        file,
        buf: Vec::with_capacity(STORE_WRITE_BUFFER_BYTES),
        hash: Xxh3::new(),
        at: header_len,
    };
    let pad = [0u8; 8];
    let body = (|| {
        for (i, &(off, len)) in layout.iter().enumerate() {
            w.put(&pad[..off - w.at]).map_err(io)?;
            fill(i, &mut w).map_err(io)?;
            if w.at != off + len {
                return Err(StoreError::Invalid(format!(
                    "{}: section {i} written as {} bytes, announced as {len}",
                    path.display(),
                    w.at.wrapping_sub(off)
                )));
            }
        }
        w.put(&pad[..at - w.at]).map_err(io)?;
        w.flush_buffer().map_err(io)
    })();
    body?;
    header[24..32].copy_from_slice(&w.hash.digest().to_le_bytes());
    let sum = xxh3_64(&header);
    header[HEADER_CHECKSUM_AT..HEADER_CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
    w.file.file().write_all_at(&header, 0).map_err(io)?;
    w.file.commit().map_err(io)
}

/// The body of a store file on its way to the file ([`write_file_with`]): buffered, hashed and
/// counted.
pub struct SectionWriter {
    file: AtomicFile,
    buf: Vec<u8>,
    hash: Xxh3,
    /// Bytes of the file so far, header included.
    at: usize,
}

impl SectionWriter {
    /// Appends `b`.
    pub fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        if self.buf.len() + b.len() > STORE_WRITE_BUFFER_BYTES {
            self.flush_buffer()?;
        }
        if b.len() >= STORE_WRITE_BUFFER_BYTES {
            self.hash.update(b);
            self.file.write_all(b)?;
        } else {
            self.buf.extend_from_slice(b);
        }
        self.at += b.len();
        Ok(())
    }

    /// Appends `v`, each little-endian.
    pub fn put_u32s(&mut self, v: &[u32]) -> std::io::Result<()> {
        for chunk in v.chunks(STORE_WRITE_BUFFER_BYTES / 4) {
            if self.buf.len() + chunk.len() * 4 > STORE_WRITE_BUFFER_BYTES {
                self.flush_buffer()?;
            }
            let start = self.buf.len();
            self.buf.resize(start + chunk.len() * 4, 0);
            for (d, x) in self.buf[start..].chunks_exact_mut(4).zip(chunk) {
                d.copy_from_slice(&x.to_le_bytes());
            }
            self.at += chunk.len() * 4;
        }
        Ok(())
    }

    fn flush_buffer(&mut self) -> std::io::Result<()> {
        self.hash.update(&self.buf);
        self.file.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 8] = b"CSTEST\0\0";

    fn written(dir: &Path) -> PathBuf {
        let p = dir.join("t.bin");
        write_file(
            &p,
            MAGIC,
            3,
            &DedupConfig::default(),
            &[b"abc", &[1, 0, 0, 0, 2]],
        )
        .unwrap();
        p
    }

    #[test]
    fn sections_round_trip_and_reads_past_them_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let f = StoreFile::open(&written(d.path()), MAGIC, 2).unwrap();
        f.verify().unwrap();
        assert_eq!(f.docs(), 3);
        assert_eq!(&*f.section(0).slice(0, 3).unwrap(), b"abc");
        assert_eq!(f.section(1).u32(0).unwrap(), 1);
        assert!(f.section(1).u32(2).is_err());
        assert!(f.section(0).slice(usize::MAX, 2).is_err());
        assert!(matches!(
            StoreFile::open(&written(d.path()), MAGIC, 3),
            Err(StoreError::Damaged { offset: 44, .. })
        ));
    }

    #[test]
    fn every_truncation_and_every_flipped_header_byte_is_refused_or_caught() {
        let d = tempfile::tempdir().unwrap();
        let p = written(d.path());
        let good = std::fs::read(&p).unwrap();
        let bad = d.path().join("bad.bin");
        for n in 0..good.len() {
            std::fs::write(&bad, &good[..n]).unwrap();
            match StoreFile::open(&bad, MAGIC, 2) {
                Err(_) => {}
                Ok(f) => assert!(f.verify().is_err(), "truncated to {n} bytes"),
            }
        }
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0x5A;
            std::fs::write(&bad, &b).unwrap();
            match StoreFile::open(&bad, MAGIC, 2) {
                Err(_) => {}
                Ok(f) => assert!(f.verify().is_err(), "byte {i} flipped"),
            }
        }
    }

    #[test]
    fn sections_written_in_pieces_give_the_bytes_of_sections_given_whole() {
        let d = tempfile::tempdir().unwrap();
        let cfg = DedupConfig::default();
        let words: Vec<u32> = (0..(STORE_WRITE_BUFFER_BYTES as u32 / 3)).collect();
        let big: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let whole = d.path().join("whole.bin");
        write_file(&whole, MAGIC, 2, &cfg, &[b"abc", &big, b"z"]).unwrap();
        let pieces = d.path().join("pieces.bin");
        let lens = [3, big.len(), 1];
        write_file_with(&pieces, MAGIC, 2, &cfg, &lens, |i, w| match i {
            0 => w.put(b"ab").and_then(|_| w.put(b"c")),
            1 => w
                .put_u32s(&words[..7])
                .and_then(|_| w.put(&big[28..big.len() - 8]))
                .and_then(|_| w.put_u32s(&words[words.len() - 2..])),
            _ => w.put(b"z"),
        })
        .unwrap();
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&pieces).unwrap()
        );
        StoreFile::open(&pieces, MAGIC, 3)
            .unwrap()
            .verify()
            .unwrap();
        // A section of another length than announced: an error, and no file.
        let short = d.path().join("short.bin");
        let e = write_file_with(&short, MAGIC, 2, &cfg, &lens, |i, w| match i {
            1 => w.put(&big[1..]),
            _ => w.put(if i == 0 { b"abc" } else { b"z" }),
        });
        assert!(matches!(e, Err(StoreError::Invalid(_))), "{e:?}");
        assert!(!short.exists());
        let mut left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["pieces.bin", "whole.bin"],
            "no temporary file is left"
        );
    }
}
