//! Candidate fingerprints of a document: its k-word shingles winnowed (Schleimer, Wilkerson and
//! Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003). Of every w
//! consecutive shingles the one with the smallest hash is kept (the rightmost on a tie), so two
//! documents sharing any run of w + k - 1 words share a fingerprint, whatever surrounds it, and
//! a document keeps about 2 / (w + 1) of its shingles.

use crate::words::shingle;

/// One kept shingle: its hash and the word it starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// The shingle's hash.
    pub hash: u64,
    /// Index of its first word.
    pub word: u32,
}

/// The winnowed shingles of `hashes` (word hashes), `k` words each, window `w`, at most `max`
/// (the first ones), in text order. A text of fewer than `k` words has none; one of fewer than
/// `w + k - 1` words keeps its smallest shingle.
pub fn winnow(hashes: &[u64], k: usize, w: usize, max: usize) -> Vec<Fingerprint> {
    let (k, w) = (k.max(1), w.max(1));
    if hashes.len() < k {
        return Vec::new();
    }
    let sh: Vec<u64> = hashes.windows(k).map(shingle).collect();
    let mut out: Vec<Fingerprint> = Vec::new();
    let windows = sh.len().saturating_sub(w) + 1;
    let mut last: Option<usize> = None;
    for start in 0..windows {
        let end = (start + w).min(sh.len());
        // rightmost minimum of the window
        let mut best = start;
        for i in start..end {
            if sh[i] <= sh[best] {
                best = i;
            }
        }
        if last != Some(best) {
            if out.len() >= max {
                break;
            }
            out.push(Fingerprint {
                hash: sh[best],
                word: best as u32,
            });
            last = Some(best);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: u64, salt: u64) -> Vec<u64> {
        (0..n)
            .map(|i| shingle(&[i.wrapping_mul(7919) ^ salt]))
            .collect()
    }

    #[test]
    fn a_shared_run_of_w_plus_k_minus_1_words_always_shares_a_fingerprint() {
        let (k, w) = (4, 4);
        for trial in 0..200u64 {
            let run = words(w as u64 + k as u64 - 1, 1_000_000 + trial);
            let mut a = words(20 + trial % 7, trial);
            let mut b = words(13 + trial % 5, trial + 999);
            a.splice(5..5, run.iter().copied());
            b.splice(3..3, run.iter().copied());
            let fa = winnow(&a, k, w, usize::MAX);
            let fb = winnow(&b, k, w, usize::MAX);
            assert!(
                fa.iter().any(|x| fb.iter().any(|y| y.hash == x.hash)),
                "trial {trial}"
            );
        }
    }

    #[test]
    fn winnowing_keeps_a_fraction_of_shingles_in_order_and_respects_the_cap() {
        let a = words(10_000, 5);
        let f = winnow(&a, 4, 4, usize::MAX);
        let share = f.len() as f64 / a.len() as f64;
        assert!((0.3..0.5).contains(&share), "{share}");
        assert!(f.windows(2).all(|p| p[0].word < p[1].word));
        assert_eq!(winnow(&a, 4, 4, 10).len(), 10);
        assert!(winnow(&a[..3], 4, 4, 10).is_empty());
        assert_eq!(winnow(&a[..5], 4, 4, 10).len(), 1);
    }
}
