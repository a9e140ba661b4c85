//! Candidate probabilities of the banding schemes, for the report beside the measured rates.
//!
//! SimHash with L groups of K bits: two documents whose SimHashes agree on each bit with
//! probability p (for SimHash, p = 1 - theta / pi, theta the angle between their feature vectors)
//! share no group with probability (1 - p^K)^L: that is P(miss) for a true pair with agreement p,
//! and 1 - (1 - q^K)^L is P(false candidate) for a non-duplicate pair with agreement q. MinHash LSH
//! with b bands of r rows makes a pair of Jaccard s a candidate with probability 1 - (1 - s^r)^b.

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
}
