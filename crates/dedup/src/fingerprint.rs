//! The per-document fingerprint and the reusable [`Fingerprinter`] that computes it.
//!
//! One `Fingerprinter` per worker thread: it owns the normalization buffers, the Rabin tables and
//! the MinHash constants, so fingerprinting a text allocates only the signature it returns.

use crawlsift_common::limits;
use serde::{Deserialize, Serialize};

use crate::error::DedupError;
use crate::exact::{adler32, exact_hash};
use crate::minhash::{mix64, MinHasher};
use crate::normalize::Normalizer;
use crate::profile::{Line, WordProfile};
use crate::rabin::ShingleRoller;
use crate::simhash::simhash;

/// Every tunable of fingerprinting and clustering; [`Default`] takes the values in
/// [`crawlsift_common::limits`], where each is justified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DedupConfig {
    /// Words per shingle.
    pub shingle_words: usize,
    /// MinHash permutations (bytes of signature).
    pub minhash_perms: usize,
    /// LSH bands.
    pub lsh_bands: usize,
    /// LSH rows per band.
    pub lsh_rows: usize,
    /// Smallest estimated shingle Jaccard for a pair to be a candidate (verified on its words).
    pub min_jaccard: f64,
    /// Share of words (Dice of the word multisets outside template lines) from which two
    /// documents are near-duplicates.
    pub threshold: f64,
    /// Share of words from which two documents count as one class when templates are learnt.
    pub same_class: f64,
    /// Classes of one site a line must be found in to be that site's template.
    pub template_classes: usize,
    /// SimHash Hamming distance accepted on its own, and guaranteed by the SimHash bands.
    pub simhash_max_hamming: u32,
    /// Texts with fewer words are too short to judge; texts with fewer words outside popular
    /// (template) phrases are boilerplate.
    pub min_words: usize,
    /// Earlier documents one document is compared with inside one bucket.
    pub max_bucket_compare: usize,
    /// An LSH band key shared by more distinct texts than this is a template phrase.
    pub popular_docs: usize,
    /// Rows each row is paired with when finding popular phrases.
    pub popular_pairings: usize,
    /// Estimated Jaccard from which two distinct texts count once towards popularity.
    pub popular_same_text: f64,
}

impl Default for DedupConfig {
    fn default() -> Self {
        Self {
            shingle_words: limits::DEDUP_SHINGLE_WORDS,
            minhash_perms: limits::DEDUP_MINHASH_PERMS,
            lsh_bands: limits::DEDUP_LSH_BANDS,
            lsh_rows: limits::DEDUP_LSH_ROWS,
            min_jaccard: limits::DEDUP_MIN_JACCARD,
            threshold: limits::DEDUP_THRESHOLD,
            same_class: limits::DEDUP_SAME_CLASS,
            template_classes: limits::DEDUP_TEMPLATE_CLASSES,
            simhash_max_hamming: limits::DEDUP_SIMHASH_MAX_HAMMING,
            min_words: limits::DEDUP_MIN_WORDS,
            max_bucket_compare: limits::DEDUP_MAX_BUCKET_COMPARE,
            popular_docs: limits::DEDUP_POPULAR_DOCS,
            popular_pairings: limits::DEDUP_POPULAR_PAIRINGS,
            popular_same_text: limits::DEDUP_POPULAR_SAME_TEXT,
        }
    }
}

impl DedupConfig {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), DedupError> {
        let bad = |m: String| Err(DedupError::InvalidConfig(m));
        if !(1..=64).contains(&self.shingle_words) {
            return bad(format!(
                "shingle_words {} not in 1..=64",
                self.shingle_words
            ));
        }
        if !(1..=4096).contains(&self.minhash_perms) {
            return bad(format!(
                "minhash_perms {} not in 1..=4096",
                self.minhash_perms
            ));
        }
        if !(1..=6).contains(&self.lsh_rows) {
            return bad(format!("lsh_rows {} not in 1..=6", self.lsh_rows));
        }
        match self.lsh_bands.checked_mul(self.lsh_rows) {
            Some(used) if used <= self.minhash_perms => {}
            _ => {
                return bad(format!(
                    "lsh_bands {} x lsh_rows {} exceed minhash_perms {}",
                    self.lsh_bands, self.lsh_rows, self.minhash_perms
                ))
            }
        }
        if !(0.0..=1.0).contains(&self.min_jaccard) {
            return bad(format!("min_jaccard {} not in [0, 1]", self.min_jaccard));
        }
        if self.simhash_max_hamming > 31 {
            return bad(format!(
                "simhash_max_hamming {} > 31",
                self.simhash_max_hamming
            ));
        }
        if self.max_bucket_compare == 0 {
            return bad("max_bucket_compare must be at least 1".into());
        }
        if !(1..=64).contains(&self.popular_pairings) {
            return bad(format!(
                "popular_pairings {} not in 1..=64",
                self.popular_pairings
            ));
        }
        if !(self.popular_same_text > 0.0 && self.popular_same_text <= 1.0) {
            return bad(format!(
                "popular_same_text {} not in (0, 1]",
                self.popular_same_text
            ));
        }
        if self.popular_docs == 0 {
            return bad("popular_docs must be at least 1".into());
        }
        for (name, v) in [
            ("threshold", self.threshold),
            ("same_class", self.same_class),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return bad(format!("{name} {v} not in (0, 1]"));
            }
        }
        if self.template_classes < 2 {
            return bad("template_classes must be at least 2".into());
        }
        Ok(())
    }
}

/// What dedup keeps of one document: plain data, serializable, so fingerprints made on several
/// machines can be clustered together (with the same [`DedupConfig`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Normalized words in the text.
    pub words: u32,
    /// XXH3-128 of the normalized text.
    pub exact: u128,
    /// Adler-32 of the normalized text (only for reporting 32-bit checksum collisions).
    pub adler32: u32,
    /// 64-bit SimHash of the words weighted by 1 + ln(term frequency).
    pub simhash: u64,
    /// b-bit MinHash signature of the circular shingles (one byte per permutation); empty for a
    /// text without words. Written as a hex string (compact, and fast to write and read).
    #[serde(with = "hex_bytes")]
    pub minhash: Box<[u8]>,
    /// The next 8 bits of each row's minimum ([`MinHasher::wide`]), from which clustering makes
    /// 32-bit band keys; empty when not known (fingerprints read from an index), and then
    /// clustering keys bands on the signature's bytes alone, as before.
    #[serde(with = "hex_bytes", default)]
    pub minhash_wide: Box<[u8]>,
    /// The words and lines verification compares.
    #[serde(default)]
    pub profile: WordProfile,
}

impl Fingerprint {
    /// Bytes of the search index this fingerprint occupies in memory (struct and signature,
    /// without the word profile).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>() - std::mem::size_of::<WordProfile>()
            + self.minhash.len()
            + self.minhash_wide.len()
    }
}

/// Computes [`Fingerprint`]s, reusing its buffers (one per thread).
#[derive(Debug, Clone)]
pub struct Fingerprinter {
    normalizer_words: Vec<u64>,
    line_ends: Vec<u32>,
    sorted: Vec<u64>,
    shingles: Vec<u64>,
    roller: ShingleRoller,
    minhasher: MinHasher,
    normalizer: NormalizerCell,
    wide: bool,
}

/// `Normalizer` is not `Clone` (it is only buffers); a fresh one is as good as a copy.
#[derive(Debug, Default)]
struct NormalizerCell(Normalizer);

impl Clone for NormalizerCell {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Fingerprinter {
    /// A fingerprinter for `cfg` (call [`DedupConfig::validate`] first for user-given values;
    /// out-of-range sizes are clamped here so this never panics).
    pub fn new(cfg: &DedupConfig) -> Self {
        Self {
            normalizer_words: Vec::new(),
            line_ends: Vec::new(),
            sorted: Vec::new(),
            shingles: Vec::new(),
            roller: ShingleRoller::new(cfg.shingle_words.clamp(1, 64)),
            minhasher: MinHasher::new(cfg.minhash_perms.clamp(1, 4096)),
            normalizer: NormalizerCell::default(),
            wide: false,
        }
    }

    /// Whether fingerprints also keep the wide bytes of their signature rows
    /// ([`Fingerprint::minhash_wide`], one byte a row), from which clustering makes 32-bit band
    /// keys. Off by default: a run of a few hundred thousand documents meets few enough chance
    /// collisions in 16-bit keys that the bytes cost more than they save (see
    /// `limits::DEDUP_WIDE_KEYS_FROM_BYTES`).
    pub fn wide_keys(mut self, on: bool) -> Self {
        self.wide = on;
        self
    }

    /// The last text fingerprinted: its normalized words and their Rabin fingerprints, so a
    /// caller can sample its phrases (`crawlsift-phrases`) without normalizing it again.
    pub fn last_words(&self) -> (crate::normalize::Normalized<'_>, &[u64]) {
        (self.normalizer.0.last(), &self.normalizer_words)
    }

    /// Fingerprints one document's main text.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprint {
        let norm = self.normalizer.0.normalize_lines(text, &mut self.line_ends);
        let exact = exact_hash(norm.text());
        let adler = adler32(norm.text());
        let rabin = self.roller.rabin();
        self.normalizer_words.clear();
        let text = norm.text().as_bytes();
        self.normalizer_words.extend(
            norm.spans()
                .iter()
                .map(|&(a, b)| rabin.fingerprint_in(text, a as usize, b as usize)),
        );
        let words = &self.normalizer_words;

        // SimHash over distinct words, weight 1 + ln(tf) (sublinear: a repeated word counts, but
        // a word repeated 100 times does not drown the rest).
        self.sorted.clear();
        self.sorted.extend_from_slice(words);
        self.sorted.sort_unstable();
        let sorted = &self.sorted;
        let features = sorted
            .chunk_by(|a, b| a == b)
            .map(|run| (mix64(run[0]), term_weight(run.len())));
        let sh = simhash(features);

        // Texts too short to judge get a signature too: they are never clustered, but their
        // phrases count when telling template text from copied text.
        let (minhash, minhash_wide): (Box<[u8]>, Box<[u8]>) = if words.is_empty() {
            (Box::new([]), Box::new([]))
        } else {
            self.minhasher.reset();
            self.shingles.clear();
            let shingles = &mut self.shingles;
            self.roller.for_each_shingle(words, |fp| shingles.push(fp));
            self.minhasher.update_all(&self.shingles);
            let wide = if self.wide {
                self.minhasher.wide()
            } else {
                Box::new([])
            };
            (self.minhasher.signature(), wide)
        };
        Fingerprint {
            words: u32::try_from(words.len()).unwrap_or(u32::MAX),
            exact,
            adler32: adler,
            simhash: sh,
            minhash,
            minhash_wide,
            profile: profile_of(words, &self.line_ends),
        }
    }
}

/// The word profile of a text from its words' Rabin fingerprints and its line ends (at most
/// `limits::DEDUP_PROFILE_MAX_WORDS` words).
fn profile_of(words: &[u64], line_ends: &[u32]) -> WordProfile {
    let kept = words.len().min(limits::DEDUP_PROFILE_MAX_WORDS);
    let mut lines = Vec::with_capacity(line_ends.len());
    let mut start = 0usize;
    for &end in line_ends {
        let end = (end as usize).min(kept);
        if end <= start {
            break;
        }
        let hash = words[start..end]
            .iter()
            .fold(0x243F_6A88_85A3_08D3u64, |h, &w| {
                mix64(h.rotate_left(17) ^ w)
            });
        lines.push(Line {
            hash,
            end: end as u32,
        });
        start = end;
    }
    WordProfile {
        words: words[..kept]
            .iter()
            .map(|&w| (mix64(w) >> 32) as u32)
            .collect(),
        lines: lines.into(),
    }
}

/// Serde of byte signatures: hex in JSON, raw bytes in binary formats.
mod hex_bytes {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        crate::encoding::serialize(bytes, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u8]>, D::Error> {
        crate::encoding::deserialize(d)
    }
}

/// SimHash weight of a word that occurs `n` times: 1 + ln n. Most words occur a few times, and
/// their weights come from a table of the very same values.
fn term_weight(n: usize) -> f32 {
    const SMALL: usize = 16;
    static TABLE: std::sync::OnceLock<[f32; SMALL]> = std::sync::OnceLock::new();
    let weight = |n: usize| 1.0 + (n as f32).ln();
    match TABLE.get_or_init(|| std::array::from_fn(weight)).get(n) {
        Some(&w) => w,
        None => weight(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_bad_ones_are_refused() {
        assert!(DedupConfig::default().validate().is_ok());
        let mut c = DedupConfig::default();
        c.lsh_bands = c.minhash_perms;
        assert!(c.validate().is_err());
        let c = DedupConfig {
            min_jaccard: 1.5,
            ..DedupConfig::default()
        };
        assert!(c.validate().is_err());
    }

    #[test]
    fn normalization_variants_have_the_same_fingerprint() {
        let cfg = DedupConfig {
            min_words: 3,
            ..DedupConfig::default()
        };
        let mut f = Fingerprinter::new(&cfg);
        let a = f.fingerprint("The quick brown fox -- jumps over the lazy dog.");
        let b = f.fingerprint("the QUICK brown fox jumps over the “lazy” dog");
        assert_eq!(a, b);
        // A line break separates words like a space; only the profile's lines tell it.
        let c = f.fingerprint("the QUICK brown fox jumps\nover the “lazy” dog");
        assert_eq!(
            (c.exact, c.minhash.clone(), c.simhash),
            (a.exact, a.minhash.clone(), a.simhash)
        );
        assert_eq!(c.profile.words, a.profile.words);
        assert_eq!(
            c.profile.lines.iter().map(|l| l.end).collect::<Vec<_>>(),
            vec![5, 9]
        );
        assert_eq!(a.words, 9);
        assert_eq!(a.minhash.len(), cfg.minhash_perms);
    }

    #[test]
    fn only_empty_texts_carry_no_signature() {
        let cfg = DedupConfig::default();
        let mut f = Fingerprinter::new(&cfg);
        let fp = f.fingerprint("Sign in. Forgot your password?");
        assert_eq!(fp.words, 5);
        assert_eq!(fp.minhash.len(), cfg.minhash_perms);
        let empty = f.fingerprint(" -- ");
        assert_eq!(empty.words, 0);
        assert!(empty.minhash.is_empty());
    }

    #[test]
    fn fingerprint_is_small_and_round_trips() {
        let mut f = Fingerprinter::new(&DedupConfig::default());
        let text = "word ".repeat(10) + &(0..100).map(|i| format!("w{i} ")).collect::<String>();
        let fp = f.fingerprint(&text);
        // 192 signature bytes and the fixed fields (issue 9: under 300 bytes a document).
        assert!(fp.memory_bytes() < 300, "{} bytes", fp.memory_bytes());
        assert!(fp.minhash_wide.is_empty());
        // With wide keys, one more byte a row (for 32-bit band keys).
        let wide = Fingerprinter::new(&DedupConfig::default())
            .wide_keys(true)
            .fingerprint(&text);
        assert_eq!(wide.minhash_wide.len(), wide.minhash.len());
        assert!(wide.memory_bytes() < 500, "{} bytes", wide.memory_bytes());
        assert_eq!(
            (wide.minhash.clone(), wide.simhash),
            (fp.minhash.clone(), fp.simhash)
        );
        let json = serde_json::to_string(&fp).unwrap();
        let back: Fingerprint = serde_json::from_str(&json).unwrap();
        assert_eq!(back, fp);
        // The signature is hex: two characters per permutation.
        let hex: String = fp.minhash.iter().map(|b| format!("{b:02x}")).collect();
        assert!(json.contains(&format!("\"minhash\":\"{hex}\"")), "{json}");
        let damaged = json.replace(&hex, &format!("{}zz", &hex[2..]));
        assert!(serde_json::from_str::<Fingerprint>(&damaged).is_err());
    }
}
