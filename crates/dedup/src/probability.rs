//! Candidate probabilities of the banding schemes, for the report beside the measured rates.
//!
//! SimHash with L groups of K bits: two documents whose SimHashes agree on each bit with
//! probability p (for SimHash, p = 1 - theta / pi, theta the angle between their feature vectors)
//! share no group with probability (1 - p^K)^L: that is P(miss) for a true pair with agreement p,
//! and 1 - (1 - q^K)^L is P(false candidate) for a non-duplicate pair with agreement q. MinHash LSH
//! with b bands of r rows makes a pair of Jaccard s a candidate with probability 1 - (1 - s^r)^b.
//! [`candidate_bounds`] evaluates them for a run's parameters, for `report.json`.

use crawlsift_common::limits::DEDUP_MINHASH_BITS;
use serde::Serialize;

use crate::{ClusterStats, DedupConfig};

/// Per-bit agreement probability of two SimHashes whose feature vectors are at angle `theta`
/// (radians, clamped to [0, pi]).
pub fn simhash_bit_agreement(theta: f64) -> f64 {
    1.0 - theta.clamp(0.0, std::f64::consts::PI) / std::f64::consts::PI
}

/// P(miss) = (1 - p^K)^L: a pair with per-bit agreement `p` shares none of L groups of K bits.
pub fn simhash_miss(p: f64, k: u32, l: u32) -> f64 {
    (1.0 - p.clamp(0.0, 1.0).powi(k as i32)).powi(l as i32)
}

/// P(false candidate) = 1 - (1 - q^K)^L for a non-duplicate pair with per-bit agreement `q`.
pub fn simhash_false_candidate(q: f64, k: u32, l: u32) -> f64 {
    1.0 - simhash_miss(q, k, l)
}

/// MinHash LSH S-curve 1 - (1 - s^r)^b: probability that a pair of Jaccard `s` shares a band.
pub fn minhash_candidate(s: f64, rows: u32, bands: u32) -> f64 {
    1.0 - (1.0 - s.clamp(0.0, 1.0).powi(rows as i32)).powi(bands as i32)
}

/// The same curve for b-bit minima: a row agrees by chance with probability 2^-bits when the
/// minima differ, so the per-row agreement is s + (1 - s) 2^-bits.
pub fn bbit_minhash_candidate(s: f64, bits: u32, rows: u32, bands: u32) -> f64 {
    let s = s.clamp(0.0, 1.0);
    let chance = 0.5f64.powi(bits as i32);
    minhash_candidate(s + (1.0 - s) * chance, rows, bands)
}

/// The seed formulas at a few similarities, for the chosen parameters, beside the rates measured
/// in a run ([`candidate_bounds`]): the `candidate_probabilities` of `report.json`. Field order is
/// JSON order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CandidateBounds {
    /// SimHash with L groups of K bits.
    pub simhash: SimhashBounds,
    /// b-bit MinHash LSH.
    pub minhash_lsh: MinhashBounds,
    /// What the run measured.
    pub measured: MeasuredRates,
}

/// SimHash bands: L groups of K bits, and the probabilities at a few Hamming distances.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimhashBounds {
    /// L: the pigeonhole groups (the Hamming bound plus one).
    pub groups_l: u32,
    /// K: bits per group.
    pub bits_per_group_k: u32,
    /// Probabilities by Hamming distance.
    pub by_hamming_distance: Vec<SimhashAt>,
}

/// SimHash probabilities at one Hamming distance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimhashAt {
    /// Hamming distance of the pair's SimHashes.
    pub hamming: u32,
    /// Per-bit agreement, 1 - hamming / 64.
    pub bit_agreement: f64,
    /// P(miss) of a true pair at this agreement.
    pub p_miss: f64,
    /// P(candidate) of a pair at this agreement.
    pub p_candidate: f64,
}

/// MinHash LSH bands and the probabilities at a few Jaccard similarities.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinhashBounds {
    /// b: bands.
    pub bands: usize,
    /// r: rows per band.
    pub rows: usize,
    /// Probabilities by Jaccard similarity.
    pub by_jaccard: Vec<MinhashAt>,
}

/// MinHash LSH probabilities at one Jaccard similarity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinhashAt {
    /// Jaccard similarity of the pair's shingle sets.
    pub jaccard: f64,
    /// P(candidate).
    pub p_candidate: f64,
    /// P(miss) = 1 - P(candidate).
    pub p_miss: f64,
}

/// Candidate checks and verified pairs measured in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredRates {
    /// Candidate pairs checked (MinHash and SimHash).
    pub candidate_checks: u64,
    /// Distinct candidate pairs whose words were compared.
    pub verified_pairs: u64,
    /// Of those, pairs sharing at least the threshold share of their words.
    pub near_pairs: u64,
    /// Share of checked candidates rejected (0 when none were checked).
    pub rejected_fraction: f64,
}

/// The seed formulas at a few similarities, for the parameters `cfg`, beside the rates measured
/// in a run (`st`): SimHash with L groups of K bits, P(miss) = (1 - p^K)^L for a pair agreeing on
/// a fraction p of bits and P(false candidate) = 1 - (1 - q^K)^L; b-bit MinHash LSH with b bands
/// of r rows, P(candidate) = 1 - (1 - s'^r)^b.
pub fn candidate_bounds(cfg: &DedupConfig, st: &ClusterStats) -> CandidateBounds {
    let l = cfg.simhash_max_hamming + 1; // pigeonhole blocks: a pair within the bound shares one
    let k = 64 / l;
    let by_hamming_distance = [0u32, 2, 3, 4, 6, 10, 16, 20, 32]
        .iter()
        .map(|&h| {
            let p = 1.0 - f64::from(h) / 64.0;
            SimhashAt {
                hamming: h,
                bit_agreement: p,
                p_miss: simhash_miss(p, k, l),
                p_candidate: simhash_false_candidate(p, k, l),
            }
        })
        .collect();
    let by_jaccard = [0.05f64, 0.1, 0.19, 0.3, 0.5, 0.8]
        .iter()
        .map(|&s| {
            let c = bbit_minhash_candidate(
                s,
                DEDUP_MINHASH_BITS,
                cfg.lsh_rows as u32,
                cfg.lsh_bands as u32,
            );
            MinhashAt {
                jaccard: s,
                p_candidate: c,
                p_miss: 1.0 - c,
            }
        })
        .collect();
    let checks = st.minhash_candidate_checks + st.simhash_candidate_checks;
    CandidateBounds {
        simhash: SimhashBounds {
            groups_l: l,
            bits_per_group_k: k,
            by_hamming_distance,
        },
        minhash_lsh: MinhashBounds {
            bands: cfg.lsh_bands,
            rows: cfg.lsh_rows,
            by_jaccard,
        },
        measured: MeasuredRates {
            candidate_checks: checks,
            verified_pairs: st.verified_pairs,
            near_pairs: st.near_pairs,
            rejected_fraction: if checks > 0 {
                1.0 - st.near_pairs as f64 / checks as f64
            } else {
                0.0
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn hand_values() {
        // (1 - 0.5^2)^2 = 0.5625
        assert!(close(simhash_miss(0.5, 2, 2), 0.5625));
        assert!(close(simhash_false_candidate(0.5, 2, 2), 0.4375));
        // 1 - (1 - 0.5^2)^1 = 0.25 ; 1 - (1 - 0.2^2)^96 = 1 - 0.96^96
        assert!(close(minhash_candidate(0.5, 2, 1), 0.25));
        assert!(close(minhash_candidate(0.2, 2, 96), 1.0 - 0.96f64.powi(96)));
        assert!(close(
            simhash_bit_agreement(std::f64::consts::PI / 2.0),
            0.5
        ));
        assert!(close(simhash_bit_agreement(0.0), 1.0));
        assert!(close(bbit_minhash_candidate(0.0, 8, 1, 1), 1.0 / 256.0));
        assert!(close(minhash_candidate(1.0, 3, 5), 1.0));
        assert!(close(simhash_miss(1.0, 16, 4), 0.0));
    }

    #[test]
    fn candidate_bounds_serialize_in_report_order() {
        let json = serde_json::to_string(&candidate_bounds(
            &DedupConfig::default(),
            &ClusterStats::default(),
        ))
        .unwrap();
        assert!(json.starts_with(r#"{"simhash":{"groups_l":"#), "{json}");
        assert!(
            json.contains(r#"{"hamming":0,"bit_agreement":1.0,"p_miss":0.0,"#),
            "{json}"
        );
        assert!(
            json.ends_with(
                r#""measured":{"candidate_checks":0,"verified_pairs":0,"near_pairs":0,"rejected_fraction":0.0}}"#
            ),
            "{json}"
        );
    }
}
