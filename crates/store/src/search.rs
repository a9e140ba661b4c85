//! The search scenario: the near-duplicates of one document among an index's documents.
//!
//! A document's candidates are the rows sharing one of its MinHash band keys or SimHash blocks
//! (at most `STORE_MAX_BUCKET_ROWS` per bucket), kept when clustering would keep the pair (SimHash
//! within `simhash_max_hamming`, or signatures agreeing on enough rows for `min_jaccard`) and
//! then verified as clustering verifies: the Dice share of the word multisets outside the index's
//! site-template lines, at least the threshold. A row with the document's exact hash is an exact
//! match at any length; near matches need both texts long enough to judge (`min_words`) and the
//! row not made mostly of template text. Every band is searched, popular ones too: a candidate
//! too many is verified and dropped, not missed.
//!
//! The index keeps no signatures (the band tables hold them), so "agreeing on enough rows" is
//! judged on the bands: a candidate's count of MinHash buckets shared with the document, found
//! while probing, must reach [`band_bound`], the count that a pair agreeing on just the rows
//! `min_jaccard` needs falls below with chance at most `STORE_BAND_SCREEN_MISS`.

use crawlsift_common::limits::{STORE_BAND_SCREEN_MISS, STORE_MAX_BUCKET_ROWS};
use crawlsift_dedup::minhash::agreements_for;
use crawlsift_dedup::profile::{word_share, WordProfile};
use crawlsift_dedup::simhash::hamming;
use crawlsift_dedup::{DedupConfig, Fingerprint};

use crate::bands::{covered_bands, table_count, table_key};
use crate::error::Result;
use crate::index::{DocRef, Index};
use crate::state::{BOILERPLATE, TOO_SHORT};

/// Mark of a row sharing a SimHash block in a search's per-row counts (band counts below it,
/// saturating).
const SIMHASH_HIT: u16 = 0x8000;

/// How a result matches the document searched for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HitKind {
    /// Same normalized text.
    Exact,
    /// Verified near-duplicate.
    Near,
}

impl HitKind {
    /// Its name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            HitKind::Exact => "exact",
            HitKind::Near => "near",
        }
    }
}

/// One result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The indexed document.
    pub doc: DocRef,
    /// Share of words in common (1 for an exact match).
    pub similarity: f32,
    /// How it matches.
    pub kind: HitKind,
}

/// The near-duplicates of the document with fingerprint `fp` at share `threshold`, leaving out
/// `exclude` (the document itself when it is indexed), ranked by similarity (highest first), then
/// index order.
pub fn search(
    index: &Index,
    fp: &Fingerprint,
    threshold: f64,
    exclude: Option<DocRef>,
) -> Result<Vec<Hit>> {
    let cfg = index.config();
    if fp.words == 0 || fp.minhash.len() != cfg.minhash_perms {
        return Ok(Vec::new());
    }
    let judged = fp.words as usize >= cfg.min_words;
    let need = band_bound(cfg);
    let state = index.state();
    let own = |p: &WordProfile| -> Result<Vec<u32>> {
        let mut keep = Ok(());
        let bag = p.bag(|h| match state.is_template(h) {
            Ok(t) => !t,
            Err(e) => {
                keep = Err(e);
                true
            }
        });
        keep.map(|()| bag)
    };
    let mut query_bag: Option<Vec<u32>> = None;
    let mut hits = Vec::new();
    let mut rows = Vec::new();
    // Per row of a segment (at most STORE_SEGMENT_MAX_DOCS of them): MinHash buckets shared
    // with the document, and SIMHASH_HIT when a SimHash block is.
    let mut shared: Vec<u16> = Vec::new();
    for (si, seg) in index.segments().iter().enumerate() {
        shared.clear();
        shared.resize(seg.docs() as usize, 0);
        // Bands whose bucket was cut at STORE_MAX_BUCKET_ROWS count for every candidate.
        let mut cut = 0u32;
        for t in 0..table_count(cfg) {
            let Some(key) = table_key(cfg, t, &fp.minhash, fp.simhash) else {
                continue;
            };
            rows.clear();
            let more = seg.bucket(t, key, STORE_MAX_BUCKET_ROWS, &mut rows)?;
            let band = t < cfg.lsh_bands;
            cut += u32::from(more && band);
            for &r in &rows {
                let Some(c) = shared.get_mut(r as usize) else {
                    continue;
                };
                *c = if band {
                    *c & SIMHASH_HIT | ((*c & !SIMHASH_HIT) + 1).min(!SIMHASH_HIT)
                } else {
                    *c | SIMHASH_HIT
                };
            }
        }
        for (r, &c) in shared.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let (r, bands) = (r as u32, u32::from(c & !SIMHASH_HIT));
            let doc = DocRef {
                segment: si,
                row: r,
            };
            if Some(doc) == exclude {
                continue;
            }
            let row = seg.row(r)?;
            if row.exact == fp.exact {
                hits.push(Hit {
                    doc,
                    similarity: 1.0,
                    kind: HitKind::Exact,
                });
                continue;
            }
            let flags = state.flags(index.number(doc))?;
            if !judged || flags & (TOO_SHORT | BOILERPLATE) != 0 {
                continue;
            }
            let plausible =
                hamming(row.simhash, fp.simhash) <= cfg.simhash_max_hamming || bands + cut >= need;
            if !plausible {
                continue;
            }
            let qb = match &query_bag {
                Some(b) => b,
                None => query_bag.insert(own(&fp.profile)?),
            };
            let share = word_share(qb, &own(&seg.profile(r)?)?);
            if share >= threshold {
                hits.push(Hit {
                    doc,
                    similarity: share as f32,
                    kind: HitKind::Near,
                });
            }
        }
    }
    hits.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(a.doc.cmp(&b.doc))
    });
    Ok(hits)
}

/// Least count of shared MinHash band keys the search keeps a candidate at: for a pair whose
/// signatures agree on `agreements_for(min_jaccard)` of `minhash_perms` rows, placed at random
/// (minima of independent permutations), a band of `lsh_rows` rows agrees whole with chance
/// `q = prod (A - i) / (P - i)`; the count over the bands is bounded below by a binomial of that
/// chance (bands agreeing are negatively correlated, so the binomial spreads wider: the bound is
/// conservative). The bound is the largest count the binomial stays below with chance at most
/// `STORE_BAND_SCREEN_MISS`; pairs agreeing on more rows pass more surely still.
pub fn band_bound(cfg: &DedupConfig) -> u32 {
    let bands = covered_bands(cfg);
    let perms = cfg.minhash_perms as f64;
    let a = f64::from(agreements_for(cfg.min_jaccard, cfg.minhash_perms));
    let q: f64 = (0..cfg.lsh_rows)
        .map(|i| ((a - i as f64) / (perms - i as f64)).clamp(0.0, 1.0))
        .product();
    // P(X = k) for X ~ Binomial(bands, q), summed from k = 0 while under the miss chance.
    let ln_choose = |n: usize, k: usize| -> f64 {
        (0..k)
            .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
            .sum()
    };
    let mut below = 0.0;
    for k in 0..=bands {
        let p = if q <= 0.0 {
            f64::from(u8::from(k == 0))
        } else if q >= 1.0 {
            f64::from(u8::from(k == bands))
        } else {
            (ln_choose(bands, k) + k as f64 * q.ln() + (bands - k) as f64 * (1.0 - q).ln()).exp()
        };
        if below + p > STORE_BAND_SCREEN_MISS {
            return k as u32;
        }
        below += p;
    }
    bands as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_bound_follows_the_threshold() {
        // At the default min_jaccard (0.19) a pair needs 37 agreeing rows, 3.5 whole bands on
        // average: the bound is 0 and every candidate is verified on its words.
        assert_eq!(band_bound(&DedupConfig::default()), 0);
        let cfg = DedupConfig {
            min_jaccard: 0.6,
            ..DedupConfig::default()
        };
        let b = band_bound(&cfg);
        assert!(b > 0 && (b as usize) < cfg.lsh_bands, "{b}");
        let loose = DedupConfig {
            min_jaccard: 0.3,
            ..cfg.clone()
        };
        let strict = DedupConfig {
            min_jaccard: 0.95,
            ..cfg.clone()
        };
        assert!(band_bound(&loose) < b && b < band_bound(&strict));
        // Simulated pairs at exactly the rows needed: the bound misses about STORE_BAND_SCREEN_MISS.
        let a = agreements_for(cfg.min_jaccard, cfg.minhash_perms) as usize;
        let mut state = 11u64;
        let mut missed = 0;
        for _ in 0..5_000 {
            let mut pos: Vec<usize> = (0..cfg.minhash_perms).collect();
            for i in 0..a {
                state = crawlsift_dedup::minhash::mix64(state);
                let j = i + state as usize % (pos.len() - i);
                pos.swap(i, j);
            }
            let mut agree = vec![false; cfg.minhash_perms];
            pos[..a].iter().for_each(|&p| agree[p] = true);
            let full = agree
                .chunks(cfg.lsh_rows)
                .take(cfg.lsh_bands)
                .filter(|c| c.iter().all(|&x| x))
                .count() as u32;
            missed += u32::from(full < b);
        }
        assert!(missed <= 15, "{missed} of 5000 dropped");
    }
}
