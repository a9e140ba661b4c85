//! Candidate pairs: documents sharing an LSH band key or a SimHash block, each bucket collision
//! checked where it meets against a bound every verified pair needs, so memory follows the
//! plausible pairs, not the chance collisions of the keys.
//!
//! Each band's keys are 32 bits, packed with the item into one `u64` and grouped by a radix sort
//! on the key (two passes of 16 bits, stable, so the items of a bucket stay in index order): the
//! work is linear in the documents a band, and the buckets hold few chance meetings.

use crawlsift_common::parallel::in_parallel;

use crate::fingerprint::DedupConfig;
use crate::minhash::agreements_for;

/// The fewest agreeing signature rows (of all of them) a candidate pair must have: the estimate
/// reaches `min_jaccard`.
pub(super) fn fewest_agreements(cfg: &DedupConfig) -> u32 {
    agreements_for(cfg.min_jaccard, cfg.minhash_perms)
}

/// Threads that may each hold one source's key list (and its sort scratch, 16 bytes an item)
/// of `items` items within `budget` bytes: at least one.
pub(super) fn threads_within(threads: usize, items: usize, budget: usize) -> usize {
    threads.min(budget / (16 * items.max(1))).max(1)
}

/// One item under a 32-bit key, as `bucket_pairs` sorts them.
#[inline]
pub(super) fn keyed(key: u32, item: u32) -> u64 {
    u64::from(key) << 32 | u64::from(item)
}

/// Pairs `(a, b)` of items that share a key in one of `sources` (LSH bands or SimHash blocks),
/// `keys` filling each source's list of [`keyed`] items (in ascending item order), and that
/// `keep` accepts. In a bucket each item is paired with at most `window` items before it (which
/// bounds the work on hostile input). Sources are shared out among the threads. Returns the pairs
/// kept, the comparisons made and those skipped by the window.
pub(super) fn bucket_pairs(
    threads: usize,
    sources: &[usize],
    window: usize,
    keys: impl Fn(usize, &mut Vec<u64>) + Sync,
    keep: impl Fn(u32, u32) -> bool + Sync,
) -> (CandidatePairs, u64, u64) {
    let parts = in_parallel(threads, sources, |chunk| {
        let mut pairs = CandidatePairs::default();
        let (mut checks, mut skipped) = (0u64, 0u64);
        let (mut keyed, mut scratch): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        for &source in chunk {
            keyed.clear();
            keys(source, &mut keyed);
            sort_by_key(&mut keyed, &mut scratch);
            for run in keyed.chunk_by(|x, y| x >> 32 == y >> 32) {
                for (p, &b) in run.iter().enumerate() {
                    let b = b as u32;
                    let from = p.saturating_sub(window);
                    skipped += from as u64;
                    for &a in &run[from..p] {
                        let a = a as u32;
                        checks += 1;
                        if keep(a, b) {
                            pairs.push(a, b);
                        }
                    }
                }
            }
        }
        (pairs, checks, skipped)
    });
    let mut all = CandidatePairs::default();
    let (mut checks, mut skipped) = (0, 0);
    for (pairs, c, s) in parts {
        all.merge(pairs);
        checks += c;
        skipped += s;
    }
    (all, checks, skipped)
}

/// Sorts [`keyed`] items by key, items of one key in ascending order: a stable two-pass radix
/// sort on the key when the items come in ascending order (they do: heads are listed in index
/// order), else a plain sort.
pub(super) fn sort_by_key(v: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    const SMALL: usize = 1 << 12;
    let ascending = v.windows(2).all(|w| w[0] as u32 <= w[1] as u32);
    if v.len() <= SMALL || !ascending {
        v.sort_unstable();
        return;
    }
    let mut counts = vec![0usize; 1 << 16];
    for shift in [32u32, 48] {
        counts.fill(0);
        for &x in v.iter() {
            counts[(x >> shift) as usize & 0xFFFF] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        scratch.clear();
        scratch.resize(v.len(), 0);
        for &x in v.iter() {
            let slot = &mut counts[(x >> shift) as usize & 0xFFFF];
            scratch[*slot] = x;
            *slot += 1;
        }
        std::mem::swap(v, scratch);
    }
}

/// Candidate pairs `(a, b)`, `a < b`, gathered from every band and block. Kept compact: the
/// list is sorted and de-duplicated whenever it has doubled since the last time, so memory follows
/// the distinct pairs, not the (many times larger) band collisions of near copies.
#[derive(Default)]
pub(super) struct CandidatePairs {
    pairs: Vec<u64>,
    distinct: usize,
}

impl CandidatePairs {
    pub(super) fn push(&mut self, a: u32, b: u32) {
        self.pairs.push(u64::from(a) << 32 | u64::from(b));
        if self.pairs.len() >= 2 * self.distinct + (1 << 16) {
            self.compact();
        }
    }

    pub(super) fn merge(&mut self, other: CandidatePairs) {
        if self.pairs.is_empty() {
            *self = other;
            return;
        }
        self.pairs.extend(other.pairs);
        self.compact();
    }

    fn compact(&mut self) {
        self.pairs.sort_unstable();
        self.pairs.dedup();
        self.distinct = self.pairs.len();
    }

    /// The distinct pairs in ascending order.
    pub(super) fn into_sorted(mut self) -> Vec<(u32, u32)> {
        self.compact();
        self.pairs
            .into_iter()
            .map(|p| ((p >> 32) as u32, p as u32))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_order_is_the_plain_order() {
        let mut state = 7u64;
        for len in [0usize, 5, 5000, 70_000] {
            let mut v: Vec<u64> = (0..len as u32)
                .map(|i| {
                    state = crate::minhash::mix64(state);
                    // Few distinct keys, so buckets hold many items.
                    keyed((state % 3000) as u32 * 0x0001_0101, i)
                })
                .collect();
            let mut plain = v.clone();
            plain.sort_unstable();
            sort_by_key(&mut v, &mut Vec::new());
            assert_eq!(v, plain, "{len}");
        }
        let mut unordered = vec![keyed(1, 9), keyed(1, 2), keyed(0, 5)];
        sort_by_key(&mut unordered, &mut Vec::new());
        assert_eq!(unordered, vec![keyed(0, 5), keyed(1, 2), keyed(1, 9)]);
    }
}
