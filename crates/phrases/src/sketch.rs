//! A page's phrase sketch: its words, its k-word phrases over the text taken as a circle (n
//! phrases for n words), their Rabin fingerprints (`crawlsift_dedup::rabin`: words first, then
//! phrases by extension and prefix deletion), and m shingles: the smallest phrase of each of m
//! min-hash bins.
//!
//! The words are those `dedup` fingerprints: the page's main text, normalised by
//! `crawlsift_dedup::normalize` (case, NFKC, punctuation). The paper replaces markup with
//! whitespace and takes every visible word; here the extractor has already dropped markup and the
//! navigation and legal furniture `dedup` drops, so what is left of the site template is less, and
//! what is left is told apart by where it repeats (see [`crate::popular`]).
//!
//! The m min-hashes are computed as one permutation hashing (Li, Owen and Zhang, 2012): one
//! 64-bit hash per phrase (the bijective SplitMix64 finaliser of its Rabin fingerprint) whose top
//! bits pick one of m bins; each bin keeps its smallest hash. A phrase two pages share is kept by
//! both with the same probability as under m independent min-hash functions (about m / (n1 + n2)
//! per phrase), at the cost of one hash per phrase instead of m.

use crawlsift_dedup::minhash::mix64;
use crawlsift_dedup::normalize::{Normalized, Normalizer};
use crawlsift_dedup::rabin::ShingleRoller;
use serde::{Deserialize, Serialize};

/// The settings of phrase sketching.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SketchConfig {
    /// Words per phrase (k).
    pub words: usize,
    /// Shingles per document (m): a power of two.
    pub shingles: usize,
    /// One shingle in this many (by hash) keeps its words.
    pub words_sample: u64,
}

impl Default for SketchConfig {
    fn default() -> Self {
        use crawlsift_common::limits;
        SketchConfig {
            words: limits::PHRASE_WORDS,
            shingles: limits::PHRASE_SHINGLES,
            words_sample: limits::PHRASE_WORDS_SAMPLE,
        }
    }
}

/// One page's shingles: the smallest phrase hash of each non-empty bin, ascending, and the words
/// of the sampled ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sketch {
    /// Shingles (phrase hashes), ascending, distinct (little-endian bytes when serialised: one
    /// copy, where a varint a shingle cost checkpoints more than the rest of a record).
    #[serde(with = "le_words")]
    pub shingles: Box<[u64]>,
    /// The words of the shingles in the words sample, in shingle order, a phrase a line (one
    /// string a page, not one a phrase: a page samples dozens).
    pub phrases: String,
    /// The words sample: shingles whose hash is a multiple of it keep their words.
    pub sample: u64,
}

impl Sketch {
    /// `(shingle, its words)` for the shingles in the words sample, ascending.
    pub fn words(&self) -> impl Iterator<Item = (u64, &str)> + '_ {
        let sample = self.sample.max(1);
        self.shingles
            .iter()
            .copied()
            .filter(move |h| h % sample == 0)
            .zip(self.phrases.split('\n'))
    }
}

/// Serde of shingles as the bytes of their little-endian words.
mod le_words {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(words: &[u64], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    struct Words;

    impl<'de> Visitor<'de> for Words {
        type Value = Box<[u64]>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("bytes of little-endian 64-bit words")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
            if !bytes.len().is_multiple_of(8) {
                return Err(E::invalid_length(bytes.len(), &self));
            }
            Ok(bytes
                .chunks_exact(8)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect())
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut bytes = Vec::new();
            while let Some(b) = seq.next_element::<u8>()? {
                bytes.push(b);
            }
            self.visit_bytes(&bytes)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u64]>, D::Error> {
        d.deserialize_bytes(Words)
    }
}

/// Computes [`Sketch`]es, reusing its buffers (one per thread).
pub struct Sketcher {
    normalizer: Normalizer,
    roller: ShingleRoller,
    bin_bits: u32,
    words_sample: u64,
    word_fps: Vec<u64>,
    /// Per bin: (smallest hash, phrase start).
    bins: Vec<(u64, u32)>,
}

impl std::fmt::Debug for Sketcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sketcher")
            .field("k", &self.roller.k())
            .field("bins", &self.bins.len())
            .finish()
    }
}

impl Sketcher {
    /// A sketcher for `cfg` (sizes clamped: k in 1..=64, m a power of two in 1..=4096).
    pub fn new(cfg: &SketchConfig) -> Self {
        let m = cfg.shingles.clamp(1, 4096).next_power_of_two().min(4096);
        Sketcher {
            normalizer: Normalizer::new(),
            roller: ShingleRoller::new(cfg.words.clamp(1, 64)),
            bin_bits: m.trailing_zeros(),
            words_sample: cfg.words_sample.max(1),
            word_fps: Vec::new(),
            bins: vec![(u64::MAX, 0); m],
        }
    }

    /// Calls `out(i, fp)` for each of the n phrases of `text` (n words, the text as a circle):
    /// phrase i covers words i..i+k (mod n). Returns the normalised words.
    pub fn for_each_phrase(&mut self, text: &str, mut out: impl FnMut(usize, u64)) -> Vec<String> {
        let norm = self.normalizer.normalize(text);
        let rabin = self.roller.rabin();
        let bytes = norm.text().as_bytes();
        self.word_fps.clear();
        self.word_fps.extend(
            norm.spans()
                .iter()
                .map(|&(a, b)| rabin.fingerprint_in(bytes, a as usize, b as usize)),
        );
        let mut i = 0;
        self.roller.for_each_shingle(&self.word_fps, |fp| {
            out(i, fp);
            i += 1;
        });
        norm.words().map(str::to_string).collect()
    }

    /// The sketch of one page's main text.
    pub fn sketch(&mut self, text: &str) -> Sketch {
        let mut normalizer = std::mem::take(&mut self.normalizer);
        let norm = normalizer.normalize(text);
        let rabin = self.roller.rabin();
        let bytes = norm.text().as_bytes();
        let mut word_fps = std::mem::take(&mut self.word_fps);
        word_fps.clear();
        word_fps.extend(
            norm.spans()
                .iter()
                .map(|&(a, b)| rabin.fingerprint_in(bytes, a as usize, b as usize)),
        );
        let out = self.sketch_words(norm, &word_fps);
        self.word_fps = word_fps;
        self.normalizer = normalizer;
        out
    }

    /// The sketch of a text already normalised, with its words' Rabin fingerprints (as
    /// `crawlsift_dedup::Fingerprinter::last_words` gives them after fingerprinting it).
    pub fn sketch_words(&mut self, norm: Normalized<'_>, word_fps: &[u64]) -> Sketch {
        self.bins.fill((u64::MAX, 0));
        let shift = 64 - self.bin_bits;
        let bins = &mut self.bins;
        let mut i = 0u32;
        self.roller.for_each_shingle(word_fps, |fp| {
            let h = mix64(fp);
            let b = if shift == 64 {
                0
            } else {
                (h >> shift) as usize
            };
            if h < bins[b].0 {
                bins[b] = (h, i);
            }
            i += 1;
        });
        let n = word_fps.len().min(norm.spans().len());
        let k = self.roller.k();
        let mut shingles: Vec<u64> = Vec::with_capacity(n.min(bins.len()));
        let mut phrases = String::new();
        let mut sampled = 0usize;
        let spans = norm.spans();
        let text = norm.text();
        // An empty bin keeps u64::MAX, which no phrase hashes to but by a 2^-64 chance.
        for &(h, start) in bins.iter().filter(|b| b.0 != u64::MAX) {
            shingles.push(h);
            if n > 0 && h % self.words_sample == 0 {
                if sampled > 0 {
                    phrases.push('\n');
                }
                sampled += 1;
                for j in 0..k {
                    let (a, b) = spans[(start as usize + j) % n];
                    if j > 0 {
                        phrases.push(' ');
                    }
                    phrases.push_str(text.get(a as usize..b as usize).unwrap_or(""));
                }
            }
        }
        // Bins are in hash order already (a bin is the hash's top bits).
        debug_assert!(shingles.windows(2).all(|w| w[0] < w[1]));
        Sketch {
            shingles: shingles.into(),
            phrases,
            sample: self.words_sample,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_one_phrase_per_word_and_at_most_m_shingles() {
        let cfg = SketchConfig {
            shingles: 16,
            ..SketchConfig::default()
        };
        let mut s = Sketcher::new(&cfg);
        let text: String = (0..100).map(|i| format!("w{i} ")).collect();
        let mut n = 0;
        let words = s.for_each_phrase(&text, |_, _| n += 1);
        assert_eq!((n, words.len()), (100, 100));
        let sk = s.sketch(&text);
        assert!(sk.shingles.len() <= 16 && sk.shingles.len() >= 12);
        assert!(s.sketch("").shingles.is_empty());
    }

    #[test]
    fn the_fingerprinters_words_give_the_same_sketch() {
        let mut s = Sketcher::new(&SketchConfig::default());
        let mut f = crawlsift_dedup::Fingerprinter::new(&Default::default());
        let text = "Ein Satz, der nicht lang ist.\nA second LINE of “words” here; and more";
        f.fingerprint(text);
        let (norm, fps) = f.last_words();
        let via = s.sketch_words(norm, fps);
        assert_eq!(via, s.sketch(text));
        assert!(
            (13..=15).contains(&via.shingles.len()),
            "15 words, 512 bins"
        );
    }

    #[test]
    fn a_shared_sentence_is_sampled_alike_in_both_pages() {
        let cfg = SketchConfig {
            shingles: 4096,
            words_sample: 1,
            ..SketchConfig::default()
        };
        let mut s = Sketcher::new(&cfg);
        let shared = "the harbour council met on tuesday to discuss the new ferry timetable";
        let a = s.sketch(&format!(
            "alpha beta gamma delta. {shared}. epsilon zeta eta"
        ));
        let b = s.sketch(&format!("one two three four five six. {shared}. seven"));
        let common = a.shingles.iter().filter(|x| b.shingles.contains(x)).count();
        // 12 words give 8 phrases wholly inside the sentence; with 4096 bins each is kept.
        assert_eq!(common, 8);
        let words: Vec<&str> = a
            .words()
            .filter(|(h, _)| b.shingles.contains(h))
            .map(|(_, w)| w)
            .collect();
        assert!(words.contains(&"the harbour council met on"));
        assert_eq!(a.words().count(), a.phrases.split('\n').count());
    }

    #[test]
    fn a_sketch_travels_through_a_checkpoint_whole() {
        let mut s = Sketcher::new(&SketchConfig {
            words_sample: 2,
            ..SketchConfig::default()
        });
        let sk = s.sketch("one two three four five six seven eight nine ten eleven twelve");
        assert!(sk.words().count() > 0);
        let bytes = postcard::to_allocvec(&sk).unwrap();
        // 8 bytes a shingle, not a varint of up to 10.
        assert!(bytes.len() < sk.shingles.len() * 8 + sk.phrases.len() + 16);
        let back: Sketch = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, sk);
        let words: Vec<(u64, &str)> = back.words().collect();
        assert_eq!(words, sk.words().collect::<Vec<_>>());
        // Bytes that are not whole words are refused, not misread.
        let odd = postcard::to_allocvec(&(&[1u8, 2, 3][..], "", 1u64)).unwrap();
        assert!(postcard::from_bytes::<Sketch>(&odd).is_err());
    }
}
