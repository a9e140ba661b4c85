//! A collection's statistics as documents come in ([`Corpus`]), from per-document terms computed
//! on worker threads ([`DocTerms`]), and what they give ([`Summary`], serialisable): the AP89
//! table's counts, the Zipf table and exponent, Heaps' law, the rank-frequency curve, the
//! unusualness of documents, and between two corpora the words duplicates inflated most
//! ([`inflated`]).

use std::hash::BuildHasher;
use std::io;

use crawlsift_common::limits::{STATS_INFLATED_LISTED, STATS_ZIPF_FIT_RANKS};
use hashbrown::HashTable;
use serde::{Deserialize, Serialize};

use crate::counts::Vocabulary;
use crate::heaps::{Heaps, HeapsSampler};
use crate::tokenize::for_each_word;
use crate::unusual::{DocKernels, DocRef, Unusual, UnusualSummary};
use crate::zipf::{self, ZipfRow};

/// Words of a document's preview in listings.
const PREVIEW_WORDS: usize = 12;

/// One document's words (each with its count, in order of first occurrence) and kernels: the
/// work of a worker thread, so the collector only merges. The words live in one string.
#[derive(Debug, Clone, Default)]
pub struct DocTerms {
    /// The distinct words, one after another.
    arena: String,
    /// Per distinct word: its end in `arena` and its count, in order of first occurrence.
    ends: Vec<(u32, u32)>,
    /// Word occurrences.
    pub occurrences: u64,
    /// Character 3-gram kernels (empty unless asked for).
    pub kernels: DocKernels,
    /// The first words, for listings.
    pub preview: String,
}

impl DocTerms {
    /// The terms of `text`; `kernels` says whether to compute the kernels too.
    pub fn of_text(text: &str, kernels: bool) -> Self {
        let mut t = DocTerms::default();
        let mut seen: HashTable<usize> = HashTable::new();
        let hasher = foldhash::fast::FixedState::with_seed(0);
        let mut buf = String::new();
        let arena = &mut t.arena;
        let ends = &mut t.ends;
        let (occurrences, preview) = (&mut t.occurrences, &mut t.preview);
        for_each_word(text, &mut buf, |w| {
            *occurrences += 1;
            if *occurrences <= PREVIEW_WORDS as u64 {
                if !preview.is_empty() {
                    preview.push(' ');
                }
                preview.push_str(w);
            }
            let word_at = |ends: &[(u32, u32)], i: usize| -> (usize, usize) {
                let start = if i == 0 { 0 } else { ends[i - 1].0 as usize };
                (start, ends[i].0 as usize)
            };
            let h = hasher.hash_one(w);
            let found = seen.find(h, |&i| {
                let (a, b) = word_at(ends, i);
                &arena[a..b] == w
            });
            match found {
                Some(&i) => ends[i].1 = ends[i].1.saturating_add(1),
                None => {
                    // A text is at most a few MiB (MAX_TEXT_BYTES), so u32 offsets suffice.
                    arena.push_str(w);
                    ends.push((arena.len() as u32, 1));
                    let (arena, ends) = (&*arena, &*ends);
                    seen.insert_unique(h, ends.len() - 1, |&i| {
                        let (a, b) = word_at(ends, i);
                        hasher.hash_one(&arena[a..b])
                    });
                }
            }
        });
        if kernels {
            t.kernels = DocKernels::of_words(t.words());
        }
        t
    }

    /// The distinct words with their counts, in order of first occurrence.
    pub fn words(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(end, c)| {
            let w = &self.arena[start..end as usize];
            start = end as usize;
            (w, c)
        })
    }
}

/// The statistics of a collection, documents added in corpus order.
pub struct Corpus {
    documents: u64,
    vocab: Vocabulary,
    heaps: HeapsSampler,
    unusual: Option<Unusual>,
}

/// What [`Corpus::finish`] gives: every figure of `crawlsift stats`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Documents.
    pub documents: u64,
    /// Word occurrences.
    pub word_occurrences: u64,
    /// Distinct words.
    pub vocabulary: u64,
    /// Words occurring more than 1,000 times.
    pub words_over_1000: u64,
    /// Words occurring once (hapax legomena).
    pub hapax: u64,
    /// True when the vocabulary outgrew its exact bound and the tail was counted in a sketch:
    /// vocabulary, hapax and words over 1,000 are then estimates.
    pub approximate: bool,
    /// The most frequent words.
    pub zipf: Vec<ZipfRow>,
    /// `s` of `freq ~ rank^-s`, fitted by least squares on log-log over `zipf_fit_ranks`.
    pub zipf_exponent: Option<f64>,
    /// First and last rank of the Zipf fit.
    pub zipf_fit_ranks: (usize, usize),
    /// Heaps' law.
    pub heaps: Heaps,
    /// `(rank, freq)` at log-spaced ranks, for plots.
    pub rank_frequency: Vec<(u64, u64)>,
    /// How unusual the documents are (when computed).
    pub unusual: Option<UnusualSummary>,
}

/// A word whose frequency the duplicates inflated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inflated {
    /// The word.
    pub word: String,
    /// Occurrences in the raw corpus.
    pub raw_freq: u64,
    /// Occurrences in the deduplicated corpus.
    pub dedup_freq: u64,
    /// Share of all occurrences in the raw corpus, in percent.
    pub raw_p: f64,
    /// Share of all occurrences in the deduplicated corpus, in percent.
    pub dedup_p: f64,
    /// Occurrences beyond what the deduplicated share predicts for the raw corpus:
    /// `raw_freq - dedup_freq * raw_occurrences / dedup_occurrences`.
    pub excess: f64,
}

impl Corpus {
    /// An empty corpus; `unusual` says whether to score documents' unusualness (their kernels
    /// must then be computed, see [`DocTerms::of_text`]).
    pub fn new(unusual: bool) -> io::Result<Self> {
        Self::with_vocabulary(Vocabulary::default(), unusual)
    }

    /// An empty corpus counting words in `vocab` (tests use a small exact bound).
    pub fn with_vocabulary(vocab: Vocabulary, unusual: bool) -> io::Result<Self> {
        Ok(Corpus {
            documents: 0,
            vocab,
            heaps: HeapsSampler::default(),
            unusual: if unusual { Some(Unusual::new()?) } else { None },
        })
    }

    /// Adds the next document.
    pub fn add(&mut self, doc: &DocRef, terms: &DocTerms) -> io::Result<()> {
        self.documents += 1;
        for (w, c) in terms.words() {
            self.vocab.add(w, u64::from(c));
        }
        self.heaps
            .observe(self.vocab.occurrences(), self.vocab.vocabulary());
        if let Some(u) = self.unusual.as_mut() {
            u.add(doc, &terms.preview, &terms.kernels)?;
        }
        Ok(())
    }

    /// The counted words.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocab
    }

    /// Every figure, with the first `top` rows of the Zipf table.
    pub fn finish(self, top: usize) -> io::Result<Summary> {
        let v = &self.vocab;
        let ranked = v.ranked();
        let freqs: Vec<u64> = ranked.iter().map(|r| r.1).collect();
        Ok(Summary {
            documents: self.documents,
            word_occurrences: v.occurrences(),
            vocabulary: v.vocabulary(),
            words_over_1000: v.frequent(),
            hapax: v.hapax(),
            approximate: v.approximate(),
            zipf: zipf::table(&ranked, v.occurrences(), top),
            zipf_exponent: zipf::exponent(&freqs),
            zipf_fit_ranks: STATS_ZIPF_FIT_RANKS,
            heaps: self.heaps.finish(v.occurrences(), v.vocabulary()),
            rank_frequency: zipf::curve(&freqs),
            unusual: self.unusual.map(Unusual::finish).transpose()?,
        })
    }
}

/// The words whose share of occurrences the duplicates raised most: [`Inflated::excess`] over
/// the raw corpus's words, largest first (ties in word order).
pub fn inflated(raw: &Vocabulary, dedup: &Vocabulary) -> Vec<Inflated> {
    let (rt, dt) = (raw.occurrences().max(1) as f64, dedup.occurrences());
    let scale = if dt == 0 { 0.0 } else { rt / dt as f64 };
    let mut v: Vec<Inflated> = raw
        .ranked()
        .into_iter()
        .map(|(w, rf)| {
            let df = dedup.get(w);
            Inflated {
                word: w.to_string(),
                raw_freq: rf,
                dedup_freq: df,
                raw_p: round4(rf as f64 / rt * 100.0),
                dedup_p: round4(df as f64 / dt.max(1) as f64 * 100.0),
                excess: rf as f64 - df as f64 * scale,
            }
        })
        .filter(|i| i.excess > 0.0)
        .collect();
    v.sort_by(|a, b| {
        b.excess
            .total_cmp(&a.excess)
            .then_with(|| a.word.cmp(&b.word))
    });
    v.truncate(STATS_INFLATED_LISTED);
    for i in &mut v {
        i.excess = (i.excess * 10.0).round() / 10.0;
    }
    v
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str) -> DocRef {
        DocRef {
            id: id.into(),
            url: None,
            file: "f".into(),
            offset: 0,
            duplicate: None,
        }
    }

    #[test]
    fn terms_keep_first_occurrence_order_and_counts() {
        let t = DocTerms::of_text("The cat and THE hat; the end.", true);
        let got: Vec<(&str, u32)> = t.words().collect();
        assert_eq!(
            got,
            [("the", 3), ("cat", 1), ("and", 1), ("hat", 1), ("end", 1)]
        );
        assert_eq!(t.occurrences, 7);
        assert_eq!(t.preview, "the cat and the hat the end");
        // the x3, cat, and, hat, end: one kernel each.
        assert_eq!(t.kernels.total, 7);
    }

    #[test]
    fn a_corpus_gives_the_table_counts() {
        let mut c = Corpus::new(false).unwrap();
        for (i, text) in ["a b a", "b c", "d"].iter().enumerate() {
            c.add(&doc(&i.to_string()), &DocTerms::of_text(text, false))
                .unwrap();
        }
        let s = c.finish(2).unwrap();
        assert_eq!(
            (s.documents, s.word_occurrences, s.vocabulary, s.hapax),
            (3, 6, 4, 2)
        );
        assert_eq!(s.zipf.len(), 2);
        assert_eq!((s.zipf[0].word.as_str(), s.zipf[0].freq), ("a", 2));
        assert_eq!(s.heaps.points.last(), Some(&(6, 4)));
        assert!(s.unusual.is_none());
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "documents",
            "word_occurrences",
            "vocabulary",
            "words_over_1000",
            "hapax",
        ] {
            assert!(json[key].is_u64(), "{key}");
        }
        assert!(json["heaps"]["k"].is_f64() && json["heaps"]["beta"].is_f64());
    }

    #[test]
    fn words_the_duplicates_repeat_are_the_inflated_ones() {
        let (mut raw, mut dedup) = (Vocabulary::default(), Vocabulary::default());
        for w in ["x", "y", "z", "w"] {
            raw.add(w, 10);
            dedup.add(w, 10);
        }
        raw.add("promo", 30); // only in duplicates
        raw.add("x", 5);
        let inf = inflated(&raw, &dedup);
        assert_eq!(inf[0].word, "promo");
        assert_eq!((inf[0].raw_freq, inf[0].dedup_freq), (30, 0));
        // x gained 5 but lost share to promo's 30: not inflated, nor are the others.
        assert_eq!(inf.len(), 1);
    }
}
