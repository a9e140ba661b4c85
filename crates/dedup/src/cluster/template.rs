//! Site templates: lines that pages of one site share with *different* pages of that site
//! (headers, footers, navigation, the skeleton of sibling pages) are no evidence that two of them
//! copy each other, so they are left out when their words are compared.
//!
//! Pages are first grouped into *classes*: exact copies, and candidate pairs sharing at least
//! `same_class` of all their words. A line found on pages of at least `template_classes` classes
//! of one site is template text. Counting classes, not pages, keeps a family of copies (whose
//! shared paragraphs are the copied text) from being taken for a template, while the shared
//! skeleton of sibling pages, each with text of its own, is found.

use std::collections::HashSet;

use crawlsift_common::limits::DEDUP_TEMPLATE_MAX_PASSES;
use crawlsift_common::parallel::in_parallel;

use super::profiles::Docs;
use super::union_find::UnionFind;
use crate::error::SpillError;
use crate::fingerprint::DedupConfig;
use crate::profile::{word_share, WordProfile};

/// The sorted word bags of the documents of some candidate pairs, made on the threads. Each
/// thread lays its documents' bags end to end in one list, so a run's bags take their words'
/// bytes and 8 more a document, and the short-lived vectors each bag is made in (and the
/// profiles read back for it) leave no holes between bags that the allocator cannot give back.
pub(super) struct PairBags {
    docs: Vec<u32>,
    /// Per thread: the index (in `docs`) of its first document, its bags' words end to end, and
    /// where each of its bags ends.
    parts: Vec<BagPart>,
}

struct BagPart {
    first: usize,
    words: Vec<u32>,
    ends: Vec<usize>,
}

impl PairBags {
    /// The bags `make` appends to a list for every document of `pairs`, each of at most
    /// `words(d)` words (each thread's list is made that size at once, not grown by doubling to
    /// up to twice what it holds). The first error of `make` (a profile that cannot be read
    /// back) is returned.
    pub(super) fn new(
        pairs: &[(u32, u32)],
        threads: usize,
        words: impl Fn(u32) -> usize + Sync,
        make: impl Fn(u32, &mut Vec<u32>) -> Result<(), SpillError> + Sync,
    ) -> Result<Self, SpillError> {
        let mut docs: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        docs.sort_unstable();
        docs.dedup();
        let made = in_parallel(threads, &docs, |chunk| {
            let mut words = Vec::with_capacity(chunk.iter().map(|&d| words(d)).sum());
            let ends = chunk
                .iter()
                .map(|&d| {
                    make(d, &mut words)?;
                    Ok(words.len())
                })
                .collect::<Result<Vec<usize>, SpillError>>()?;
            Ok((chunk.len(), words, ends))
        });
        let mut first = 0;
        let parts = made
            .into_iter()
            .map(|made| {
                let (len, words, ends) = made?;
                let part = BagPart { first, words, ends };
                first += len;
                Ok(part)
            })
            .collect::<Result<_, SpillError>>()?;
        Ok(Self { docs, parts })
    }

    /// The bag of document `d` (one of the pairs' documents).
    pub(super) fn get(&self, d: u32) -> &[u32] {
        let Ok(i) = self.docs.binary_search(&d) else {
            return &[];
        };
        let p = self.parts.partition_point(|p| p.first <= i);
        let Some(part) = p.checked_sub(1).and_then(|p| self.parts.get(p)) else {
            return &[];
        };
        let local = i - part.first;
        let start = local
            .checked_sub(1)
            .and_then(|l| part.ends.get(l))
            .copied()
            .unwrap_or(0);
        let end = part.ends.get(local).copied().unwrap_or(start);
        part.words.get(start..end).unwrap_or(&[])
    }
}

/// `judge` of every pair `(a, b)` on the word bags `make` appends for `a` and `b`, in pair order.
/// Bags are made for the documents of a run of consecutive pairs at a time, the run cut where its
/// bags would pass `budget` bytes (a bag holds at most `words(d)` words; a document in several
/// runs has its bag made again), so memory stays within the budget whatever the pairs; the result
/// does not depend on where the runs are cut. The first error of `make` is returned.
pub(super) fn judge_pairs<R: Send>(
    pairs: &[(u32, u32)],
    threads: usize,
    budget: usize,
    words: impl Fn(u32) -> usize + Sync,
    make: impl Fn(u32, &mut Vec<u32>) -> Result<(), SpillError> + Sync,
    judge: impl Fn(&[u32], &[u32]) -> R + Sync,
) -> Result<Vec<R>, SpillError> {
    let mut out = Vec::with_capacity(pairs.len());
    let mut seen: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for end in 0..=pairs.len() {
        let cut = match pairs.get(end) {
            None => true,
            Some(&(a, b)) => {
                let more: usize = [a, b]
                    .iter()
                    .filter(|d| !seen.contains(d))
                    .map(|&d| bag_bytes(words(d)))
                    .sum();
                let cut = end > start && bytes + more > budget;
                if cut {
                    seen.clear();
                    bytes = 0;
                }
                seen.extend([a, b]);
                bytes += if cut {
                    bag_bytes(words(a)) + bag_bytes(words(b))
                } else {
                    more
                };
                cut
            }
        };
        if !cut || end == start {
            continue;
        }
        let run = &pairs[start..end];
        let bags = PairBags::new(run, threads, &words, &make)?;
        out.extend(
            in_parallel(threads, run, |chunk| {
                chunk
                    .iter()
                    .map(|&(a, b)| judge(bags.get(a), bags.get(b)))
                    .collect::<Vec<_>>()
            })
            .into_iter()
            .flatten(),
        );
        start = end;
    }
    Ok(out)
}

/// Bytes of the word bag of a profile of `words` words in [`PairBags`] (4 a word, and some 24
/// for its end, its place in the run's list of documents and in the set of documents seen).
fn bag_bytes(words: usize) -> usize {
    4 * words + 24
}

/// The template lines learnt from a corpus.
pub(super) struct SiteTemplates {
    /// Hashes of the lines that are template text on some site.
    pub(super) lines: HashSet<u64>,
    /// Candidate pairs found to be of one class.
    pub(super) same_class_pairs: u64,
}

impl SiteTemplates {
    /// Learns the template lines of every site from the documents (`sites[d]` is document `d`'s
    /// site, `head_of[d]` the head of its exact group) and the candidate pairs.
    pub(super) fn learn(
        cfg: &DedupConfig,
        docs: Docs<'_>,
        sites: &[u32],
        head_of: &[u32],
        pairs: &[(u32, u32)],
        threads: usize,
        budget: usize,
    ) -> Result<Self, SpillError> {
        let n = docs.len();
        let same: Vec<bool> = judge_pairs(
            pairs,
            threads,
            budget,
            |d| docs.profile_words(d),
            |d, out| {
                docs.profile(d)?.bag_into(|_| true, out);
                Ok(())
            },
            |a, b| word_share(a, b) >= cfg.same_class,
        )?;
        let mut uf = UnionFind::new(n);
        let mut join = |a: u32, b: u32| {
            let (ra, rb) = (uf.find(a), uf.find(b));
            if ra != rb {
                uf.union(ra, rb);
            }
        };
        for (d, &h) in head_of.iter().enumerate() {
            join(d as u32, h);
        }
        let mut same_class_pairs = 0;
        for (&(a, b), &s) in pairs.iter().zip(&same) {
            if s {
                join(a, b);
                same_class_pairs += 1;
            }
        }
        // (site, line, class) once each; a line is template where it has enough classes. Within
        // the budget in passes, each over the lines whose hash falls in its part: a line's
        // verdict depends on its own triples only.
        let classes: Vec<u32> = (0..n as u32).map(|d| uf.find(d)).collect();
        let triples: usize = (0..n as u32).map(|d| docs.profile_lines(d)).sum();
        let bytes = triples.saturating_mul(std::mem::size_of::<(u32, u64, u32)>());
        let passes = bytes
            .div_ceil(budget.max(1))
            .clamp(1, DEDUP_TEMPLATE_MAX_PASSES) as u64;
        let mut lines = HashSet::new();
        for pass in 0..passes {
            let mut seen: Vec<(u32, u64, u32)> = Vec::new();
            for d in 0..n as u32 {
                let site = sites.get(d as usize).copied().unwrap_or(0);
                let class = classes[d as usize];
                let p = docs.profile(d)?;
                seen.extend(
                    p.lines
                        .iter()
                        .filter(|l| l.hash % passes == pass)
                        .map(|l| (site, l.hash, class)),
                );
            }
            seen.sort_unstable();
            seen.dedup();
            lines.extend(
                seen.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1)
                    .filter(|run| run.len() >= cfg.template_classes)
                    .map(|run| run[0].1),
            );
        }
        Ok(Self {
            lines,
            same_class_pairs,
        })
    }

    /// True when a line (its hash) is template text.
    pub(super) fn is_template(&self, line: u64) -> bool {
        self.lines.contains(&line)
    }

    /// The share of every document's profiled words that are in template lines, in document
    /// order.
    pub(super) fn shares(&self, docs: Docs<'_>, threads: usize) -> Result<Vec<f32>, SpillError> {
        let all: Vec<u32> = (0..docs.len() as u32).collect();
        let parts = in_parallel(threads, &all, |chunk| {
            chunk
                .iter()
                .map(|&d| Ok(self.share(&*docs.profile(d)?)))
                .collect::<Result<Vec<f32>, SpillError>>()
        });
        let mut out = Vec::with_capacity(all.len());
        for part in parts {
            out.extend(part?);
        }
        Ok(out)
    }

    /// The share of a profile's words that are in template lines.
    pub(super) fn share(&self, p: &WordProfile) -> f32 {
        if p.words.is_empty() {
            return 0.0;
        }
        let mut start = 0u32;
        let mut template = 0u64;
        for l in p.lines.iter() {
            if self.is_template(l.hash) {
                template += u64::from(l.end.saturating_sub(start));
            }
            start = l.end.max(start);
        }
        (template as f64 / p.words.len() as f64) as f32
    }

    /// A document's words outside template lines, sorted, appended to `out`.
    pub(super) fn own_bag_into(&self, p: &WordProfile, out: &mut Vec<u32>) {
        p.bag_into(|h| !self.is_template(h), out);
    }
}
