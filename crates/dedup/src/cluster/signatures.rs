//! Where the MinHash signatures of a clustering are kept: not in each [`Fingerprint`] (a box of
//! its own, scattered over the heap among the profiles and texts of its time) but side by side in
//! chunks of `block` documents, each document's rows contiguous at `j * perms` of its chunk, its
//! wide bytes likewise in a chunk of their own. The band keys of every document are then strided
//! reads of a few chunks, not a pointer chase a document, and a document costs its bytes and one
//! more (what it had: a whole signature, whole wide bytes).
//!
//! Past the resident budget (every word profile and the oldest records of the catalog already on
//! disk) the oldest chunks move to two unnamed temporary files, in document order:
//!
//! - *by document*: each document's signature bytes at `doc * perms`, read back with one
//!   positioned read (`pread`) where a candidate pair's rows are compared;
//! - *by row*: each chunk's rows transposed (for each row, its documents' signature bytes, then
//!   their wide bytes), so that one LSH band, or the rows popularity counts, of every document is
//!   one read a chunk, not one a document.
//!
//! A read fails only by the disk, not the input. Reads happen deep inside parallel steps (bucket
//! checks, band keys), so a failed one gives zeros there and its [`SpillError`] is kept; the
//! clustering takes it back ([`SignatureStore::take_error`]) before it returns and returns it
//! instead of clusters judged on missing rows. [`Signatures`] is the clustering steps' view.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::SpillError;
use crate::fingerprint::Fingerprint;

/// The document had a whole signature (`perms` bytes).
const WHOLE_SIGNATURE: u8 = 1;
/// The document had whole wide bytes (`perms` bytes).
const WHOLE_WIDE: u8 = 2;
/// The document's signature or wide bytes were of another length (not from this program's
/// fingerprinter): kept aside as given, never read by clustering.
const OTHER: u8 = 4;

/// A document's signature and wide bytes as given.
type Given = (Box<[u8]>, Box<[u8]>);

/// Every document's signature and wide bytes, in chunks, the oldest chunks possibly on disk.
#[derive(Debug)]
pub(crate) struct SignatureStore {
    perms: usize,
    /// Documents a chunk.
    block: usize,
    /// Per document, what it had ([`WHOLE_SIGNATURE`], [`WHOLE_WIDE`], [`OTHER`]).
    kinds: Vec<u8>,
    /// Per chunk, its documents' signatures (`block * perms` bytes), `None` once on disk.
    sigs: Vec<Option<Box<[u8]>>>,
    /// Per chunk, its documents' wide bytes, made when one of them has some.
    wides: Vec<Option<Box<[u8]>>>,
    /// Chunks on disk: the first `spilled`.
    spilled: usize,
    /// Signatures and wide bytes of other lengths, as given.
    other: HashMap<u32, Given>,
    /// Bytes of every signature and wide bytes as given (the index size reported).
    given_bytes: usize,
    /// The file by document and the file by row.
    files: Option<(File, File)>,
    /// The folder of the files (for errors).
    dir: PathBuf,
    /// The first failed read, until the clustering takes it back.
    error: Mutex<Option<SpillError>>,
}

impl SignatureStore {
    /// A store for signatures of `perms` rows, `block` documents a chunk.
    pub(crate) fn new(perms: usize, block: usize) -> Self {
        Self {
            perms,
            block: block.max(1),
            kinds: Vec::new(),
            sigs: Vec::new(),
            wides: Vec::new(),
            spilled: 0,
            other: HashMap::new(),
            given_bytes: 0,
            files: None,
            dir: PathBuf::new(),
            error: Mutex::new(None),
        }
    }

    /// Documents.
    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Documents whose signatures are on disk.
    pub(crate) fn spilled(&self) -> usize {
        (self.spilled * self.block).min(self.kinds.len())
    }

    /// Bytes of every signature and wide bytes as given.
    pub(crate) fn given_bytes(&self) -> usize {
        self.given_bytes
    }

    /// Takes the signature and wide bytes out of the next document's fingerprint. Returns the
    /// bytes this allocated (a new chunk, the map of other lengths).
    pub(crate) fn push(&mut self, fp: &mut Fingerprint) -> usize {
        let (p, b) = (self.perms, self.block);
        let d = self.kinds.len();
        let (k, j) = (d / b, d % b);
        let sig = std::mem::take(&mut fp.minhash);
        let wide = std::mem::take(&mut fp.minhash_wide);
        self.given_bytes += sig.len() + wide.len();
        let mut made = 0;
        if j == 0 {
            self.sigs.push(None);
            self.wides.push(None);
        }
        let mut kind = 0;
        let mut put = |chunks: &mut Vec<Option<Box<[u8]>>>, bytes: &[u8]| {
            let chunk = chunks[k].get_or_insert_with(|| {
                made += b * p;
                vec![0u8; b * p].into_boxed_slice()
            });
            chunk[j * p..(j + 1) * p].copy_from_slice(bytes);
        };
        if sig.len() == p {
            kind |= WHOLE_SIGNATURE;
            put(&mut self.sigs, &sig);
        }
        if wide.len() == p {
            kind |= WHOLE_WIDE;
            put(&mut self.wides, &wide);
        }
        let odd = |v: &[u8]| !v.is_empty() && v.len() != p;
        if odd(&sig) || odd(&wide) {
            kind |= OTHER;
            made += sig.len() + wide.len() + 64;
            self.other.insert(d as u32, (sig, wide));
        }
        self.kinds.push(kind);
        made + 1
    }

    /// The signature and wide bytes of `doc` as given (for a whole fingerprint).
    pub(crate) fn given(&self, doc: u32) -> Given {
        let kind = self.kind(doc);
        if kind & OTHER != 0 {
            if let Some(v) = self.other.get(&doc) {
                return v.clone();
            }
        }
        let view = Signatures::new(self);
        let sig = if kind & WHOLE_SIGNATURE != 0 {
            view.sig(doc).into_owned().into_boxed_slice()
        } else {
            Box::default()
        };
        let wide = if kind & WHOLE_WIDE != 0 {
            let mut w = vec![0u8; self.perms];
            view.rows(&[doc], 0, self.perms, |_, _, r| {
                if let Some(r) = r {
                    w.copy_from_slice(r);
                }
            });
            w.into_boxed_slice()
        } else {
            Box::default()
        };
        (sig, wide)
    }

    /// Moves the oldest chunks still in memory (never the one being filled) to disk, in `dir`,
    /// until `bytes` are freed or none is left to move. Returns the bytes freed.
    pub(crate) fn spill(&mut self, dir: &Path, bytes: usize) -> Result<usize, SpillError> {
        let mut freed = 0;
        let full = self.kinds.len() / self.block;
        self.dir = dir.to_path_buf();
        while freed < bytes && self.spilled < full {
            let at = (self.spilled * self.block * self.perms) as u64;
            freed += self
                .spill_chunk(dir)
                .map_err(|e| self.error("writing", at, e))?;
        }
        Ok(freed)
    }

    /// The error of a failed write or read at byte `offset` of a file.
    fn error(&self, action: &'static str, offset: u64, source: std::io::Error) -> SpillError {
        SpillError {
            what: "signature",
            action,
            dir: self.dir.clone(),
            offset,
            source,
        }
    }

    fn spill_chunk(&mut self, dir: &Path) -> std::io::Result<usize> {
        if self.files.is_none() {
            let make = || crawlsift_common::fs::spill_file(dir, "signature");
            self.files = Some((make()?, make()?));
        }
        let (p, b, k) = (self.perms, self.block, self.spilled);
        let sig = self.sigs[k].take();
        let wide = self.wides[k].take();
        let mut by_row = vec![0u8; b * 2 * p];
        for (chunk, half) in [(&sig, 0), (&wide, b)] {
            if let Some(chunk) = chunk {
                for (j, rows) in chunk.chunks_exact(p).enumerate() {
                    for (r, &v) in rows.iter().enumerate() {
                        by_row[r * 2 * b + half + j] = v;
                    }
                }
            }
        }
        let by_doc = sig
            .as_deref()
            .map_or_else(|| vec![0u8; b * p], <[u8]>::to_vec);
        self.spilled += 1;
        let Some((docs_file, rows_file)) = self.files.as_ref() else {
            unreachable!("the files were just made");
        };
        docs_file.write_all_at(&by_doc, (k * b * p) as u64)?;
        rows_file.write_all_at(&by_row, (k * b * 2 * p) as u64)?;
        Ok([&sig, &wide]
            .iter()
            .map(|c| c.as_ref().map_or(0, |c| c.len()))
            .sum())
    }

    fn kind(&self, doc: u32) -> u8 {
        self.kinds.get(doc as usize).copied().unwrap_or(0)
    }

    /// Reads `buf.len()` bytes at `at` of the file by document (`rows` false) or by row; a
    /// failure gives zeros and is kept for [`take_error`](Self::take_error).
    fn read(&self, rows: bool, buf: &mut [u8], at: usize) {
        let Some((docs_file, rows_file)) = self.files.as_ref() else {
            return;
        };
        let file = if rows { rows_file } else { docs_file };
        if let Err(e) = file.read_exact_at(buf, at as u64) {
            buf.fill(0);
            let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
            err.get_or_insert_with(|| self.error("reading back", at as u64, e));
        }
    }

    /// The first failed read since the last call, as an error (`Ok` when every read succeeded).
    pub(crate) fn take_error(&self) -> Result<(), SpillError> {
        match self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Every document's signature, as the clustering steps see it.
#[derive(Clone, Copy)]
pub(crate) struct Signatures<'a> {
    store: &'a SignatureStore,
}

impl<'a> Signatures<'a> {
    /// The view of `store`.
    pub(crate) fn new(store: &'a SignatureStore) -> Self {
        Self { store }
    }

    /// Documents.
    pub(crate) fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether document `d` has a whole signature.
    pub(crate) fn has(&self, d: u32) -> bool {
        self.store.kind(d) & WHOLE_SIGNATURE != 0
    }

    /// Whether document `d` has whole wide bytes.
    pub(crate) fn has_wide(&self, d: u32) -> bool {
        self.store.kind(d) & WHOLE_WIDE != 0
    }

    /// Where the rows of `d` are in its chunk of `chunks`, when the chunk is in memory.
    fn in_memory(&self, chunks: &'a [Option<Box<[u8]>>], d: u32) -> Option<&'a [u8]> {
        let (p, b) = (self.store.perms, self.store.block);
        let (k, j) = (d as usize / b, d as usize % b);
        chunks.get(k)?.as_deref()?.get(j * p..(j + 1) * p)
    }

    /// The signature of document `d` (read back when it was spilled; empty when it has no whole
    /// signature).
    pub(crate) fn sig(&self, d: u32) -> Cow<'a, [u8]> {
        if !self.has(d) {
            return Cow::Borrowed(&[]);
        }
        if let Some(rows) = self.in_memory(&self.store.sigs, d) {
            return Cow::Borrowed(rows);
        }
        let p = self.store.perms;
        let mut buf = vec![0u8; p];
        self.store.read(false, &mut buf, d as usize * p);
        Cow::Owned(buf)
    }

    /// Calls `f(i, signature rows, wide rows)` for each document `docs[i]`, in turn, with its
    /// rows `first..first + n`: `None` where it has no whole signature (or no whole wide bytes),
    /// or the rows pass the signature's end. Spilled rows are read a chunk at a time: `docs` in
    /// ascending order read each chunk once.
    pub(crate) fn rows(
        &self,
        docs: &[u32],
        first: usize,
        n: usize,
        mut f: impl FnMut(usize, Option<&[u8]>, Option<&[u8]>),
    ) {
        let s = self.store;
        let (p, b) = (s.perms, s.block);
        let fits = first + n <= p;
        let (mut sig, mut wide) = (vec![0u8; n], vec![0u8; n]);
        let mut chunk: Option<(usize, Vec<u8>)> = None;
        for (i, &d) in docs.iter().enumerate() {
            let (has, has_wide) = (self.has(d), self.has_wide(d));
            if !fits || !(has || has_wide) {
                f(i, None, None);
                continue;
            }
            let (k, j) = (d as usize / b, d as usize % b);
            if k >= s.spilled {
                let part = |c| self.in_memory(c, d).map(|r| &r[first..first + n]);
                f(
                    i,
                    part(&s.sigs).filter(|_| has),
                    part(&s.wides).filter(|_| has_wide),
                );
                continue;
            }
            let buf = match &mut chunk {
                Some((at, buf)) if *at == k => buf,
                _ => {
                    let mut buf = vec![0u8; n * 2 * b];
                    s.read(true, &mut buf, k * b * 2 * p + first * 2 * b);
                    &mut chunk.insert((k, buf)).1
                }
            };
            for t in 0..n {
                sig[t] = buf[t * 2 * b + j];
                wide[t] = buf[t * 2 * b + b + j];
            }
            f(i, has.then_some(&sig[..]), has_wide.then_some(&wide[..]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::{DedupConfig, Fingerprinter};

    #[test]
    fn signatures_read_back_as_given_in_memory_and_spilled() {
        let cfg = DedupConfig::default();
        let p = cfg.minhash_perms;
        let mut f = Fingerprinter::new(&cfg).wide_keys(true);
        let mut fps: Vec<Fingerprint> = (0..23)
            .map(|i| f.fingerprint(&format!("text number {i} of several words {}", i * 7)))
            .collect();
        fps[4].minhash_wide = Box::default(); // no wide bytes
        fps[9] = f.fingerprint(""); // no signature at all
        fps[12].minhash = vec![1, 2, 3].into_boxed_slice(); // not this program's
        let given = fps.clone();
        let dir = tempfile::tempdir().unwrap();
        let (mut kept, mut spilled) = (SignatureStore::new(p, 5), SignatureStore::new(p, 5));
        for fp in &fps {
            kept.push(&mut fp.clone());
            spilled.push(&mut fp.clone());
        }
        let chunk = 5 * p;
        let freed = spilled.spill(dir.path(), usize::MAX).unwrap();
        assert_eq!(spilled.spilled(), 20, "whole chunks only");
        assert_eq!(
            freed,
            4 * 2 * chunk,
            "four chunks of signatures and wide bytes"
        );
        let bytes: usize = given
            .iter()
            .map(|fp| fp.minhash.len() + fp.minhash_wide.len())
            .sum();
        assert_eq!((kept.given_bytes(), spilled.given_bytes()), (bytes, bytes));
        let (old, new) = (Signatures::new(&kept), Signatures::new(&spilled));
        for d in 0..23u32 {
            let fp = &given[d as usize];
            let whole = fp.minhash.len() == p;
            assert_eq!(old.has(d), whole);
            assert_eq!(old.has_wide(d), fp.minhash_wide.len() == p);
            assert_eq!(&*old.sig(d), if whole { &fp.minhash[..] } else { &[] });
            assert_eq!(old.sig(d), new.sig(d), "{d}");
            assert_eq!((old.has(d), old.has_wide(d)), (new.has(d), new.has_wide(d)));
            let as_given = (fp.minhash.clone(), fp.minhash_wide.clone());
            assert_eq!(kept.given(d), as_given, "{d}");
            assert_eq!(spilled.given(d), as_given, "{d}");
        }
        let rows = |s: Signatures, docs: &[u32], first, n| {
            let mut out = Vec::new();
            s.rows(docs, first, n, |i, a, b| {
                out.push((i, a.map(<[u8]>::to_vec), b.map(<[u8]>::to_vec)));
            });
            out
        };
        let docs: Vec<u32> = (0..23).collect();
        let mut unordered = docs.clone();
        unordered.reverse();
        for (first, n) in [(0, 2), (7, 3), (p - 4, 4), (p - 1, 2)] {
            let expected: Vec<_> = docs
                .iter()
                .map(|&d| {
                    let fp = &given[d as usize];
                    let part = |v: &[u8]| {
                        (v.len() == p && first + n <= p).then(|| v[first..first + n].to_vec())
                    };
                    (d as usize, part(&fp.minhash), part(&fp.minhash_wide))
                })
                .collect();
            assert_eq!(rows(old, &docs, first, n), expected);
            assert_eq!(rows(new, &docs, first, n), expected);
            assert_eq!(
                rows(old, &unordered, first, n),
                rows(new, &unordered, first, n)
            );
        }
        assert!(spilled.take_error().is_ok());
    }
}
