//! Words of a text as reuse sees them: the words of [`crawlsift_common::words`] (maximal runs of
//! Unicode letters and digits, lower-cased), each kept as a 64-bit hash with its character range
//! in the text (Unicode scalar values, end exclusive, as Python slices a `str`).

use crawlsift_common::words::{for_each_span, lower};
use xxhash_rust::xxh3::xxh3_64;

pub use crawlsift_common::words::is_word_char;

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
        let mut buf = String::new();
        // Characters before byte `at`.
        let (mut at, mut chars) = (0usize, 0u32);
        let count = |to: usize, at: &mut usize, chars: &mut u32| {
            let n = text[*at..to].chars().count();
            *chars = chars.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
            *at = to;
        };
        for_each_span(text, |s, e| {
            if w.hashes.len() >= max_words {
                return;
            }
            count(s, &mut at, &mut chars);
            let start = chars;
            count(e, &mut at, &mut chars);
            w.hashes
                .push(xxh3_64(lower(&text[s..e], &mut buf).as_bytes()));
            w.chars.push((start, chars));
        });
        w
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
