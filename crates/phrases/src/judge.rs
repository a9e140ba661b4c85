//! Per page: which of its shingles are popular, which of those are template and which borrowed,
//! the covering set of the borrowed ones, and the verdict.
//!
//! **The rule.** Pages are judged twice: a first pass finds the pages that look stitched; the
//! second judges every page again, counting as borrowed only shingles that a page *not* found
//! stitched also holds. (A page quoted by three stitched pages shares a few sentences with each,
//! just as they share with it; the difference is the direction, which the first pass tells.)
//! Pages sharing text only with stitched pages are still stitched when at least
//! [`self_evident_share`](JudgeConfig::self_evident_share) of their shingles are borrowed (a farm
//! stitching from a sentence pool of its own). A page is slice-and-dice when
//! * at least [`min_borrowed`](JudgeConfig::min_borrowed) of its shingles, and at least
//!   [`min_borrowed_share`](JudgeConfig::min_borrowed_share) of them, are borrowed (popular and
//!   not template: see [`crate::popular`]) from pages not themselves stitched;
//! * the covering set of its borrowed shingles has at least
//!   [`min_sources`](JudgeConfig::min_sources) classes: its text comes from many places;
//! * no one class covers more than [`max_source_share`](JudgeConfig::max_source_share) of them:
//!   a page made mostly of one other page (a near-miss, an unclustered copy, a quotation) is not
//!   stitched, whatever else it quotes.
//!
//! **Sources are classes with evidence.** In all three, a class counts as a source only when it
//! shares at least [`min_source_shingles`](JudgeConfig::min_source_shingles) (2) of the page's
//! shingles. One shared 5-word phrase is what two unrelated pages share when both use a stock
//! phrase of the language; the more pages a corpus has, the more unrelated classes hold each
//! stock phrase, so without this a short page of 60-100 words "borrowed" 6-10 shingles from 6-10
//! classes at 60,000 pages (and a near-miss page's one real source was outnumbered by such
//! classes, so it no longer covered more than half). A copied sentence gives its source several
//! shared phrases; two chance coincidences with the same class have the square of the chance of
//! one, which does not grow into a rule-breaking count with the corpus. The covering set written
//! out still names every holder, one-shingle ones too (they are often real sources sampled once).
//!
//! These were chosen on two makecorpus corpora (seeds 23 and 29 at 10,000 pages, and seed 31 at
//! 60,000) and checked on corpora never looked at before (see the README section "Phrase-level
//! duplication").

use crawlsift_common::limits;
use serde::{Deserialize, Serialize};

use crate::cover::{greedy_cover, Covered};
use crate::popular::{PageInput, PopularTable};

/// The thresholds of the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeConfig {
    /// Fewest borrowed shingles.
    pub min_borrowed: usize,
    /// Smallest share of the page's shingles that are borrowed.
    pub min_borrowed_share: f64,
    /// Share of borrowed shingles from which a page is stitched even when only stitched pages
    /// hold them.
    pub self_evident_share: f64,
    /// Fewest classes in the covering set.
    pub min_sources: usize,
    /// Fewest of the page's shingles a class must share to count as a source.
    pub min_source_shingles: usize,
    /// Largest share of the borrowed shingles one class may cover.
    pub max_source_share: f64,
    /// Classes kept per popular phrase; phrases in more are template.
    pub max_classes: usize,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            min_borrowed: limits::PHRASE_MIN_BORROWED,
            min_borrowed_share: limits::PHRASE_MIN_BORROWED_SHARE,
            self_evident_share: limits::PHRASE_SELF_EVIDENT_SHARE,
            min_sources: limits::PHRASE_MIN_SOURCES,
            min_source_shingles: limits::PHRASE_MIN_SOURCE_SHINGLES,
            max_source_share: limits::PHRASE_MAX_SOURCE_SHARE,
            max_classes: limits::PHRASE_MAX_CLASSES,
        }
    }
}

/// What one page's shingles say.
#[derive(Debug, Clone, PartialEq)]
pub struct PageVerdict {
    /// Its shingles.
    pub shingles: u32,
    /// Shingles popular (in another class too), template or not.
    pub popular: u32,
    /// Popular shingles that are template text.
    pub template: u32,
    /// Popular shingles that are borrowed.
    pub borrowed: u32,
    /// Borrowed shingles found on a page not itself stitched (what the verdict counts).
    pub independent: u32,
    /// The covering set of the borrowed shingles, with a page of each class (made only for
    /// pages judged slice-and-dice: it is what their lines name).
    pub cover: Vec<(Covered, u32)>,
    /// Whether the page is slice-and-dice.
    pub slice_and_dice: bool,
}

/// Whether borrowed shingles `holders` (of a page of `n` shingles) make the page stitched, at
/// least `share` of them borrowed, counting only classes that share at least
/// [`min_source_shingles`](JudgeConfig::min_source_shingles) of the page's shingles.
fn rule(holders: &[Vec<u32>], n: f64, share: f64, cfg: &JudgeConfig) -> bool {
    let mut shared: Vec<u32> = holders.iter().flatten().copied().collect();
    shared.sort_unstable();
    let evidenced = |c: &u32| {
        let lo = shared.partition_point(|x| x < c);
        let hi = shared.partition_point(|x| x <= c);
        hi - lo >= cfg.min_source_shingles
    };
    let kept: Vec<Vec<u32>> = holders
        .iter()
        .map(|hs| hs.iter().copied().filter(evidenced).collect::<Vec<u32>>())
        .filter(|hs| !hs.is_empty())
        .collect();
    let b = kept.len();
    if b < cfg.min_borrowed || (b as f64) < share * n {
        return false;
    }
    let sources = greedy_cover(&kept);
    let largest = sources.iter().map(|c| c.shared).max().unwrap_or(0) as f64;
    sources.len() >= cfg.min_sources && largest <= cfg.max_source_share * b as f64
}

/// Judges one page against the table, given the entries of its popular shingles
/// ([`PopularTable::hits`]). `stitched[c]` marks classes already judged
/// slice-and-dice (empty: none): text a page shares only with such pages is not counted as
/// borrowed when deciding, for the pages a stitched page quoted share its sentences too, and
/// they are its sources, not stitches (the covering set still names every holder).
pub fn judge(
    page: &PageInput<'_>,
    hits: &[u32],
    table: &PopularTable,
    cfg: &JudgeConfig,
    stitched: &[bool],
) -> PageVerdict {
    let mut popular = 0u32;
    let mut template = 0u32;
    let mut holders: Vec<Vec<u32>> = Vec::new();
    let mut first_page: Vec<(u32, u32)> = Vec::new(); // (class, page), to name each class
    for &hit in hits {
        let Some(p) = table.phrases.get(hit as usize) else {
            continue;
        };
        // Every table entry is in two classes at least, so in one besides the page's own.
        popular += 1;
        if p.is_template(cfg.max_classes)
            || p.holders
                .iter()
                .any(|h| h.0 != page.class && h.1 == page.host)
        {
            template += 1;
            continue;
        }
        let mut hs = Vec::new();
        for &(c, _, d) in p.holders.iter().filter(|h| h.0 != page.class) {
            hs.push(c);
            if let Err(i) = first_page.binary_search_by_key(&c, |x| x.0) {
                first_page.insert(i, (c, d));
            }
        }
        holders.push(hs);
    }
    let borrowed = holders.len() as u32;
    let is_stitched = |c: u32| stitched.get(c as usize).copied().unwrap_or(false);
    let independent: Vec<Vec<u32>> = holders
        .iter()
        .map(|hs| {
            hs.iter()
                .copied()
                .filter(|&c| !is_stitched(c))
                .collect::<Vec<u32>>()
        })
        .filter(|hs| !hs.is_empty())
        .collect();
    let n = page.shingles.len().max(1) as f64;
    let own_rule = rule(&independent, n, cfg.min_borrowed_share, cfg);
    // A page mostly made of borrowed text is stitched whoever else holds it: a farm of stitched
    // pages sharing sentences only among themselves is one.
    let slice_and_dice = own_rule
        || (independent.len() < holders.len() && rule(&holders, n, cfg.self_evident_share, cfg));
    let own = independent.len();
    // The covering set names sources not themselves stitched first, then, for what only
    // stitched pages hold, those.
    let cover: Vec<(Covered, u32)> = if slice_and_dice {
        let rest: Vec<Vec<u32>> = holders
            .iter()
            .filter(|hs| hs.iter().all(|&c| is_stitched(c)))
            .cloned()
            .collect();
        greedy_cover(&independent)
            .into_iter()
            .chain(greedy_cover(&rest))
            .map(|c| {
                let d = first_page
                    .binary_search_by_key(&c.class, |x| x.0)
                    .map_or(u32::MAX, |i| first_page[i].1);
                (c, d)
            })
            .collect()
    } else {
        Vec::new()
    };
    PageVerdict {
        shingles: page.shingles.len() as u32,
        popular,
        template,
        borrowed,
        independent: own as u32,
        cover,
        slice_and_dice,
    }
}
