//! Seek tables: how a record is found again inside a member that holds many (a file gzipped
//! whole, one zstd or LZ4 frame). Its CDXJ line names the member, as cdxj-indexer writes it
//! (`offset` of the member, `length` of the member), so the line alone leads to every record of
//! the member. While the index is built, each such member gets a table in `IDX/seek/`
//! (`NAME@OFFSET`, the archive's base name and the member's offset): where each record starts in
//! the member's decoded bytes (its `uoffset`), a hash of the SURT key and timestamp of its line,
//! and for gzip the member's inflate checkpoints ([`crawlsift_reader::SeekIndex`]). `get` then
//! reads the record it wants at its place, inflating at most one checkpoint span, instead of
//! inflating and splitting the whole member each time.
//!
//! A table is a help, never the truth: one that is missing, damaged, or made for another file
//! of that name (its size differs) is passed over, and the record found is always checked
//! against the line it was asked for.

use std::path::{Path, PathBuf};

use crawlsift_reader::{RecordReader, SeekIndex};

use crate::error::CdxjError;
use crate::layout::SEEK_DIR;
use crate::write::Atomic;

/// The first bytes of a table, with its layout's version.
const TAG: &[u8] = b"crawlsift seek table 1\n";

/// The records of one member that holds more than one, in order: their `uoffset` and the
/// [`line_hash`] of their line (0 for a record that has none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberTable {
    /// The member's offset in the archive.
    pub offset: u64,
    /// `(uoffset, line hash)` of each record.
    pub records: Vec<(u64, u64)>,
}

/// The hash a table keeps of a line's SURT key and timestamp (64-bit FNV-1a over `key`, a space
/// and `timestamp`: the same on every machine and version). Never 0.
pub fn line_hash(key: &str, timestamp: &str) -> u64 {
    let bytes = key.bytes().chain([b' ']).chain(timestamp.bytes());
    crawlsift_common::fnv::hash(bytes).max(1)
}

/// The table file of the member at `offset` of the archive named `name`.
fn table_path(dir: &Path, name: &str, offset: u64) -> PathBuf {
    dir.join(SEEK_DIR).join(format!("{name}@{offset}"))
}

/// Writes the tables of the archive at `path` (named `name` in the index's lines) into `dir`,
/// inflating each gzip member once for its checkpoints.
pub fn write_tables(
    dir: &Path,
    path: &Path,
    name: &str,
    tables: &[MemberTable],
) -> Result<(), CdxjError> {
    if tables.is_empty() {
        return Ok(());
    }
    let folder = dir.join(SEEK_DIR);
    std::fs::create_dir_all(&folder).map_err(|e| CdxjError::io(&folder, e))?;
    let size = std::fs::metadata(path)
        .map_err(|e| CdxjError::io(path, e))?
        .len();
    let mut reader = RecordReader::new();
    for t in tables {
        // A member whose checkpoints cannot be taken (damage past its last record) keeps its
        // table: records are then read from the member's start.
        let index = reader.seek_index(path, t.offset).ok().flatten();
        let seek = index.as_ref().map(SeekIndex::to_bytes).unwrap_or_default();
        let decoded = index
            .as_ref()
            .and_then(SeekIndex::decoded_size)
            .unwrap_or(u64::MAX);
        let mut b = Vec::with_capacity(TAG.len() + 40 + 16 * t.records.len() + seek.len());
        b.extend_from_slice(TAG);
        for v in [size, decoded, t.records.len() as u64] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for &(u, h) in &t.records {
            b.extend_from_slice(&u.to_le_bytes());
            b.extend_from_slice(&h.to_le_bytes());
        }
        b.extend_from_slice(&(seek.len() as u64).to_le_bytes());
        b.extend_from_slice(&seek);
        let mut f = Atomic::create(&table_path(dir, name, t.offset))?;
        f.write(&b)?;
        f.commit()?;
    }
    Ok(())
}

/// Removes every table of `dir` (a new build replaces the index whole).
pub fn clear(dir: &Path) -> Result<(), CdxjError> {
    let folder = dir.join(SEEK_DIR);
    match std::fs::remove_dir_all(&folder) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(CdxjError::io(&folder, e)),
        _ => Ok(()),
    }
}

/// A member's table, read back.
pub struct SeekTable {
    records: Vec<(u64, u64)>,
    /// The member's decoded size, when known (gzip).
    decoded: Option<u64>,
    /// The member's checkpoints (gzip).
    pub index: Option<SeekIndex>,
}

impl SeekTable {
    /// The table of the member at `offset` of the archive named `name` in `dir`, if there is one
    /// for a file of `file_size` bytes and it reads whole; `None` otherwise (see the module doc).
    pub fn load(dir: &Path, name: &str, offset: u64, file_size: u64) -> Option<SeekTable> {
        let b = std::fs::read(table_path(dir, name, offset)).ok()?;
        let mut r = b.strip_prefix(TAG)?;
        let mut u64_at = || -> Option<u64> {
            let (head, rest) = r.split_first_chunk::<8>()?;
            r = rest;
            Some(u64::from_le_bytes(*head))
        };
        let (size, decoded, n) = (u64_at()?, u64_at()?, u64_at()?);
        if size != file_size || n > (b.len() / 16) as u64 {
            return None;
        }
        let records = (0..n)
            .map(|_| Some((u64_at()?, u64_at()?)))
            .collect::<Option<Vec<_>>>()?;
        let seek_len = usize::try_from(u64_at()?).ok()?;
        if r.len() != seek_len {
            return None;
        }
        let index = match seek_len {
            0 => None,
            _ => Some(SeekIndex::from_bytes(r).ok()?),
        };
        Some(SeekTable {
            records,
            decoded: (decoded != u64::MAX).then_some(decoded),
            index,
        })
    }

    /// The places of the records whose line has `key` and `timestamp` (by hash: the caller
    /// checks the record): each `uoffset` and, where known, the record's length in the member's
    /// decoded bytes (to the next record, or to the member's end).
    pub fn places<'a>(
        &'a self,
        key: &str,
        timestamp: &str,
    ) -> impl Iterator<Item = (u64, Option<u64>)> + 'a {
        let h = line_hash(key, timestamp);
        self.records
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.1 == h)
            .map(move |(i, &(u, _))| {
                let end = self.records.get(i + 1).map(|n| n.0).or(self.decoded);
                (u, end.and_then(|e| e.checked_sub(u)))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_and_a_damaged_or_foreign_one_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.warc");
        std::fs::write(&archive, b"not gzip: no checkpoints, only places").unwrap();
        let size = std::fs::metadata(&archive).unwrap().len();
        let t = MemberTable {
            offset: 0,
            records: vec![(0, line_hash("a", "1")), (50, 0), (90, line_hash("b", "2"))],
        };
        write_tables(dir.path(), &archive, "a.warc", std::slice::from_ref(&t)).unwrap();
        let got = SeekTable::load(dir.path(), "a.warc", 0, size).unwrap();
        assert!(got.index.is_none());
        assert_eq!(got.places("a", "1").collect::<Vec<_>>(), [(0, Some(50))]);
        assert_eq!(got.places("b", "2").collect::<Vec<_>>(), [(90, None)]);
        assert_eq!(got.places("c", "3").count(), 0);
        // Another file of that name (another size), another member, damage: none.
        assert!(SeekTable::load(dir.path(), "a.warc", 0, size + 1).is_none());
        assert!(SeekTable::load(dir.path(), "a.warc", 7, size).is_none());
        let file = table_path(dir.path(), "a.warc", 0);
        let bytes = std::fs::read(&file).unwrap();
        for cut in 0..bytes.len() {
            std::fs::write(&file, &bytes[..cut]).unwrap();
            assert!(SeekTable::load(dir.path(), "a.warc", 0, size).is_none());
        }
        clear(dir.path()).unwrap();
        assert!(!dir.path().join(SEEK_DIR).exists());
        clear(dir.path()).unwrap();
    }
}
