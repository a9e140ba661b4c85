/*!
Phrase-level duplication: pages stitched from sentences of many other pages ("slice and dice"),
after Fetterly, Manasse and Najork, "Detecting phrase-level duplication on the World Wide Web"
(SIGIR 2005).

The method, step by step, and the choices made here:

* [`sketch`]: every k consecutive words of a page's main text (as `dedup` normalises it) is a
  phrase, the text taken as a circle so n words give n phrases; words and then phrases are
  Rabin-fingerprinted (`crawlsift_dedup::rabin`), and m min-hashes keep the page's m shingles.
  k = 5 as in the paper. The paper keeps m = 84; here m = 512
  ([`PHRASE_SHINGLES`](crawlsift_common::limits::PHRASE_SHINGLES)): a source that gave the page
  one sentence is named only if one of its ~10 inner phrases is sampled in both pages, which
  happens about m / (n1 + n2) of the time per phrase for pages of n1 and n2 words; the paper aimed
  at popular phrases over millions of pages, not at naming every source of one page (m = 256
  named 0.90 of the sources on the 20k corpus, m = 512 names 0.96). The m min-hashes are one hash cut
  into m bins (one permutation hashing), so they cost one hash per phrase.
* [`popular`]: pages are collapsed into `dedup`'s equivalence classes (exact and near duplicates)
  and a shingle counts once per class; it is popular in two classes or more (the chance model:
  only a 64-bit collision makes two classes share a shingle without sharing the phrase). Template
  phrases (repeated within a host or a template) are told apart from borrowed ones.
* [`judge`]: the borrowed shingles of each page, their covering set ([`cover`]: greedy set cover,
  the fewest other classes whose shingles cover them), and the verdict.

[`analyze`] runs the last two steps on a corpus of sketches and gives a serialisable summary
([`Summary`]): the threshold and chance model, the rank/frequency table of popularity with its
fitted Zipf exponent, and the histogram of popular shingles per page.

```
use crawlsift_phrases::{analyze, JudgeConfig, PageInput, SketchConfig, Sketcher};

let mut sk = Sketcher::new(&SketchConfig { shingles: 4096, ..SketchConfig::default() });
let sources: Vec<String> = (0..4)
    .map(|s| (0..60).map(|w| format!("s{s}w{w} ")).collect())
    .collect();
// A page stitched from the first 20 words of each source.
let stitched: String = sources
    .iter()
    .map(|t| t.split(' ').take(20).collect::<Vec<_>>().join(" ") + " ")
    .collect();
let mut texts = sources.clone();
texts.push(stitched);
let sketches: Vec<_> = texts.iter().map(|t| sk.sketch(t)).collect();
let pages: Vec<PageInput> = sketches
    .iter()
    .enumerate()
    .map(|(i, s)| PageInput { shingles: &s.shingles, class: i as u32, host: i as u32 })
    .collect();
let a = analyze(&pages, &JudgeConfig::default(), 2);
assert!(a.verdicts[4].slice_and_dice);
assert_eq!(a.verdicts[4].cover.len(), 4);
assert!(!a.verdicts[0].slice_and_dice);
```
*/

#![deny(missing_docs)]

pub mod cover;
pub mod judge;
pub mod popular;
pub mod repeats;
pub mod sketch;

use crawlsift_common::parallel::in_parallel;
use serde::Serialize;

pub use cover::{greedy_cover, Covered};
pub use judge::{judge, Judge, JudgeConfig, PageVerdict};
pub use popular::{ChanceModel, PageInput, Popular, PopularTable};
pub use repeats::{DropReport, SentenceFilter};
pub use sketch::{Sketch, SketchConfig, Sketcher};

/// The popular phrases of a corpus and every page's verdict.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Popular shingles.
    pub table: PopularTable,
    /// One verdict per page, in page order.
    pub verdicts: Vec<PageVerdict>,
    /// The thresholds used.
    pub config: JudgeConfig,
}

/// Builds the popular table of `pages` and judges each page, on `threads` threads (the same
/// answer for any thread count).
pub fn analyze(pages: &[PageInput<'_>], cfg: &JudgeConfig, threads: usize) -> Analysis {
    let table = PopularTable::build(pages, cfg.max_classes.max(1), threads);
    let order: Vec<usize> = (0..pages.len()).collect();
    let first: Vec<PageVerdict> = in_parallel(threads, &order, |chunk| {
        let mut j = Judge::new(&table, cfg);
        chunk
            .iter()
            .map(|&i| j.judge(&pages[i], table.page_hits(i), &[]))
            .collect::<Vec<_>>()
    })
    .concat();
    let classes = pages
        .iter()
        .map(|p| p.class as usize + 1)
        .max()
        .unwrap_or(0);
    let mut stitched = vec![false; classes];
    for (p, v) in pages.iter().zip(&first) {
        if v.slice_and_dice {
            stitched[p.class as usize] = true;
        }
    }
    // Leaving out holders only takes borrowed shingles away: a page with too few to be stitched
    // in the first pass keeps its verdict, and so does a page borrowing from no stitched class.
    let again: Vec<usize> = order
        .into_iter()
        .filter(|&i| first[i].borrowed as usize >= cfg.min_borrowed)
        .collect();
    let changed: Vec<Option<PageVerdict>> = in_parallel(threads, &again, |chunk| {
        let mut j = Judge::new(&table, cfg);
        chunk
            .iter()
            .map(|&i| j.rejudge(&pages[i], table.page_hits(i), &stitched))
            .collect::<Vec<_>>()
    })
    .concat();
    let mut verdicts = first;
    for (&i, v) in again.iter().zip(changed) {
        if let Some(v) = v {
            verdicts[i] = v;
        }
    }
    Analysis {
        table,
        verdicts,
        config: cfg.clone(),
    }
}

/// One rank of the rank/frequency table of phrase popularity.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RankRow {
    /// Rank (1 = most popular).
    pub rank: usize,
    /// Classes the phrase was sampled in.
    pub classes: u32,
}

/// What `report.json` says of a phrase analysis.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Popularity threshold and its chance model.
    pub chance_model: ChanceModel,
    /// Thresholds of the slice-and-dice rule.
    pub rule: JudgeConfig,
    /// Popular shingles (in two classes or more).
    pub popular_phrases: u64,
    /// Of those, template phrases.
    pub template_phrases: u64,
    /// Pages judged slice-and-dice.
    pub slice_and_dice_pages: u64,
    /// The Zipf exponent fitted to classes-per-phrase by rank (`None` with too few phrases).
    pub zipf_exponent: Option<f64>,
    /// Classes per phrase at log-spaced ranks.
    pub rank_frequency: Vec<RankRow>,
    /// `histogram[i]`: pages with i popular shingles.
    pub popular_per_page: Vec<u64>,
}

impl Analysis {
    /// Popular phrases, most popular first (classes, then pages, descending; then by shingle).
    pub fn ranked(&self) -> Vec<&Popular> {
        let mut v: Vec<&Popular> = self.table.phrases.iter().collect();
        v.sort_by(|a, b| (b.classes, b.pages, a.shingle).cmp(&(a.classes, a.pages, b.shingle)));
        v
    }

    /// The summary for `report.json`.
    pub fn summary(&self) -> Summary {
        self.summary_of(&self.ranked())
    }

    /// The summary for `report.json`, given [`ranked`](Self::ranked) (sorted once for both the
    /// summary and the list of popular phrases).
    pub fn summary_of(&self, ranked: &[&Popular]) -> Summary {
        let freqs: Vec<u64> = ranked.iter().map(|p| u64::from(p.classes)).collect();
        let rank_frequency = crawlsift_stats::zipf::curve(&freqs)
            .into_iter()
            .map(|(rank, f)| RankRow {
                rank: rank as usize,
                classes: f as u32,
            })
            .collect();
        let mut hist = Vec::new();
        for v in &self.verdicts {
            let i = v.popular as usize;
            if hist.len() <= i {
                hist.resize(i + 1, 0);
            }
            hist[i] += 1;
        }
        Summary {
            chance_model: self.table.chance.clone(),
            rule: self.config.clone(),
            popular_phrases: ranked.len() as u64,
            template_phrases: ranked
                .iter()
                .filter(|p| p.is_template(self.config.max_classes))
                .count() as u64,
            slice_and_dice_pages: self.verdicts.iter().filter(|v| v.slice_and_dice).count() as u64,
            zipf_exponent: crawlsift_stats::zipf::exponent(&freqs),
            rank_frequency,
            popular_per_page: hist,
        }
    }
}
