//! Popular phrases: signature rows whose values are shared by more groups of same texts than a
//! copy family plausibly has, so they are template text, not evidence of copying.

use crawlsift_common::parallel::in_parallel;

use super::candidates::{bucket_pairs, keyed};
use super::signatures::Signatures;
use super::union_find::UnionFind;
use super::ClusterStats;
use crate::fingerprint::DedupConfig;
use crate::minhash::{agreements, agreements_for, band_key_of_rows, fold32};

/// Which signature rows hold *popular phrases*: shingles shared by more distinct texts than a copy
/// family plausibly has, so they are template text (cookie notices, newsletter boxes, "no results"
/// messages), not evidence that two documents copy each other.
///
/// A single b-bit row cannot tell: 256 values, each shared by chance by 1/256 of all texts. A pair
/// of rows can: its 16-bit value is shared by chance by 1/65,536 of the texts, so a value shared
/// by many more means the same two minimum shingles in all of them. Each row is paired with the
/// next `popular_pairings` rows (so it takes part in twice that many pairs); a row is popular
/// in a document when one of its pairs is.
#[derive(Debug, PartialEq)]
pub(super) struct Popularity {
    /// One bit per (document, row), `words_per_doc` u64 words per document.
    bits: Vec<u64>,
    words_per_doc: usize,
    perms: usize,
}

impl Popularity {
    /// Marks the popular rows of every text of `distinct`; `groups[p]` is the same-text group of
    /// `distinct[p]` (see [`same_text_groups`]), and a value counts once per group.
    pub(super) fn measure(
        cfg: &DedupConfig,
        sigs: Signatures<'_>,
        (distinct, groups): (&[u32], &[u32]),
        stats: &mut ClusterStats,
        plan: PopularityPlan,
    ) -> Self {
        let PopularityPlan {
            threads,
            budget,
            sweep_from,
        } = plan;
        // Texts ordered by group, so a group's texts are contiguous below.
        let mut order: Vec<(u32, u32)> = groups
            .iter()
            .copied()
            .zip(distinct.iter().copied())
            .collect();
        order.sort_unstable();
        stats.popular_groups = order.chunk_by(|x, y| x.0 == y.0).count() as u64;
        let group: Vec<u32> = order.iter().map(|&(g, _)| g).collect();
        let distinct: Vec<u32> = order.iter().map(|&(_, d)| d).collect();
        let distinct = &distinct[..];
        drop(order);
        // The texts in document order, each with its position: spilled rows are read back a
        // block of documents at a time.
        let mut in_doc_order: Vec<(u32, u32)> = (0..distinct.len() as u32)
            .map(|p| (distinct[p as usize], p))
            .collect();
        in_doc_order.sort_unstable();
        let (docs_in_order, position): (Vec<u32>, Vec<u32>) = in_doc_order.into_iter().unzip();
        let perms = cfg.minhash_perms;
        let words_per_doc = perms.div_ceil(64);
        // A pair value is shared by chance by about m / 65,536 of m texts; the limit sits well
        // above that.
        let chance = stats.popular_groups as f64 / 65_536.0;
        let limit = cfg.popular_docs + (chance + 4.0 * chance.sqrt()).ceil() as usize;
        let limit = u16::try_from(limit).unwrap_or(u16::MAX - 1);
        stats.popular_limit = u64::from(limit);
        // Rows by permutation (row i of every distinct text, contiguous), so each pair of rows is
        // two sequential reads; within the memory budget, rows are counted in blocks, each with
        // the rows its pairings reach.
        let m = distinct.len();
        let pairings = cfg.popular_pairings.min(perms - 1);
        let bits_bytes = sigs.len() * words_per_doc * 8;
        let order_bytes = 8 * m;
        let block = (budget.saturating_sub(bits_bytes * (threads + 1) + order_bytes) / m.max(1))
            .saturating_sub(pairings)
            .clamp(1, perms);
        let mut bits = vec![0u64; sigs.len() * words_per_doc];
        for first in (0..perms).step_by(block) {
            let rows: Vec<usize> = (first..(first + block).min(perms)).collect();
            // Transposed rows of this block: row r (of the block and its pairings) at slot
            // (r - first) mod perms.
            let span = (rows.len() + pairings).min(perms);
            let mut by_row = vec![0u8; span * m];
            // Rows first.. to the end, then from row 0 for the pairings that wrap around.
            let to_end = span.min(perms - first);
            for (from, k0, n) in [(first, 0, to_end), (0, to_end, span - to_end)] {
                if n == 0 {
                    continue;
                }
                sigs.rows(&docs_in_order, from, n, |i, sig, _| {
                    if let Some(sig) = sig {
                        let p = position[i] as usize;
                        for (t, &v) in sig.iter().enumerate() {
                            by_row[(k0 + t) * m + p] = v;
                        }
                    }
                });
            }
            let row_of = |r: usize| {
                let k = (r + perms - first) % perms;
                &by_row[k * m..(k + 1) * m]
            };
            // Rows are shared out among the threads, each with its own counters and bits; bits
            // are OR-ed and counts summed, so the result does not depend on the thread count.
            let count_rows = |rows: &[usize]| -> (Vec<u64>, u64) {
                let mut bits = vec![0u64; sigs.len() * words_per_doc];
                let mut popular_row_pairs = 0u64;
                let mut counts = vec![0u16; 1 << 16];
                // The group that last counted each value: a group counts a value once.
                let mut last = vec![u32::MAX; 1 << 16];
                let mut values = vec![0u16; m];
                for &i in rows {
                    for step in 1..=pairings {
                        let j = (i + step) % perms;
                        let (ri, rj) = (row_of(i), row_of(j));
                        let mut crossed = false;
                        for (((v, &a), &b), &g) in values.iter_mut().zip(ri).zip(rj).zip(&group) {
                            *v = u16::from(a) << 8 | u16::from(b);
                            let seen = &mut last[usize::from(*v)];
                            if *seen != g {
                                *seen = g;
                                let c = &mut counts[usize::from(*v)];
                                *c = c.saturating_add(1);
                                crossed |= *c > limit;
                            }
                        }
                        if crossed {
                            for (&v, &d) in values.iter().zip(distinct) {
                                let c = &mut counts[usize::from(v)];
                                if *c > limit {
                                    bits[d as usize * words_per_doc + i / 64] |= 1u64 << (i % 64);
                                    bits[d as usize * words_per_doc + j / 64] |= 1u64 << (j % 64);
                                }
                            }
                        }
                        if m >= sweep_from {
                            // Many texts: sweeping the tables beats visiting every value again.
                            popular_row_pairs +=
                                counts.iter().filter(|&&c| c > limit).count() as u64;
                            counts.fill(0);
                            last.fill(u32::MAX);
                            continue;
                        }
                        // Reset only what was counted; count each popular value once.
                        for &v in &values {
                            let c = &mut counts[usize::from(v)];
                            popular_row_pairs += u64::from(*c > limit);
                            *c = 0;
                            last[usize::from(v)] = u32::MAX;
                        }
                    }
                }
                (bits, popular_row_pairs)
            };
            for (part, pairs) in in_parallel(threads, &rows, count_rows) {
                for (w, p) in bits.iter_mut().zip(part) {
                    *w |= p;
                }
                stats.popular_row_pairs += pairs;
            }
        }
        Self {
            bits,
            words_per_doc,
            perms,
        }
    }

    fn doc_bits(&self, doc: u32) -> &[u64] {
        let at = doc as usize * self.words_per_doc;
        &self.bits[at..at + self.words_per_doc]
    }

    /// True when either row of LSH band `band` (rows `band*rows..`) is popular in `doc`.
    pub(super) fn band_is_popular(&self, doc: u32, band: usize, rows: usize) -> bool {
        let b = self.doc_bits(doc);
        (band * rows..band * rows + rows)
            .any(|i| b.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1))
    }

    fn popular_rows(&self, doc: u32) -> u32 {
        self.doc_bits(doc).iter().map(|w| w.count_ones()).sum()
    }

    /// Words of the document's own text: its words less the popular share of its rows (each row
    /// is the minimum of a random permutation, so the popular rows are a sample of its shingles).
    pub(super) fn own_words(&self, doc: u32, words: u32) -> f64 {
        if self.perms == 0 {
            return f64::from(words);
        }
        let share = f64::from(self.popular_rows(doc)) / self.perms as f64;
        f64::from(words) * (1.0 - share)
    }
}

/// How [`Popularity::measure`] works: on how many threads, within what working memory, and from
/// how many texts its counters are reset by sweeping (the result is the same either way; tests
/// set it).
#[derive(Debug, Clone, Copy)]
pub(super) struct PopularityPlan {
    pub(super) threads: usize,
    pub(super) budget: usize,
    pub(super) sweep_from: usize,
}

impl PopularityPlan {
    /// `threads` threads within `budget` bytes, sweeping from [`SWEEP_FROM`] texts on.
    pub(super) fn new(threads: usize, budget: usize) -> Self {
        Self {
            threads,
            budget,
            sweep_from: SWEEP_FROM,
        }
    }
}

/// Texts from which a row pair's counters are reset by sweeping both 65,536-entry tables (some
/// 384 KiB, read in order) rather than by visiting each text's value again (random reads, about
/// as costly from 16,384 texts on).
const SWEEP_FROM: usize = 1 << 14;

/// Rows per band when looking for same texts: pairs at the same-text threshold (J >= 0.85) share
/// one of the 4-row bands with probability 1 - (1 - 0.85^4)^48 > 1 - 1e-15, while 32-bit keys
/// rarely meet by chance, so few pairs are compared.
const SAME_TEXT_BAND_ROWS: usize = 4;

/// Groups of distinct texts that are the same text up to a few words: pairs whose estimated
/// Jaccard on all rows reaches `popular_same_text`, joined by union-find. Returns, for each
/// position of `distinct`, the lowest position of its group.
///
/// Popularity is counted in these groups: a story syndicated to many sites is few groups, while
/// a site's stub pages, which differ by their own words, stay one group each.
pub(super) fn same_text_groups(
    cfg: &DedupConfig,
    sigs: Signatures<'_>,
    distinct: &[u32],
    threads: usize,
) -> Vec<u32> {
    let m = distinct.len();
    let need = agreements_for(cfg.popular_same_text, cfg.minhash_perms);
    let sig = |p: u32| sigs.sig(distinct[p as usize]);
    let bands: Vec<usize> = (0..cfg.minhash_perms / SAME_TEXT_BAND_ROWS).collect();
    // Pairs are checked where they meet in a bucket: only same texts are kept.
    let (pairs, _, _) = bucket_pairs(
        threads,
        &bands,
        cfg.max_bucket_compare,
        |band, out| {
            let first = band * SAME_TEXT_BAND_ROWS;
            sigs.rows(distinct, first, SAME_TEXT_BAND_ROWS, |p, rows, _| {
                if let Some(rows) = rows {
                    out.push(keyed(fold32(band_key_of_rows(rows, band)), p as u32));
                }
            });
        },
        |a, b| agreements(&sig(a), &sig(b)) >= need,
    );
    // Groups are the connected components of the same-text pairs, whatever the union order.
    let mut uf = UnionFind::new(m);
    for (a, b) in pairs.into_sorted() {
        let (ra, rb) = (uf.find(a), uf.find(b));
        if ra != rb {
            uf.union(ra, rb);
        }
    }
    (0..m as u32).map(|p| uf.find(p)).collect()
}
