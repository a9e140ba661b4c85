//! Heaps' law: vocabulary `V = K * n^beta` against word occurrences `n`. Points `(n, V)` are
//! taken after a document whenever `n` has grown by [`STATS_HEAPS_STEP`] since the last point
//! (and once at the end), and `K`, `beta` are fitted by least squares on log-log.

use crawlsift_common::limits::STATS_HEAPS_STEP;
use serde::{Deserialize, Serialize};

use crate::fit;

/// The sampled growth of the vocabulary.
#[derive(Debug, Clone, Default)]
pub struct HeapsSampler {
    points: Vec<(u64, u64)>,
    next: u64,
}

/// Heaps' law fitted to a collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heaps {
    /// `K` of `V = K * n^beta`.
    pub k: Option<f64>,
    /// `beta` of `V = K * n^beta` (0.4 to 0.6 for English text).
    pub beta: Option<f64>,
    /// The points `(occurrences, vocabulary)` the fit was made on.
    pub points: Vec<(u64, u64)>,
}

impl HeapsSampler {
    /// Notes the totals after a document: `occurrences` so far and the `vocabulary` so far.
    pub fn observe(&mut self, occurrences: u64, vocabulary: u64) {
        if occurrences > 0 && occurrences >= self.next {
            self.points.push((occurrences, vocabulary));
            self.next =
                ((occurrences as f64 * STATS_HEAPS_STEP).ceil() as u64).max(occurrences + 1);
        }
    }

    /// Fits the law, adding the final totals as the last point.
    pub fn finish(mut self, occurrences: u64, vocabulary: u64) -> Heaps {
        if occurrences > 0 && self.points.last().map(|p| p.0) != Some(occurrences) {
            self.points.push((occurrences, vocabulary));
        }
        let logs: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(|p| p.1 > 0)
            .map(|&(n, v)| ((n as f64).ln(), (v as f64).ln()))
            .collect();
        let r = |x: f64| (x * 10_000.0).round() / 10_000.0;
        let fitted = fit::line(&logs);
        Heaps {
            k: fitted.map(|(_, c)| r(c.exp())),
            beta: fitted.map(|(s, _)| r(s)),
            points: self.points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_heaps_curve_gives_k_and_beta() {
        let mut s = HeapsSampler::default();
        let v = |n: u64| (30.0 * (n as f64).powf(0.5)).round() as u64;
        for n in (100..=1_000_000u64).step_by(100) {
            s.observe(n, v(n));
        }
        let h = s.finish(1_000_000, v(1_000_000));
        assert!((h.beta.unwrap() - 0.5).abs() < 1e-3, "{h:?}");
        assert!((h.k.unwrap() - 30.0).abs() < 0.1, "{h:?}");
        // About ten points a decade, not one per document.
        assert!(h.points.len() < 100, "{}", h.points.len());
    }

    #[test]
    fn no_words_no_fit() {
        let h = HeapsSampler::default().finish(0, 0);
        assert_eq!((h.k, h.beta, h.points.len()), (None, None, 0));
    }
}
