//! Clustering of fingerprints: exact groups, popular phrases, candidates, site templates,
//! verification on the words and joining without chains. One module per step, called in order by
//! [`Clusterer::finish_on`]:
//!
//! 1. A document with fewer than `min_words` words is *too short*: reported, and never a
//!    near-duplicate. Documents with the same 128-bit exact hash form a group; the first of each
//!    group (its *head*) stands for it. Exact groups are clusters at any length, but for short
//!    texts shown by several sites, which are what their software prints.
//! 2. [`popularity`]: signature rows whose values many groups of same texts share are template
//!    phrases (cookie notices, newsletter boxes, "no results" messages, after Fetterly, Manasse and
//!    Najork's popular phrases); a head whose words outside them are fewer than `min_words` is
//!    *boilerplate*, and such rows make no LSH band keys.
//! 3. [`candidates`]: heads sharing a MinHash band key or a SimHash block whose signatures could
//!    pass (estimated shingle Jaccard at least `min_jaccard`, or SimHash within the bound).
//! 4. [`template`]: lines (their normalized words) found on pages of `template_classes` different
//!    classes of one site are that site's template; a class is a group of pages sharing at least
//!    `same_class` of their words, so a copy family counts once. A head whose words outside
//!    template lines are fewer than `min_words` is boilerplate too.
//! 5. [`join`]: every candidate pair is verified on its words outside template lines (the Dice
//!    share of the word multisets, at least `threshold`), and documents join in index order, each
//!    to the most similar earlier *representative* it is a near-duplicate of, never through
//!    another member: a cluster cannot chain unrelated pages together.
//!
//! Everything depends only on the fingerprints, their sites and their order: the result is the
//! same whatever thread computed each fingerprint and however many threads cluster. A cluster's
//! representative is its lowest document index; clusters are sorted by representative, members by
//! document index.

mod candidates;
mod join;
mod popularity;
mod profiles;
mod signatures;
mod stats;
mod template;
#[cfg(test)]
mod tests;
mod union_find;

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crawlsift_common::budget::{MemoryBudget, Part, Spilled};
use crawlsift_common::limits;

use crate::error::{DedupError, SpillError};
use crate::fingerprint::{DedupConfig, Fingerprint};
use crate::minhash::{agreements, band_key_of_rows, fold32, wide_band_key_of_rows};
use crate::profile::WordProfile;
use crate::simhash::{hamming, masked_key, pair_masks};
use candidates::{bucket_pairs, fewest_agreements, keyed, threads_within};
use popularity::{same_text_groups, Popularity, PopularityPlan};
use profiles::{Docs, ProfileSpill};
use signatures::{SignatureStore, Signatures};
pub use stats::ClusterStats;

/// How a member joined its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchKind {
    /// The representative itself.
    Representative,
    /// Same normalized text as the representative.
    Exact,
    /// Near-duplicate of the representative (verified on the words), or an exact copy of one.
    Near,
}

/// One document of a cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Document index (order of [`Clusterer::add`]).
    pub doc: u32,
    /// Share of words in common with the representative (Dice of the word multisets outside
    /// template lines; 1 for exact copies).
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
    /// The lowest similarity of a member to the representative.
    pub lowest_similarity: f32,
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
    /// Per document, the share of its words in site-template lines (left out when its words are
    /// compared).
    pub template_share: Vec<f32>,
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

/// What clustering keeps of a document's fingerprint beside its signature and word profile (32
/// bytes: a [`Fingerprint`] is 96 with its boxes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DocPrint {
    exact: u128,
    simhash: u64,
    words: u32,
    adler32: u32,
}

impl DocPrint {
    fn of(fp: &Fingerprint) -> Self {
        Self {
            exact: fp.exact,
            simhash: fp.simhash,
            words: fp.words,
            adler32: fp.adler32,
        }
    }
}

/// Collects fingerprints (in document order, each with its site) and clusters them.
///
/// It holds what it is given and spills what it is told to ([`spill_profiles`](Self::spill_profiles),
/// [`spill_signatures`](Self::spill_signatures)); when and how much is the run's
/// [`MemoryBudget`]'s to say, which [`add_counted`](Self::add_counted) counts into and whose
/// working memory the clustering steps take ([`cluster_within`](Self::cluster_within)).
#[derive(Debug)]
pub struct Clusterer {
    cfg: DedupConfig,
    fps: Vec<DocPrint>,
    /// The word profiles of the documents not spilled, oldest first.
    profiles: VecDeque<WordProfile>,
    sites: Vec<u32>,
    site_ids: HashMap<String, u32>,
    /// Word profiles moved to disk ([`Clusterer::spill_profiles`]).
    spill: Option<ProfileSpill>,
    /// Every document's signature, side by side, the oldest possibly on disk
    /// ([`Clusterer::spill_signatures`]).
    signatures: SignatureStore,
}

/// Exact groups: the head (first document) of each document's group, and the heads in order.
struct ExactGroups {
    head_of: Vec<u32>,
    heads: Vec<u32>,
}

/// Bytes one added document made the clusterer hold, by part of the budget.
#[derive(Debug, Clone, Copy, Default)]
struct Held {
    fixed: usize,
    profile: usize,
    signature: usize,
}

impl Clusterer {
    /// A clusterer for `cfg`.
    pub fn new(cfg: &DedupConfig) -> Result<Self, DedupError> {
        cfg.validate()?;
        Ok(Self {
            cfg: cfg.clone(),
            fps: Vec::new(),
            profiles: VecDeque::new(),
            sites: Vec::new(),
            site_ids: HashMap::new(),
            spill: None,
            signatures: SignatureStore::new(cfg.minhash_perms, limits::DEDUP_SIGNATURE_SPILL_BLOCK),
        })
    }

    /// Adds the next document's fingerprint, of no known site, and returns its index. Documents
    /// without a site learn templates together, as one site.
    pub fn add(&mut self, fp: Fingerprint) -> u32 {
        self.add_on_site(fp, "")
    }

    /// Adds the next document's fingerprint with its site (a host name: pages of one site share
    /// template lines) and returns its index.
    pub fn add_on_site(&mut self, fp: Fingerprint, site: &str) -> u32 {
        self.push(fp, site).0
    }

    /// As [`add_on_site`](Self::add_on_site), counting what the document makes the clusterer hold
    /// into `budget` (its fingerprint and site as [`Part::Fixed`], its profile and signature as
    /// theirs). Spilling is the budget's call ([`MemoryBudget::keep`]).
    pub fn add_counted(&mut self, fp: Fingerprint, site: &str, budget: &mut MemoryBudget) -> u32 {
        let (doc, held) = self.push(fp, site);
        budget.count(Part::Fixed, held.fixed);
        budget.count(Part::Profiles, held.profile);
        budget.count(Part::Signatures, held.signature);
        budget.document_added();
        doc
    }

    fn push(&mut self, mut fp: Fingerprint, site: &str) -> (u32, Held) {
        let next = self.site_ids.len() as u32;
        let mut held = Held::default();
        let id = match self.site_ids.get(site) {
            Some(&id) => id,
            None => {
                self.site_ids.insert(site.to_string(), next);
                held.fixed += site.len() + std::mem::size_of::<(String, u32)>();
                next
            }
        };
        // The lists are counted by capacity: a list grown by doubling holds up to twice its
        // length until the run ends.
        let capacity = (
            self.fps.capacity(),
            self.sites.capacity(),
            self.profiles.capacity(),
        );
        self.sites.push(id);
        let doc = self.fps.len() as u32;
        held.signature = self.signatures.push(&mut fp);
        let profile = std::mem::take(&mut fp.profile);
        held.profile = profile.memory_bytes();
        self.profiles.push_back(profile);
        self.fps.push(DocPrint::of(&fp));
        held.fixed += (self.fps.capacity() - capacity.0) * std::mem::size_of::<DocPrint>()
            + (self.sites.capacity() - capacity.1) * std::mem::size_of::<u32>()
            + (self.profiles.capacity() - capacity.2) * std::mem::size_of::<WordProfile>();
        (doc, held)
    }

    /// Moves the word profiles of the oldest documents still holding theirs to an unnamed
    /// temporary file in `dir` (the first call makes it), until about `bytes` are freed or every
    /// profile is there. Verification, template learning and [`profile`](Self::profile) read them
    /// back; the clustering is the same bytes. Errors are the disk's: the clusterer is not to be
    /// used after one.
    pub fn spill_profiles(&mut self, bytes: usize, dir: &Path) -> Result<Spilled, SpillError> {
        let spill = self.spill.get_or_insert_with(|| ProfileSpill::new(dir));
        spill.spill(&mut self.profiles, bytes)
    }

    /// Documents whose word profile was spilled to disk ([`spill_profiles`](Self::spill_profiles)).
    pub fn spilled_documents(&self) -> usize {
        self.spill.as_ref().map_or(0, ProfileSpill::spilled)
    }

    /// Moves the MinHash signatures (and wide bytes) of the oldest documents still holding theirs
    /// to disk in `dir`, `limits::DEDUP_SIGNATURE_SPILL_BLOCK` documents at a time, until about
    /// `bytes` are freed. Clustering reads them back (a block of rows at a time for band keys and
    /// popularity, one signature at a time for a candidate check), and the result is the same
    /// bytes.
    pub fn spill_signatures(&mut self, bytes: usize, dir: &Path) -> Result<Spilled, SpillError> {
        let freed = self.signatures.spill(dir, bytes)?;
        Ok(Spilled { freed, kept: 0 })
    }

    /// Documents whose signatures were spilled to disk ([`spill_signatures`](Self::spill_signatures)).
    pub fn spilled_signatures(&self) -> usize {
        self.signatures.spilled()
    }

    /// Every document's fingerprint and profile, spilled profiles written out first.
    fn docs(&self) -> Result<Docs<'_>, SpillError> {
        if let Some(s) = self.spill.as_ref() {
            s.flush()?;
        }
        Ok(Docs::new(&self.profiles, self.spill.as_ref()))
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.fps.len()
    }

    /// True before the first [`add`](Self::add).
    pub fn is_empty(&self) -> bool {
        self.fps.is_empty()
    }

    /// Memory held per document by the search index: fingerprints and their signatures (bytes,
    /// mean), without the word profiles.
    pub fn index_bytes_per_document(&self) -> f64 {
        // Signatures count as they were given: the figure is the index's, not how this run
        // keeps them.
        if self.fps.is_empty() {
            return 0.0;
        }
        let each = std::mem::size_of::<Fingerprint>() - std::mem::size_of::<WordProfile>();
        (each * self.fps.len() + self.signatures.given_bytes()) as f64 / self.fps.len() as f64
    }

    /// Memory held per document by the word profiles verification compares (bytes, mean).
    pub fn profile_bytes_per_document(&self) -> f64 {
        if self.fps.is_empty() {
            return 0.0;
        }
        let docs = Docs::new(&self.profiles, self.spill.as_ref());
        let all: usize = (0..self.fps.len() as u32)
            .map(|d| docs.profile_bytes(d))
            .sum();
        all as f64 / self.fps.len() as f64
    }

    /// Every document's signature, wherever it is kept.
    fn sigs(&self) -> Signatures<'_> {
        Signatures::new(&self.signatures)
    }

    fn has_signature(&self, d: usize) -> bool {
        self.fps[d].words > 0 && self.sigs().has(d as u32)
    }

    fn judged(&self, d: usize) -> bool {
        self.fps[d].words as usize >= self.cfg.min_words && self.has_signature(d)
    }

    /// Clusters everything added, on one thread.
    pub fn finish(self) -> Result<Clustering, SpillError> {
        self.finish_on(1)
    }

    /// Clusters everything added, sharing the work among `threads` threads, in the default
    /// budget. The result does not depend on `threads`.
    pub fn finish_on(self, threads: usize) -> Result<Clustering, SpillError> {
        self.cluster_on(threads)
    }

    /// The word profile of document `doc` (for reports: its words as 32-bit hashes), read back
    /// when it was spilled (`None` past the last document).
    pub fn profile(&self, doc: u32) -> Result<Option<Cow<'_, WordProfile>>, SpillError> {
        if doc as usize >= self.fps.len() {
            return Ok(None);
        }
        self.docs()?.profile(doc).map(Some)
    }

    /// The fingerprint of document `doc`, as added; `None` when its word profile was spilled
    /// (a run that needs whole fingerprints afterwards, writing an index or searching one, does
    /// not spill).
    pub fn fingerprint(&self, doc: u32) -> Option<Fingerprint> {
        let d = self.fps.get(doc as usize)?;
        let profile = Docs::new(&self.profiles, self.spill.as_ref()).resident(doc)?;
        let (minhash, minhash_wide) = self.signatures.given(doc);
        Some(Fingerprint {
            words: d.words,
            exact: d.exact,
            adler32: d.adler32,
            simhash: d.simhash,
            minhash,
            minhash_wide,
            profile: profile.clone(),
        })
    }

    /// As [`finish_on`](Self::finish_on), keeping the fingerprints (for [`profile`](Self::profile)).
    pub fn cluster_on(&self, threads: usize) -> Result<Clustering, SpillError> {
        self.cluster_within(threads, &MemoryBudget::default())
    }

    /// Clusters everything added on `threads` threads, each step working within what `budget`
    /// leaves ([`MemoryBudget::working_memory`]): steps that would pass it work in parts. The
    /// result is the same bytes whatever the threads and the budget. An error is a spill file
    /// that could not be written or read back.
    pub fn cluster_within(
        &self,
        threads: usize,
        budget: &MemoryBudget,
    ) -> Result<Clustering, SpillError> {
        Ok(self.cluster_with_templates(threads, budget)?.0)
    }

    /// As [`cluster_within`](Self::cluster_within), also giving the hashes of the lines found to
    /// be site template (sorted): what a later search needs to compare words as clustering did.
    pub fn cluster_with_templates(
        &self,
        threads: usize,
        budget: &MemoryBudget,
    ) -> Result<(Clustering, Vec<u64>), SpillError> {
        let threads = threads.max(1);
        let cfg = &self.cfg;
        let fps = &self.fps;
        let docs = self.docs()?;
        let n = fps.len();
        let mut stats = ClusterStats {
            documents: n as u64,
            ..ClusterStats::default()
        };

        // 1: too short; exact groups.
        let too_short: Vec<u32> = (0..n as u32)
            .filter(|&i| !self.judged(i as usize))
            .collect();
        stats.too_short = too_short.len() as u64;
        let groups = self.exact_groups(&mut stats);
        let short_web = self.short_web_groups(&groups, &mut stats);

        // 2: popular phrases, counted once per group of same texts; heads that are mostly
        // popular phrases are boilerplate.
        let same = same_text_groups(
            cfg,
            self.sigs(),
            &groups.heads,
            threads_within(threads, groups.heads.len(), budget.working_memory()),
        );
        let popular = Popularity::measure(
            cfg,
            self.sigs(),
            (&groups.heads, &same),
            &mut stats,
            PopularityPlan::new(threads, budget.working_memory()),
        );
        drop(same);
        let mut boilerplate_head = vec![false; n];
        for &h in &groups.heads {
            let fp = &fps[h as usize];
            boilerplate_head[h as usize] =
                self.judged(h as usize) && popular.own_words(h, fp.words) < cfg.min_words as f64;
        }

        // 3: candidates among judged heads.
        let search: Vec<u32> = groups
            .heads
            .iter()
            .copied()
            .filter(|&h| self.judged(h as usize) && !boilerplate_head[h as usize])
            .collect();
        let pairs = self.candidates(&search, &popular, &mut stats, (threads, budget));
        self.count_short_near(&groups.heads, &popular, &mut stats, (threads, budget))?;
        drop(popular);

        // 4: site templates; heads mostly made of template lines are boilerplate too.
        let templates = template::SiteTemplates::learn(
            cfg,
            docs,
            &self.sites,
            &groups.head_of,
            &pairs,
            threads,
            budget.working_memory(),
        )?;
        stats.same_class_pairs = templates.same_class_pairs;
        stats.template_lines = templates.lines.len() as u64;
        let template_share: Vec<f32> = templates.shares(docs, threads)?;
        let (all, kept) =
            template_share
                .iter()
                .enumerate()
                .fold((0u64, 0f64), |(a, k), (d, &share)| {
                    let w = docs.profile_words(d as u32) as u64;
                    (a + w, k + w as f64 * f64::from(share))
                });
        stats.template_word_share = if all == 0 { 0.0 } else { kept / all as f64 };
        for &h in &search {
            let fp = &fps[h as usize];
            let profiled = docs.profile_words(h) as f64;
            let own = profiled * (1.0 - f64::from(template_share[h as usize]));
            let own = own + f64::from(fp.words) - profiled;
            if own < cfg.min_words as f64 {
                boilerplate_head[h as usize] = true;
            }
        }

        // 5: verification on the words and joining to representatives.
        let joined = join::join(
            cfg,
            docs,
            &pairs,
            &templates,
            &boilerplate_head,
            &mut stats,
            (threads, budget.working_memory()),
        )?;
        drop(pairs);
        let clusters = join::gather(fps, &groups.head_of, &joined, &short_web, &mut stats);
        let boilerplate: Vec<u32> = (0..n as u32)
            .filter(|&i| {
                self.judged(i as usize) && boilerplate_head[groups.head_of[i as usize] as usize]
            })
            .collect();
        stats.boilerplate = boilerplate.len() as u64;
        let mut template_lines: Vec<u64> = templates.lines.into_iter().collect();
        template_lines.sort_unstable();
        let clustering = Clustering {
            clusters,
            too_short,
            boilerplate,
            template_share,
            stats,
        };
        // Signatures are read back inside the parallel steps: the first read that failed
        // comes back here.
        self.signatures.take_error()?;
        Ok((clustering, template_lines))
    }

    /// Exact groups over every text with a signature (short ones included); counts Adler-32
    /// collisions among the distinct texts.
    fn exact_groups(&self, stats: &mut ClusterStats) -> ExactGroups {
        let n = self.fps.len();
        let mut exact_head: HashMap<u128, u32> = HashMap::new();
        let mut head_of: Vec<u32> = (0..n as u32).collect();
        let mut heads: Vec<u32> = Vec::new();
        for (i, fp) in self.fps.iter().enumerate() {
            if !self.has_signature(i) {
                continue;
            }
            match exact_head.entry(fp.exact) {
                Entry::Occupied(e) => head_of[i] = *e.get(),
                Entry::Vacant(v) => {
                    v.insert(i as u32);
                    heads.push(i as u32);
                }
            }
        }
        let mut adlers: Vec<u32> = heads
            .iter()
            .map(|&h| self.fps[h as usize].adler32)
            .collect();
        adlers.sort_unstable();
        stats.adler32_collisions = adlers
            .chunk_by(|a, b| a == b)
            .filter(|r| r.len() > 1)
            .map(|r| r.len() as u64)
            .sum();
        ExactGroups { head_of, heads }
    }

    /// Heads of the exact groups of too-short texts shown by more than one site: a short page's
    /// text is mostly what its site's software prints ("Sign in", "No results found", a category
    /// heading), and different sites running the same software print it word for word without
    /// copying each other. The same short text at several addresses of one site is one page
    /// served again, and documents without a site (a text collection's abstracts) are all the
    /// text there is: those stay clustered, as an exact copy is a copy at any length.
    fn short_web_groups(&self, groups: &ExactGroups, stats: &mut ClusterStats) -> Vec<bool> {
        let no_site = self.site_ids.get("").copied();
        let mut by_head: Vec<(u32, u32)> = (0..self.fps.len())
            .filter(|&d| self.has_signature(d) && !self.judged(d))
            .filter(|&d| Some(self.sites[d]) != no_site)
            .map(|d| (groups.head_of[d], self.sites[d]))
            .collect();
        by_head.sort_unstable();
        by_head.dedup();
        let mut out = vec![false; self.fps.len()];
        for run in by_head.chunk_by(|x, y| x.0 == y.0) {
            if run.len() >= 2 {
                out[run[0].0 as usize] = true;
                stats.short_web_exact_groups += 1;
            }
        }
        out
    }

    /// Counts the near-duplicate pairs among too-short texts (same candidates and threshold, on
    /// all their words), for the report: they are not clustered, but a user learns what a lower
    /// `min_words` would join.
    fn count_short_near(
        &self,
        heads: &[u32],
        popular: &Popularity,
        stats: &mut ClusterStats,
        (threads, budget): (usize, &MemoryBudget),
    ) -> Result<(), SpillError> {
        let short: Vec<u32> = heads
            .iter()
            .copied()
            .filter(|&h| !self.judged(h as usize))
            .collect();
        let mut scratch = ClusterStats::default();
        let pairs = self.candidates(&short, popular, &mut scratch, (threads, budget));
        let docs = self.docs()?;
        let shares = template::judge_pairs(
            &pairs,
            threads,
            budget.working_memory(),
            |d| docs.profile_words(d),
            |d, out| {
                docs.profile(d)?.bag_into(|_| true, out);
                Ok(())
            },
            crate::profile::word_share,
        )?;
        let near: Vec<(u32, u32)> = pairs
            .iter()
            .zip(shares)
            .filter(|&(_, s)| s >= self.cfg.threshold)
            .map(|(&p, _)| p)
            .collect();
        let mut docs: Vec<u32> = near.iter().flat_map(|&(a, b)| [a, b]).collect();
        docs.sort_unstable();
        docs.dedup();
        stats.short_near_pairs = near.len() as u64;
        stats.short_near_documents = docs.len() as u64;
        Ok(())
    }

    /// Candidate pairs `(a, b)`, `a < b`, sorted: heads sharing a band key (MinHash, bands
    /// holding a popular row left out) or a pair of SimHash blocks. Band keys take 16 bits a row
    /// (the signature byte and the wide byte of each row's minimum) when every head has them, so
    /// documents meet in a band when their rows' minima agree; fingerprints without wide bytes
    /// (read from an index) key on the signature bytes alone, 8 bits a row, and meet by chance
    /// far more often. Either way each meeting is dropped unless its signatures agree on enough
    /// rows or its SimHashes are close.
    fn candidates(
        &self,
        heads: &[u32],
        popular: &Popularity,
        stats: &mut ClusterStats,
        (threads, budget): (usize, &MemoryBudget),
    ) -> Vec<(u32, u32)> {
        let (cfg, fps, sigs) = (&self.cfg, &self.fps, self.sigs());
        let all_wide = heads.iter().all(|&h| sigs.has_wide(h));
        stats.band_key_bits = if all_wide { 32 } else { 16 };
        let need = fewest_agreements(cfg);
        let threads = threads_within(threads, heads.len(), budget.working_memory());
        let plausible = |a: u32, b: u32| {
            hamming(fps[a as usize].simhash, fps[b as usize].simhash) <= cfg.simhash_max_hamming
                || agreements(&sigs.sig(a), &sigs.sig(b)) >= need
        };
        let bands: Vec<usize> = (0..cfg.lsh_bands).collect();
        let (mut pairs, checks, skipped) = bucket_pairs(
            threads,
            &bands,
            cfg.max_bucket_compare,
            |band, out| {
                let rows = cfg.lsh_rows;
                sigs.rows(heads, band * rows, rows, |i, sig, wide| {
                    let h = heads[i];
                    if popular.band_is_popular(h, band, rows) {
                        return; // a template phrase is no evidence of copying
                    }
                    let key = match (sig, wide) {
                        (Some(s), Some(w)) if all_wide => Some(wide_band_key_of_rows(s, w, band)),
                        (Some(s), _) if !all_wide => Some(fold32(band_key_of_rows(s, band))),
                        _ => None,
                    };
                    if let Some(k) = key {
                        out.push(keyed(k, h));
                    }
                });
            },
            plausible,
        );
        stats.minhash_candidate_checks += checks;
        stats.bucket_comparisons_skipped += skipped;
        let masks = pair_masks(cfg.simhash_max_hamming);
        let tables: Vec<usize> = (0..masks.len()).collect();
        let (block_pairs, checks, skipped) = bucket_pairs(
            threads,
            &tables,
            cfg.max_bucket_compare,
            |table, out| {
                let mask = masks[table];
                out.extend(
                    heads
                        .iter()
                        .map(|&h| keyed(masked_key(fps[h as usize].simhash, mask), h)),
                );
            },
            plausible,
        );
        stats.simhash_candidate_checks += checks;
        stats.bucket_comparisons_skipped += skipped;
        pairs.merge(block_pairs);
        pairs.into_sorted()
    }
}
