//! Words of a text: maximal runs of Unicode letters and digits (general categories `L*` and `N*`,
//! what Python's `[^\W_]+` matches), lower-cased. No stemming, no stop list. The rule is
//! [`crawlsift_common::words`], the one text reuse uses too; this module names it for the
//! statistics.
//!
//! This is not dedup's definition of a word (`crawlsift_dedup::normalize`, which every comparison
//! of texts uses), on purpose: statistics count words as written, the way the published reference
//! counts and other tools do (`../shared/corpus/text/INDEX.md`), where dedup folds compatibility
//! forms and case and splits ideographs to decide that two texts say the same thing.

pub use crawlsift_common::words::{for_each_word, is_word_char, words};
