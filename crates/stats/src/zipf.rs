//! Zipf's law: the table of the most frequent words (`rank, word, freq, p_r, r_p_r`), the
//! exponent `s` of `freq ~ rank^-s` fitted by least squares on log-log over the ranks
//! [`STATS_ZIPF_FIT_RANKS`], and the rank-frequency curve at log-spaced ranks for plots.

use crawlsift_common::limits::{STATS_CURVE_POINTS, STATS_ZIPF_FIT_RANKS};
use serde::{Deserialize, Serialize};

use crate::fit;

/// One row of the Zipf table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZipfRow {
    /// Rank, from 1.
    pub rank: usize,
    /// The word.
    pub word: String,
    /// Its occurrences.
    pub freq: u64,
    /// Its share of all occurrences, in percent (4 decimals).
    pub p_r: f64,
    /// Rank times its share (a fraction, 4 decimals): about 0.1 for English.
    pub r_p_r: f64,
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The first `top` rows of the table of `ranked` words (most frequent first) out of
/// `occurrences`.
pub fn table(ranked: &[(&str, u64)], occurrences: u64, top: usize) -> Vec<ZipfRow> {
    let total = occurrences.max(1) as f64;
    ranked
        .iter()
        .take(top)
        .enumerate()
        .map(|(i, &(w, f))| {
            let p = f as f64 / total;
            ZipfRow {
                rank: i + 1,
                word: w.to_string(),
                freq: f,
                p_r: round4(p * 100.0),
                r_p_r: round4((i + 1) as f64 * p),
            }
        })
        .collect()
}

/// The Zipf exponent `s` (`freq ~ rank^-s`) of frequencies sorted from the highest, fitted over
/// ranks [`STATS_ZIPF_FIT_RANKS`] (all ranks when fewer than the first of them exist).
pub fn exponent(freqs: &[u64]) -> Option<f64> {
    let (first, last) = STATS_ZIPF_FIT_RANKS;
    let first = if freqs.len() < first { 1 } else { first };
    let pts: Vec<(f64, f64)> = freqs
        .iter()
        .enumerate()
        .map(|(i, &f)| (i + 1, f))
        .filter(|&(r, f)| r >= first && r <= last && f > 0)
        .map(|(r, f)| ((r as f64).ln(), (f as f64).ln()))
        .collect();
    fit::line(&pts).map(|(slope, _)| round4(-slope))
}

/// `(rank, freq)` of frequencies sorted from the highest, at about [`STATS_CURVE_POINTS`]
/// log-spaced ranks (every rank up to 10, and the last rank).
pub fn curve(freqs: &[u64]) -> Vec<(u64, u64)> {
    let n = freqs.len();
    if n == 0 {
        return Vec::new();
    }
    let step = ((n as f64).ln() / STATS_CURVE_POINTS as f64)
        .exp()
        .max(1.0 + 1e-9);
    let mut out = Vec::new();
    let mut r = 1.0f64;
    let mut last = 0usize;
    while (r as usize) <= n {
        let rank = r as usize;
        if rank > last {
            out.push((rank as u64, freqs[rank - 1]));
            last = rank;
        }
        r = (r * step)
            .max(r + 1.0)
            .min(if rank < 10 { r + 1.0 } else { f64::MAX });
    }
    if last < n {
        out.push((n as u64, freqs[n - 1]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_shares_in_percent_and_rank_times_share() {
        let ranked = [("the", 50), ("of", 25), ("a", 25)];
        let t = table(&ranked, 100, 2);
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].p_r, t[0].r_p_r), (50.0, 0.5));
        assert_eq!((t[1].rank, t[1].p_r, t[1].r_p_r), (2, 25.0, 0.5));
    }

    #[test]
    fn an_exact_power_law_gives_its_exponent() {
        let freqs: Vec<u64> = (1..=2000u64)
            .map(|r| (1e9 / (r as f64).powf(1.2)).round() as u64)
            .collect();
        let s = exponent(&freqs).unwrap();
        assert!((s - 1.2).abs() < 1e-3, "{s}");
        // Fewer ranks than the fit's first one: all ranks are used.
        assert_eq!(exponent(&[100, 50]), Some(1.0));
        assert_eq!(exponent(&[7]), None);
    }

    #[test]
    fn the_curve_keeps_first_and_last_ranks_and_stays_short() {
        let freqs: Vec<u64> = (1..=100_000u64).rev().collect();
        let c = curve(&freqs);
        assert_eq!(c[0], (1, 100_000));
        assert_eq!(c[9], (10, 99_991));
        assert_eq!(*c.last().unwrap(), (100_000, 1));
        assert!(c.len() <= STATS_CURVE_POINTS + 12, "{}", c.len());
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
