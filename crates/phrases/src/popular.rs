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
//! The table is built in 16 parts by the shingles' top 4 bits, each part on its own (memory: one
//! part's (shingle, page) pairs at a time per thread) and concatenated in part order, so it is
//! sorted by shingle and the same for any thread count. A part is sorted by a radix pass on the
//! next bits (shingles are uniform hashes, so a bucket holds one or two) rather than a comparison
//! sort, and the pages of each popular shingle are noted as they are found, so every page's popular
//! shingles ([`PopularTable::page_hits`]) come without looking anything up.

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

/// The popular shingles of a corpus, sorted by shingle, and each page's popular shingles.
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
    /// `hits[hit_starts[d]..hit_starts[d + 1]]`: the entries of page d's popular shingles.
    hit_starts: Vec<usize>,
    /// Every page's entries, page after page, each page's ascending.
    hits: Vec<u32>,
    /// The chance model.
    pub chance: ChanceModel,
}

/// What one part of the table gives: its popular shingles (ascending), its distinct shingle
/// count, and `(page, entry in the part)` for every page of every popular shingle.
struct Part {
    phrases: Vec<Popular>,
    distinct: u64,
    hits: Vec<(u32, u32)>,
}

impl PopularTable {
    /// Counts every page's shingles once per class, on `threads` threads, keeping up to
    /// `max_classes` holders per popular shingle.
    pub fn build(pages: &[PageInput<'_>], max_classes: usize, threads: usize) -> Self {
        let parts: Vec<u64> = (0..PARTS).collect();
        let built = in_parallel(threads, &parts, |ps| {
            // Where each page's shingles of the chunk's first part begin.
            let lo = ps.first().map_or(0, |&p| p << 60);
            let mut cursors: Vec<usize> = pages
                .iter()
                .map(|page| page.shingles.partition_point(|&x| x < lo))
                .collect();
            ps.iter()
                .map(|&p| part(pages, &mut cursors, p, max_classes))
                .collect::<Vec<_>>()
        });
        let mut phrases = Vec::new();
        let mut distinct = 0u64;
        // Pages' hits, bucketed by page (a counting sort, stable: each page's entries stay in
        // part order, then shingle order, so ascending).
        let mut hit_starts = vec![0usize; pages.len() + 1];
        let built: Vec<Part> = built.into_iter().flatten().collect();
        for part in &built {
            for &(d, _) in &part.hits {
                hit_starts[d as usize + 1] += 1;
            }
        }
        for d in 0..pages.len() {
            hit_starts[d + 1] += hit_starts[d];
        }
        let mut next = hit_starts.clone();
        let mut hits = vec![0u32; hit_starts[pages.len()]];
        for part in built {
            let base = phrases.len() as u32;
            for (d, i) in part.hits {
                let slot = &mut next[d as usize];
                hits[*slot] = base + i;
                *slot += 1;
            }
            phrases.extend(part.phrases);
            distinct += part.distinct;
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
            hit_starts,
            hits,
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

    /// The entries of the popular shingles of page `page` of the pages the table was built from
    /// (what [`hits`](Self::hits) gives for its shingles); empty for a page it does not know.
    pub fn page_hits(&self, page: usize) -> &[u32] {
        match (self.hit_starts.get(page), self.hit_starts.get(page + 1)) {
            (Some(&a), Some(&b)) => &self.hits[a..b],
            _ => &[],
        }
    }
}

/// Bits of the first radix pass over a part's pairs: few enough buckets that each one's next
/// slot stays in cache while pairs are scattered.
const FIRST_BITS: u32 = 8;

/// One part of the table: the shingles whose top 4 bits are `p`. `cursors[d]` is where page d's
/// shingles of this part begin (the end of its previous part's), moved to their end.
fn part(pages: &[PageInput<'_>], cursors: &mut [usize], p: u64, max_classes: usize) -> Part {
    let hi = if p + 1 == PARTS {
        u64::MAX
    } else {
        ((p + 1) << 60) - 1
    };
    // Each page's shingles in the part, and the pairs of each first-pass bucket.
    let first = |x: u64| ((x << 4) >> (64 - FIRST_BITS)) as usize;
    let mut counts = [0usize; (1 << FIRST_BITS) + 1];
    let ranges: Vec<(usize, usize)> = pages
        .iter()
        .zip(cursors.iter_mut())
        .map(|(page, cursor)| {
            let s = page.shingles;
            let a = (*cursor).min(s.len());
            let mut b = a;
            while b < s.len() && s[b] <= hi {
                counts[first(s[b]) + 1] += 1;
                b += 1;
            }
            *cursor = b;
            (a, b)
        })
        .collect();
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let n = counts[1 << FIRST_BITS];
    let mut next = counts;
    let mut pairs: Vec<(u64, u32)> = vec![(0, 0); n];
    for (doc, (page, &(a, b))) in pages.iter().zip(&ranges).enumerate() {
        for &x in &page.shingles[a..b] {
            let slot = &mut next[first(x)];
            pairs[*slot] = (x, doc as u32);
            *slot += 1;
        }
    }
    drop(ranges);
    let mut out = Part {
        phrases: Vec::new(),
        distinct: 0,
        hits: Vec::new(),
    };
    let mut scratch = Vec::new();
    let mut run: Vec<(u64, u32, u32, u32)> = Vec::new();
    for w in counts.windows(2) {
        let bucket = &pairs[w[0]..w[1]];
        // A second pass, in cache: about two pairs a bucket, then each sorted by shingle.
        let bits = bucket.len().max(1).ilog2().saturating_sub(1);
        let second = |x: u64| {
            if bits == 0 {
                0
            } else {
                ((x << (4 + FIRST_BITS)) >> (64 - bits)) as usize
            }
        };
        let mut starts = vec![0usize; (1 << bits) + 1];
        for &(x, _) in bucket {
            starts[second(x) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        scratch.clear();
        scratch.resize(bucket.len(), (0u64, 0u32));
        let mut next = starts.clone();
        for &(x, d) in bucket {
            let slot = &mut next[second(x)];
            scratch[*slot] = (x, d);
            *slot += 1;
        }
        for v in starts.windows(2) {
            let same_bits = &mut scratch[v[0]..v[1]];
            if same_bits.len() < 2 {
                out.distinct += same_bits.len() as u64;
                continue;
            }
            same_bits.sort_unstable_by_key(|p| p.0);
            // Most shingles are in one page, so only runs of two or more look up their pages'
            // classes and hosts.
            for same in same_bits.chunk_by(|a, b| a.0 == b.0) {
                out.distinct += 1;
                if same.len() < 2 {
                    continue;
                }
                run.clear();
                run.extend(same.iter().map(|&(x, d)| {
                    let p = &pages[d as usize];
                    (x, p.class, p.host, d)
                }));
                run.sort_unstable();
                if let Some(pop) = popular(&run, max_classes) {
                    let entry = out.phrases.len() as u32;
                    out.hits.extend(run.iter().map(|t| (t.3, entry)));
                    out.phrases.push(pop);
                }
            }
        }
    }
    out
}

/// The popular entry of one shingle from its `(shingle, class, host, page)` holders, sorted;
/// `None` when they are all of one class.
fn popular(run: &[(u64, u32, u32, u32)], max_classes: usize) -> Option<Popular> {
    // Sorted by (class, host, page): the first triple of each class names it.
    let mut holders: Vec<(u32, u32, u32)> = Vec::new();
    let mut classes = 0u32;
    let mut last = None;
    for &(_, c, h, d) in run {
        if last != Some(c) {
            classes += 1;
            last = Some(c);
            if holders.len() < max_classes {
                holders.push((c, h, d));
            }
        }
    }
    if classes < 2 {
        return None;
    }
    let mut hosts: Vec<u32> = run.iter().map(|t| t.2).collect();
    hosts.sort_unstable();
    hosts.dedup();
    Some(Popular {
        shingle: run[0].0,
        classes,
        pages: run.len() as u32,
        hosts: hosts.len() as u32,
        holders,
    })
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
            // The hits noted while building are the ones a lookup finds.
            for (i, s) in sketches.iter().enumerate() {
                let found = t.hits(s);
                prop_assert_eq!(t.page_hits(i), found.as_slice());
            }
            prop_assert!(t.page_hits(sketches.len()).is_empty());
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
