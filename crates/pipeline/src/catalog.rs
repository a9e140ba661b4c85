//! What a dedup run keeps per record for `documents.jsonl.gz`: the record's identity, title,
//! fingerprint summary or skip reason ([`DocMeta`]), in input order, and where each document's
//! record is ([`Catalog`]). The collector ([`crate::collect`]) fills it; the writers
//! ([`crate::write`]) and reports read it.
//!
//! Past the run's resident budget (`dedup --memory`, once every word profile is on disk) the
//! oldest records still in memory are appended, encoded, to an unnamed temporary file in the
//! output folder, and only where each starts stays in memory (8 bytes a record). A spilled record
//! is read back with one positioned read (`pread`), or a whole range of them with one read when
//! `documents.jsonl.gz` is written in input order. The file goes when the catalog is dropped. A
//! failed write stops the run; a failed read gives a blank record and is remembered
//! ([`Catalog::error`]): the writers fail rather than commit a file made of it.

use crate::error::{fail, Result};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;

use crawlsift_common::limits::{
    DEDUP_CATALOG_BLOCK_BYTES as CATALOG_BLOCK_BYTES, DEDUP_SPILL_WRITE_BUFFER,
};
use crawlsift_common::SourcePos;

use crate::page::Origin;

/// A page's fingerprint as `documents.jsonl.gz` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FingerprintSummary {
    /// Normalized words.
    pub words: u32,
    /// Exact hash of the normalized text.
    pub exact: u128,
    /// SimHash.
    pub simhash: u64,
}

/// What the collector keeps per record for `documents.jsonl.gz`.
#[derive(Debug, Clone)]
pub struct DocMeta {
    /// The record's identity.
    pub origin: Origin,
    /// The page's title (empty for a skipped record).
    pub title: String,
    /// The page's fingerprint summary.
    pub fp: Option<FingerprintSummary>,
    /// Why the record gave no page.
    pub skipped: Option<String>,
    /// The page's document number (order of `Clusterer::add`).
    pub doc: Option<u32>,
}

impl DocMeta {
    /// The record a failed read back gives (the failure is remembered).
    fn blank() -> Self {
        DocMeta {
            origin: Origin {
                pos: SourcePos::default(),
                uoffset: 0,
                id: String::new(),
                url: None,
            },
            title: String::new(),
            fp: None,
            skipped: None,
            doc: None,
        }
    }
}

/// Per-record metadata in input order, each record encoded ([`encode`]: some 200 bytes, where a
/// [`DocMeta`] and its three strings take twice that and scatter over the heap), the oldest
/// blocks of them spilled past the budget; and where each document's record is.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Where every record starts in the bytes of all records, then the end of the last.
    starts: Vec<u64>,
    /// The bytes still in memory, oldest first, with where each block starts; no record spans
    /// two blocks.
    blocks: VecDeque<(u64, Vec<u8>)>,
    /// The bytes before the first block, in the spill file.
    spill: Option<RowSpill>,
    /// For document `d`, the index of its record.
    docs: Vec<usize>,
    /// Scratch for encoding one record.
    row: Vec<u8>,
    /// The first failure to read a record back.
    error: Mutex<Option<String>>,
}

/// Records written to the catalog's temporary file.
#[derive(Debug)]
struct RowSpill {
    file: File,
    writer: Option<BufWriter<File>>,
    /// Bytes written (the start of the first block still in memory).
    end: u64,
}

impl Catalog {
    /// Adds the next record; returns the bytes it holds in memory (its encoding, where it starts
    /// and, for a document, its place in the document list), for the run's budget.
    pub fn push(&mut self, meta: DocMeta) -> usize {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let mut held = std::mem::size_of::<u64>();
        if meta.doc.is_some() {
            self.docs.push(self.records());
            held += std::mem::size_of::<usize>();
        }
        self.row.clear();
        encode(&meta, &mut self.row);
        let at = self.starts.last().copied().unwrap_or(0);
        let fits = self
            .blocks
            .back()
            .is_some_and(|(_, b)| b.capacity() - b.len() >= self.row.len());
        if !fits {
            let size = CATALOG_BLOCK_BYTES.max(self.row.len());
            self.blocks.push_back((at, Vec::with_capacity(size)));
            held += size;
        }
        if let Some((_, b)) = self.blocks.back_mut() {
            b.extend_from_slice(&self.row);
        }
        self.starts.push(at + self.row.len() as u64);
        held
    }

    /// Records (lines of `documents.jsonl.gz`).
    pub fn records(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Documents (pages given to the clusterer).
    pub fn documents(&self) -> usize {
        self.docs.len()
    }

    /// Bytes of records in the spill file.
    fn on_disk(&self) -> u64 {
        self.spill.as_ref().map_or(0, |s| s.end)
    }

    /// Records spilled to disk.
    pub fn spilled(&self) -> usize {
        let disk = self.on_disk();
        self.starts[..self.records()].partition_point(|&s| s < disk)
    }

    /// The record of document `doc`, read back.
    pub fn doc(&self, doc: u32) -> DocMeta {
        match self.docs.get(doc as usize) {
            Some(&r) => self.record(r),
            None => DocMeta::blank(),
        }
    }

    /// Record `r`, read back (from memory or the spill file).
    pub fn record(&self, r: usize) -> DocMeta {
        let mut one = None;
        let read = self.for_each_in(r..r + 1, &mut |m| {
            one = Some(m);
            Ok(())
        });
        if let Err(e) = read {
            let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
            err.get_or_insert(e.to_string());
        }
        one.unwrap_or_else(DocMeta::blank)
    }

    /// Calls `f` on records `range` in order, each decoded and handed over, reading the spilled
    /// ones back with one read.
    pub fn for_each_in(
        &self,
        range: Range<usize>,
        f: &mut dyn FnMut(DocMeta) -> Result<()>,
    ) -> Result<()> {
        let range = range.start..range.end.min(self.records());
        let spilled = self.spilled();
        let on_disk = range.start.min(spilled)..range.end.min(spilled);
        if !on_disk.is_empty() {
            let (from, to) = (self.starts[on_disk.start], self.starts[on_disk.end]);
            let mut buf = vec![0u8; (to - from) as usize];
            match self
                .spill
                .as_ref()
                .map(|s| s.file.read_exact_at(&mut buf, from))
            {
                Some(Ok(())) => self.decode_each(&buf, from, on_disk, f)?,
                Some(Err(e)) => fail!("reading back the catalog of records: {e}"),
                None => fail!("reading back the catalog of records: no spill file"),
            }
        }
        let mut r = range.start.max(spilled);
        while r < range.end {
            // The block holding record r, and the records of the range it holds.
            let at = self.starts[r];
            let k = self
                .blocks
                .partition_point(|(s, _)| *s <= at)
                .saturating_sub(1);
            let Some((start, bytes)) = self.blocks.get(k) else {
                fail!("reading back the catalog of records: a record not kept");
            };
            let block_end = start + bytes.len() as u64;
            let end = r + self.starts[r..range.end].partition_point(|&s| s < block_end);
            self.decode_each(bytes, *start, r..end.max(r + 1), f)?;
            r = end.max(r + 1);
        }
        Ok(())
    }

    /// Decodes records `range` from `buf` (which starts at byte `base` of all records).
    fn decode_each(
        &self,
        buf: &[u8],
        base: u64,
        range: Range<usize>,
        f: &mut dyn FnMut(DocMeta) -> Result<()>,
    ) -> Result<()> {
        for r in range {
            let from = (self.starts[r] - base) as usize;
            let to = (self.starts[r + 1] - base) as usize;
            match buf.get(from..to).and_then(decode) {
                Some(m) => f(m)?,
                None => fail!("reading back the catalog of records: a damaged record"),
            }
        }
        Ok(())
    }

    /// Moves the oldest blocks of records still in memory to the spill file (made in `dir` at
    /// the first) until at least `bytes` are freed or none is left; returns the bytes freed.
    pub fn spill_oldest(&mut self, bytes: usize, dir: &Path) -> std::io::Result<usize> {
        let mut freed = 0usize;
        while freed < bytes {
            let Some((_, block)) = self.blocks.pop_front() else {
                break;
            };
            if self.spill.is_none() {
                self.spill = Some(RowSpill::create(dir)?);
            }
            let Some(s) = self.spill.as_mut() else {
                unreachable!("made just above");
            };
            s.append(&block)?;
            freed += block.capacity();
        }
        Ok(freed)
    }

    /// Writes out what is buffered: call it once every record is added, before reading.
    pub fn finish_spill(&mut self) -> std::io::Result<()> {
        match self.spill.as_mut().and_then(|s| s.writer.take()) {
            Some(mut w) => w.flush(),
            None => Ok(()),
        }
    }

    /// The first failure to read a record back one by one ([`doc`](Self::doc)), if any: what
    /// was written from it is not to be trusted.
    pub fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Bytes this catalog holds in memory (its lists and the blocks of records kept), for
    /// accounting where a run's memory goes.
    pub fn memory_bytes(&self) -> usize {
        let blocks: usize = self.blocks.iter().map(|(_, b)| b.capacity()).sum();
        blocks + self.starts.capacity() * 8 + self.docs.capacity() * std::mem::size_of::<usize>()
    }
}

impl RowSpill {
    fn create(dir: &Path) -> std::io::Result<Self> {
        let file = crawlsift_common::fs::spill_file(dir, "catalog")?;
        let writer = BufWriter::with_capacity(DEDUP_SPILL_WRITE_BUFFER, file.try_clone()?);
        Ok(RowSpill {
            file,
            writer: Some(writer),
            end: 0,
        })
    }

    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Err(std::io::Error::other("the catalog was already read"));
        };
        w.write_all(bytes)?;
        self.end += bytes.len() as u64;
        Ok(())
    }
}

/// Flags of an encoded record: which optional fields follow.
const HAS_URL: u8 = 1;
const HAS_FP: u8 = 2;
const HAS_SKIPPED: u8 = 4;
const HAS_DOC: u8 = 8;
const HAS_UOFFSET: u8 = 16;

/// Appends `m` as: flags, file, offset, index, [uoffset], id, [url], title, [words, exact, simhash],
/// [skipped], [doc]; integers little-endian, strings as a 32-bit length and their bytes.
fn encode(m: &DocMeta, out: &mut Vec<u8>) {
    let flag = |on: bool, bit: u8| if on { bit } else { 0 };
    let flags = flag(m.origin.url.is_some(), HAS_URL)
        | flag(m.fp.is_some(), HAS_FP)
        | flag(m.skipped.is_some(), HAS_SKIPPED)
        | flag(m.doc.is_some(), HAS_DOC)
        | flag(m.origin.uoffset != 0, HAS_UOFFSET);
    out.push(flags);
    out.extend_from_slice(&m.origin.pos.file.to_le_bytes());
    out.extend_from_slice(&m.origin.pos.offset.to_le_bytes());
    out.extend_from_slice(&m.origin.pos.index.to_le_bytes());
    if m.origin.uoffset != 0 {
        out.extend_from_slice(&m.origin.uoffset.to_le_bytes());
    }
    let put = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    put(out, &m.origin.id);
    if let Some(u) = &m.origin.url {
        put(out, u);
    }
    put(out, &m.title);
    if let Some(fp) = &m.fp {
        out.extend_from_slice(&fp.words.to_le_bytes());
        out.extend_from_slice(&fp.exact.to_le_bytes());
        out.extend_from_slice(&fp.simhash.to_le_bytes());
    }
    if let Some(s) = &m.skipped {
        put(out, s);
    }
    if let Some(d) = m.doc {
        out.extend_from_slice(&d.to_le_bytes());
    }
}

/// Reads back what [`encode`] wrote; `None` when the bytes are not a whole record.
fn decode(b: &[u8]) -> Option<DocMeta> {
    let mut r = Reader(b);
    let flags = r.take::<1>()?[0];
    let pos = SourcePos {
        file: u32::from_le_bytes(r.take()?),
        offset: u64::from_le_bytes(r.take()?),
        index: u64::from_le_bytes(r.take()?),
    };
    let uoffset = if flags & HAS_UOFFSET != 0 {
        u64::from_le_bytes(r.take()?)
    } else {
        0
    };
    let id = r.string()?;
    let url = if flags & HAS_URL != 0 {
        Some(r.string()?)
    } else {
        None
    };
    let title = r.string()?;
    let fp = if flags & HAS_FP != 0 {
        Some(FingerprintSummary {
            words: u32::from_le_bytes(r.take()?),
            exact: u128::from_le_bytes(r.take()?),
            simhash: u64::from_le_bytes(r.take()?),
        })
    } else {
        None
    };
    let skipped = if flags & HAS_SKIPPED != 0 {
        Some(r.string()?)
    } else {
        None
    };
    let doc = if flags & HAS_DOC != 0 {
        Some(u32::from_le_bytes(r.take()?))
    } else {
        None
    };
    r.0.is_empty().then_some(DocMeta {
        origin: Origin {
            pos,
            uoffset,
            id,
            url,
        },
        title,
        fp,
        skipped,
        doc,
    })
}

/// A cursor over an encoded record.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn string(&mut self) -> Option<String> {
        let len = u32::from_le_bytes(self.take()?) as usize;
        let bytes = self.0.get(..len)?;
        self.0 = &self.0[len..];
        String::from_utf8(bytes.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(i: u32, doc: bool) -> DocMeta {
        DocMeta {
            origin: Origin {
                pos: SourcePos {
                    file: i % 3,
                    offset: u64::from(i) * 1000,
                    index: u64::from(i),
                },
                uoffset: u64::from(i % 4) * 77,
                id: format!("<urn:uuid:{i}>"),
                url: i
                    .is_multiple_of(2)
                    .then(|| format!("http://e{i}.example/p")),
            },
            title: if doc {
                format!("Title {i} é")
            } else {
                String::new()
            },
            fp: doc.then_some(FingerprintSummary {
                words: i,
                exact: u128::from(i) << 70 | 5,
                simhash: u64::from(i) * 77,
            }),
            skipped: (!doc).then(|| "not_html".to_string()),
            doc: doc.then_some(i / 2),
        }
    }

    fn same(a: &DocMeta, b: &DocMeta) -> bool {
        a.origin.pos == b.origin.pos
            && a.origin.uoffset == b.origin.uoffset
            && a.origin.id == b.origin.id
            && a.origin.url == b.origin.url
            && a.title == b.title
            && a.fp == b.fp
            && a.skipped == b.skipped
            && a.doc == b.doc
    }

    #[test]
    fn spilled_records_read_back_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        // Some 100 bytes a record: two blocks, the first of which is spilled.
        let n = 2 * CATALOG_BLOCK_BYTES / 100 + 5;
        let all: Vec<DocMeta> = (0..n as u32).map(|i| meta(i, i % 5 != 0)).collect();
        let mut c = Catalog::default();
        for m in &all {
            c.push(m.clone());
        }
        let kept = c.memory_bytes();
        let freed = c.spill_oldest(1, dir.path()).unwrap();
        assert_eq!(freed, CATALOG_BLOCK_BYTES);
        assert_eq!(c.memory_bytes(), kept - freed);
        let spilled = c.spilled();
        assert!(spilled > 0 && spilled < n, "{spilled}");
        c.finish_spill().unwrap();
        assert_eq!(c.records(), n);
        for (r, m) in all.iter().enumerate() {
            assert!(same(&c.record(r), m), "record {r}");
        }
        let around = spilled - 3..spilled + 3;
        for range in [0..n, 3..4, 10..n - 10, 0..0, around, n - 5..n] {
            let mut seen = Vec::new();
            c.for_each_in(range.clone(), &mut |m| {
                seen.push(m);
                Ok(())
            })
            .unwrap();
            assert_eq!(seen.len(), range.len());
            assert!(seen.iter().zip(&all[range]).all(|(a, b)| same(a, b)));
        }
        let docs: Vec<&DocMeta> = all.iter().filter(|m| m.doc.is_some()).collect();
        assert_eq!(c.documents(), docs.len());
        for (d, m) in docs.iter().enumerate() {
            assert!(same(&c.doc(d as u32), m));
        }
        assert!(c.error().is_none());
    }

    #[test]
    fn damaged_bytes_are_no_record() {
        let mut row = Vec::new();
        encode(&meta(4, true), &mut row);
        assert!(decode(&row).is_some());
        for cut in 0..row.len() {
            assert!(decode(&row[..cut]).is_none(), "{cut}");
        }
        row.push(0);
        assert!(decode(&row).is_none());
    }
}
