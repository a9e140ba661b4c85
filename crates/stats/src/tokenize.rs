//! Words of a text: maximal runs of Unicode letters and digits (general categories `L*` and `N*`,
//! what Python's `[^\W_]+` matches), lower-cased. No stemming, no stop list.
//!
//! This is not dedup's definition of a word (`crawlsift_dedup::normalize`, which every comparison
//! of texts uses), on purpose: statistics count words as written, the way the published reference
//! counts and other tools do (`../shared/corpus/text/INDEX.md`), where dedup folds compatibility
//! forms and case and splits ideographs to decide that two texts say the same thing.

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

/// Calls `f` on every word of `text`, lower-cased, in order. `buf` is scratch space reused
/// between calls (a word already in lower case is passed without copying).
pub fn for_each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
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
                emit(&text[s..i], buf, &mut f);
                start = None;
            }
            _ => {}
        }
        i += len;
    }
    if let Some(s) = start {
        emit(&text[s..], buf, &mut f);
    }
}

fn emit(word: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        f(word);
    } else if word.is_ascii() {
        buf.clear();
        buf.push_str(word);
        buf.make_ascii_lowercase();
        f(buf);
    } else {
        buf.clear();
        buf.push_str(&word.to_lowercase());
        f(buf);
    }
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
}
