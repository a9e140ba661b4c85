/*!
Text reuse: the passages two documents share, when one copies part of the other (a partial
copy, a quotation, a pasted paragraph) however different the rest of them is. Whole-document
near-duplicate detection (`crawlsift-dedup`) cannot see it: a page that copies one paragraph of
a long page shares a small part of its words.

Two steps, as the scalable text-reuse tools do (Webis STEREO, passim):

* **candidates** ([`Corpus`]): each document's words ([`Words`]: maximal runs of Unicode letters
  and digits, lower-cased) give k-word shingles, winnowed ([`sketch::winnow`]) so that any run of
  w + k - 1 shared words shares a fingerprint; the fingerprints of all documents are sorted into
  posting lists, and two documents are candidates when a list holds both. A list of more than
  [`ReuseConfig::max_posting`] documents is boilerplate common to many pages and pairs nobody,
  and a fingerprint held by [`ReuseConfig::site_template_pages`] pages of one site is that site's
  template: it pairs none of them. So the pairs stay linear in the fingerprints.
* **alignment** ([`align::align_words`]): the words of each candidate pair are aligned by
  seed-and-extend, which gives the [`Passage`]s (word and character ranges in both documents).

The same story told in other words shares few passages: [`kernel`] compares two documents by
the seed's character 3-gram kernels weighted by their commonality in the corpus, and [`story`]
groups the documents that tell one story without comparing all pairs.

Which of two documents is the source is not claimed: a pair is written in input order (`a` the
earlier document), nothing more.

```
use crawlsift_reuse::reuse;

let source = "The river rises in the northern hills and runs four hundred miles through farmland \
              before it reaches the sea at the old harbour town.";
let copy = "Travel notes. We learnt that the river rises in the northern hills and runs four \
            hundred miles through farmland before it reaches the sea. Then we went home.";
let passages = reuse(source, copy);
assert_eq!(passages.len(), 1);
let p = passages[0];
assert_eq!(p.a_words, [0, 19]); // "The river ... sea"
assert_eq!(p.b_words, [5, 24]);
assert_eq!(&source[p.a_chars[0] as usize..p.a_chars[1] as usize],
           "The river rises in the northern hills and runs four hundred miles through farmland \
            before it reaches the sea");
```
*/

#![deny(missing_docs)]

pub mod align;
pub mod corpus;
pub mod kernel;
pub mod sketch;
pub mod story;
pub mod words;

use crawlsift_common::limits::{
    REUSE_GAP_WORDS, REUSE_MAX_FINGERPRINTS, REUSE_MAX_PARTNERS, REUSE_MAX_POSTING,
    REUSE_MAX_SEED_REPEATS, REUSE_MAX_WORDS, REUSE_MIN_PASSAGE_WORDS,
    REUSE_MIN_SHARED_FINGERPRINTS, REUSE_SEED_WORDS, REUSE_SHINGLE_WORDS,
    REUSE_SITE_TEMPLATE_PAGES, REUSE_WINNOW_WINDOW, STORY_MAX_CHARS,
};
use thiserror::Error;

pub use align::{align_prepared, align_words, Passage, Prepared};
pub use corpus::{Corpus, Pair, Sketch};
pub use kernel::{kernel_similarity, KernelTable, KernelWeights, Kernels};
pub use story::{group_stories, Story, StoryConfig, StoryCounts, StoryMember};
pub use words::Words;

/// What can go wrong: only the configuration (any text is valid input).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReuseError {
    /// A configuration value is out of its range (the message names the field and the bound).
    #[error("invalid reuse configuration: {0}")]
    InvalidConfig(String),
}

/// The parameters of reuse detection; the defaults are the named limits of
/// `crawlsift_common::limits` (`REUSE_*`), where each is explained.
#[derive(Debug, Clone, PartialEq)]
pub struct ReuseConfig {
    /// Words per candidate fingerprint (k).
    pub shingle_words: usize,
    /// Winnowing window (w).
    pub winnow_window: usize,
    /// Most fingerprints a document keeps.
    pub max_fingerprints: usize,
    /// Most documents a fingerprint may pair.
    pub max_posting: usize,
    /// Pages of one site holding a fingerprint that make it the site's template.
    pub site_template_pages: usize,
    /// Most candidate partners kept per document.
    pub max_partners: usize,
    /// Fewest fingerprints two documents share to be aligned.
    pub min_shared: usize,
    /// Words of an alignment seed.
    pub seed_words: usize,
    /// Most places of one seed in a document.
    pub max_seed_repeats: usize,
    /// Words allowed between two seeds of a passage.
    pub gap_words: usize,
    /// Fewest words of a reported passage, in each document.
    pub min_passage_words: usize,
    /// Most words of a document that are aligned.
    pub max_words: usize,
}

impl Default for ReuseConfig {
    fn default() -> Self {
        ReuseConfig {
            shingle_words: REUSE_SHINGLE_WORDS,
            winnow_window: REUSE_WINNOW_WINDOW,
            max_fingerprints: REUSE_MAX_FINGERPRINTS,
            max_posting: REUSE_MAX_POSTING,
            site_template_pages: REUSE_SITE_TEMPLATE_PAGES,
            max_partners: REUSE_MAX_PARTNERS,
            min_shared: REUSE_MIN_SHARED_FINGERPRINTS,
            seed_words: REUSE_SEED_WORDS,
            max_seed_repeats: REUSE_MAX_SEED_REPEATS,
            gap_words: REUSE_GAP_WORDS,
            min_passage_words: REUSE_MIN_PASSAGE_WORDS,
            max_words: REUSE_MAX_WORDS,
        }
    }
}

impl ReuseConfig {
    /// Checks every value against its range.
    pub fn check(&self) -> Result<(), ReuseError> {
        let bad = |what: &str| Err(ReuseError::InvalidConfig(what.to_string()));
        if !(1..=64).contains(&self.shingle_words) {
            return bad("shingle_words must be in 1..=64");
        }
        if !(1..=256).contains(&self.winnow_window) {
            return bad("winnow_window must be in 1..=256");
        }
        if !(1..=64).contains(&self.seed_words) {
            return bad("seed_words must be in 1..=64");
        }
        if self.min_passage_words < self.seed_words {
            return bad("min_passage_words must be at least seed_words");
        }
        if self.max_posting < 2 || self.max_partners == 0 || self.max_fingerprints == 0 {
            return bad(
                "max_posting must be at least 2, max_partners and max_fingerprints at least 1",
            );
        }
        if self.site_template_pages < 2 {
            return bad("site_template_pages must be at least 2");
        }
        if self.max_seed_repeats == 0 || self.gap_words > 10_000 {
            return bad("max_seed_repeats must be at least 1 and gap_words at most 10000");
        }
        if self.max_words == 0 || self.max_words > u32::MAX as usize / 2 {
            return bad("max_words must be in 1..=2^31");
        }
        Ok(())
    }
}

/// What gathering a document for reuse and stories needs of its text, made where the text is
/// (an extract worker), so that the gathering thread only files it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextSketch {
    /// The winnowed word shingles that pair documents sharing passages.
    pub fingerprints: Sketch,
    /// The kernels, counted into the story table.
    pub kernels: Kernels,
}

impl TextSketch {
    /// The sketch of a main text with `cfg`'s settings.
    pub fn of(text: &str, cfg: &ReuseConfig) -> TextSketch {
        TextSketch {
            fingerprints: Sketch::of(&Words::of(text, cfg.max_words), cfg),
            kernels: Kernels::of(text, STORY_MAX_CHARS),
        }
    }
}

/// The passages two texts share, with the default configuration (see [`reuse_with`]).
pub fn reuse(a_text: &str, b_text: &str) -> Vec<Passage> {
    reuse_with(a_text, b_text, &ReuseConfig::default())
}

/// The passages two texts share: word ranges into each text's words and character ranges into
/// each text, in order of their place in `a_text`. No template is known for two texts alone.
pub fn reuse_with(a_text: &str, b_text: &str, cfg: &ReuseConfig) -> Vec<Passage> {
    let a = Words::of(a_text, cfg.max_words);
    let b = Words::of(b_text, cfg.max_words);
    align_words(&a, &b, &[], &[], cfg)
}

/// The share of a document's `words` inside the ranges `ranges` (overlaps counted once).
pub fn share(words: usize, ranges: impl IntoIterator<Item = [u32; 2]>) -> f64 {
    if words == 0 {
        return 0.0;
    }
    let mut r: Vec<[u32; 2]> = ranges.into_iter().collect();
    r.sort_unstable();
    let (mut covered, mut end) = (0u64, 0u32);
    for [s, e] in r {
        let s = s.max(end);
        if e > s {
            covered += u64::from(e - s);
            end = e;
        }
    }
    covered as f64 / words as f64
}
