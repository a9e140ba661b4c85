//! The words of a document as verification needs them: a 32-bit hash per word, in text order,
//! and its lines (a hash of each line's words and where it ends), so that a site's template lines
//! can be left out before two documents' words are compared.
//!
//! The share of words two documents have in common is the Dice coefficient of their word
//! multisets, `2 |A ∩ B| / (|A| + |B|)`: a page and a copy of it with a few words changed, or with
//! comments of its own, keep most of their words in common, while pages that share only a site's
//! skeleton share little once the skeleton is left out.

use serde::{Deserialize, Serialize};

/// One line of a document: the hash of its normalized words and the index in
/// [`WordProfile::words`] where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// Hash of the line's words (in order).
    pub hash: u64,
    /// Words before the end of this line.
    pub end: u32,
}

/// The words and lines of one document (at most `limits::DEDUP_PROFILE_MAX_WORDS` words).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordProfile {
    /// 32-bit hash of each word, in text order.
    #[serde(with = "hex_words")]
    pub words: Box<[u32]>,
    /// Lines holding at least one kept word, in text order.
    #[serde(with = "hex_lines")]
    pub lines: Box<[Line]>,
}

impl WordProfile {
    /// Bytes this profile occupies in memory (beyond its struct).
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 4 + self.lines.len() * std::mem::size_of::<Line>()
    }

    /// The words of the lines `keep` accepts, sorted (a multiset).
    pub fn bag(&self, keep: impl FnMut(u64) -> bool) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.words.len());
        self.bag_into(keep, &mut out);
        out
    }

    /// [`bag`](Self::bag), appended to `out` (what `out` held before stays as it was).
    pub fn bag_into(&self, mut keep: impl FnMut(u64) -> bool, out: &mut Vec<u32>) {
        let from = out.len();
        let mut start = 0usize;
        for line in self.lines.iter() {
            let end = (line.end as usize).min(self.words.len());
            if keep(line.hash) {
                out.extend_from_slice(self.words.get(start..end).unwrap_or(&[]));
            }
            start = end.max(start);
        }
        out[from..].sort_unstable();
    }
}

/// Size of the multiset intersection of two sorted word lists.
pub fn common_words(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Dice coefficient of two sorted word multisets: the share of their words they have in common
/// (0 when both are empty).
pub fn word_share(a: &[u32], b: &[u32]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 0.0;
    }
    2.0 * common_words(a, b) as f64 / total as f64
}

/// Serde of word hashes: hex in JSON (eight digits each), raw bytes in binary formats.
mod hex_words {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        crate::encoding::serialize(v, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u32]>, D::Error> {
        crate::encoding::deserialize(d)
    }
}

/// Serde of lines: 8 bytes of hash and 4 of end per line (24 hex digits in JSON).
mod hex_lines {
    use super::Line;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[Line], s: S) -> Result<S::Ok, S::Error> {
        crate::encoding::serialize(v, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[Line]>, D::Error> {
        crate::encoding::deserialize(d)
    }
}

impl crate::encoding::Packed for Line {
    const WIDTH: usize = 12;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash.to_be_bytes());
        out.extend_from_slice(&self.end.to_be_bytes());
    }
    fn take(bytes: &[u8]) -> Self {
        let mut hash = [0u8; 8];
        hash.copy_from_slice(&bytes[..8]);
        Line {
            hash: u64::from_be_bytes(hash),
            end: <u32 as crate::encoding::Packed>::take(&bytes[8..12]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_share_counts_repeated_words_as_often_as_both_have_them() {
        let mut a = vec![1, 2, 2, 3, 4];
        let mut b = vec![2, 2, 2, 4, 5];
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(common_words(&a, &b), 3);
        assert!((word_share(&a, &b) - 0.6).abs() < 1e-12);
        assert_eq!(word_share(&[], &[]), 0.0);
        assert_eq!(word_share(&a, &a), 1.0);
    }

    #[test]
    fn bag_leaves_out_the_lines_not_kept_and_round_trips() {
        let p = WordProfile {
            words: vec![9, 8, 7, 6, 5].into(),
            lines: vec![Line { hash: 1, end: 2 }, Line { hash: 2, end: 5 }].into(),
        };
        assert_eq!(p.bag(|h| h != 1), vec![5, 6, 7]);
        assert_eq!(p.bag(|_| true), vec![5, 6, 7, 8, 9]);
        let mut out = vec![9, 1];
        p.bag_into(|h| h != 1, &mut out);
        assert_eq!(
            out,
            vec![9, 1, 5, 6, 7],
            "appended, sorted, the rest as it was"
        );
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<WordProfile>(&json).unwrap(), p);
        assert!(serde_json::from_str::<WordProfile>(r#"{"words":"0zz","lines":""}"#).is_err());
    }
}
