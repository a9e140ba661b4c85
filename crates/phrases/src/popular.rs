//! Popular phrases: shingles sampled in more than one equivalence class.
//!
//! Popularity is counted once per class (the classes are `dedup`'s clusters, every unclustered
//! page its own class), so a page copied a hundred times makes none of its phrases popular.
//!
//! **Chance model.** Shingles are 64-bit hashes of 64-bit Rabin fingerprints of phrases, so two
//! classes sample the same shingle by chance only when two different phrases collide: with D
//! distinct shingles that is expected D(D-1)/2 / 2^64 times (about 10^-6 for ten million). A
//! shingle in two classes is therefore shared text, not chance; the threshold is two classes,
//! and [`ChanceModel`] reports the expected number of chance collisions at it.
//!
//! **Template or borrowed.** A popular phrase is either site furniture (navigation, legal text,
//! a template's stock sentences: it repeats within one host, on many pages of one template) or
//! borrowed text (a sentence found on pages of unrelated sites). A phrase is a *template* phrase
//! when its classes repeat hosts (at most half as many distinct hosts as classes) or when it is in
//! more than [`PHRASE_MAX_CLASSES`](crawlsift_common::limits::PHRASE_MAX_CLASSES) classes; for
//! one page, a phrase is also template when another class *on the page's own host* holds it (a
//! site's sibling pages sharing a skeleton). Everything else is borrowed.
//!
//! The table is built in 16 parts by the shingles' top bits, each part sorted on its own (memory:
//! one part's (shingle, page) pairs at a time per thread) and concatenated in part order,
//! so it is sorted by shingle and the same for any thread count.

use crawlsift_common::parallel::in_parallel;
use serde::Serialize;

/// Parts the table is built in (by the shingles' top 4 bits).
const PARTS: u64 = 16;

/// One page of the corpus as popularity sees it.
#[derive(Debug, Clone, Copy)]
pub struct PageInput<'a> {
    /// Its shingles, ascending.
    pub shingles: &'a [u64],
    /// Its equivalence class.
    pub class: u32,
    /// Its host (an id).
    pub host: u32,
}

/// A shingle sampled in at least two classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popular {
    /// The shingle (phrase hash).
    pub shingle: u64,
    /// Classes whose pages sampled it.
    pub classes: u32,
    /// Pages that sampled it.
    pub pages: u32,
    /// Distinct hosts of those pages.
    pub hosts: u32,
    /// `(class, host, first page)` of up to `max_classes` classes, by class id.
    pub holders: Vec<(u32, u32, u32)>,
}

impl Popular {
    /// Whether it is template text wherever it is found (see the module doc).
    pub fn is_template(&self, max_classes: usize) -> bool {
        self.classes as usize > max_classes || self.hosts * 2 <= self.classes
    }
}

/// The chance model behind the popularity threshold.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChanceModel {
    /// What it says.
    pub model: String,
    /// Classes a shingle must be sampled in to be popular.
    pub threshold_classes: u32,
    /// Distinct shingles over all classes.
    pub distinct_shingles: u64,
    /// Shingles expected in two classes by chance (fingerprint collisions).
    pub expected_by_chance: f64,
}

/// The popular shingles of a corpus, sorted by shingle.
#[derive(Debug, Clone)]
pub struct PopularTable {
    /// Popular shingles, ascending.
    pub phrases: Vec<Popular>,
    /// Their shingles alone (searched without touching the entries).
    keys: Vec<u64>,
    /// `starts[b]`: the first key whose top bits are at least `b` (shingles are uniform hashes,
    /// so a bucket holds about one key and a lookup is one or two probes).
    starts: Vec<u32>,
    /// Bits of a key that pick its bucket.
    bucket_bits: u32,
    /// The chance model.
    pub chance: ChanceModel,
}

impl PopularTable {
    /// Counts every page's shingles once per class, on `threads` threads, keeping up to
    /// `max_classes` holders per popular shingle.
    pub fn build(pages: &[PageInput<'_>], max_classes: usize, threads: usize) -> Self {
        let parts: Vec<u64> = (0..PARTS).collect();
        let built = in_parallel(threads, &parts, |ps| {
            ps.iter()
                .map(|&p| part(pages, p, max_classes))
                .collect::<Vec<_>>()
        });
        let mut phrases = Vec::new();
        let mut distinct = 0u64;
        for (pop, d) in built.into_iter().flatten() {
            phrases.extend(pop);
            distinct += d;
        }
        let d = distinct as f64;
        let keys: Vec<u64> = phrases.iter().map(|p| p.shingle).collect();
        let bucket_bits = keys
            .len()
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .max(1);
        let mut starts = Vec::with_capacity((1 << bucket_bits) + 1);
        let mut i = 0usize;
        for b in 0..=(1u64 << bucket_bits) {
            while i < keys.len() && (keys[i] >> (64 - bucket_bits)) < b {
                i += 1;
            }
            starts.push(i as u32);
        }
        PopularTable {
            keys,
            starts,
            bucket_bits,
            phrases,
            chance: ChanceModel {
                model: "a shingle is popular when sampled in at least 2 equivalence classes: \
                        64-bit phrase hashes agree across classes by chance only through a \
                        collision, expected D(D-1)/2 / 2^64 times for D distinct shingles"
                    .into(),
                threshold_classes: 2,
                distinct_shingles: distinct,
                expected_by_chance: d * (d - 1.0).max(0.0) / 2.0 / 2f64.powi(64),
            },
        }
    }

    /// The popular entry of `shingle`, if it is popular.
    pub fn get(&self, shingle: u64) -> Option<&Popular> {
        self.index(shingle).map(|i| &self.phrases[i])
    }

    /// The index of `shingle` among the popular ones.
    fn index(&self, shingle: u64) -> Option<usize> {
        let b = (shingle >> (64 - self.bucket_bits)) as usize;
        let (lo, hi) = (
            *self.starts.get(b)? as usize,
            *self.starts.get(b + 1)? as usize,
        );
        self.keys[lo..hi]
            .iter()
            .position(|&k| k == shingle)
            .map(|i| lo + i)
    }

    /// The entries of the popular ones among `shingles` (ascending): indices into
    /// [`phrases`](Self::phrases), ascending.
    pub fn hits(&self, shingles: &[u64]) -> Vec<u32> {
        shingles
            .iter()
            .filter_map(|&s| self.index(s).map(|i| i as u32))
            .collect()
    }
}

/// One part of the table: its popular shingles (ascending) and its distinct shingle count.
fn part(pages: &[PageInput<'_>], p: u64, max_classes: usize) -> (Vec<Popular>, u64) {
    let lo = p << 60;
    let hi = if p + 1 == PARTS {
        u64::MAX
    } else {
        ((p + 1) << 60) - 1
    };
    // (shingle, page) pairs, sorted by shingle alone: most shingles are in one page, so only
    // runs of two or more look up their pages' classes and hosts.
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    for (doc, page) in pages.iter().enumerate() {
        let s = page.shingles;
        let start = s.partition_point(|&x| x < lo);
        for &x in s[start..].iter().take_while(|&&x| x <= hi) {
            pairs.push((x, doc as u32));
        }
    }
    pairs.sort_unstable_by_key(|p| p.0);
    let mut out = Vec::new();
    let mut distinct = 0u64;
    let mut run: Vec<(u64, u32, u32, u32)> = Vec::new();
    for same in pairs.chunk_by(|a, b| a.0 == b.0) {
        distinct += 1;
        if same.len() < 2 {
            continue;
        }
        run.clear();
        run.extend(same.iter().map(|&(x, d)| {
            let p = &pages[d as usize];
            (x, p.class, p.host, d)
        }));
        run.sort_unstable();
        let pages = run.len() as u32;
        // Sorted by (class, host, doc): the first triple of each class names it.
        let mut holders: Vec<(u32, u32, u32)> = Vec::new();
        let mut classes = 0u32;
        let mut last = None;
        for &(_, c, h, d) in &run {
            if last != Some(c) {
                classes += 1;
                last = Some(c);
                if holders.len() < max_classes {
                    holders.push((c, h, d));
                }
            }
        }
        if classes < 2 {
            continue;
        }
        let mut hosts: Vec<u32> = run.iter().map(|t| t.2).collect();
        hosts.sort_unstable();
        hosts.dedup();
        out.push(Popular {
            shingle: run[0].0,
            classes,
            pages,
            hosts: hosts.len() as u32,
            holders,
        });
    }
    (out, distinct)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popularity_counts_classes_not_pages() {
        let a = [1u64, 5, u64::MAX - 3];
        let b = [5u64, u64::MAX - 3];
        let c = [5u64, 9];
        let pages = [
            PageInput {
                shingles: &a,
                class: 0,
                host: 0,
            },
            PageInput {
                shingles: &b,
                class: 0,
                host: 1,
            },
            PageInput {
                shingles: &c,
                class: 1,
                host: 2,
            },
        ];
        for threads in [1, 2, 5] {
            let t = PopularTable::build(&pages, 8, threads);
            assert_eq!(t.phrases.len(), 1, "{threads}");
            let p = t.get(5).unwrap();
            assert_eq!((p.classes, p.pages, p.hosts), (2, 3, 3));
            assert_eq!(p.holders, vec![(0, 0, 0), (1, 2, 2)]);
            assert!(t.get(u64::MAX - 3).is_none());
            assert_eq!(t.hits(&a), vec![0]);
            assert_eq!(t.hits(&[0, 5, 6]), vec![0]);
            assert!(t.hits(&[6, 7]).is_empty());
            assert_eq!(t.chance.distinct_shingles, 4);
        }
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lookups_find_exactly_the_popular_shingles(
            raw in proptest::collection::vec(proptest::collection::vec((0u64..64).prop_map(|x| x * (u64::MAX / 64)), 0..20), 1..12)
        ) {
            let sketches: Vec<Vec<u64>> = raw.into_iter().map(|mut v| { v.sort_unstable(); v.dedup(); v }).collect();
            let pages: Vec<PageInput> = sketches.iter().enumerate()
                .map(|(i, s)| PageInput { shingles: s, class: i as u32, host: i as u32 }).collect();
            let t = PopularTable::build(&pages, 8, 2);
            for s in sketches.iter().flatten() {
                let holders = sketches.iter().filter(|k| k.contains(s)).count();
                prop_assert_eq!(t.get(*s).is_some(), holders >= 2);
            }
            prop_assert!(t.get(1).is_none());
        }
    }

    #[test]
    fn phrases_repeating_hosts_are_template() {
        let p = |classes, hosts| Popular {
            shingle: 0,
            classes,
            pages: classes,
            hosts,
            holders: vec![],
        };
        assert!(p(2, 1).is_template(64));
        assert!(p(40, 3).is_template(64));
        assert!(!p(3, 3).is_template(64));
        assert!(!p(3, 2).is_template(64));
        assert!(p(100, 100).is_template(64));
    }
}
