//! Stories: groups of documents that tell the same story, in the same or other words, found by
//! the kernel similarity ([`crate::kernel`]) without comparing all pairs.
//!
//! 1. **Sketches**: each document's rare kernels (held by at least two documents and at most
//!    [`StoryConfig::rare_share`] of them, [`StoryConfig::min_rare_docs`] at least) are
//!    MinHashed by one-permutation hashing into `bands × rows` bins; each band whose bins are
//!    all filled is a bucket key. The kernel similarity is dominated by rare kernels, so
//!    documents that score high share many of them, and a band of theirs is equal.
//! 2. **Candidates**: documents sharing a bucket, pages of one site excepted (their shared
//!    template is no story); a bucket of more than [`StoryConfig::max_bucket`] documents is a
//!    common combination and pairs nobody, so the pairs stay linear in the documents.
//! 3. **Verification**: each candidate pair's kernel similarity, kept at
//!    [`StoryConfig::min_similarity`] or more.
//! 4. **Groups, without chains**: documents in order; one joins the group of the earlier group
//!    founder it is most similar to (the earliest on a tie), or founds a group. Every member is
//!    at least `min_similarity` from its group's first document, as in `clusters.jsonl`.
//!
//! Everything comes out in document order, the same for any thread count. Memory: the table
//! (12 MiB) and its weights (8 MiB); while buckets are formed, 16 bytes a band key and 8 a
//! document (some 520 bytes a document at 32 bands); up to [`STORY_KERNEL_CACHE_BYTES`] of
//! kernels per thread while pairs are verified (the caller gives them back from the texts).

use std::collections::HashMap;

use crawlsift_common::limits::{
    STORY_BANDS, STORY_KERNEL_CACHE_BYTES, STORY_MAX_BUCKET, STORY_MIN_RARE_DOCS,
    STORY_MIN_SIMILARITY, STORY_RARE_SHARE, STORY_ROWS,
};
use crawlsift_common::parallel::in_parallel;

use crate::kernel::{KernelTable, Kernels};
use crate::ReuseError;

/// The parameters of story grouping; the defaults are `crawlsift_common::limits`' `STORY_*`.
#[derive(Debug, Clone, PartialEq)]
pub struct StoryConfig {
    /// Kernel similarity at or above which two documents tell the same story.
    pub min_similarity: f64,
    /// MinHash bands of a sketch.
    pub bands: usize,
    /// Rows (hashes) of a band.
    pub rows: usize,
    /// Share of the documents past which a kernel is too common to sketch.
    pub rare_share: f64,
    /// Documents a kernel may be held by and still be sketched, whatever the corpus size.
    pub min_rare_docs: u32,
    /// Most documents one bucket may pair.
    pub max_bucket: usize,
}

impl Default for StoryConfig {
    fn default() -> Self {
        StoryConfig {
            min_similarity: STORY_MIN_SIMILARITY,
            bands: STORY_BANDS,
            rows: STORY_ROWS,
            rare_share: STORY_RARE_SHARE,
            min_rare_docs: STORY_MIN_RARE_DOCS,
            max_bucket: STORY_MAX_BUCKET,
        }
    }
}

impl StoryConfig {
    /// Checks every value against its range.
    pub fn check(&self) -> Result<(), ReuseError> {
        let bad = |what: &str| Err(ReuseError::InvalidConfig(what.to_string()));
        if !(self.min_similarity > 0.0 && self.min_similarity <= 1.0) {
            return bad("story min_similarity must be in (0, 1]");
        }
        if !(1..=256).contains(&self.bands) || !(1..=16).contains(&self.rows) {
            return bad("story bands must be in 1..=256 and rows in 1..=16");
        }
        if !(0.0..=1.0).contains(&self.rare_share) || self.max_bucket < 2 {
            return bad("story rare_share must be in [0, 1] and max_bucket at least 2");
        }
        Ok(())
    }
}

/// A member of a story: its document number and its kernel similarity to the story's first
/// document (1 for the first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoryMember {
    /// Document number.
    pub doc: u32,
    /// Kernel similarity to the first member.
    pub similarity: f64,
}

/// A group of documents telling the same story, the earliest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    /// Members, the first document first, then in document order.
    pub members: Vec<StoryMember>,
}

/// What grouping found beside the stories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoryCounts {
    /// Pairs compared (candidates from the sketches).
    pub candidates: u64,
    /// Pairs at or above the similarity threshold.
    pub similar_pairs: u64,
    /// Buckets too full to pair anyone.
    pub common_buckets: u64,
}

/// A run of documents' band keys (key, document) and norms, as a thread leaves them.
type Sketched = (Vec<(u64, u32)>, Vec<f64>);

fn mix(mut h: u64) -> u64 {
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

impl StoryConfig {
    /// Most documents a kernel of `table` may be held by and still be sketched.
    fn most_docs(&self, table: &KernelTable) -> u32 {
        ((table.documents() as f64 * self.rare_share) as u32).max(self.min_rare_docs)
    }

    /// The band keys of a document's sketch (two documents sharing one are compared).
    pub fn band_keys(&self, k: &Kernels, table: &KernelTable) -> Vec<u64> {
        band_keys(k, table, self.most_docs(table), self)
    }
}

/// The band keys of a document's sketch: one per band whose bins are all filled, the band's
/// number mixed in.
fn band_keys(k: &Kernels, table: &KernelTable, most_docs: u32, cfg: &StoryConfig) -> Vec<u64> {
    let bins = cfg.bands * cfg.rows;
    let mut min = vec![u64::MAX; bins];
    for &(slot, _) in &k.counts {
        let df = table.documents_holding(slot);
        if df < 2 || df > most_docs {
            continue;
        }
        let h = mix(u64::from(slot) ^ 0x5851_f42d_4c95_7f2d);
        let bin = (h % bins as u64) as usize;
        min[bin] = min[bin].min(h);
    }
    let mut keys = Vec::new();
    for (band, rows) in min.chunks(cfg.rows).enumerate() {
        if rows.contains(&u64::MAX) {
            continue;
        }
        let mut key = mix(band as u64 + 1);
        for &r in rows {
            key = mix(key ^ r);
        }
        keys.push(key);
    }
    keys
}

/// Groups `n` documents into stories. `kernels(d)` gives document `d`'s kernels (counted in
/// `table` already), `sites[d]` its site when known; its first error stops the grouping.
pub fn group_stories<E: Send>(
    table: &KernelTable,
    sites: &[Option<u32>],
    threads: usize,
    cfg: &StoryConfig,
    kernels: impl Fn(u32) -> Result<Kernels, E> + Sync,
) -> Result<(Vec<Story>, StoryCounts), E> {
    let mut counts = StoryCounts::default();
    let most_docs = cfg.most_docs(table);
    let docs: Vec<u32> = (0..sites.len() as u32).collect();
    let weights = table.weights();
    // 1. band keys and norm of every document
    let parts = in_parallel(threads, &docs, |chunk| -> Result<Sketched, E> {
        let (mut keys, mut norms) = (Vec::new(), Vec::with_capacity(chunk.len()));
        for &d in chunk {
            let k = kernels(d)?;
            keys.extend(
                band_keys(&k, table, most_docs, cfg)
                    .into_iter()
                    .map(|b| (b, d)),
            );
            norms.push(weights.norm(&k));
        }
        Ok((keys, norms))
    });
    let mut entries: Vec<(u64, u32)> = Vec::new();
    let mut norms: Vec<f64> = Vec::with_capacity(docs.len());
    for p in parts {
        let (k, n) = p?;
        entries.extend(k);
        norms.extend(n);
    }
    entries.sort_unstable();
    // 2. candidate pairs
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for bucket in entries.chunk_by(|x, y| x.0 == y.0) {
        if bucket.len() < 2 {
            continue;
        }
        if bucket.len() > cfg.max_bucket {
            counts.common_buckets += 1;
            continue;
        }
        for (i, x) in bucket.iter().enumerate() {
            for y in &bucket[i + 1..] {
                let same_site = matches!((sites[x.1 as usize], sites[y.1 as usize]),
                    (Some(s), Some(t)) if s == t);
                if !same_site {
                    pairs.push((x.1.min(y.1), x.1.max(y.1)));
                }
            }
        }
    }
    drop(entries);
    pairs.sort_unstable();
    pairs.dedup();
    counts.candidates = pairs.len() as u64;
    // 3. verification; each thread keeps the kernels it made, up to STORY_KERNEL_CACHE_BYTES
    let parts = in_parallel(
        threads,
        &pairs,
        |chunk| -> Result<Vec<(u32, u32, f64)>, E> {
            let mut out = Vec::new();
            let mut cache: HashMap<u32, std::rc::Rc<Kernels>> = HashMap::new();
            let mut held = 0usize;
            let mut kernels_of = |d: u32| -> Result<std::rc::Rc<Kernels>, E> {
                if let Some(k) = cache.get(&d) {
                    return Ok(k.clone());
                }
                let k = std::rc::Rc::new(kernels(d)?);
                let bytes = k.counts.len() * 8 + 64;
                if held + bytes > STORY_KERNEL_CACHE_BYTES {
                    cache.clear();
                    held = 0;
                }
                held += bytes;
                cache.insert(d, k.clone());
                Ok(k)
            };
            for &(a, b) in chunk {
                let (ka, kb) = (kernels_of(a)?, kernels_of(b)?);
                // The norms of step 1, with the same weights: the same bits as
                // `table.similarity`, without each pair's two passes over all its kernels.
                let (na, nb) = (norms[a as usize], norms[b as usize]);
                let s = weights.similarity_normed((&ka, na), (&kb, nb));
                if s >= cfg.min_similarity {
                    out.push((a, b, s));
                }
            }
            Ok(out)
        },
    );
    let mut similar: Vec<(u32, u32, f64)> = Vec::new();
    for p in parts {
        similar.extend(p?);
    }
    counts.similar_pairs = similar.len() as u64;
    // 4. groups: by the later document, each joins its most similar earlier founder
    similar.sort_unstable_by_key(|x| (x.1, x.0));
    let mut group_of: HashMap<u32, usize> = HashMap::new();
    let mut stories: Vec<Story> = Vec::new();
    let mut founders: Vec<u32> = Vec::new();
    for later in similar.chunk_by(|x, y| x.1 == y.1) {
        let b = later[0].1;
        // An earlier document in no group yet had no earlier document like it: it founds one.
        for &(a, _, _) in later {
            group_of.entry(a).or_insert_with(|| {
                stories.push(Story {
                    members: vec![StoryMember {
                        doc: a,
                        similarity: 1.0,
                    }],
                });
                founders.push(a);
                stories.len() - 1
            });
        }
        let mut best: Option<(u32, f64)> = None;
        for &(a, _, s) in later {
            let founder = founders[group_of[&a]] == a;
            if founder && best.is_none_or(|(_, bs)| s > bs) {
                best = Some((a, s));
            }
        }
        if let Some((a, s)) = best {
            let g = group_of[&a];
            stories[g].members.push(StoryMember {
                doc: b,
                similarity: s,
            });
            group_of.insert(b, g);
        }
    }
    let mut stories: Vec<Story> = stories
        .into_iter()
        .filter(|s| s.members.len() > 1)
        .collect();
    stories.sort_by_key(|s| s.members[0].doc);
    Ok((stories, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(texts: &[&str], sites: &[Option<u32>], cfg: &StoryConfig) -> Vec<Vec<u32>> {
        let table = KernelTable::of_texts(texts.iter().copied(), usize::MAX);
        let mut out = Vec::new();
        for threads in [1, 3] {
            let (stories, _) = group_stories(&table, sites, threads, cfg, |d| {
                Ok::<_, ()>(Kernels::of(texts[d as usize], usize::MAX))
            })
            .unwrap();
            let groups: Vec<Vec<u32>> = stories
                .iter()
                .map(|s| s.members.iter().map(|m| m.doc).collect())
                .collect();
            out.push(groups);
        }
        assert_eq!(out[0], out[1], "the same groups for any thread count");
        out.pop().unwrap()
    }

    fn filler(i: usize) -> String {
        // Unrelated documents with words of their own, so that kernels are rare or common as in
        // a corpus.
        let mut x = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (0..40)
            .map(|_| {
                x = mix(x);
                (0..4 + x % 5)
                    .map(|k| (b'a' + ((x >> (8 * k)) % 26) as u8) as char)
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn retellings_group_with_their_first_telling_and_unrelated_pages_do_not() {
        let story = "Firefighters in Zacatecas contained the Sierra Fria wildfire on Sunday after \
                     it burned 4,300 hectares of pine forest, officials of Conafor said.";
        let retold = "Conafor officials said Sunday that Zacatecas firefighters had contained the \
                      Sierra Fria blaze, which burned 4,300 hectares of pine.";
        let mut texts: Vec<String> = (0..30).map(filler).collect();
        texts.insert(3, story.to_string());
        texts.insert(20, retold.to_string());
        let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
        let sites = vec![None; refs.len()];
        let cfg = StoryConfig {
            bands: 64,
            rows: 1,
            ..StoryConfig::default()
        };
        assert_eq!(run(&refs, &sites, &cfg), vec![vec![3, 20]]);
        // Pages of one site are no story: their likeness is the site's.
        let mut sites = sites;
        sites[3] = Some(1);
        sites[20] = Some(1);
        assert!(run(&refs, &sites, &cfg).is_empty());
    }

    #[test]
    fn no_chains_each_member_is_like_the_first() {
        // b is like a, c like b but not like a: c founds nothing with a's group.
        let a = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima";
        let b = "golf hotel india juliet kilo lima mike november oscar papa quebec romeo";
        let c = "mike november oscar papa quebec romeo sierra tango uniform victor whiskey";
        let texts = [a, b, c];
        let cfg = StoryConfig {
            bands: 64,
            rows: 1,
            min_similarity: 0.2,
            min_rare_docs: 3,
            ..StoryConfig::default()
        };
        let table = KernelTable::of_texts(texts, usize::MAX);
        let k: Vec<Kernels> = texts.iter().map(|t| Kernels::of(t, usize::MAX)).collect();
        assert!(table.similarity(&k[0], &k[1]) >= 0.2);
        assert!(table.similarity(&k[1], &k[2]) >= 0.2);
        assert!(table.similarity(&k[0], &k[2]) < 0.2);
        let groups = run(&texts, &[None; 3], &cfg);
        assert_eq!(groups, vec![vec![0, 1]]);
    }
}
