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
    pub fn bag(&self, mut keep: impl FnMut(u64) -> bool) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.words.len());
        let mut start = 0usize;
        for line in self.lines.iter() {
            let end = (line.end as usize).min(self.words.len());
            if keep(line.hash) {
                out.extend_from_slice(self.words.get(start..end).unwrap_or(&[]));
            }
            start = end.max(start);
        }
        out.sort_unstable();
        out
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

/// Serde of `u32` slices as lower-case hex, eight digits per value (big-endian).
mod hex_words {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(v.len() * 8);
        for w in v {
            super::push_hex(&mut out, &w.to_be_bytes());
        }
        s.serialize_str(&super::ascii(out))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[u32]>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let t = text.as_bytes();
        if t.len() % 8 != 0 {
            return Err(D::Error::custom("word hashes are 8 hex digits each"));
        }
        t.chunks_exact(8)
            .map(|c| {
                super::parse_hex(c)
                    .map(|v| v as u32)
                    .ok_or_else(|| D::Error::custom("bad hex"))
            })
            .collect()
    }
}

/// Serde of lines as lower-case hex, 16 digits of hash and 8 of end per line.
mod hex_lines {
    use super::Line;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[Line], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(v.len() * 24);
        for l in v {
            super::push_hex(&mut out, &l.hash.to_be_bytes());
            super::push_hex(&mut out, &l.end.to_be_bytes());
        }
        s.serialize_str(&super::ascii(out))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[Line]>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let t = text.as_bytes();
        if t.len() % 24 != 0 {
            return Err(D::Error::custom("lines are 24 hex digits each"));
        }
        t.chunks_exact(24)
            .map(|c| {
                let hash = super::parse_hex(&c[..16]);
                let end = super::parse_hex(&c[16..]);
                match (hash, end) {
                    (Some(hash), Some(end)) => Ok(Line {
                        hash,
                        end: end as u32,
                    }),
                    _ => Err(D::Error::custom("bad hex")),
                }
            })
            .collect()
    }
}

/// `HEX_PAIRS[b]`: the two lower-case hex digits of byte `b`.
static HEX_PAIRS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = [HEX[b >> 4], HEX[b & 15]];
        b += 1;
    }
    t
};

fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.extend_from_slice(&HEX_PAIRS[usize::from(b)]);
    }
}

/// Hex digits as a `String` (they are ASCII).
fn ascii(hex: Vec<u8>) -> String {
    String::from_utf8(hex).unwrap_or_default()
}

fn parse_hex(c: &[u8]) -> Option<u64> {
    c.iter().try_fold(0u64, |acc, &b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        Some(acc << 4 | u64::from(d))
    })
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
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<WordProfile>(&json).unwrap(), p);
        assert!(serde_json::from_str::<WordProfile>(r#"{"words":"0zz","lines":""}"#).is_err());
    }
}
