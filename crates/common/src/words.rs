//! The one word rule of crawlsift's statistics, text reuse and `--drop-popular-phrases`: a word is a maximal run of
//! Unicode letters and digits (general categories `L*` and `N*`, what Python's `[^\W_]+`
//! matches), lower-cased with `str::to_lowercase`. No stemming, no stop list.
//!
//! Dedup's comparison of texts folds more (`crawlsift_dedup::normalize`: compatibility forms,
//! ideographs split) on purpose; statistics, reuse and sentence keys count words as written, the way the
//! published references and the PAN benchmarks do.

use unicode_general_category::{get_general_category, GeneralCategory as G};

/// Whether `c` belongs to a word: a letter or a digit (any Unicode letter or number category).
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// Calls `f(start, end)` with the byte range of every word of `text`, in order.
pub fn for_each_span(text: &str, mut f: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let mut start = None;
    let mut i = 0;
    while i < bytes.len() {
        // ASCII without decoding; otherwise the character starting here (`i` is always on a
        // character boundary).
        let (word, len) = match bytes[i] {
            b if b.is_ascii() => (b.is_ascii_alphanumeric(), 1),
            _ => text[i..]
                .chars()
                .next()
                .map_or((false, 1), |c| (is_word_char(c), c.len_utf8())),
        };
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                f(s, i);
                start = None;
            }
            _ => {}
        }
        i += len;
    }
    if let Some(s) = start {
        f(s, bytes.len());
    }
}

/// `word` lower-cased: itself when it already is, else written into `buf`.
pub fn lower<'a>(word: &'a str, buf: &'a mut String) -> &'a str {
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return word;
    }
    buf.clear();
    if word.is_ascii() {
        buf.push_str(word);
        buf.make_ascii_lowercase();
    } else {
        buf.push_str(&word.to_lowercase());
    }
    buf
}

/// Calls `f` on every word of `text`, lower-cased, in order. `buf` is scratch space reused
/// between calls (a word already in lower case is passed without copying).
pub fn for_each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    for_each_span(text, |s, e| f(lower(&text[s..e], buf)));
}

/// The words of `text`, lower-cased, in order (a convenience over [`for_each_word`]).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for_each_word(text, &mut buf, |w| out.push(w.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_runs_of_letters_and_digits_lower_cased() {
        assert_eq!(
            words("The cat's 2nd-hand hat_box, ÉTÉ 1999! naïve Straße"),
            ["the", "cat", "s", "2nd", "hand", "hat", "box", "été", "1999", "naïve", "straße"]
        );
    }

    #[test]
    fn underscores_punctuation_and_marks_split_words() {
        assert_eq!(words("a_b-c.d\te\u{00a0}f"), ["a", "b", "c", "d", "e", "f"]);
        assert!(words("  ... ___ !!! ").is_empty());
        assert!(words("").is_empty());
    }

    #[test]
    fn other_scripts_and_numbers_are_word_characters() {
        // Greek, Cyrillic, CJK (one run: no spaces), Arabic-Indic digits, superscript two (No).
        assert_eq!(
            words("ΣΟΦΙΑ мир 東京タワー ٣٤ x²"),
            ["σοφια", "мир", "東京タワー", "٣٤", "x²"]
        );
        // A combining accent (Mn) is not a letter in `[^\W_]`: it splits the word, as in Python.
        assert_eq!(words("e\u{0301}t"), ["e", "t"]);
    }

    #[test]
    fn spans_are_byte_ranges() {
        let mut spans = Vec::new();
        for_each_span("Ça va? x", |s, e| spans.push((s, e)));
        assert_eq!(spans, [(0, 3), (4, 6), (8, 9)]);
    }
}
