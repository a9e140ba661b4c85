//! Words of a text as reuse sees them: maximal runs of Unicode letters and digits (general
//! categories `L*` and `N*`, what Python's `[^\W_]+` matches), lower-cased, each kept as a 64-bit
//! hash with its character range in the text (Unicode scalar values, end exclusive, as Python
//! slices a `str`).

use unicode_general_category::{get_general_category, GeneralCategory as G};
use xxhash_rust::xxh3::xxh3_64;

/// Whether `c` belongs to a word: a letter or a digit of any Unicode letter or number category.
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

/// The words of a text: hashes of the lower-cased words and their character ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    /// One hash per word, in text order.
    pub hashes: Vec<u64>,
    /// Character range `[start, end)` of each word in the text.
    pub chars: Vec<(u32, u32)>,
}

impl Words {
    /// The first `max_words` words of `text`.
    pub fn of(text: &str, max_words: usize) -> Words {
        let mut w = Words::default();
        let mut lower = String::new();
        let mut start: Option<(usize, u32)> = None; // byte, char
        let mut chars = 0u32;
        for (i, c) in text.char_indices() {
            if w.hashes.len() >= max_words {
                return w;
            }
            match (is_word_char(c), start) {
                (true, None) => start = Some((i, chars)),
                (false, Some((b, ch))) => {
                    w.push(&text[b..i], ch, chars, &mut lower);
                    start = None;
                }
                _ => {}
            }
            chars = chars.saturating_add(1);
        }
        if let Some((b, ch)) = start {
            if w.hashes.len() < max_words {
                w.push(&text[b..], ch, chars, &mut lower);
            }
        }
        w
    }

    fn push(&mut self, word: &str, start: u32, end: u32, lower: &mut String) {
        let h = if word
            .bytes()
            .all(|b| !b.is_ascii_uppercase() && b.is_ascii())
        {
            xxh3_64(word.as_bytes())
        } else {
            lower.clear();
            lower.extend(word.chars().flat_map(char::to_lowercase));
            xxh3_64(lower.as_bytes())
        };
        self.hashes.push(h);
        self.chars.push((start, end));
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

/// The hash of the `k` words from `at`, mixed so that its order is random (winnowing keeps
/// minima).
pub(crate) fn shingle(hashes: &[u64]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for &w in hashes {
        h = (h ^ w).wrapping_mul(0xbf58_476d_1ce4_e5b9).rotate_left(27);
    }
    // splitmix64's finaliser
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_runs_of_letters_and_digits_with_their_character_ranges() {
        let w = Words::of("Ça va? «Très» bien_2 x", usize::MAX);
        assert_eq!(
            w.chars,
            [(0, 2), (3, 5), (8, 12), (14, 18), (19, 20), (21, 22)]
        );
        assert_eq!(w.hashes[0], xxh3_64("ça".as_bytes()));
        assert_eq!(w.hashes[2], xxh3_64("très".as_bytes()));
        assert_eq!(
            Words::of("Bien bien", 9).hashes[0],
            Words::of("bien", 9).hashes[0]
        );
        assert_eq!(Words::of("a b c d", 2).len(), 2);
        assert!(Words::of(" _ -- ", 9).is_empty());
    }
}
