//! Candidate pairs: documents sharing an LSH band key or a SimHash block, each bucket collision
//! checked where it meets against a bound every verified pair needs, so memory follows the
//! plausible pairs, not the chance collisions of 16-bit keys.

use crawlsift_common::parallel::in_parallel;

use crate::fingerprint::DedupConfig;
use crate::minhash::agreements_for;

/// The fewest agreeing signature rows (of all of them) a candidate pair must have: the estimate
/// reaches `min_jaccard`.
pub(super) fn fewest_agreements(cfg: &DedupConfig) -> u32 {
    agreements_for(cfg.min_jaccard, cfg.minhash_perms)
}

/// Pairs `(a, b)` of items that share a key in one of `sources` (LSH bands or SimHash blocks),
/// `keys` filling each source's `(key, item)` list, and that `keep` accepts. In a bucket each item
/// is paired with at most `window` items before it (which bounds the work on hostile input).
/// Sources are shared out among the threads. Returns the pairs kept, the comparisons made and
/// those skipped by the window.
pub(super) fn bucket_pairs(
    threads: usize,
    sources: &[usize],
    window: usize,
    keys: impl Fn(usize, &mut Vec<(u64, u32)>) + Sync,
    keep: impl Fn(u32, u32) -> bool + Sync,
) -> (CandidatePairs, u64, u64) {
    let parts = in_parallel(threads, sources, |chunk| {
        let mut pairs = CandidatePairs::default();
        let (mut checks, mut skipped) = (0u64, 0u64);
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        for &source in chunk {
            keyed.clear();
            keys(source, &mut keyed);
            keyed.sort_unstable();
            for run in keyed.chunk_by(|x, y| x.0 == y.0) {
                for (p, &(_, b)) in run.iter().enumerate() {
                    let from = p.saturating_sub(window);
                    skipped += from as u64;
                    for &(_, a) in &run[from..p] {
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
