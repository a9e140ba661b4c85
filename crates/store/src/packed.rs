//! One band table packed Elias-Fano style: its `n` entries `(key, row)` sorted, the key's high
//! `h = floor(log2 n)` bits kept as unary bucket sizes and the rest of each entry packed at a fixed
//! width, about 19 bits an entry where a plain u32 entry took 32.
//!
//! Layout of a table (bit `i` of a part is bit `i % 8` of its byte `i / 8`):
//! 1. samples: one u32 per `STORE_TABLE_SAMPLE_BUCKETS` buckets, the bit of part 2 where that
//!    bucket starts;
//! 2. unary bucket bits: for each of the `2^h` buckets in order, one 1 bit per entry, then a 0;
//!    bucket `b` starts at bit (entries before it) + `b`;
//! 3. low parts: per entry, the key's low `key_bits - h` bits above the row's `row_bits` bits.
//!
//! A bucket is found with three small reads (its sample, a few dozen bytes of unary bits, its
//! entries' low parts), so a search reads a bounded amount per table whatever the table's size;
//! a whole table is decoded in one pass ([`Table::for_each`]). Every position read is checked
//! against the table's size: damaged bits give an error, never a panic or an unbounded loop.

use std::borrow::Cow;

use crawlsift_common::limits::{
    STORE_BUCKET_BLOCK_ENTRIES, STORE_MAX_TABLE_KEY_BITS, STORE_TABLE_SAMPLE_BUCKETS,
    STORE_TABLE_SCAN_BYTES, STORE_TABLE_UNARY_READ_BYTES,
};

use crate::error::Result;
use crate::file::Section;

/// The sizes of one packed table, all derived from its entry count, key width and row width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Entries.
    pub n: u64,
    /// Bits of a key.
    pub key_bits: u32,
    /// Bits of a row number.
    pub row_bits: u32,
    /// High key bits kept in unary (`floor(log2 n)`, at most `key_bits`).
    pub high: u32,
}

impl Shape {
    /// The shape of a table of `n` entries with keys of `key_bits` (at most
    /// `STORE_MAX_TABLE_KEY_BITS`) and rows of `row_bits` (at most 16).
    pub fn new(n: u64, key_bits: u32, row_bits: u32) -> Shape {
        let log = if n == 0 { 0 } else { 63 - n.leading_zeros() };
        Shape {
            n,
            key_bits: key_bits.min(STORE_MAX_TABLE_KEY_BITS),
            row_bits: row_bits.min(16),
            high: log.min(key_bits).min(16),
        }
    }

    fn buckets(&self) -> u64 {
        1 << self.high
    }

    fn low_key_bits(&self) -> u32 {
        self.key_bits - self.high
    }

    fn low_bits(&self) -> u32 {
        self.low_key_bits() + self.row_bits
    }

    fn sample_bytes(&self) -> u64 {
        self.buckets().div_ceil(STORE_TABLE_SAMPLE_BUCKETS) * 4
    }

    fn unary_bits(&self) -> u64 {
        self.n + self.buckets()
    }

    fn unary_bytes(&self) -> u64 {
        self.unary_bits().div_ceil(8)
    }

    /// Bytes of the table.
    pub fn bytes(&self) -> u64 {
        self.sample_bytes() + self.unary_bytes() + (self.n * u64::from(self.low_bits())).div_ceil(8)
    }
}

/// Appends bits to a byte vector, lowest bit first (whole bytes out of a 64-bit accumulator).
struct Bits {
    out: Vec<u8>,
    /// Bits pushed.
    at: u64,
    /// Bits not yet in `out`: the lowest `at % 8`.
    acc: u64,
}

impl Bits {
    fn new() -> Self {
        Bits {
            out: Vec::new(),
            at: 0,
            acc: 0,
        }
    }

    /// Appends the low `w` bits of `v`.
    fn push(&mut self, v: u64, w: u32) {
        if w > 56 {
            self.push(v, 32);
            self.push(v >> 32, w - 32);
            return;
        }
        let fill = (self.at % 8) as u32;
        self.acc |= (v & mask(w)) << fill;
        self.at += u64::from(w);
        for _ in 0..(fill + w) / 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
        }
    }

    /// The bytes, the last one padded with zero bits.
    fn finish(mut self) -> Vec<u8> {
        if !self.at.is_multiple_of(8) {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// `w` bits (at most 57) of `buf` from bit `at`; bits past its end read as zeros.
#[inline]
fn bits(buf: &[u8], at: u64, w: u32) -> u64 {
    if w == 0 {
        return 0;
    }
    let byte = (at / 8) as usize;
    let word = match buf.get(byte..byte.saturating_add(8)) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        None => {
            let mut word = [0u8; 8];
            if let Some(src) = buf.get(byte..) {
                word[..src.len()].copy_from_slice(src);
            }
            u64::from_le_bytes(word)
        }
    };
    (word >> (at % 8)) & ((1u64 << w) - 1)
}

/// The bytes of the table of `entries` (sorted by key, then row; keys below `2^key_bits`, rows
/// below `2^row_bits`) with `shape`.
pub fn write_table(shape: &Shape, entries: &[(u64, u32)]) -> Vec<u8> {
    let lkb = shape.low_key_bits();
    let mut unary = Bits::new();
    let mut samples = Vec::with_capacity(shape.sample_bytes() as usize);
    let mut i = 0;
    for b in 0..shape.buckets() {
        if b.is_multiple_of(STORE_TABLE_SAMPLE_BUCKETS) {
            samples.extend_from_slice(&(unary.at as u32).to_le_bytes());
        }
        while i < entries.len() && entries[i].0 >> lkb == b {
            unary.push(1, 1);
            i += 1;
        }
        unary.push(0, 1);
    }
    let mut lows = Bits::new();
    for &(key, row) in entries {
        let low = (key & mask(lkb)) << shape.row_bits | u64::from(row);
        lows.push(low, shape.low_bits());
    }
    let mut out = samples;
    out.extend_from_slice(&unary.finish());
    out.extend_from_slice(&lows.finish());
    out
}

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// A packed table inside a section, read piece by piece.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    section: Section<'a>,
    /// Byte where the table starts in `section`.
    start: usize,
    shape: Shape,
}

impl<'a> Table<'a> {
    /// The table of `shape` at byte `start` of `section` (the caller has checked it fits).
    pub fn new(section: Section<'a>, start: usize, shape: Shape) -> Self {
        Table {
            section,
            start,
            shape,
        }
    }

    fn unary_start(&self) -> usize {
        self.start + self.shape.sample_bytes() as usize
    }

    fn lows_start(&self) -> usize {
        self.unary_start() + self.shape.unary_bytes() as usize
    }

    /// Bytes `at..at + n` of the table's part starting at `part`, clipped to `part_len`.
    fn read(&self, part: usize, part_len: usize, at: usize, n: usize) -> Result<Cow<'a, [u8]>> {
        let n = n.min(part_len.saturating_sub(at));
        self.section.slice(part + at, n)
    }

    /// Rows under `key`, at most `limit` of them (lowest first) appended to `out`; true when the
    /// bucket held more than `limit`. Rows at or past `docs` are damage.
    pub fn bucket(&self, key: u64, limit: usize, docs: u32, out: &mut Vec<u32>) -> Result<bool> {
        let s = &self.shape;
        if s.n == 0 || key >> s.key_bits != 0 {
            return Ok(false);
        }
        let lkb = s.low_key_bits();
        let b = key >> lkb;
        let low_key = key & mask(lkb);
        let sample = b / STORE_TABLE_SAMPLE_BUCKETS;
        let mut pos = u64::from(self.section.u32(self.start + sample as usize * 4)?);
        let unary_bits = s.unary_bits();
        let unary_len = s.unary_bytes() as usize;
        let mut skip = b - sample * STORE_TABLE_SAMPLE_BUCKETS;
        let mut count = 0u64;
        let mut first = None;
        let mut chunk: Cow<'a, [u8]> = Cow::Borrowed(&[]);
        let mut chunk_at = 0u64; // bit where `chunk` starts
        loop {
            if pos >= unary_bits {
                return Err(self.damaged(format!("bucket {b} runs past the unary bits")));
            }
            if pos < chunk_at || pos >= chunk_at + chunk.len() as u64 * 8 {
                chunk_at = pos / 8 * 8;
                chunk = self.read(
                    self.unary_start(),
                    unary_len,
                    (pos / 8) as usize,
                    STORE_TABLE_UNARY_READ_BYTES,
                )?;
            }
            let bit = bits(&chunk, pos - chunk_at, 1);
            pos += 1;
            if skip > 0 {
                skip -= u64::from(bit == 0);
                continue;
            }
            let start = *first.get_or_insert(pos - 1);
            if bit == 0 {
                let Some(i0) = start.checked_sub(b) else {
                    return Err(self.damaged(format!("bucket {b} starts before its entries")));
                };
                if i0 + count > s.n {
                    return Err(self.damaged(format!("bucket {b} ends past entry {}", s.n)));
                }
                return self.scan_lows(i0, count, low_key, limit, docs, out);
            }
            count += 1;
        }
    }

    /// The rows of entries `i0..i0 + count` whose low key bits are `low_key`.
    fn scan_lows(
        &self,
        i0: u64,
        count: u64,
        low_key: u64,
        limit: usize,
        docs: u32,
        out: &mut Vec<u32>,
    ) -> Result<bool> {
        let s = &self.shape;
        let w = u64::from(s.low_bits());
        let lows_len = (s.n * w).div_ceil(8) as usize;
        let mut taken = 0;
        let mut i = i0;
        while i < i0 + count {
            let n = (i0 + count - i).min(STORE_BUCKET_BLOCK_ENTRIES as u64);
            let from = i * w / 8;
            let buf = self.read(
                self.lows_start(),
                lows_len,
                from as usize,
                ((i + n) * w).div_ceil(8) as usize - from as usize,
            )?;
            for k in 0..n {
                let v = bits(&buf, (i + k) * w - from * 8, s.low_bits());
                let (lk, row) = (v >> s.row_bits, (v & mask(s.row_bits)) as u32);
                if lk < low_key {
                    continue;
                }
                if lk > low_key {
                    return Ok(false);
                }
                if taken >= limit {
                    return Ok(true);
                }
                if row >= docs {
                    return Err(self.damaged(format!("entry {} is row {row} of {docs}", i + k)));
                }
                out.push(row);
                taken += 1;
            }
            i += n;
        }
        Ok(false)
    }

    /// Calls `f(key, row)` for every entry, in order (the table is read whole: at most some
    /// 460 KiB for a full segment). Rows at or past `docs` are damage.
    pub fn for_each(&self, docs: u32, mut f: impl FnMut(u64, u32)) -> Result<()> {
        let s = &self.shape;
        let unary = self.read(self.unary_start(), s.unary_bytes() as usize, 0, usize::MAX)?;
        let w = s.low_bits();
        let lows_len = (s.n * u64::from(w)).div_ceil(8) as usize;
        let lows = self.read(self.lows_start(), lows_len, 0, usize::MAX)?;
        let (mut b, mut i) = (0u64, 0u64);
        for pos in 0..s.unary_bits() {
            if bits(&unary, pos, 1) == 0 {
                b += 1;
                continue;
            }
            if i >= s.n || b >= s.buckets() {
                return Err(self.damaged(format!("unary bit {pos} is entry {i} of {}", s.n)));
            }
            let v = bits(&lows, i * u64::from(w), w);
            let row = (v & mask(s.row_bits)) as u32;
            if row >= docs {
                return Err(self.damaged(format!("entry {i} is row {row} of {docs}")));
            }
            f(b << s.low_key_bits() | v >> s.row_bits, row);
            i += 1;
        }
        if i != s.n {
            return Err(self.damaged(format!("{i} entries in the unary bits, {} expected", s.n)));
        }
        Ok(())
    }

    /// The key of `row`'s entry, if it has one (the first, should damage give it several): a scan
    /// of the low parts for the row, then of the unary bits for its bucket, both read in pieces
    /// of `STORE_TABLE_SCAN_BYTES` and left as soon as found.
    pub fn key_of_row(&self, row: u32) -> Result<Option<u64>> {
        let s = &self.shape;
        let w = u64::from(s.low_bits());
        let lows_len = (s.n * w).div_ceil(8) as usize;
        let row_mask = mask(s.row_bits);
        let per_read = (STORE_TABLE_SCAN_BYTES as u64 * 8 / w.max(1)).max(1);
        let mut found = None;
        let mut i = 0;
        while i < s.n && found.is_none() {
            let count = (s.n - i).min(per_read);
            let from = i * w / 8;
            let len = ((i + count) * w).div_ceil(8) - from;
            let buf = self.read(self.lows_start(), lows_len, from as usize, len as usize)?;
            let mut at = i * w - from * 8;
            for k in i..i + count {
                let v = bits(&buf, at, s.low_bits());
                if v & row_mask == u64::from(row) {
                    found = Some((k, v));
                    break;
                }
                at += w;
            }
            i += count;
        }
        let Some((i, v)) = found else {
            return Ok(None);
        };
        // Entry i is the (i + 1)th 1 bit; the 0 bits before it are its bucket.
        let unary_len = s.unary_bytes() as usize;
        let mut ones_left = i;
        let mut from = 0;
        while from < unary_len {
            let buf = self.read(self.unary_start(), unary_len, from, STORE_TABLE_SCAN_BYTES)?;
            for (k, chunk) in buf.chunks(8).enumerate() {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                let mut x = u64::from_le_bytes(word);
                let ones = u64::from(x.count_ones());
                if ones_left >= ones {
                    ones_left -= ones;
                    continue;
                }
                for _ in 0..ones_left {
                    x &= x - 1; // drop the lowest 1 bit
                }
                let pos = (from as u64 + k as u64 * 8) * 8 + u64::from(x.trailing_zeros());
                let bucket = pos - i;
                if bucket >= s.buckets() {
                    break;
                }
                return Ok(Some(bucket << s.low_key_bits() | v >> s.row_bits));
            }
            from += buf.len().max(1);
        }
        Err(self.damaged(format!("entry {i} has no 1 bit in the unary bits")))
    }

    fn damaged(&self, what: String) -> crate::StoreError {
        self.section
            .damaged(self.start, format!("band table: {what}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::{write_file, Access, StoreFile};
    use crawlsift_dedup::DedupConfig;

    fn table_file(dir: &std::path::Path, bytes: &[u8]) -> StoreFile {
        let p = dir.join("t");
        write_file(&p, b"TESTTABL", 1, &DedupConfig::default(), &[bytes]).unwrap();
        StoreFile::open_as(&p, b"TESTTABL", 1, Access::Read).unwrap()
    }

    /// The bits one at a time, as format 2 was first written.
    fn bit_by_bit(pushes: &[(u64, u32)]) -> Vec<u8> {
        let (mut out, mut at) = (Vec::new(), 0u64);
        for &(v, w) in pushes {
            for i in 0..w {
                if at % 8 == 0 {
                    out.push(0);
                }
                if v >> i & 1 == 1 {
                    *out.last_mut().unwrap() |= 1 << (at % 8);
                }
                at += 1;
            }
        }
        out
    }

    #[test]
    fn bits_are_packed_as_one_at_a_time() {
        let mut state = 3u64;
        for round in 0..50 {
            let pushes: Vec<(u64, u32)> = (0..round * 7)
                .map(|_| {
                    state = crawlsift_dedup::minhash::mix64(state);
                    (state, (state >> 58) as u32 + u32::from(round % 3 == 0))
                })
                .collect();
            let mut b = Bits::new();
            for &(v, w) in &pushes {
                b.push(v, w);
            }
            assert_eq!(b.at, pushes.iter().map(|p| u64::from(p.1)).sum::<u64>());
            assert_eq!(b.finish(), bit_by_bit(&pushes), "round {round}");
        }
    }

    fn entries(n: u64, key_bits: u32, docs: u32) -> Vec<(u64, u32)> {
        let mut state = 7u64;
        let mut v: Vec<(u64, u32)> = (0..n)
            .map(|i| {
                state = crawlsift_dedup::minhash::mix64(state);
                // Skewed: a quarter of the entries in one popular key.
                let key = if i % 4 == 0 {
                    5
                } else {
                    state & mask(key_bits)
                };
                (key, (i % u64::from(docs)) as u32)
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn buckets_and_a_full_pass_give_back_every_entry() {
        let d = tempfile::tempdir().unwrap();
        for (n, key_bits, docs) in [(0, 16, 1), (1, 16, 1), (3000, 16, 3000), (900, 40, 65_536)] {
            let e = entries(n, key_bits, docs);
            let row_bits = 64 - u64::from(docs - 1).leading_zeros();
            let shape = Shape::new(e.len() as u64, key_bits, row_bits);
            let bytes = write_table(&shape, &e);
            assert_eq!(bytes.len() as u64, shape.bytes());
            let f = table_file(d.path(), &bytes);
            let t = Table::new(f.section(0), 0, shape);
            let mut all = Vec::new();
            t.for_each(docs, |k, r| all.push((k, r))).unwrap();
            assert_eq!(all, e);
            for &(k, r) in e.iter().take(50) {
                let first = e.iter().find(|x| x.1 == r).map(|x| x.0);
                assert_eq!(t.key_of_row(r).unwrap(), first, "row {r} (key {k})");
            }
            assert_eq!(
                t.key_of_row(docs.saturating_sub(1) + 1).unwrap_or(None),
                None
            );
            let mut keys: Vec<u64> = e.iter().map(|x| x.0).collect();
            keys.dedup();
            keys.extend([6, mask(key_bits), 1 << key_bits]);
            for k in keys {
                let mut rows = Vec::new();
                let more = t.bucket(k, usize::MAX, docs, &mut rows).unwrap();
                let want: Vec<u32> = e.iter().filter(|x| x.0 == k).map(|x| x.1).collect();
                assert_eq!((rows, more), (want, false), "key {k}");
            }
            let mut rows = Vec::new();
            if n > 4 {
                assert!(t.bucket(5, 3, docs, &mut rows).unwrap());
                assert_eq!(rows.len(), 3);
            }
        }
    }

    #[test]
    fn damaged_tables_are_errors_never_panics() {
        let d = tempfile::tempdir().unwrap();
        let e = entries(500, 16, 500);
        let shape = Shape::new(e.len() as u64, 16, 9);
        let good = write_table(&shape, &e);
        let mut state = 3u64;
        for round in 0..400 {
            let mut b = good.clone();
            for _ in 0..1 + round % 5 {
                state = crawlsift_dedup::minhash::mix64(state);
                let i = (state as usize >> 8) % b.len();
                b[i] ^= (state as u8) | 1;
            }
            if round % 7 == 0 {
                b.iter_mut().for_each(|x| *x = !*x);
            }
            let f = table_file(d.path(), &b);
            let t = Table::new(f.section(0), 0, shape);
            let _ = t.for_each(500, |_, _| {});
            for r in [0, 7, 499] {
                let _ = t.key_of_row(r);
            }
            for k in [0u64, 5, 77, 0xFFFF] {
                let _ = t.bucket(k, 100, 500, &mut Vec::new());
            }
            // A table shorter than its shape says.
            let short = table_file(d.path(), &b[..b.len() / 2]);
            let t = Table::new(short.section(0), 0, shape);
            assert!(t.for_each(500, |_, _| {}).is_err() || b.len() < 2);
            let _ = t.bucket(77, 100, 500, &mut Vec::new());
            let _ = t.key_of_row(3);
        }
    }
}
