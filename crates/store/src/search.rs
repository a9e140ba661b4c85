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

use crawlsift_common::limits::STORE_MAX_BUCKET_ROWS;
use crawlsift_dedup::minhash::{agreements, agreements_for};
use crawlsift_dedup::profile::{word_share, WordProfile};
use crawlsift_dedup::simhash::hamming;
use crawlsift_dedup::Fingerprint;

use crate::bands::{key_of, table_count};
use crate::error::Result;
use crate::index::{DocRef, Index};
use crate::state::{BOILERPLATE, TOO_SHORT};

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
    let need = agreements_for(cfg.min_jaccard, cfg.minhash_perms);
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
    for (si, seg) in index.segments().iter().enumerate() {
        rows.clear();
        for t in 0..table_count(cfg) {
            if let Some(key) = key_of(cfg, t, &fp.minhash, fp.simhash) {
                seg.bucket(t, key, STORE_MAX_BUCKET_ROWS, &mut rows)?;
            }
        }
        rows.sort_unstable();
        rows.dedup();
        for &r in &rows {
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
            let plausible = hamming(row.simhash, fp.simhash) <= cfg.simhash_max_hamming
                || agreements(&seg.signature(r)?, &fp.minhash) >= need;
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
