//! Clustering of fingerprints: exact groups, LSH candidates, verification and guarded joining.
//!
//! 1. A document with fewer than `min_words` words is *too short*: reported, never clustered
//!    (log-in, search and tag pages are mostly template; their few words cannot tell copies apart).
//! 2. Documents with the same 128-bit exact hash form a group without LSH; only the first of each
//!    group (its *head*) takes part in the near-duplicate search.
//! 3. Candidates: heads sharing a MinHash LSH band key (b bands of r b-bit rows) or a SimHash block
//!    (pigeonhole blocks, every pair within `simhash_max_hamming` bits). Inside one bucket a head is
//!    compared with at most `max_bucket_compare` earlier heads, which bounds the work on
//!    template-heavy or hostile input.
//! 4. Verification: a candidate pair is an edge when its estimated Jaccard reaches `min_jaccard` or
//!    its SimHashes are within `simhash_max_hamming` bits.
//! 5. Joining: edges are taken strongest first (ties by document index) into a union-find; two
//!    clusters are joined only when their representatives are themselves similar (estimated
//!    Jaccard at least half of `min_jaccard`), so a chain A ~ B ~ C of borderline pairs cannot pull
//!    unrelated documents into one cluster.
//!
//! Everything depends only on the fingerprints and their order: the result is the same whatever
//! thread computed each fingerprint. A cluster's representative is its lowest document index;
//! clusters are sorted by representative, members by document index.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::DedupError;
use crate::fingerprint::{DedupConfig, Fingerprint};
use crate::minhash::{agreements, agreements_for, band_key, estimate_jaccard};
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
}

/// The result of [`Clusterer::finish`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clustering {
    /// Clusters of two or more documents, sorted by representative.
    pub clusters: Vec<Cluster>,
    /// Documents too short to judge, sorted.
    pub too_short: Vec<u32>,
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
    agree: u32,
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

    fn judged(&self, fp: &Fingerprint) -> bool {
        fp.words as usize >= self.cfg.min_words
            && fp.words > 0
            && fp.minhash.len() == self.cfg.minhash_perms
    }

    /// Clusters everything added.
    pub fn finish(self) -> Clustering {
        let cfg = &self.cfg;
        let fps = &self.fps;
        let n = fps.len();
        let mut stats = ClusterStats {
            documents: n as u64,
            ..ClusterStats::default()
        };

        // 1-2: too short, exact groups, heads.
        let mut too_short = Vec::new();
        let mut exact_head: HashMap<u128, u32> = HashMap::new();
        let mut head_of: Vec<u32> = (0..n as u32).collect();
        let mut heads: Vec<u32> = Vec::new();
        for (i, fp) in fps.iter().enumerate() {
            let i = i as u32;
            if !self.judged(fp) {
                too_short.push(i);
                continue;
            }
            match exact_head.get(&fp.exact) {
                Some(&h) => {
                    head_of[i as usize] = h;
                    stats.exact_duplicates += 1;
                }
                None => {
                    exact_head.insert(fp.exact, i);
                    heads.push(i);
                }
            }
        }
        stats.too_short = too_short.len() as u64;
        let mut adlers: Vec<u32> = heads.iter().map(|&h| fps[h as usize].adler32).collect();
        adlers.sort_unstable();
        stats.adler32_collisions = adlers
            .chunk_by(|a, b| a == b)
            .filter(|r| r.len() > 1)
            .map(|r| r.len() as u64)
            .sum();

        // 3-4: candidates and verification.
        let need = agreements_for(cfg.min_jaccard, cfg.minhash_perms);
        let sig = |d: u32| -> &[u8] { &fps[d as usize].minhash };
        let mut edges: Vec<Edge> = Vec::new();
        let verify = |a: u32, b: u32, edges: &mut Vec<Edge>| {
            let agree = agreements(sig(a), sig(b));
            let near_sh = hamming(fps[a as usize].simhash, fps[b as usize].simhash)
                <= cfg.simhash_max_hamming;
            if agree >= need || near_sh {
                edges.push(Edge { agree, a, b });
            }
        };
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(heads.len());
        let window = cfg.max_bucket_compare;
        let scan = |keyed: &mut Vec<(u64, u32)>,
                    edges: &mut Vec<Edge>,
                    checks: &mut u64,
                    skipped: &mut u64| {
            keyed.sort_unstable();
            for run in keyed.chunk_by(|x, y| x.0 == y.0) {
                for (p, &(_, b)) in run.iter().enumerate() {
                    let from = p.saturating_sub(window);
                    *skipped += from as u64;
                    for &(_, a) in &run[from..p] {
                        *checks += 1;
                        verify(a, b, edges);
                    }
                }
            }
            // Pairs found in several bands are verified again; keep each edge once.
            edges.sort_unstable_by_key(|e| (e.a, e.b));
            edges.dedup_by_key(|e| (e.a, e.b));
        };
        for band in 0..cfg.lsh_bands {
            keyed.clear();
            keyed.extend(
                heads
                    .iter()
                    .filter_map(|&h| band_key(sig(h), band, cfg.lsh_rows).map(|k| (k, h))),
            );
            scan(
                &mut keyed,
                &mut edges,
                &mut stats.minhash_candidate_checks,
                &mut stats.bucket_comparisons_skipped,
            );
        }
        for block in 0..=cfg.simhash_max_hamming as usize {
            keyed.clear();
            keyed.extend(heads.iter().filter_map(|&h| {
                block_keys(fps[h as usize].simhash, cfg.simhash_max_hamming)
                    .nth(block)
                    .map(|k| (k, h))
            }));
            scan(
                &mut keyed,
                &mut edges,
                &mut stats.simhash_candidate_checks,
                &mut stats.bucket_comparisons_skipped,
            );
        }
        stats.verified_pairs = edges.len() as u64;

        // 5: guarded union-find, strongest edges first.
        edges.sort_unstable_by(|x, y| {
            y.agree
                .cmp(&x.agree)
                .then(x.a.cmp(&y.a))
                .then(x.b.cmp(&y.b))
        });
        let guard = agreements_for(cfg.min_jaccard / 2.0, cfg.minhash_perms);
        let mut uf = UnionFind::new(n);
        for e in &edges {
            let (ra, rb) = (uf.find(e.a), uf.find(e.b));
            if ra == rb {
                continue;
            }
            // Roots are the lowest index of their set: the representatives.
            if agreements(sig(ra), sig(rb)) < guard
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
            if !self.judged(fp) {
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
            stats,
        }
    }
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
            assert_eq!(c.finish(), serial);
        }
        assert_eq!(serial.clusters.len(), 20);
        assert!(serial
            .clusters
            .windows(2)
            .all(|w| w[0].representative < w[1].representative));
    }
}
