//! Where the MinHash signatures of a clustering are kept: inside each [`Fingerprint`] while the
//! fingerprints fit the resident budget; past it (every word profile and the oldest records of the
//! catalog already on disk) the signatures of the oldest documents still holding theirs move to
//! two unnamed temporary files, a block of documents at a time, in document order:
//!
//! - *by document*: each document's signature bytes at `doc * perms`, read back with one
//!   positioned read (`pread`) where a candidate pair's rows are compared;
//! - *by row*: each block's rows transposed (for each row, its documents' signature bytes, then
//!   their wide bytes), so that one LSH band, or the rows popularity counts, of every document is
//!   one read a block, not one a document.
//!
//! A spilled document keeps one byte in memory: whether it had a whole signature and whole wide
//! bytes (only those are ever read: documents with neither are never heads). Without the boxes
//! and their allocations, a document's fingerprint takes some 64 bytes instead of 448, so the
//! budget holds for many millions of documents. A read that fails (the disk, not the input) gives
//! zeros and is remembered: the run fails rather than write clusters judged on missing rows.
//!
//! [`Signatures`] is the clustering steps' view of every document's signature, wherever it is.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::fingerprint::Fingerprint;

/// The document had a whole signature (`perms` bytes).
const WHOLE_SIGNATURE: u8 = 1;
/// The document had whole wide bytes (`perms` bytes).
const WHOLE_WIDE: u8 = 2;

/// The signatures moved to disk, oldest documents first.
#[derive(Debug)]
pub(crate) struct SignatureSpill {
    dir: PathBuf,
    perms: usize,
    /// Documents a block (the unit of moving and of reading rows back).
    block: usize,
    /// Per spilled document, what it had ([`WHOLE_SIGNATURE`], [`WHOLE_WIDE`]): the spilled
    /// documents are the first `kinds.len()`.
    kinds: Vec<u8>,
    /// Bytes the spilled signatures and wide bytes took in memory, for the index size reported.
    spilled_bytes: usize,
    /// The file by document and the file by row.
    files: Option<(File, File)>,
    error: Mutex<Option<String>>,
}

impl SignatureSpill {
    /// Spills signatures of `perms` rows into `dir`, `block` documents at a time.
    pub(crate) fn new(dir: &Path, perms: usize, block: usize) -> Self {
        Self {
            dir: dir.to_path_buf(),
            perms,
            block: block.max(1),
            kinds: Vec::new(),
            spilled_bytes: 0,
            files: None,
            error: Mutex::new(None),
        }
    }

    /// Documents whose signatures are on disk.
    pub(crate) fn spilled(&self) -> usize {
        self.kinds.len()
    }

    /// Bytes the spilled signatures took in memory.
    pub(crate) fn spilled_bytes(&self) -> usize {
        self.spilled_bytes
    }

    /// Whether the signature of `doc` is on disk.
    pub(crate) fn holds(&self, doc: u32) -> bool {
        (doc as usize) < self.kinds.len()
    }

    /// Moves the signatures of the oldest documents still holding theirs to disk, a whole block
    /// at a time, until `bytes` are freed or fewer than a block of documents hold theirs.
    /// Returns the bytes freed, less the byte each spilled document keeps.
    pub(crate) fn spill(
        &mut self,
        fps: &mut [Fingerprint],
        bytes: usize,
    ) -> std::io::Result<usize> {
        let mut freed = 0;
        while freed < bytes && self.kinds.len() + self.block <= fps.len() {
            freed += self.spill_block(fps)?;
        }
        Ok(freed)
    }

    fn spill_block(&mut self, fps: &mut [Fingerprint]) -> std::io::Result<usize> {
        if self.files.is_none() {
            let make = || {
                tempfile::tempfile_in(&self.dir).map_err(|e| {
                    std::io::Error::new(
                        e.kind(),
                        format!("signature spill file in {}: {e}", self.dir.display()),
                    )
                })
            };
            self.files = Some((make()?, make()?));
        }
        let (p, b) = (self.perms, self.block);
        let first = self.kinds.len();
        let mut by_doc = vec![0u8; b * p];
        let mut by_row = vec![0u8; b * 2 * p];
        let mut freed = 0;
        for (j, fp) in fps[first..first + b].iter_mut().enumerate() {
            let sig = std::mem::take(&mut fp.minhash);
            let wide = std::mem::take(&mut fp.minhash_wide);
            freed += sig.len() + wide.len();
            let mut kind = 0;
            if sig.len() == p {
                kind |= WHOLE_SIGNATURE;
                by_doc[j * p..(j + 1) * p].copy_from_slice(&sig);
                for (r, &v) in sig.iter().enumerate() {
                    by_row[r * 2 * b + j] = v;
                }
            }
            if wide.len() == p {
                kind |= WHOLE_WIDE;
                for (r, &v) in wide.iter().enumerate() {
                    by_row[r * 2 * b + b + j] = v;
                }
            }
            self.kinds.push(kind);
        }
        self.spilled_bytes += freed;
        let Some((docs_file, rows_file)) = self.files.as_ref() else {
            unreachable!("the files were just made");
        };
        docs_file.write_all_at(&by_doc, (first * p) as u64)?;
        rows_file.write_all_at(&by_row, (first * 2 * p) as u64)?;
        Ok(freed.saturating_sub(b))
    }

    fn kind(&self, doc: u32) -> u8 {
        self.kinds.get(doc as usize).copied().unwrap_or(0)
    }

    /// Reads `buf.len()` bytes at `at` of the file by document (`rows` false) or by row; a
    /// failure is remembered and gives zeros.
    fn read(&self, rows: bool, buf: &mut [u8], at: usize) {
        let Some((docs_file, rows_file)) = self.files.as_ref() else {
            return;
        };
        let file = if rows { rows_file } else { docs_file };
        if let Err(e) = file.read_exact_at(buf, at as u64) {
            buf.fill(0);
            let mut err = self.error.lock().unwrap_or_else(|p| p.into_inner());
            err.get_or_insert(format!(
                "reading back signatures from a temporary file in {}: {e}",
                self.dir.display()
            ));
        }
    }

    /// The first failed read, if any.
    pub(crate) fn error(&self) -> Option<String> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Every document's signature, as the clustering steps see it.
#[derive(Clone, Copy)]
pub(crate) struct Signatures<'a> {
    fps: &'a [Fingerprint],
    spill: Option<&'a SignatureSpill>,
    perms: usize,
}

impl<'a> Signatures<'a> {
    /// The view of `fps` (signatures of `perms` rows) whose oldest signatures are in `spill`.
    pub(crate) fn new(
        fps: &'a [Fingerprint],
        spill: Option<&'a SignatureSpill>,
        perms: usize,
    ) -> Self {
        Self { fps, spill, perms }
    }

    /// Documents.
    pub(crate) fn len(&self) -> usize {
        self.fps.len()
    }

    fn spilled_kind(&self, d: u32) -> Option<u8> {
        self.spill.filter(|s| s.holds(d)).map(|s| s.kind(d))
    }

    /// Whether document `d` has a whole signature.
    pub(crate) fn has(&self, d: u32) -> bool {
        match self.spilled_kind(d) {
            Some(kind) => kind & WHOLE_SIGNATURE != 0,
            None => self.fps[d as usize].minhash.len() == self.perms,
        }
    }

    /// Whether document `d` has whole wide bytes.
    pub(crate) fn has_wide(&self, d: u32) -> bool {
        match self.spilled_kind(d) {
            Some(kind) => kind & WHOLE_WIDE != 0,
            None => self.fps[d as usize].minhash_wide.len() == self.perms,
        }
    }

    /// The signature of document `d` (read back when it was spilled; empty when it has no whole
    /// signature).
    pub(crate) fn sig(&self, d: u32) -> Cow<'a, [u8]> {
        match (self.spill, self.spilled_kind(d)) {
            (Some(s), Some(kind)) if kind & WHOLE_SIGNATURE != 0 => {
                let mut buf = vec![0u8; self.perms];
                s.read(false, &mut buf, d as usize * self.perms);
                Cow::Owned(buf)
            }
            (_, Some(_)) => Cow::Borrowed(&[]),
            (_, None) => Cow::Borrowed(&self.fps[d as usize].minhash),
        }
    }

    /// Calls `f(i, signature rows, wide rows)` for each document `docs[i]`, in turn, with its
    /// rows `first..first + n`: `None` where it has no whole signature (or no whole wide bytes),
    /// or the rows pass the signature's end. Spilled rows are read a block at a time: `docs` in
    /// ascending order read each block once.
    pub(crate) fn rows(
        &self,
        docs: &[u32],
        first: usize,
        n: usize,
        mut f: impl FnMut(usize, Option<&[u8]>, Option<&[u8]>),
    ) {
        let fits = first + n <= self.perms;
        let whole = |b: &'a [u8]| (fits && b.len() == self.perms).then(|| &b[first..first + n]);
        let (mut sig, mut wide) = (vec![0u8; n], vec![0u8; n]);
        let mut block: Option<(usize, Vec<u8>)> = None;
        for (i, &d) in docs.iter().enumerate() {
            let (Some(s), Some(kind)) = (self.spill, self.spilled_kind(d)) else {
                let fp = &self.fps[d as usize];
                f(i, whole(&fp.minhash), whole(&fp.minhash_wide));
                continue;
            };
            if !fits {
                f(i, None, None);
                continue;
            }
            let b = s.block;
            let (k, j) = (d as usize / b, d as usize % b);
            let buf = match &mut block {
                Some((at, buf)) if *at == k => buf,
                _ => {
                    let mut buf = vec![0u8; n * 2 * b];
                    s.read(true, &mut buf, k * b * 2 * self.perms + first * 2 * b);
                    &mut block.insert((k, buf)).1
                }
            };
            for t in 0..n {
                sig[t] = buf[t * 2 * b + j];
                wide[t] = buf[t * 2 * b + b + j];
            }
            f(
                i,
                (kind & WHOLE_SIGNATURE != 0).then_some(&sig[..]),
                (kind & WHOLE_WIDE != 0).then_some(&wide[..]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::{DedupConfig, Fingerprinter};

    #[test]
    fn spilled_signatures_read_back_as_they_were() {
        let cfg = DedupConfig::default();
        let p = cfg.minhash_perms;
        let mut f = Fingerprinter::new(&cfg).wide_keys(true);
        let mut fps: Vec<Fingerprint> = (0..23)
            .map(|i| f.fingerprint(&format!("text number {i} of several words {}", i * 7)))
            .collect();
        fps[4].minhash_wide = Box::default(); // no wide bytes
        fps[9] = f.fingerprint(""); // no signature at all
        let whole = fps.clone();
        let dir = tempfile::tempdir().unwrap();
        let mut spill = SignatureSpill::new(dir.path(), p, 5);
        let freed = spill.spill(&mut fps, usize::MAX).unwrap();
        assert_eq!(spill.spilled(), 20, "whole blocks only");
        let bytes: usize = whole[..20]
            .iter()
            .map(|fp| fp.minhash.len() + fp.minhash_wide.len())
            .sum();
        assert_eq!((freed, spill.spilled_bytes()), (bytes - 20, bytes));
        assert!(fps[..20].iter().all(|fp| fp.minhash.is_empty()));
        let (old, new) = (
            Signatures::new(&whole, None, p),
            Signatures::new(&fps, Some(&spill), p),
        );
        let docs: Vec<u32> = (0..23).collect();
        for d in 0..23 {
            assert_eq!(old.sig(d), new.sig(d), "{d}");
            assert_eq!((old.has(d), old.has_wide(d)), (new.has(d), new.has_wide(d)));
        }
        assert!(!new.has(9) && !new.has_wide(4) && new.has(4));
        let rows = |s: Signatures, docs: &[u32], first, n| {
            let mut out = Vec::new();
            s.rows(docs, first, n, |i, a, b| {
                out.push((i, a.map(<[u8]>::to_vec), b.map(<[u8]>::to_vec)));
            });
            out
        };
        let mut unordered = docs.clone();
        unordered.reverse();
        for (first, n) in [(0, 2), (7, 3), (p - 4, 4), (p - 1, 2)] {
            assert_eq!(rows(old, &docs, first, n), rows(new, &docs, first, n));
            assert_eq!(
                rows(old, &unordered, first, n),
                rows(new, &unordered, first, n)
            );
        }
        assert!(spill.error().is_none());
    }
}
