//! Reuse among many documents: each document's winnowed fingerprints ([`Sketch`]) go into one
//! index ([`Corpus::add`]), sorted into posting lists when all are in ([`Corpus::candidates`]):
//! two documents are candidates when [`ReuseConfig::min_shared`] posting lists hold both, unless the list is boilerplate
//! (more than [`ReuseConfig::max_posting`] documents) or the fingerprint is their site's template
//! (held by [`ReuseConfig::site_template_pages`] pages of that site). Each document keeps at most
//! [`ReuseConfig::max_partners`] partners, those sharing the most fingerprints. The candidates
//! are then aligned ([`Candidates::align`]) on their texts, which the caller fetches by document
//! number (from a spill file, say), and each pair that shares a passage is a [`Pair`].
//!
//! Memory: 16 bytes a fingerprint in the index and 9 more while candidates are found; one
//! document's partners per thread; each pair's words while it is aligned. Everything comes out
//! in document order, the same for any thread count.

use std::collections::HashMap;

use crawlsift_common::parallel::in_parallel;

use crawlsift_common::limits::REUSE_PREPARED_CACHE_BYTES;

use crate::align::{align_prepared, Passage, Prepared};
use crate::sketch::winnow;
use crate::words::Words;
use crate::{share, ReuseConfig, ReuseError};

/// A document's fingerprints as the index keeps them: its distinct winnowed shingle hashes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sketch {
    /// Distinct fingerprint hashes, sorted.
    pub hashes: Vec<u64>,
}

impl Sketch {
    /// The sketch of a document's words.
    pub fn of(words: &Words, cfg: &ReuseConfig) -> Sketch {
        let mut hashes: Vec<u64> = winnow(
            &words.hashes,
            cfg.shingle_words,
            cfg.winnow_window,
            cfg.max_fingerprints,
        )
        .into_iter()
        .map(|f| f.hash)
        .collect();
        hashes.sort_unstable();
        hashes.dedup();
        Sketch { hashes }
    }
}

/// Two documents sharing text: document numbers (`a` < `b`, the order they were added in; which
/// is the source is not claimed), the share of each one's words inside the passages, and the
/// passages.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The earlier document.
    pub a: u32,
    /// The later document.
    pub b: u32,
    /// Share of `a`'s words inside the passages.
    pub a_share: f64,
    /// Share of `b`'s words inside the passages.
    pub b_share: f64,
    /// The passages, in order of their place in `a`.
    pub passages: Vec<Passage>,
}

/// The fingerprints of every document added so far.
#[derive(Debug)]
pub struct Corpus {
    cfg: ReuseConfig,
    sites: Vec<Option<u32>>,
    /// (hash, document) of every fingerprint.
    entries: Vec<(u64, u32)>,
}

/// What a fingerprint of a document does in the candidate search.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Pairs the document with the others holding it.
    Live,
    /// The template of the document's site: pairs nobody, masks the words in alignment.
    Template,
    /// Held by too many documents: pairs nobody.
    Common,
}

/// Candidate pairs of a corpus, and each document's template fingerprints, ready to align.
#[derive(Debug)]
pub struct Candidates {
    cfg: ReuseConfig,
    /// (a, b) with a < b, sorted.
    pub pairs: Vec<(u32, u32)>,
    /// Template fingerprints by document (only documents that have some), sorted.
    template: HashMap<u32, Vec<u64>>,
    /// Fingerprints that pair nobody for being in too many documents.
    pub common_fingerprints: u64,
    /// Fingerprints that are a site's template, counted once per document.
    pub template_fingerprints: u64,
}

impl Corpus {
    /// An empty index (the configuration is checked).
    pub fn new(cfg: &ReuseConfig) -> Result<Corpus, ReuseError> {
        cfg.check()?;
        Ok(Corpus {
            cfg: cfg.clone(),
            sites: Vec::new(),
            entries: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ReuseConfig {
        &self.cfg
    }

    /// Adds the next document (its number is the count before it) with its site, when known
    /// (a number for the URL's host: documents of one site learn its template together).
    pub fn add(&mut self, sketch: &Sketch, site: Option<u32>) -> u32 {
        let doc = self.sites.len() as u32;
        self.sites.push(site);
        self.entries.extend(sketch.hashes.iter().map(|&h| (h, doc)));
        doc
    }

    /// Documents added.
    pub fn documents(&self) -> usize {
        self.sites.len()
    }

    /// Fingerprints held.
    pub fn fingerprints(&self) -> usize {
        self.entries.len()
    }

    /// Sorts the fingerprints into posting lists and finds the candidate pairs, on `threads`
    /// threads (the result does not depend on it).
    pub fn candidates(mut self, threads: usize) -> Candidates {
        self.entries.sort_unstable();
        self.entries.dedup();
        let entries = &self.entries;
        let mut roles = vec![Role::Live; entries.len()];
        // Where each fingerprint's posting list starts.
        let mut run_start = vec![0u32; entries.len()];
        let mut template: HashMap<u32, Vec<u64>> = HashMap::new();
        let (mut common_fingerprints, mut template_fingerprints) = (0u64, 0u64);
        let mut sites: Vec<u32> = Vec::new();
        let mut s = 0;
        while s < entries.len() {
            let h = entries[s].0;
            let e = s + entries[s..].partition_point(|x| x.0 == h);
            run_start[s..e].fill(s as u32);
            if e - s >= 2 {
                // Sites holding this fingerprint on enough pages: their template.
                sites.clear();
                sites.extend(
                    entries[s..e]
                        .iter()
                        .filter_map(|x| self.sites[x.1 as usize]),
                );
                sites.sort_unstable();
                let mut tsites: Vec<u32> = Vec::new();
                for run in sites.chunk_by(|x, y| x == y) {
                    if run.len() >= self.cfg.site_template_pages {
                        tsites.push(run[0]);
                    }
                }
                let mut live = e - s;
                if !tsites.is_empty() {
                    for n in s..e {
                        let doc = entries[n].1;
                        if let Some(site) = self.sites[doc as usize] {
                            if tsites.binary_search(&site).is_ok() {
                                roles[n] = Role::Template;
                                template.entry(doc).or_default().push(h);
                                template_fingerprints += 1;
                                live -= 1;
                            }
                        }
                    }
                }
                if live > self.cfg.max_posting {
                    common_fingerprints += 1;
                    for r in roles[s..e].iter_mut().filter(|r| **r == Role::Live) {
                        *r = Role::Common;
                    }
                }
            }
            s = e;
        }
        for hashes in template.values_mut() {
            hashes.sort_unstable();
        }
        // Each document's fingerprints (indexes into `entries`), by a counting sort.
        let n = self.sites.len();
        let mut start = vec![0u32; n + 1];
        for x in entries {
            start[x.1 as usize + 1] += 1;
        }
        for d in 0..n {
            start[d + 1] += start[d];
        }
        let mut by_doc = vec![0u32; entries.len()];
        let mut fill = start.clone();
        for (i, x) in entries.iter().enumerate() {
            by_doc[fill[x.1 as usize] as usize] = i as u32;
            fill[x.1 as usize] += 1;
        }
        drop(fill);
        let docs: Vec<u32> = (0..n as u32).collect();
        let (roles, by_doc, start, run_start, cfg) =
            (&roles, &by_doc, &start, &run_start, &self.cfg);
        let parts = in_parallel(threads, &docs, |chunk| {
            let mut pairs = Vec::new();
            let mut partners: Vec<u32> = Vec::new();
            let mut counted: Vec<(u32, u32)> = Vec::new();
            for &d in chunk {
                partners.clear();
                for &i in &by_doc[start[d as usize] as usize..start[d as usize + 1] as usize] {
                    let i = i as usize;
                    if roles[i] != Role::Live {
                        continue;
                    }
                    let h = entries[i].0;
                    let s = run_start[i] as usize;
                    let e = s + entries[s..].iter().take_while(|x| x.0 == h).count();
                    for m in s..e {
                        if entries[m].1 > d && roles[m] == Role::Live {
                            partners.push(entries[m].1);
                        }
                    }
                }
                partners.sort_unstable();
                counted.clear();
                counted.extend(
                    partners
                        .chunk_by(|x, y| x == y)
                        .map(|r| (r[0], r.len() as u32))
                        .filter(|&(_, c)| c as usize >= cfg.min_shared),
                );
                if counted.len() > cfg.max_partners {
                    counted.sort_unstable_by_key(|&(e, c)| (std::cmp::Reverse(c), e));
                    counted.truncate(cfg.max_partners);
                    counted.sort_unstable();
                }
                pairs.extend(counted.iter().map(|&(e, _)| (d, e)));
            }
            pairs
        });
        Candidates {
            cfg: self.cfg.clone(),
            pairs: parts.concat(),
            template,
            common_fingerprints,
            template_fingerprints,
        }
    }
}

impl Candidates {
    /// The words of document `doc` whose fingerprints are its site's template: the words of
    /// each such winnowed shingle (consecutive kept shingles are at most w words apart, so with
    /// k >= w a template passage is masked whole).
    pub fn template_mask(&self, doc: u32, words: &Words) -> Vec<bool> {
        let Some(hashes) = self.template.get(&doc) else {
            return Vec::new();
        };
        let cfg = &self.cfg;
        let mut mask = vec![false; words.len()];
        let k = cfg.shingle_words.max(cfg.winnow_window);
        for f in winnow(
            &words.hashes,
            cfg.shingle_words,
            cfg.winnow_window,
            cfg.max_fingerprints,
        ) {
            if hashes.binary_search(&f.hash).is_ok() {
                let s = f.word as usize;
                for m in &mut mask[s..(s + k).min(words.len())] {
                    *m = true;
                }
            }
        }
        mask
    }

    /// Aligns every candidate pair on `threads` threads, fetching a document's text with `text`
    /// (once per document and thread while the prepared documents fit
    /// [`REUSE_PREPARED_CACHE_BYTES`], again after), and
    /// returns the pairs that share a passage, in (a, b) order. `text`'s first error stops it.
    pub fn align<E: Send>(
        &self,
        threads: usize,
        text: impl Fn(u32) -> Result<String, E> + Sync,
    ) -> Result<Vec<Pair>, E> {
        let cfg = &self.cfg;
        let parts = in_parallel(threads, &self.pairs, |chunk| -> Result<Vec<Pair>, E> {
            let mut out = Vec::new();
            // Prepared documents of this chunk, dropped all at once past the budget.
            let mut cache: HashMap<u32, std::rc::Rc<Prepared>> = HashMap::new();
            let mut held = 0usize;
            let mut prepared = |d: u32| -> Result<std::rc::Rc<Prepared>, E> {
                if let Some(p) = cache.get(&d) {
                    return Ok(p.clone());
                }
                let w = Words::of(&text(d)?, cfg.max_words);
                let m = self.template_mask(d, &w);
                let p = std::rc::Rc::new(Prepared::new(w, &m, cfg));
                if held + p.weight() > REUSE_PREPARED_CACHE_BYTES {
                    cache.clear();
                    held = 0;
                }
                held += p.weight();
                cache.insert(d, p.clone());
                Ok(p)
            };
            for &(a, b) in chunk {
                let (pa, pb) = (prepared(a)?, prepared(b)?);
                let passages = align_prepared(&pa, &pb, cfg);
                if passages.is_empty() {
                    continue;
                }
                out.push(Pair {
                    a,
                    b,
                    a_share: share(pa.words.len(), passages.iter().map(|p| p.a_words)),
                    b_share: share(pb.words.len(), passages.iter().map(|p| p.b_words)),
                    passages,
                });
            }
            Ok(out)
        });
        let mut all = Vec::new();
        for p in parts {
            all.extend(p?);
        }
        Ok(all)
    }
}
