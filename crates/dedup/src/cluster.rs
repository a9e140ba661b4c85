//! Clustering of fingerprints: exact groups, popular phrases, LSH candidates, verification and
//! guarded joining.
//!
//! 1. A document with fewer than `min_words` words is *too short*: reported, never clustered.
//! 2. Documents with the same 128-bit exact hash form a group without LSH; the first of each group
//!    (its *head*) stands for it below.
//! 3. Popular phrases: a pair of MinHash rows whose values are shared by more than `popular_docs`
//!    *groups of same texts* (short ones included) marks those rows, in those texts, as template
//!    text (cookie notices, newsletter boxes, "no results" messages): shingles that many unrelated
//!    pages carry are no evidence that two of them are copies (Fetterly, Manasse and Najork's
//!    popular phrases, found here from the signatures alone: see `Popularity`). A group joins
//!    distinct texts whose estimated Jaccard on all rows reaches `popular_same_text` (a few words
//!    apart): template text co-occurs with *different* text (each stub page has words of its own,
//!    so stubs stay one group each), while a syndicated story copied to many sites, each copy
//!    lightly edited or re-templated, co-occurs with the *same* text and is counted a few times,
//!    not once per copy, so its phrases stay evidence.
//! 4. A head whose words outside popular phrases number fewer than `min_words` is *boilerplate*:
//!    its own text is too little to judge, so neither it nor its exact copies are clustered.
//! 5. Candidates: heads sharing a MinHash LSH band key (b bands of r b-bit rows, bands holding a
//!    popular row left out) or a SimHash block (pigeonhole blocks, every pair within
//!    `simhash_max_hamming` bits). Inside one bucket a head is compared with at most
//!    `max_bucket_compare` earlier heads, which bounds the work on hostile input.
//! 6. Verification on the rows popular in neither document (at least `min_evidence_rows` of
//!    them): a candidate pair is an edge when the Jaccard estimate from those rows reaches
//!    `min_jaccard`, or its SimHashes are within `simhash_max_hamming` bits.
//! 7. Joining: edges are taken strongest first (ties by document index) into a union-find; two
//!    clusters are joined only when their representatives are themselves similar (estimated
//!    Jaccard at least half of `min_jaccard`), so a chain A ~ B ~ C of borderline pairs cannot pull
//!    unrelated documents into one cluster.
//!
//! Everything depends only on the fingerprints and their order: the result is the same whatever
//! thread computed each fingerprint. A cluster's representative is its lowest document index;
//! clusters are sorted by representative, members by document index.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crawlsift_common::parallel::in_parallel;
use serde::{Deserialize, Serialize};

use crate::error::DedupError;
use crate::fingerprint::{DedupConfig, Fingerprint};
use crate::minhash::{agreements, agreements_for, band_key, estimate_jaccard, word, zero_bytes};
use crate::simhash::{block_keys, hamming};

/// How a member joined its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchKind {
    /// The representative itself.
    Representative,
    /// Same normalized text as a document of the cluster.
    Exact,
    /// Near-duplicate (verified signature similarity).
    Near,
}

/// One document of a cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Document index (order of [`Clusterer::add`]).
    pub doc: u32,
    /// Estimated Jaccard similarity with the representative (1 for exact copies).
    pub similarity: f32,
    /// How it joined.
    pub kind: MatchKind,
}

/// A cluster of two or more documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Lowest document index of the cluster.
    pub representative: u32,
    /// All members, the representative first, sorted by document index.
    pub members: Vec<Member>,
}

/// Counters of one clustering, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterStats {
    /// Documents added.
    pub documents: u64,
    /// Documents too short to judge.
    pub too_short: u64,
    /// Documents whose normalized text repeats an earlier one's.
    pub exact_duplicates: u64,
    /// Documents joined as near-duplicates.
    pub near_duplicates: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Candidate pair checks from MinHash bands (a pair sharing several bands counts each time).
    pub minhash_candidate_checks: u64,
    /// Candidate pair checks from SimHash blocks.
    pub simhash_candidate_checks: u64,
    /// Distinct pairs that passed verification.
    pub verified_pairs: u64,
    /// Verified pairs not joined because the clusters' representatives were not similar.
    pub chain_guard_refusals: u64,
    /// Bucket comparisons skipped by the per-bucket window.
    pub bucket_comparisons_skipped: u64,
    /// Distinct texts whose Adler-32 equals that of another distinct text.
    pub adler32_collisions: u64,
    /// Documents not clustered because their text is mostly template phrases.
    pub boilerplate: u64,
    /// Distinct texts above which an LSH band key counts as a template phrase.
    pub popular_limit: u64,
    /// Row-pair values found popular (template phrases), over all row pairs.
    pub popular_row_pairs: u64,
    /// Groups of same texts (distinct texts nearly identical) in which popularity is counted.
    pub popular_groups: u64,
}

/// The result of [`Clusterer::finish`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clustering {
    /// Clusters of two or more documents, sorted by representative.
    pub clusters: Vec<Cluster>,
    /// Documents too short to judge, sorted.
    pub too_short: Vec<u32>,
    /// Documents long enough but made mostly of template phrases (text that many other documents
    /// share), sorted: like too short pages they are not clustered, as their own text is too
    /// little to judge.
    pub boilerplate: Vec<u32>,
    /// Counters.
    pub stats: ClusterStats,
}

impl Clustering {
    /// Cluster index (into `clusters`) of every document, `None` for a document in no cluster.
    pub fn assignments(&self, documents: usize) -> Vec<Option<u32>> {
        let mut out = vec![None; documents];
        for (ci, c) in self.clusters.iter().enumerate() {
            for m in &c.members {
                if let Some(slot) = out.get_mut(m.doc as usize) {
                    *slot = Some(ci as u32);
                }
            }
        }
        out
    }
}

/// Collects fingerprints (in document order) and clusters them.
#[derive(Debug, Clone)]
pub struct Clusterer {
    cfg: DedupConfig,
    fps: Vec<Fingerprint>,
}

/// A verified pair: documents `a < b` and their signature agreement count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    strength: u32,
    a: u32,
    b: u32,
}

impl Clusterer {
    /// A clusterer for `cfg`.
    pub fn new(cfg: &DedupConfig) -> Result<Self, DedupError> {
        cfg.validate()?;
        Ok(Self {
            cfg: cfg.clone(),
            fps: Vec::new(),
        })
    }

    /// Adds the next document's fingerprint and returns its index.
    pub fn add(&mut self, fp: Fingerprint) -> u32 {
        self.fps.push(fp);
        (self.fps.len() - 1) as u32
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.fps.len()
    }

    /// True before the first [`add`](Self::add).
    pub fn is_empty(&self) -> bool {
        self.fps.is_empty()
    }

    /// Memory held per document: fingerprints and their signatures (bytes, mean).
    pub fn index_bytes_per_document(&self) -> f64 {
        if self.fps.is_empty() {
            return 0.0;
        }
        let total: usize = self.fps.iter().map(Fingerprint::memory_bytes).sum();
        total as f64 / self.fps.len() as f64
    }

    fn has_signature(&self, fp: &Fingerprint) -> bool {
        fp.words > 0 && fp.minhash.len() == self.cfg.minhash_perms
    }

    fn judged(&self, fp: &Fingerprint) -> bool {
        fp.words as usize >= self.cfg.min_words && self.has_signature(fp)
    }

    /// Clusters everything added, on one thread.
    pub fn finish(self) -> Clustering {
        self.finish_on(1)
    }

    /// Clusters everything added, sharing the candidate search and verification among `threads`
    /// threads. The result does not depend on `threads`.
    pub fn finish_on(self, threads: usize) -> Clustering {
        let threads = threads.max(1);
        let cfg = &self.cfg;
        let fps = &self.fps;
        let n = fps.len();
        let mut stats = ClusterStats {
            documents: n as u64,
            ..ClusterStats::default()
        };

        // 1-2: too short; exact groups over every text with a signature (short ones included: they
        // count towards phrase popularity); the first of each group is its head.
        let mut too_short = Vec::new();
        let mut exact_head: HashMap<u128, u32> = HashMap::new();
        let mut head_of: Vec<u32> = (0..n as u32).collect();
        let mut distinct: Vec<u32> = Vec::new();
        for (i, fp) in fps.iter().enumerate() {
            let i = i as u32;
            let judged = self.judged(fp);
            if !judged {
                too_short.push(i);
            }
            if !self.has_signature(fp) {
                continue;
            }
            match exact_head.entry(fp.exact) {
                Entry::Occupied(e) => {
                    head_of[i as usize] = *e.get();
                    stats.exact_duplicates += u64::from(judged);
                }
                Entry::Vacant(v) => {
                    v.insert(i);
                    distinct.push(i);
                }
            }
        }
        drop(exact_head);
        stats.too_short = too_short.len() as u64;
        let mut adlers: Vec<u32> = distinct.iter().map(|&h| fps[h as usize].adler32).collect();
        adlers.sort_unstable();
        stats.adler32_collisions = adlers
            .chunk_by(|a, b| a == b)
            .filter(|r| r.len() > 1)
            .map(|r| r.len() as u64)
            .sum();
        drop(adlers);

        // 3: popular phrases (template rows), counted once per group of same texts.
        let groups = same_text_groups(cfg, fps, &distinct, threads);
        let popular = Popularity::measure(cfg, fps, &distinct, &groups, &mut stats, threads);
        drop(groups);

        // 4: heads taking part in the near-duplicate search: judged, not template-dominated.
        let mut template_head = vec![false; n];
        let heads: Vec<u32> = distinct
            .iter()
            .copied()
            .filter(|&h| self.judged(&fps[h as usize]))
            .filter(|&h| {
                let own = popular.own_words(h, fps[h as usize].words);
                let keep = own >= cfg.min_words as f64;
                template_head[h as usize] = !keep;
                keep
            })
            .collect();
        let mut boilerplate = Vec::new();
        for (i, fp) in fps.iter().enumerate() {
            if self.judged(fp) && template_head[head_of[i] as usize] {
                boilerplate.push(i as u32);
            }
        }
        stats.boilerplate = boilerplate.len() as u64;
        stats.exact_duplicates -= boilerplate
            .iter()
            .filter(|&&d| head_of[d as usize] != d)
            .count() as u64;

        // 5: candidates: pairs sharing a band key (MinHash) or a block (SimHash). A near copy
        // shares most bands, so pairs are gathered and de-duplicated before any is verified. Bands
        // and blocks are shared out among the threads; the merged pair set is the same.
        //
        // Band keys are 16 bits, so unrelated texts share one by chance, and those chance pairs
        // grow with the square of the corpus (5.3M of them at 80,000 documents). Each is dropped
        // at once when it cannot pass step 6: its signatures agree on fewer rows than the fewest
        // any accepted pair has (counting popular rows too, so no accepted pair is dropped) and
        // its SimHashes are too far apart. Only plausible pairs are kept, sorted and verified.
        let sig = |d: u32| -> &[u8] { &fps[d as usize].minhash };
        let need = Thresholds::new(cfg);
        let plausible = |a: u32, b: u32| {
            hamming(fps[a as usize].simhash, fps[b as usize].simhash) <= cfg.simhash_max_hamming
                || agreements(sig(a), sig(b)) >= need.fewest_accepted()
        };
        let bands: Vec<usize> = (0..cfg.lsh_bands).collect();
        let (mut pairs, checks, skipped) = bucket_pairs(
            threads,
            &bands,
            cfg.max_bucket_compare,
            |band, keyed| {
                keyed.extend(heads.iter().filter_map(|&h| {
                    if popular.band_is_popular(h, band, cfg.lsh_rows) {
                        return None; // a template phrase is no evidence of copying
                    }
                    band_key(sig(h), band, cfg.lsh_rows).map(|k| (k, h))
                }));
            },
            plausible,
        );
        stats.minhash_candidate_checks += checks;
        stats.bucket_comparisons_skipped += skipped;
        let blocks: Vec<usize> = (0..=cfg.simhash_max_hamming as usize).collect();
        let (block_pairs, checks, skipped) = bucket_pairs(
            threads,
            &blocks,
            cfg.max_bucket_compare,
            |block, keyed| {
                keyed.extend(heads.iter().filter_map(|&h| {
                    block_keys(fps[h as usize].simhash, cfg.simhash_max_hamming)
                        .nth(block)
                        .map(|k| (k, h))
                }));
            },
            plausible,
        );
        stats.simhash_candidate_checks += checks;
        stats.bucket_comparisons_skipped += skipped;
        pairs.merge(block_pairs);
        let pairs = pairs.into_sorted();

        // 6: verification of each distinct candidate pair, once; chunks of the sorted pairs on
        // the threads, their edges concatenated in order.
        let verify = |chunk: &[(u32, u32)]| -> Vec<Edge> {
            let mut edges = Vec::new();
            for &(a, b) in chunk {
                let (agree, rows) = popular.agreements(a, b, sig(a), sig(b));
                let near_mh = need.accepts(agree, rows);
                let near_sh = hamming(fps[a as usize].simhash, fps[b as usize].simhash)
                    <= cfg.simhash_max_hamming
                    && rows >= need.min_rows;
                if near_mh || near_sh {
                    edges.push(Edge {
                        strength: strength(agree, rows),
                        a,
                        b,
                    });
                }
            }
            edges
        };
        let mut edges: Vec<Edge> = in_parallel(threads, &pairs, verify)
            .into_iter()
            .flatten()
            .collect();
        drop(pairs);
        stats.verified_pairs = edges.len() as u64;

        // 7: guarded union-find, strongest edges first.
        edges.sort_unstable_by(|x, y| {
            y.strength
                .cmp(&x.strength)
                .then(x.a.cmp(&y.a))
                .then(x.b.cmp(&y.b))
        });
        let mut uf = UnionFind::new(n);
        for e in &edges {
            let (ra, rb) = (uf.find(e.a), uf.find(e.b));
            if ra == rb {
                continue;
            }
            // Roots are the lowest index of their set: the representatives.
            let (agree, rows) = popular.agreements(ra, rb, sig(ra), sig(rb));
            if !need.guard_accepts(agree, rows)
                && hamming(fps[ra as usize].simhash, fps[rb as usize].simhash)
                    > cfg.simhash_max_hamming
            {
                stats.chain_guard_refusals += 1;
                continue;
            }
            uf.union(ra, rb);
        }

        // Gather clusters: heads by root, exact copies with their head.
        let mut by_root: HashMap<u32, Vec<u32>> = HashMap::new();
        for i in 0..n as u32 {
            let fp = &fps[i as usize];
            if !self.judged(fp) || template_head[head_of[i as usize] as usize] {
                continue;
            }
            let root = uf.find(head_of[i as usize]);
            by_root.entry(root).or_default().push(i);
        }
        let mut clusters: Vec<Cluster> = by_root
            .into_iter()
            .filter(|(_, m)| m.len() > 1)
            .map(|(root, mut docs)| {
                docs.sort_unstable();
                let rep = docs[0];
                debug_assert_eq!(rep, root);
                let members = docs
                    .iter()
                    .map(|&d| {
                        let kind = if d == rep {
                            MatchKind::Representative
                        } else if fps[d as usize].exact == fps[rep as usize].exact
                            || head_of[d as usize] != d
                        {
                            MatchKind::Exact
                        } else {
                            MatchKind::Near
                        };
                        let similarity = match kind {
                            MatchKind::Representative => 1.0,
                            MatchKind::Exact
                                if fps[d as usize].exact == fps[rep as usize].exact =>
                            {
                                1.0
                            }
                            _ => estimate_jaccard(agreements(sig(d), sig(rep)), cfg.minhash_perms)
                                as f32,
                        };
                        Member {
                            doc: d,
                            similarity,
                            kind,
                        }
                    })
                    .collect();
                Cluster {
                    representative: rep,
                    members,
                }
            })
            .collect();
        clusters.sort_unstable_by_key(|c| c.representative);
        stats.clusters = clusters.len() as u64;
        stats.near_duplicates = clusters
            .iter()
            .flat_map(|c| &c.members)
            .filter(|m| m.kind == MatchKind::Near)
            .count() as u64;
        Clustering {
            clusters,
            too_short,
            boilerplate,
            stats,
        }
    }
}

/// Pairs `(a, b)` of items that share a key in one of `sources` (LSH bands or SimHash blocks),
/// `keys` filling each source's `(key, item)` list, and that `keep` accepts. In a bucket each item
/// is paired with at most `window` items before it (which bounds the work on hostile input).
/// Sources are shared out among the threads. Returns the pairs kept, the comparisons made and
/// those skipped by the window.
fn bucket_pairs(
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
struct CandidatePairs {
    pairs: Vec<u64>,
    distinct: usize,
}

impl CandidatePairs {
    fn push(&mut self, a: u32, b: u32) {
        self.pairs.push(u64::from(a) << 32 | u64::from(b));
        if self.pairs.len() >= 2 * self.distinct + (1 << 16) {
            self.compact();
        }
    }

    fn merge(&mut self, other: CandidatePairs) {
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
    fn into_sorted(mut self) -> Vec<(u32, u32)> {
        self.compact();
        self.pairs
            .into_iter()
            .map(|p| ((p >> 32) as u32, p as u32))
            .collect()
    }
}

/// Edge order key: the discounted agreement rate in millionths (higher first).
fn strength(agree: u32, rows: u32) -> u32 {
    if rows == 0 {
        return 0;
    }
    (u64::from(agree) * 1_000_000 / u64::from(rows)) as u32
}

/// Agreement counts a pair needs, by the number of rows it is judged on.
struct Thresholds {
    /// `join[r]`: agreements out of r rows for the estimate to reach `min_jaccard`.
    join: Vec<u32>,
    /// The same for the chain guard (half of `min_jaccard`).
    guard: Vec<u32>,
    /// Fewest rows outside popular bands a pair must be judged on.
    min_rows: u32,
}

impl Thresholds {
    fn new(cfg: &DedupConfig) -> Self {
        let perms = cfg.minhash_perms;
        Self {
            join: (0..=perms)
                .map(|r| agreements_for(cfg.min_jaccard, r))
                .collect(),
            guard: (0..=perms)
                .map(|r| agreements_for(cfg.min_jaccard / 2.0, r))
                .collect(),
            min_rows: (cfg.min_evidence_rows as u32).max(1),
        }
    }

    fn accepts(&self, agree: u32, rows: u32) -> bool {
        rows >= self.min_rows && self.join.get(rows as usize).is_some_and(|&k| agree >= k)
    }

    /// The fewest agreeing rows of any pair [`accepts`](Self::accepts) takes (thresholds grow
    /// with the rows judged).
    fn fewest_accepted(&self) -> u32 {
        self.join
            .get(self.min_rows as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    fn guard_accepts(&self, agree: u32, rows: u32) -> bool {
        rows >= self.min_rows && self.guard.get(rows as usize).is_some_and(|&k| agree >= k)
    }
}

/// Which signature rows hold *popular phrases*: shingles shared by more distinct texts than a copy
/// family plausibly has, so they are template text (cookie notices, newsletter boxes, "no results"
/// messages), not evidence that two documents copy each other.
///
/// A single b-bit row cannot tell: 256 values, each shared by chance by 1/256 of all texts. A pair
/// of rows can: its 16-bit value is shared by chance by 1/65,536 of the texts, so a value shared
/// by many more means the same two minimum shingles in all of them. Each row is paired with the
/// next `popular_pairings` rows (so it takes part in twice that many pairs); a row is popular
/// in a document when one of its pairs is.
struct Popularity {
    /// One bit per (document, row), `words_per_doc` u64 words per document.
    bits: Vec<u64>,
    words_per_doc: usize,
    perms: usize,
}

/// `SPREAD[m]`: the 8 bits of `m` moved to the high bit of each byte (bit i to bit 8i + 7).
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            if (m >> i) & 1 == 1 {
                t[m] |= 0x80 << (8 * i);
            }
            i += 1;
        }
        m += 1;
    }
    t
};

impl Popularity {
    /// Marks the popular rows of every text of `distinct`; `groups[p]` is the same-text group of
    /// `distinct[p]` (see [`same_text_groups`]), and a value counts once per group.
    fn measure(
        cfg: &DedupConfig,
        fps: &[Fingerprint],
        distinct: &[u32],
        groups: &[u32],
        stats: &mut ClusterStats,
        threads: usize,
    ) -> Self {
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
        let perms = cfg.minhash_perms;
        let words_per_doc = perms.div_ceil(64);
        // A pair value is shared by chance by about m / 65,536 of m texts; the limit sits well
        // above that.
        let chance = stats.popular_groups as f64 / 65_536.0;
        let limit = cfg.popular_docs + (chance + 4.0 * chance.sqrt()).ceil() as usize;
        let limit = u16::try_from(limit).unwrap_or(u16::MAX - 1);
        stats.popular_limit = u64::from(limit);
        // Rows by permutation (row i of every distinct text, contiguous), so each pair of rows is
        // two sequential reads.
        let m = distinct.len();
        let mut by_row = vec![0u8; perms * m];
        for (p, &d) in distinct.iter().enumerate() {
            for (i, &v) in fps[d as usize].minhash.iter().enumerate().take(perms) {
                by_row[i * m + p] = v;
            }
        }
        // Rows are shared out among the threads, each with its own counters and bits; bits are
        // OR-ed and counts summed, so the result does not depend on the thread count.
        let count_rows = |rows: &[usize]| -> (Vec<u64>, u64) {
            let mut bits = vec![0u64; fps.len() * words_per_doc];
            let mut popular_row_pairs = 0u64;
            let mut counts = vec![0u16; 1 << 16];
            // The group that last counted each value: a group counts a value once.
            let mut last = vec![u32::MAX; 1 << 16];
            let mut values = vec![0u16; m];
            for &i in rows {
                for step in 1..=cfg.popular_pairings.min(perms - 1) {
                    let j = (i + step) % perms;
                    let (ri, rj) = (&by_row[i * m..(i + 1) * m], &by_row[j * m..(j + 1) * m]);
                    for (((v, &a), &b), &g) in values.iter_mut().zip(ri).zip(rj).zip(&group) {
                        *v = u16::from(a) << 8 | u16::from(b);
                        let seen = &mut last[usize::from(*v)];
                        if *seen != g {
                            *seen = g;
                            let c = &mut counts[usize::from(*v)];
                            *c = c.saturating_add(1);
                        }
                    }
                    for (&v, &d) in values.iter().zip(distinct) {
                        let c = &mut counts[usize::from(v)];
                        if *c > limit {
                            bits[d as usize * words_per_doc + i / 64] |= 1u64 << (i % 64);
                            bits[d as usize * words_per_doc + j / 64] |= 1u64 << (j % 64);
                        }
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
        let rows: Vec<usize> = (0..perms).collect();
        let mut bits = vec![0u64; fps.len() * words_per_doc];
        for (part, pairs) in in_parallel(threads, &rows, count_rows) {
            for (w, p) in bits.iter_mut().zip(part) {
                *w |= p;
            }
            stats.popular_row_pairs += pairs;
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
    fn band_is_popular(&self, doc: u32, band: usize, rows: usize) -> bool {
        let b = self.doc_bits(doc);
        (band * rows..band * rows + rows)
            .any(|i| b.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1))
    }

    fn popular_rows(&self, doc: u32) -> u32 {
        self.doc_bits(doc).iter().map(|w| w.count_ones()).sum()
    }

    /// Words of the document's own text: its words less the popular share of its rows (each row
    /// is the minimum of a random permutation, so the popular rows are a sample of its shingles).
    fn own_words(&self, doc: u32, words: u32) -> f64 {
        if self.perms == 0 {
            return f64::from(words);
        }
        let share = f64::from(self.popular_rows(doc)) / self.perms as f64;
        f64::from(words) * (1.0 - share)
    }

    /// Agreeing signature rows of two documents and the rows they are judged on: those popular in
    /// neither. Works eight rows at a time: a byte of `sa ^ sb` is zero where the rows agree.
    fn agreements(&self, a: u32, b: u32, sa: &[u8], sb: &[u8]) -> (u32, u32) {
        let (pa, pb) = (self.doc_bits(a), self.doc_bits(b));
        let n = sa.len().min(sb.len());
        let (mut agree, mut rows) = (0u32, 0u32);
        // Eight rows at a time: `x` is the XOR of both signatures' rows c*8..c*8+8 (zero bytes
        // where they agree), `valid` the rows present.
        let mut count = |c: usize, x: u64, valid: u64| {
            let popular = (pa[c / 8] | pb[c / 8]) >> (8 * (c % 8)) & 0xFF;
            let usable = !popular & valid;
            agree += (zero_bytes(x) & SPREAD[usable as usize]).count_ones();
            rows += usable.count_ones();
        };
        let (ca, cb) = (sa[..n].chunks_exact(8), sb[..n].chunks_exact(8));
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (c, (xa, xb)) in ca.zip(cb).enumerate() {
            count(c, word(xa) ^ word(xb), 0xFF);
        }
        if !ra.is_empty() {
            count(n / 8, word(ra) ^ word(rb), (1u64 << ra.len()) - 1);
        }
        (agree, rows)
    }
}

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
fn same_text_groups(
    cfg: &DedupConfig,
    fps: &[Fingerprint],
    distinct: &[u32],
    threads: usize,
) -> Vec<u32> {
    let m = distinct.len();
    let need = agreements_for(cfg.popular_same_text, cfg.minhash_perms);
    let sig = |p: u32| -> &[u8] { &fps[distinct[p as usize] as usize].minhash };
    let bands: Vec<usize> = (0..cfg.minhash_perms / SAME_TEXT_BAND_ROWS).collect();
    // Pairs are checked where they meet in a bucket: only same texts are kept.
    let (pairs, _, _) = bucket_pairs(
        threads,
        &bands,
        cfg.max_bucket_compare,
        |band, keyed| {
            keyed.extend(
                (0..m as u32)
                    .filter_map(|p| band_key(sig(p), band, SAME_TEXT_BAND_ROWS).map(|k| (k, p))),
            );
        },
        |a, b| agreements(sig(a), sig(b)) >= need,
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

/// Union-find whose root is always the lowest index of its set.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n as u32).collect(),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        let mut root = x;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[x as usize] != root {
            let next = self.parent[x as usize];
            self.parent[x as usize] = root;
            x = next;
        }
        root
    }

    /// Joins two roots; the lower index stays root.
    fn union(&mut self, ra: u32, rb: u32) {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[hi as usize] = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::Fingerprinter;
    use crate::simhash::hamming;

    /// Deterministic pseudo-random words (SplitMix64), no dependency on a RNG crate.
    struct Words(u64);

    impl Words {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            crate::minhash::mix64(self.0)
        }
        fn word(&mut self) -> String {
            format!("w{}", self.next() % 5000)
        }
        fn text(&mut self, n: usize) -> Vec<String> {
            (0..n).map(|_| self.word()).collect()
        }
        /// Replaces about `rate` of the words.
        fn edit(&mut self, words: &[String], rate: f64) -> Vec<String> {
            words
                .iter()
                .map(|w| {
                    if (self.next() % 10_000) as f64 / 10_000.0 < rate {
                        self.word()
                    } else {
                        w.clone()
                    }
                })
                .collect()
        }
    }

    fn run(texts: &[String]) -> Clustering {
        let cfg = DedupConfig::default();
        let mut f = Fingerprinter::new(&cfg);
        let mut c = Clusterer::new(&cfg).unwrap();
        for t in texts {
            c.add(f.fingerprint(t));
        }
        c.finish()
    }

    fn same_cluster(r: &Clustering, a: u32, b: u32) -> bool {
        r.clusters
            .iter()
            .any(|c| c.members.iter().any(|m| m.doc == a) && c.members.iter().any(|m| m.doc == b))
    }

    #[test]
    fn exact_and_edited_copies_cluster_and_different_texts_do_not() {
        let mut g = Words(1);
        let a = g.text(400);
        let edited = g.edit(&a, 0.10);
        let other = g.text(400);
        let texts = vec![
            a.join(" "),
            other.join(" "),
            a.join("  ").to_uppercase(), // exact after normalization
            edited.join(" "),
        ];
        let r = run(&texts);
        assert_eq!(r.clusters.len(), 1, "{r:?}");
        let c = &r.clusters[0];
        assert_eq!(c.representative, 0);
        let kinds: Vec<(u32, MatchKind)> = c.members.iter().map(|m| (m.doc, m.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (0, MatchKind::Representative),
                (2, MatchKind::Exact),
                (3, MatchKind::Near)
            ]
        );
        assert!(c.members[2].similarity > 0.3 && c.members[2].similarity < 1.0);
        assert_eq!(r.stats.exact_duplicates, 1);
        assert_eq!(r.stats.near_duplicates, 1);
    }

    #[test]
    fn no_accepted_pair_agrees_on_fewer_rows_than_the_candidate_filter_asks() {
        // The filter of step 5 drops pairs with fewer agreeing rows than `fewest_accepted`;
        // step 6 must then refuse every one of them, whatever the rows it judges them on.
        for min_jaccard in [0.05, 0.19, 0.5, 0.9] {
            let cfg = DedupConfig {
                min_jaccard,
                ..DedupConfig::default()
            };
            let need = Thresholds::new(&cfg);
            let fewest = need.fewest_accepted();
            for rows in 0..=cfg.minhash_perms as u32 {
                for agree in 0..fewest.min(rows + 1) {
                    assert!(!need.accepts(agree, rows), "{min_jaccard} {agree}/{rows}");
                }
            }
            assert!(need.accepts(fewest, need.min_rows));
        }
    }

    #[test]
    fn too_short_texts_are_reported_not_clustered() {
        let stub = "Sign in to Example. Email Password. Forgot your password? New here? Create an account.";
        let r = run(&[stub.to_string(), stub.to_string(), String::new()]);
        assert!(r.clusters.is_empty());
        assert_eq!(r.too_short, vec![0, 1, 2]);
    }

    #[test]
    fn chains_of_borderline_pairs_do_not_join_unrelated_documents() {
        // A = X+Y, B = Y+Z, C = Z+W: A~B and B~C (Jaccard ~1/3) but A and C share nothing.
        let mut g = Words(2);
        let (x, y, z, w) = (g.text(150), g.text(150), g.text(150), g.text(150));
        let cat = |p: &[String], q: &[String]| [p, q].concat().join(" ");
        let r = run(&[cat(&x, &y), cat(&y, &z), cat(&z, &w)]);
        assert!(!same_cluster(&r, 0, 2), "{r:?}");
        assert!(same_cluster(&r, 0, 1));
        assert_eq!(r.stats.chain_guard_refusals, 1);
    }

    /// Pages of one site without an article: a template block (cookie notice, newsletter box)
    /// and a few words of their own. Two of them share 80% of their words, but not because one
    /// copies the other.
    fn template_site(g: &mut Words, stubs: usize) -> (Vec<String>, Vec<String>) {
        let template = g.text(100);
        let texts = (0..stubs)
            .map(|_| [template.clone(), g.text(20)].concat().join(" "))
            .collect();
        (template, texts)
    }

    #[test]
    fn template_pages_are_boilerplate_and_copies_carrying_the_template_still_join() {
        let mut g = Words(6);
        let (template, mut texts) = template_site(&mut g, 60);
        let stub = [template.clone(), g.text(15)].concat().join(" ");
        texts.push(stub.clone()); // identical template pages: not clustered either
        texts.push(stub);
        let article = g.text(300);
        let copy = g.edit(&article, 0.10);
        texts.push([template.clone(), article].concat().join(" "));
        texts.push([template, copy].concat().join(" "));
        let n = texts.len() as u32;
        let r = run(&texts);
        assert_eq!(r.clusters.len(), 1, "{:?}", r.clusters);
        assert!(same_cluster(&r, n - 2, n - 1));
        assert_eq!(r.boilerplate, (0..n - 2).collect::<Vec<_>>());
        assert_eq!(r.stats.boilerplate, u64::from(n - 2));
        assert_eq!(r.stats.exact_duplicates, 0);
        assert!(r.too_short.is_empty());

        // Without the popular-phrase rule the template pages would all be one cluster.
        let cfg = DedupConfig {
            popular_docs: 10_000,
            ..DedupConfig::default()
        };
        let mut f = Fingerprinter::new(&cfg);
        let mut c = Clusterer::new(&cfg).unwrap();
        for t in &texts {
            c.add(f.fingerprint(t));
        }
        let r = c.finish();
        assert!(r.boilerplate.is_empty());
        assert!(r.clusters.iter().any(|c| c.members.len() >= 60));
    }

    #[test]
    fn short_template_pages_count_towards_popularity() {
        // 60 stubs under 100 words (too short) make the template popular, so the two long pages
        // that carry it with little text of their own are boilerplate rather than a cluster.
        let mut g = Words(7);
        let template = g.text(70);
        let mut texts: Vec<String> = (0..60)
            .map(|_| [template.clone(), g.text(10)].concat().join(" "))
            .collect();
        for _ in 0..2 {
            texts.push([template.clone(), g.text(40)].concat().join(" "));
        }
        let r = run(&texts);
        assert_eq!(r.too_short, (0..60).collect::<Vec<_>>());
        assert_eq!(r.boilerplate, vec![60, 61]);
        assert!(r.clusters.is_empty(), "{:?}", r.clusters);
    }

    #[test]
    fn a_family_of_near_copies_is_not_mistaken_for_template() {
        // 20 lightly edited copies of one article share most phrases with each other, but fewer
        // distinct texts than `popular_docs`: they form one cluster, none is boilerplate.
        let mut g = Words(8);
        let base = g.text(400);
        let mut texts = vec![base.join(" ")];
        for _ in 0..20 {
            texts.push(g.edit(&base, 0.03).join(" "));
        }
        let r = run(&texts);
        assert!(r.boilerplate.is_empty());
        assert_eq!(r.clusters.len(), 1);
        assert_eq!(r.clusters[0].members.len(), 21);
    }

    #[test]
    fn a_family_larger_than_the_popular_limit_is_one_cluster_not_boilerplate() {
        // A story syndicated to 60 sites, each copy with a few words changed: 61 distinct texts,
        // more than `popular_docs`, all sharing the story's phrases. They are a few same-text
        // groups, so the phrases stay evidence: one cluster, none boilerplate.
        let mut g = Words(9);
        let base = g.text(400);
        let mut texts = vec![base.join(" ")];
        for _ in 0..60 {
            texts.push(g.edit(&base, 0.01).join(" "));
        }
        let distinct: std::collections::HashSet<&String> = texts.iter().collect();
        assert!(distinct.len() > DedupConfig::default().popular_docs + 20);
        let r = run(&texts);
        assert!(r.boilerplate.is_empty(), "{:?}", r.boilerplate);
        assert_eq!(r.clusters.len(), 1, "{:?}", r.clusters);
        assert_eq!(r.clusters[0].members.len(), 61);

        // Counting distinct texts instead (only identical signatures grouped), the family's
        // phrases were template and its copies boilerplate.
        let cfg = DedupConfig {
            popular_same_text: 1.0,
            ..DedupConfig::default()
        };
        let mut f = Fingerprinter::new(&cfg);
        let mut c = Clusterer::new(&cfg).unwrap();
        for t in &texts {
            c.add(f.fingerprint(t));
        }
        let r = c.finish();
        assert!(r.boilerplate.len() > 30, "{:?}", r.boilerplate);
    }

    #[test]
    fn every_pair_above_threshold_found_by_brute_force_is_clustered() {
        // 12 families of a base text and edited variants (2-12% of words), plus unrelated texts.
        let mut g = Words(3);
        let mut texts = Vec::new();
        for _ in 0..12 {
            let len = 150 + (g.next() % 300) as usize;
            let base = g.text(len);
            texts.push(base.join(" "));
            for k in 0..3 {
                texts.push(g.edit(&base, 0.02 + 0.05 * f64::from(k)).join(" "));
            }
            texts.push(g.text(200).join(" "));
        }
        let cfg = DedupConfig::default();
        let mut f = Fingerprinter::new(&cfg);
        let fps: Vec<Fingerprint> = texts.iter().map(|t| f.fingerprint(t)).collect();
        let mut c = Clusterer::new(&cfg).unwrap();
        for fp in &fps {
            c.add(fp.clone());
        }
        let r = c.finish();
        let mut above = 0;
        for i in 0..fps.len() {
            for j in i + 1..fps.len() {
                let jac = estimate_jaccard(
                    agreements(&fps[i].minhash, &fps[j].minhash),
                    cfg.minhash_perms,
                );
                let close = hamming(fps[i].simhash, fps[j].simhash) <= cfg.simhash_max_hamming;
                // At J >= 0.4 a pair misses all 96 bands with probability < 1e-7; SimHash pairs
                // within the bound are candidates by construction.
                if jac >= 0.4 || close {
                    above += 1;
                    assert!(
                        same_cluster(&r, i as u32, j as u32),
                        "pair {i},{j} J~{jac} missed"
                    );
                }
                if jac < 0.05 && !close {
                    assert!(
                        !same_cluster(&r, i as u32, j as u32),
                        "pair {i},{j} J~{jac} joined"
                    );
                }
            }
        }
        assert!(above >= 12 * 3, "{above} pairs above the threshold");
    }

    #[test]
    fn simhash_blocks_find_every_pair_within_the_bound() {
        // Crafted fingerprints: unrelated MinHash signatures, SimHashes 0..=d bits apart.
        let cfg = DedupConfig::default();
        let mut g = Words(4);
        let mut c = Clusterer::new(&cfg).unwrap();
        let mut hashes = Vec::new();
        for i in 0..40u32 {
            let base = g.next();
            let mut h = base;
            for _ in 0..(i % (cfg.simhash_max_hamming + 1)) {
                h ^= 1u64 << (g.next() % 64);
            }
            for (k, sh) in [base, h].into_iter().enumerate() {
                let minhash: Box<[u8]> = (0..cfg.minhash_perms).map(|_| g.next() as u8).collect();
                c.add(Fingerprint {
                    words: 500,
                    exact: u128::from(g.next()) << 1 | k as u128,
                    adler32: 0,
                    simhash: sh,
                    minhash,
                });
                hashes.push(sh);
            }
        }
        let r = c.finish();
        for i in 0..hashes.len() {
            for j in i + 1..hashes.len() {
                if hamming(hashes[i], hashes[j]) <= cfg.simhash_max_hamming {
                    assert!(same_cluster(&r, i as u32, j as u32), "pair {i},{j}");
                }
            }
        }
    }

    #[test]
    fn clusters_do_not_depend_on_fingerprinting_order_or_threads() {
        let mut g = Words(5);
        let mut texts = Vec::new();
        for _ in 0..20 {
            let base = g.text(300);
            texts.push(base.join(" "));
            texts.push(g.edit(&base, 0.08).join(" "));
            texts.push(g.text(300).join(" "));
        }
        let cfg = DedupConfig::default();
        let serial = run(&texts);
        for threads in [2usize, 4] {
            let mut fps: Vec<Option<Fingerprint>> = vec![None; texts.len()];
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..threads)
                    .map(|w| {
                        let (texts, cfg) = (&texts, &cfg);
                        s.spawn(move || {
                            let mut f = Fingerprinter::new(cfg);
                            // Each worker goes backwards through its share.
                            (w..texts.len())
                                .step_by(threads)
                                .rev()
                                .map(|i| (i, f.fingerprint(&texts[i])))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                for h in hs {
                    for (i, fp) in h.join().unwrap() {
                        fps[i] = Some(fp);
                    }
                }
            });
            let mut c = Clusterer::new(&cfg).unwrap();
            for fp in fps.into_iter().flatten() {
                c.add(fp);
            }
            assert_eq!(c.finish_on(threads), serial);
        }
        assert_eq!(serial.clusters.len(), 20);
        assert!(serial
            .clusters
            .windows(2)
            .all(|w| w[0].representative < w[1].representative));
    }
}
