//! Text normalization and word splitting: the one definition of "the same words" for every
//! fingerprint.
//!
//! A text is brought to NFKC, Unicode default case folding and NFKC again (the Unicode "compatibility
//! caseless match" form), then split into words. A word is a maximal run of alphanumeric characters
//! (and combining marks that follow them); punctuation, symbols and white space only separate
//! words, so their variants (curly or straight quotes, dashes, non-breaking spaces, line breaks)
//! never matter. Scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
//! Myanmar) give one word per character, as in UAX #29 for ideographs.
//!
//! The fingerprints and the phrase sketches (`crawlsift_phrases::sketch`) use these words. Every
//! other part of crawlsift (statistics, text reuse, the sentence key of `--drop-popular-phrases`)
//! uses the one other definition, `crawlsift_common::words`: runs of Unicode letters and digits
//! (`L*`, `N*`), lower-cased, no normalization, which is Python's `[^\W_]+`, so that term
//! statistics count words as written and match the published reference counts
//! (`../shared/corpus/text/INDEX.md`) and other tools. The two stay apart on purpose: folding
//! compatibility forms and splitting ideographs is right for deciding that two texts say the same
//! thing, wrong for counting words as a reader sees them.
//!
//! The normalized text is the words joined by single spaces; it is what the exact hash covers.
//! ASCII input (most of the web) takes a fast path that folds bytes in place; no `String` is
//! allocated per word, words are byte ranges into one reused buffer.

use unicode_normalization::UnicodeNormalization;

/// Reusable normalization buffers (one per worker thread).
#[derive(Debug, Default)]
pub struct Normalizer {
    folded: String,
    text: String,
    words: Vec<(u32, u32)>,
}

/// The normalized words of one text, borrowed from a [`Normalizer`].
#[derive(Debug, Clone, Copy)]
pub struct Normalized<'a> {
    text: &'a str,
    words: &'a [(u32, u32)],
}

impl<'a> Normalized<'a> {
    /// The words joined by single spaces.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the text has no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Where each word is in [`text`](Self::text): byte ranges `(start, end)`, in order.
    pub fn spans(&self) -> &'a [(u32, u32)] {
        self.words
    }

    /// The words, in order.
    pub fn words(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let text = self.text;
        self.words
            .iter()
            .map(move |&(s, e)| text.get(s as usize..e as usize).unwrap_or(""))
    }
}

impl Normalizer {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The words of the last text normalized (none before the first).
    pub fn last(&self) -> Normalized<'_> {
        Normalized {
            text: &self.text,
            words: &self.words,
        }
    }

    /// Normalizes `input`, reusing this normalizer's buffers.
    ///
    /// The text is cut at ASCII white space, where neither normalization nor folding can join or
    /// reorder characters across the cut (a space is a starter with no compositions), so each
    /// piece is normalized alone: pure-ASCII pieces (nearly all words of most pages) skip the
    /// Unicode machinery, which runs without allocating on the others.
    pub fn normalize(&mut self, input: &str) -> Normalized<'_> {
        self.text.clear();
        self.words.clear();
        self.append(input);
        Normalized {
            text: &self.text,
            words: &self.words,
        }
    }

    /// [`normalize`](Self::normalize), also telling where each line of `input` ends: after it,
    /// `line_ends[i]` is the number of words before the end of the `i`-th line (lines split at
    /// `\n`; lines without a word are left out). A line break is ASCII white space, where the text
    /// may be cut, so the words and text are the same as [`normalize`](Self::normalize) gives.
    pub fn normalize_lines(&mut self, input: &str, line_ends: &mut Vec<u32>) -> Normalized<'_> {
        self.text.clear();
        self.words.clear();
        line_ends.clear();
        for line in input.split('\n') {
            let before = self.words.len();
            self.append(line);
            if self.words.len() > before {
                line_ends.push(self.words.len() as u32);
            }
        }
        Normalized {
            text: &self.text,
            words: &self.words,
        }
    }

    /// Appends the normalized words of `input` to the buffers.
    fn append(&mut self, input: &str) {
        use caseless::Caseless;
        let b = input.as_bytes();
        let mut done = 0;
        while done < b.len() {
            let Some(j) = first_non_ascii(b, done) else {
                split_ascii(&input[done..], &mut self.text, &mut self.words);
                break;
            };
            // The piece holding byte j runs between the ASCII white space around it; everything
            // before it is ASCII and is split in one go.
            let start = b[done..j]
                .iter()
                .rposition(u8::is_ascii_whitespace)
                .map_or(done, |p| done + p + 1);
            let end = b[j..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(b.len(), |p| j + p);
            split_ascii(&input[done..start], &mut self.text, &mut self.words);
            self.folded.clear();
            self.folded
                .extend(input[start..end].chars().nfkc().default_case_fold().nfkc());
            split_words(&self.folded, &mut self.text, &mut self.words);
            done = end;
        }
    }
}

/// Position of the first byte at or after `from` that is not ASCII, eight bytes per test.
fn first_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    let mut chunks = rest.chunks_exact(8);
    let mut skipped = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        if u64::from_le_bytes(w) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        skipped += 8;
    }
    rest[skipped..]
        .iter()
        .position(|&c| !c.is_ascii())
        .map(|p| from + skipped + p)
}

/// ASCII word bytes (letters and digits) mapped to their lower case; 0 for every other byte.
static ASCII_WORD_LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        if (c as u8).is_ascii_alphanumeric() {
            t[c] = (c as u8).to_ascii_lowercase();
        }
        c += 1;
    }
    t
};

/// Appends the words of the (already folded) `src` to `text`, space-separated, recording ranges.
fn split_words(src: &str, text: &mut String, words: &mut Vec<(u32, u32)>) {
    if src.is_ascii() {
        split_ascii(src, text, words);
        return;
    }
    // Words are recorded as u32 offsets; a text past 4 GiB is cut there (no text is that long after
    // extraction, and the reader bounds records far below).
    let mut start: Option<usize> = None;
    for c in src.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                if start.is_none() {
                    start = Some(begin_word(text));
                }
                text.push(c.to_ascii_lowercase());
            } else {
                end_word(text, words, &mut start);
            }
        } else if is_unspaced_script(c) {
            end_word(text, words, &mut start);
            start = Some(begin_word(text));
            text.push(c);
            end_word(text, words, &mut start);
        } else if c.is_alphanumeric() || (start.is_some() && is_combining_mark(c)) {
            if start.is_none() {
                start = Some(begin_word(text));
            }
            text.push(c);
        } else {
            end_word(text, words, &mut start);
        }
        if text.len() >= u32::MAX as usize - 8 {
            break;
        }
    }
    end_word(text, words, &mut start);
}

/// [`split_words`] for ASCII text (same rules: a word is a run of ASCII letters and digits,
/// lower-cased), in one pass over the bytes: each byte is looked up once and either appended
/// lower-cased or ends the word. Words are short (five letters on average), so this beats finding
/// each run and copying it whole.
fn split_ascii(src: &str, text: &mut String, words: &mut Vec<(u32, u32)>) {
    // Word offsets are u32: the text stops short of 4 GiB (see `split_words`).
    let room = (u32::MAX as usize - 8).saturating_sub(text.len() + 1);
    let b = &src.as_bytes()[..src.len().min(room)];
    text.reserve(b.len() + 1);
    let mut start: Option<usize> = None;
    for &c in b {
        let l = ASCII_WORD_LOWER[usize::from(c)];
        if l != 0 {
            if start.is_none() {
                start = Some(begin_word(text));
            }
            text.push(char::from(l));
        } else {
            end_word(text, words, &mut start);
        }
    }
    end_word(text, words, &mut start);
}

fn begin_word(text: &mut String) -> usize {
    if !text.is_empty() {
        text.push(' ');
    }
    text.len()
}

fn end_word(text: &str, words: &mut Vec<(u32, u32)>, start: &mut Option<usize>) {
    if let Some(s) = start.take() {
        words.push((s as u32, text.len() as u32));
    }
}

/// Scripts written without spaces between words: each character is a word.
fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x3134F  // CJK extensions B-G
    ) && c.is_alphanumeric()
}

/// Combining marks that NFKC leaves separate (Indic vowel signs and viramas, Hebrew and Arabic
/// points, combining diacritics): they continue the word before them.
fn is_combining_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05C7
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06ED
        | 0x0900..=0x0963    // Devanagari .. Sinhala blocks, without their danda punctuation
        | 0x0966..=0x0DFF
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x20D0..=0x20FF
        | 0xFE20..=0xFE2F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let mut n = Normalizer::new();
        let r = n.normalize(s);
        r.words().map(str::to_owned).collect()
    }

    #[test]
    fn case_punctuation_and_space_variants_are_equal() {
        let mut n = Normalizer::new();
        let a = n
            .normalize("Hello,   World!  It's\u{00A0}\u{201C}fine\u{201D}.")
            .text()
            .to_owned();
        let b = n
            .normalize("hello world -- it\u{2019}s \"FINE\"")
            .text()
            .to_owned();
        assert_eq!(a, "hello world it s fine");
        assert_eq!(a, b);
    }

    #[test]
    fn unicode_folding_and_compatibility_forms() {
        // German sharp s folds to "ss"; full-width letters and the "fi" ligature are NFKC-folded;
        // a decomposed e + acute equals the precomposed letter.
        assert_eq!(words("STRASSE Straße"), ["strasse", "strasse"]);
        assert_eq!(
            words("\u{FF21}\u{FF22}\u{FF23} \u{FB01}ne"),
            ["abc", "fine"]
        );
        assert_eq!(words("caf\u{0065}\u{0301}"), words("CAF\u{00C9}"));
        assert_eq!(words("ΣΊΣΥΦΟΣ"), words("σίσυφος"));
    }

    #[test]
    fn ideographs_are_single_words_and_marks_continue_words() {
        assert_eq!(words("東京タワー"), ["東", "京", "タ", "ワ", "ー"]);
        assert_eq!(words("हिन्दी भाषा").len(), 2);
        assert_eq!(words("число 42, слово"), ["число", "42", "слово"]);
    }

    /// The definition: NFKC, case fold, NFKC over the whole text, then word splitting.
    fn reference(s: &str) -> String {
        let folded: String = caseless::default_case_fold_str(&s.nfkc().collect::<String>())
            .nfkc()
            .collect();
        let (mut text, mut words) = (String::new(), Vec::new());
        split_words(&folded, &mut text, &mut words);
        text
    }

    proptest::proptest! {
        #[test]
        fn piecewise_normalization_equals_whole_text(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "Z", "9", " ", "\n", ".", "'", "\u{0301}", "\u{0345}", "\u{00C9}", "\u{00DF}",
                "\u{FB01}", "\u{00A0}", "\u{2019}", "\u{03A3}", "\u{1100}", "\u{1161}", "\u{AC00}",
                "\u{6771}", "\u{0915}", "\u{094D}", "\u{FF21}", "\u{2460}", "\u{0130}",
            ]), 0..40)
        ) {
            let s: String = parts.concat();
            let mut n = Normalizer::new();
            proptest::prop_assert_eq!(n.normalize(&s).text(), reference(&s));
        }
    }

    #[test]
    fn ascii_fast_path_agrees_with_the_unicode_path() {
        // The second text holds one non-ASCII character, so it takes the Unicode path.
        let ascii = words("It's 42 O'CLOCK, isn't-it?");
        let unicode = words("It's 42 O'CLOCK, isn't-it?\u{00A0}");
        assert_eq!(ascii, ["it", "s", "42", "o", "clock", "isn", "t", "it"]);
        assert_eq!(ascii, unicode);
    }

    #[test]
    fn empty_and_symbol_only_texts_have_no_words() {
        assert!(words("").is_empty());
        assert!(words(" \n\t -- !!! ©®").is_empty());
    }
}
