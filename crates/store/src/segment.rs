//! A segment: an immutable set of two files, `NAME.fp` (fingerprints, band tables, the URL table
//! and the document table) and `NAME.prof` (word profiles, [`crate::profiles`]), written once and
//! searched with no load step (mapped, or read piece by piece: [`crate::file::Access`]).
//!
//! Sections of `NAME.fp` (after the shared header, [`crate::file`]; little-endian):
//! 0. rows, [`ROW_BYTES`] per document: exact hash (u128), SimHash (u64), byte offset of the
//!    record (u64), heap offset of its id then URL (u64), Adler-32 (u32), words (u32), input
//!    file (u32, into section 6), record ordinal in its file (u32), id length (u32), URL length
//!    (u32, `u32::MAX` when there is none);
//! 1. the signature bytes no band covers (none with the default settings), per row;
//! 2. the table directory: per band table ([`crate::bands`]), its first byte in section 3 (u64)
//!    and its entries (u64);
//! 3. the band tables, packed ([`crate::packed`]): the MinHash tables hold every signature byte a
//!    band covers, so signatures are not stored apart but rebuilt from the tables
//!    ([`Segment::signatures`]) where clustering, merging or `query --url` needs them;
//! 4. the URL table: rows (u32) sorted by URL bytes, then row;
//! 5. the string heap (ids and URLs, UTF-8);
//! 6. the inputs the rows' file numbers point into, as JSON ([`InputEntry`] list).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crawlsift_common::limits::STORE_SEGMENT_MAX_DOCS;
use crawlsift_dedup::{DedupConfig, Fingerprint};

use crate::bands::{self, covered_bands, key_bits, table_count, unsupported};
use crate::error::{Result, StoreError};
use crate::file::{le32, le64, write_file_with, Access, StoreFile};
use crate::manifest::InputEntry;
use crate::packed::{write_table, Shape, Table};
use crate::profiles::{write_profiles, Profiles};

/// Magic of a fingerprint file.
pub const MAGIC: &[u8; 8] = b"CSFPSEG\0";
/// Bytes of one row of section 0.
pub const ROW_BYTES: usize = 64;
const SECTIONS: usize = 7;
const NO_URL: u32 = u32::MAX;

/// One document to write into a segment.
#[derive(Debug, Clone, Copy)]
pub struct DocIn<'a> {
    /// Its fingerprint.
    pub fp: &'a Fingerprint,
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Input number (into the segment's input list).
    pub file: u32,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// Ordinal of the record in its input.
    pub index: u32,
}

/// One row of a segment, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    /// Exact hash.
    pub exact: u128,
    /// SimHash.
    pub simhash: u64,
    /// Byte offset of the record.
    pub offset: u64,
    /// Adler-32 of the normalized text.
    pub adler32: u32,
    /// Normalized words.
    pub words: u32,
    /// Input number.
    pub file: u32,
    /// Ordinal of the record in its input.
    pub index: u32,
    /// Record id.
    pub id: Cow<'a, str>,
    /// Target URL.
    pub url: Option<Cow<'a, str>>,
}

/// Sizes of a segment's parts, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegmentSizes {
    /// Fingerprints (exact hash, Adler-32, SimHash, words, signature) and band tables.
    pub fingerprints_and_tables: u64,
    /// The document table: file, offset, ordinal, ids and URLs, and the URL table.
    pub documents: u64,
    /// Word profiles.
    pub profiles: u64,
}

/// A segment opened for search.
#[derive(Debug)]
pub struct Segment {
    name: String,
    fp: StoreFile,
    profiles: Profiles,
    docs: u32,
    inputs: Vec<InputEntry>,
    /// Per band table: its first byte in section 3 and its shape.
    tables: Vec<(usize, Shape)>,
}

/// The MinHash signatures of a segment's rows, rebuilt from its band tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signatures {
    perms: usize,
    bytes: Vec<u8>,
    /// Rows with a signature (words > 0).
    has: Vec<bool>,
}

impl Signatures {
    /// The signature of row `r` (empty for a text without words or a row past the end).
    pub fn get(&self, r: u32) -> &[u8] {
        let r = r as usize;
        match self.has.get(r) {
            Some(true) => &self.bytes[r * self.perms..(r + 1) * self.perms],
            _ => &[],
        }
    }
}

/// File names of segment `name` in `dir`: fingerprints, profiles.
pub fn segment_paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.fp")),
        dir.join(format!("{name}.prof")),
    )
}

impl Segment {
    /// Opens segment `name` in `dir`, checking its headers and section sizes (not the body
    /// checksums: see [`verify`](Self::verify)).
    pub fn open(dir: &Path, name: &str) -> Result<Self> {
        Self::open_as(dir, name, Access::Map)
    }

    /// [`open`](Self::open) with the given access to its files.
    pub fn open_as(dir: &Path, name: &str, access: Access) -> Result<Self> {
        let (fp_path, prof_path) = segment_paths(dir, name);
        let fp = StoreFile::open_as(&fp_path, MAGIC, SECTIONS, access)?;
        let docs = u32::try_from(fp.docs())
            .ok()
            .filter(|&d| d as usize <= STORE_SEGMENT_MAX_DOCS)
            .ok_or_else(|| {
                fp.damaged(
                    16,
                    format!("{} rows, at most {STORE_SEGMENT_MAX_DOCS}", fp.docs()),
                )
            })?;
        let cfg = fp.config().clone();
        cfg.validate()
            .map_err(|e| fp.damaged(48, format!("configuration: {e}")))?;
        let n = docs as usize;
        fp.section(0).expect_len(n * ROW_BYTES, "rows")?;
        if let Some(why) = unsupported(&cfg) {
            return Err(fp.damaged(48, format!("configuration: {why}")));
        }
        fp.section(1)
            .expect_len(n * rest_bytes(&cfg), "signature rest")?;
        let tables = table_directory(&fp, &cfg, docs)?;
        fp.section(4).expect_len(n * 4, "URL table")?;
        let inputs_section = fp.section(6);
        let inputs: Vec<InputEntry> =
            serde_json::from_slice(&inputs_section.slice(0, inputs_section.len())?)
                .map_err(|e| inputs_section.damaged(0, format!("input list: {e}")))?;
        let profiles = Profiles::open(&prof_path, u64::from(docs), access)?;
        if profiles.file().config() != &cfg {
            return Err(StoreError::damaged(
                &prof_path,
                48,
                "made with other settings than its fingerprint file",
            ));
        }
        Ok(Segment {
            name: name.to_string(),
            fp,
            profiles,
            docs,
            inputs,
            tables,
        })
    }

    /// The segment's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Rows.
    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// The settings it was made with.
    pub fn config(&self) -> &DedupConfig {
        self.fp.config()
    }

    /// The inputs its rows point into.
    pub fn inputs(&self) -> &[InputEntry] {
        &self.inputs
    }

    /// Checks both files' body checksums (reads them whole).
    pub fn verify(&self) -> Result<()> {
        self.fp.verify()?;
        self.profiles.file().verify()
    }

    /// Row `r`.
    pub fn row(&self, r: u32) -> Result<Row<'_>> {
        let rows = self.fp.section(0);
        let at = r as usize * ROW_BYTES;
        let b = rows.slice(at, ROW_BYTES)?;
        let (u32_at, u64_at) = (|i| le32(&b, i), |i| le64(&b, i));
        let heap_off = u64_at(32);
        let (id_len, url_len) = (u32_at(52), u32_at(56));
        let heap = self.fp.section(5);
        let off = usize::try_from(heap_off).map_err(|_| rows.damaged(at + 32, "heap offset"))?;
        let id_end = off.saturating_add(id_len as usize);
        let url_len = (url_len != NO_URL).then_some(url_len as usize);
        // The id and URL are one read: the URL follows the id.
        let strings = heap.slice(off, id_len as usize + url_len.unwrap_or(0))?;
        let (id, url) = match strings {
            Cow::Borrowed(s) => {
                let (i, u) = s.split_at(id_len as usize);
                (Cow::Borrowed(i), url_len.map(|_| Cow::Borrowed(u)))
            }
            Cow::Owned(mut s) => {
                let u = s.split_off(id_len as usize);
                (Cow::Owned(s), url_len.map(|_| Cow::Owned(u)))
            }
        };
        let id = utf8(id).map_err(|_| heap.damaged(off, "not UTF-8"))?;
        let url = url
            .map(utf8)
            .transpose()
            .map_err(|_| heap.damaged(id_end, "not UTF-8"))?;
        Ok(Row {
            exact: u128::from(u64_at(0)) | u128::from(u64_at(8)) << 64,
            simhash: u64_at(16),
            offset: u64_at(24),
            adler32: u32_at(40),
            words: u32_at(44),
            file: u32_at(48),
            index: u32_at(60),
            id,
            url,
        })
    }

    fn table(&self, t: usize) -> Option<Table<'_>> {
        let &(start, shape) = self.tables.get(t)?;
        Some(Table::new(self.fp.section(3), start, shape))
    }

    fn words(&self, r: u32) -> Result<u32> {
        self.fp.section(0).u32(r as usize * ROW_BYTES + 44)
    }

    /// Every row's MinHash signature, rebuilt in one pass over the band tables (each entry of
    /// a MinHash table gives its row's bytes of that band) and the bytes no band covers.
    pub fn signatures(&self) -> Result<Signatures> {
        let cfg = self.config();
        let (perms, rows) = (cfg.minhash_perms, cfg.lsh_rows);
        let n = self.docs as usize;
        let mut bytes = vec![0u8; n * perms];
        for t in 0..covered_bands(cfg) {
            if let Some(table) = self.table(t) {
                table.for_each(self.docs, |key, r| {
                    let at = r as usize * perms + t * rows;
                    for (j, b) in bytes[at..at + rows].iter_mut().enumerate() {
                        *b = (key >> (8 * (rows - 1 - j))) as u8;
                    }
                })?;
            }
        }
        let rest = rest_bytes(cfg);
        if rest > 0 {
            let sec = self.fp.section(1);
            let all = sec.slice(0, n * rest)?;
            for r in 0..n {
                bytes[(r + 1) * perms - rest..(r + 1) * perms]
                    .copy_from_slice(&all[r * rest..(r + 1) * rest]);
            }
        }
        let has = (0..self.docs)
            .map(|r| Ok(self.words(r)? > 0))
            .collect::<Result<_>>()?;
        Ok(Signatures { perms, bytes, has })
    }

    /// The MinHash signature of row `r` (empty for a text without words): a pass over every
    /// band table of the segment (bounded memory, a few milliseconds), for one row; use
    /// [`signatures`](Self::signatures) for many.
    pub fn signature(&self, r: u32) -> Result<Vec<u8>> {
        let cfg = self.config();
        if self.words(r)? == 0 {
            return Ok(Vec::new());
        }
        let (perms, rows) = (cfg.minhash_perms, cfg.lsh_rows);
        let mut sig = vec![0u8; perms];
        for t in 0..covered_bands(cfg) {
            if let Some(key) = self
                .table(t)
                .map(|t| t.key_of_row(r))
                .transpose()?
                .flatten()
            {
                for j in 0..rows {
                    sig[t * rows + j] = (key >> (8 * (rows - 1 - j))) as u8;
                }
            }
        }
        let rest = rest_bytes(cfg);
        if rest > 0 {
            let b = self.fp.section(1).slice(r as usize * rest, rest)?;
            sig[perms - rest..].copy_from_slice(&b);
        }
        Ok(sig)
    }

    /// The full fingerprint of row `r`, word profile included (its signature found by a pass
    /// over the tables: [`signature`](Self::signature)).
    pub fn fingerprint(&self, r: u32) -> Result<Fingerprint> {
        let sig = self.signature(r)?;
        self.fingerprint_of(r, &sig)
    }

    /// The full fingerprint of row `r` with its signature taken from `sigs`.
    pub fn fingerprint_with(&self, r: u32, sigs: &Signatures) -> Result<Fingerprint> {
        self.fingerprint_of(r, sigs.get(r))
    }

    fn fingerprint_of(&self, r: u32, sig: &[u8]) -> Result<Fingerprint> {
        let row = self.row(r)?;
        Ok(Fingerprint {
            words: row.words,
            exact: row.exact,
            adler32: row.adler32,
            simhash: row.simhash,
            minhash: sig.to_vec().into(),
            // Not stored: clustering then keys bands on the signature bytes alone.
            minhash_wide: Box::default(),
            profile: self.profiles.get(r)?,
        })
    }

    /// The word profile of row `r`.
    pub fn profile(&self, r: u32) -> Result<crawlsift_dedup::profile::WordProfile> {
        self.profiles.get(r)
    }

    /// Rows of table `t` whose stored key ([`bands::table_key`]) is `key`, at most `limit` of
    /// them, lowest first; true when the bucket held more.
    pub fn bucket(&self, t: usize, key: u64, limit: usize, out: &mut Vec<u32>) -> Result<bool> {
        match self.table(t) {
            Some(table) => table.bucket(key, limit, self.docs, out),
            None => Ok(false),
        }
    }

    /// The first row whose URL is `url`.
    pub fn find_url(&self, url: &str) -> Result<Option<u32>> {
        let table = self.fp.section(4);
        let n = u64::from(self.docs);
        let url_at = |i: u64| -> Result<(u32, Option<Cow<'_, str>>)> {
            let r = table.u32(i as usize * 4)?;
            if r >= self.docs {
                return Err(table.damaged(i as usize * 4, format!("row {r} of {}", self.docs)));
            }
            Ok((r, self.row(r)?.url))
        };
        let first = partition(0, n, |i| {
            Ok(url_at(i)?.1.as_deref().unwrap_or("").as_bytes() < url.as_bytes())
        })?;
        if first < n {
            let (r, u) = url_at(first)?;
            if u.as_deref() == Some(url) {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// Sizes of the segment's parts.
    pub fn sizes(&self) -> SegmentSizes {
        let n = u64::from(self.docs);
        let len = |i: usize| self.fp.section(i).len() as u64;
        SegmentSizes {
            // exact 16, SimHash 8, Adler-32 4, words 4 of each row; signatures; tables.
            fingerprints_and_tables: n * 32 + len(1) + len(2) + len(3),
            documents: n * (ROW_BYTES as u64 - 32) + len(4) + len(5) + len(6),
            profiles: self.profiles.bytes(),
        }
    }
}

/// Signature bytes per row that no band covers (kept in section 1).
fn rest_bytes(cfg: &DedupConfig) -> usize {
    cfg.minhash_perms - covered_bands(cfg) * cfg.lsh_rows
}

/// Bits of a row number in a segment of `docs` rows.
fn row_bits(docs: u32) -> u32 {
    64 - u64::from(docs.saturating_sub(1)).leading_zeros()
}

/// Section 2 read and checked: every table's start and shape, the tables back to back filling
/// section 3.
fn table_directory(fp: &StoreFile, cfg: &DedupConfig, docs: u32) -> Result<Vec<(usize, Shape)>> {
    let count = table_count(cfg);
    let dir = fp.section(2);
    dir.expect_len(count * 16, "table directory")?;
    let raw = dir.slice(0, count * 16)?;
    let mut at = 0u64;
    let mut out = Vec::with_capacity(count);
    for t in 0..count {
        let (start, n) = (le64(&raw, t * 16), le64(&raw, t * 16 + 8));
        if start != at || n > u64::from(docs) {
            return Err(dir.damaged(
                t * 16,
                format!("table {t}: {n} entries at byte {start}, expected byte {at}"),
            ));
        }
        let shape = Shape::new(n, key_bits(cfg, t), row_bits(docs));
        out.push((start as usize, shape));
        at += shape.bytes();
    }
    fp.section(3).expect_len(at as usize, "band tables")?;
    Ok(out)
}

/// `b` as text, borrowed or owned as it came.
fn utf8(b: Cow<'_, [u8]>) -> std::result::Result<Cow<'_, str>, std::str::Utf8Error> {
    match b {
        Cow::Borrowed(b) => std::str::from_utf8(b).map(Cow::Borrowed),
        Cow::Owned(v) => String::from_utf8(v)
            .map(Cow::Owned)
            .map_err(|e| e.utf8_error()),
    }
}

/// The first index in `lo..hi` where `before` is false (it must be true, then false).
fn partition(mut lo: u64, mut hi: u64, before: impl Fn(u64) -> Result<bool>) -> Result<u64> {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid)? {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Writes segment `name` into `dir` from `docs` (in row order), made with `cfg`, pointing into
/// `inputs`. The profiles file is written first, the fingerprint file last.
pub fn write_segment(
    dir: &Path,
    name: &str,
    cfg: &DedupConfig,
    inputs: &[InputEntry],
    docs: &[DocIn<'_>],
) -> Result<()> {
    if docs.len() > STORE_SEGMENT_MAX_DOCS {
        return Err(StoreError::Invalid(format!(
            "{} documents for one segment, at most {STORE_SEGMENT_MAX_DOCS}",
            docs.len()
        )));
    }
    let (fp_path, prof_path) = segment_paths(dir, name);
    let profiles: Vec<_> = docs.iter().map(|d| &d.fp.profile).collect();
    write_profiles(&prof_path, cfg, &profiles)?;
    if let Some(why) = unsupported(cfg) {
        return Err(StoreError::Invalid(format!("an index cannot keep {why}")));
    }
    let perms = cfg.minhash_perms;
    let has_sig = |d: &DocIn<'_>| d.fp.words > 0 && d.fp.minhash.len() == perms;
    let rest = rest_bytes(cfg);
    let mut rows = Vec::with_capacity(docs.len() * ROW_BYTES);
    let mut sigs = vec![0u8; docs.len() * rest];
    let mut heap = Vec::new();
    for (r, d) in docs.iter().enumerate() {
        if d.file as usize >= inputs.len() {
            return Err(StoreError::Invalid(format!(
                "document {r}: no input {}",
                d.file
            )));
        }
        let url_len = match d.url {
            Some(u) if u.len() < NO_URL as usize => u.len() as u32,
            _ => NO_URL,
        };
        rows.extend_from_slice(&d.fp.exact.to_le_bytes());
        rows.extend_from_slice(&d.fp.simhash.to_le_bytes());
        rows.extend_from_slice(&d.offset.to_le_bytes());
        rows.extend_from_slice(&(heap.len() as u64).to_le_bytes());
        rows.extend_from_slice(&d.fp.adler32.to_le_bytes());
        rows.extend_from_slice(&d.fp.words.to_le_bytes());
        rows.extend_from_slice(&d.file.to_le_bytes());
        rows.extend_from_slice(&(d.id.len().min(u32::MAX as usize - 1) as u32).to_le_bytes());
        rows.extend_from_slice(&url_len.to_le_bytes());
        rows.extend_from_slice(&d.index.to_le_bytes());
        heap.extend_from_slice(&d.id.as_bytes()[..d.id.len().min(u32::MAX as usize - 1)]);
        if url_len != NO_URL {
            heap.extend_from_slice(d.url.unwrap_or("").as_bytes());
        }
        if has_sig(d) {
            sigs[r * rest..(r + 1) * rest].copy_from_slice(&d.fp.minhash[perms - rest..]);
        }
    }
    let keyed: Vec<Option<(&[u8], u64)>> = docs
        .iter()
        .map(|d| has_sig(d).then(|| (&d.fp.minhash[..], d.fp.simhash)))
        .collect();
    let tables = bands::Tables::new(cfg, &keyed);
    let rb = row_bits(docs.len() as u32);
    let shapes: Vec<Shape> = (0..table_count(cfg))
        .map(|t| Shape::new(tables.len(t) as u64, key_bits(cfg, t), rb))
        .collect();
    let mut starts = Vec::with_capacity(shapes.len() * 16);
    let mut entries = 0u64;
    for shape in &shapes {
        starts.extend_from_slice(&entries.to_le_bytes());
        starts.extend_from_slice(&shape.n.to_le_bytes());
        entries += shape.bytes();
    }
    let mut by_url: Vec<u32> = (0..docs.len() as u32).collect();
    by_url.sort_by(|&a, &b| {
        let u = |r: u32| docs[r as usize].url.unwrap_or("").as_bytes();
        u(a).cmp(u(b)).then(a.cmp(&b))
    });
    let url_table: Vec<u8> = by_url.iter().flat_map(|r| r.to_le_bytes()).collect();
    let inputs_json = serde_json::to_vec(inputs).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let sections: [&[u8]; 7] = [&rows, &sigs, &starts, &[], &url_table, &heap, &inputs_json];
    let mut lens = sections.map(|s| s.len());
    lens[3] = usize::try_from(entries).map_err(|_| StoreError::Invalid("band tables".into()))?;
    // The tables are packed one at a time on their way to the file.
    write_file_with(&fp_path, MAGIC, docs.len() as u64, cfg, &lens, |i, w| {
        if i == 3 {
            let mut e = Vec::new();
            for (t, shape) in shapes.iter().enumerate() {
                tables.entries(t, &mut e);
                w.put(&write_table(shape, &e))?;
            }
            Ok(())
        } else {
            w.put(sections[i])
        }
    })
}
