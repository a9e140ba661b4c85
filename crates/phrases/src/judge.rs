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

/// Lists of classes, one list per borrowed shingle, stored flat.
#[derive(Debug, Default, Clone)]
struct Lists {
    classes: Vec<u32>,
    ends: Vec<u32>,
}

impl Lists {
    fn clear(&mut self) {
        self.classes.clear();
        self.ends.clear();
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Ends the list being pushed.
    fn close(&mut self) {
        self.ends.push(self.classes.len() as u32);
    }

    fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&e| {
            let list = &self.classes[start..e as usize];
            start = e as usize;
            list
        })
    }

    /// The lists of `from`, each keeping the classes `keep` accepts, empty lists left out.
    fn filtered(&mut self, from: &Lists, keep: impl Fn(u32) -> bool) {
        self.clear();
        for list in from.iter() {
            let before = self.classes.len();
            self.classes
                .extend(list.iter().copied().filter(|&c| keep(c)));
            if self.classes.len() > before {
                self.close();
            }
        }
    }
}

/// Judges pages against one table ([`judge`] for one page), reusing its buffers: one per thread.
#[derive(Debug)]
pub struct Judge<'t> {
    table: &'t PopularTable,
    cfg: &'t JudgeConfig,
    /// The classes (besides the page's own) holding each borrowed shingle.
    holders: Lists,
    /// Those not themselves stitched.
    independent: Lists,
    /// Scratch of [`Judge::rule`].
    kept: Lists,
    sorted: Vec<u32>,
}

impl<'t> Judge<'t> {
    /// A judge of pages against `table` under `cfg`.
    pub fn new(table: &'t PopularTable, cfg: &'t JudgeConfig) -> Self {
        Judge {
            table,
            cfg,
            holders: Lists::default(),
            independent: Lists::default(),
            kept: Lists::default(),
            sorted: Vec::new(),
        }
    }

    /// Whether borrowed shingles `lists` (of a page of `n` shingles) make the page stitched, at
    /// least `share` of them borrowed, counting only classes that share at least
    /// [`min_source_shingles`](JudgeConfig::min_source_shingles) of the page's shingles.
    fn rule(
        cfg: &JudgeConfig,
        lists: &Lists,
        n: f64,
        share: f64,
        kept: &mut Lists,
        sorted: &mut Vec<u32>,
    ) -> bool {
        // Leaving classes out only shortens the lists: too few lists are too few kept.
        let most = lists.len();
        if most < cfg.min_borrowed || (most as f64) < share * n {
            return false;
        }
        sorted.clear();
        sorted.extend_from_slice(&lists.classes);
        sorted.sort_unstable();
        let evidenced = |c: u32| {
            let lo = sorted.partition_point(|&x| x < c);
            let hi = sorted.partition_point(|&x| x <= c);
            hi - lo >= cfg.min_source_shingles
        };
        kept.filtered(lists, evidenced);
        let b = kept.len();
        if b < cfg.min_borrowed || (b as f64) < share * n {
            return false;
        }
        let sources = greedy_cover(&kept.iter().collect::<Vec<_>>());
        let largest = sources.iter().map(|c| c.shared).max().unwrap_or(0) as f64;
        sources.len() >= cfg.min_sources && largest <= cfg.max_source_share * b as f64
    }

    /// Judges one page, given the entries of its popular shingles ([`PopularTable::hits`]).
    /// `stitched[c]` marks classes already judged slice-and-dice (empty: none): text a page
    /// shares only with such pages is not counted as borrowed when deciding, for the pages a
    /// stitched page quoted share its sentences too, and they are its sources, not stitches (the
    /// covering set still names every holder).
    pub fn judge(&mut self, page: &PageInput<'_>, hits: &[u32], stitched: &[bool]) -> PageVerdict {
        self.verdict(page, hits, stitched, false)
            .expect("a verdict is always given when not only asked for changes")
    }

    /// Judges a page again once `stitched` is known: `None` when none of the classes it
    /// borrows from is stitched, so its verdict is the one [`judge`](Self::judge) gave it with
    /// no class stitched.
    pub fn rejudge(
        &mut self,
        page: &PageInput<'_>,
        hits: &[u32],
        stitched: &[bool],
    ) -> Option<PageVerdict> {
        self.verdict(page, hits, stitched, true)
    }

    fn verdict(
        &mut self,
        page: &PageInput<'_>,
        hits: &[u32],
        stitched: &[bool],
        only_changes: bool,
    ) -> Option<PageVerdict> {
        let (table, cfg) = (self.table, self.cfg);
        let mut popular = 0u32;
        let mut template = 0u32;
        self.holders.clear();
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
            self.holders
                .classes
                .extend(p.holders.iter().filter(|h| h.0 != page.class).map(|h| h.0));
            self.holders.close();
        }
        let borrowed = self.holders.len() as u32;
        let is_stitched = |c: u32| stitched.get(c as usize).copied().unwrap_or(false);
        self.independent
            .filtered(&self.holders, |c| !is_stitched(c));
        // No class left out: the lists are what they are with none stitched.
        if only_changes && self.independent.classes.len() == self.holders.classes.len() {
            return None;
        }
        let n = page.shingles.len().max(1) as f64;
        let (kept, sorted) = (&mut self.kept, &mut self.sorted);
        let own_rule = Self::rule(
            cfg,
            &self.independent,
            n,
            cfg.min_borrowed_share,
            kept,
            sorted,
        );
        // A page mostly made of borrowed text is stitched whoever else holds it: a farm of
        // stitched pages sharing sentences only among themselves is one.
        let slice_and_dice = own_rule
            || (self.independent.len() < self.holders.len()
                && Self::rule(cfg, &self.holders, n, cfg.self_evident_share, kept, sorted));
        let cover = if slice_and_dice {
            self.cover(page, hits, &is_stitched)
        } else {
            Vec::new()
        };
        Some(PageVerdict {
            shingles: page.shingles.len() as u32,
            popular,
            template,
            borrowed,
            independent: self.independent.len() as u32,
            cover,
            slice_and_dice,
        })
    }

    /// The covering set of a stitched page: sources not themselves stitched first, then, for
    /// what only stitched pages hold, those; each class named by the first page the page's
    /// popular shingles (in order) give for it.
    fn cover(
        &self,
        page: &PageInput<'_>,
        hits: &[u32],
        is_stitched: &impl Fn(u32) -> bool,
    ) -> Vec<(Covered, u32)> {
        let mut first_page: Vec<(u32, u32)> = Vec::new(); // (class, page), ascending by class
        for p in hits
            .iter()
            .filter_map(|&h| self.table.phrases.get(h as usize))
        {
            if p.is_template(self.cfg.max_classes)
                || p.holders
                    .iter()
                    .any(|h| h.0 != page.class && h.1 == page.host)
            {
                continue;
            }
            for &(c, _, d) in p.holders.iter().filter(|h| h.0 != page.class) {
                if let Err(i) = first_page.binary_search_by_key(&c, |x| x.0) {
                    first_page.insert(i, (c, d));
                }
            }
        }
        let independent: Vec<&[u32]> = self.independent.iter().collect();
        let rest: Vec<&[u32]> = self
            .holders
            .iter()
            .filter(|hs| hs.iter().all(|&c| is_stitched(c)))
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
    }
}

/// Judges one page against the table, given the entries of its popular shingles
/// ([`PopularTable::hits`]); see [`Judge::judge`] (which reuses its buffers across pages).
pub fn judge(
    page: &PageInput<'_>,
    hits: &[u32],
    table: &PopularTable,
    cfg: &JudgeConfig,
    stitched: &[bool],
) -> PageVerdict {
    Judge::new(table, cfg).judge(page, hits, stitched)
}
