//! 64-bit SimHash (Charikar 2002) over weighted features, and its banding into blocks.
//!
//! Each feature's 64-bit hash votes +w on the bits it has set and -w on the others; the SimHash has
//! a bit set where the vote is positive. The Hamming distance of two SimHashes estimates the angle
//! between the weighted feature vectors (each bit disagrees with probability theta / pi).
//!
//! Banding: the 64 bits are cut into L = d + 1 contiguous blocks (the last ones one bit shorter
//! when 64 is not a multiple). Two SimHashes within Hamming distance d differ in at most d blocks,
//! so they agree on at least one whole block (pigeonhole): keying buckets by (block, bits) makes
//! every pair within distance d a candidate, a guarantee rather than a probability (Manku, Jain
//! and Das Sarma 2007 use the same argument with permuted tables).
//!
//! Blocks of 16 bits are met by chance by 1/65,536 of all documents, so a corpus of n documents
//! makes about n^2 / 2^17 chance pairs a block. Clustering keys on *pairs* of blocks instead
//! ([`pair_masks`]): cut into d + 2 blocks, two SimHashes within distance d agree on at least two
//! whole blocks, so on one of the C(d + 2, 2) pairs of blocks; with d = 3 a pair of blocks is
//! about 26 bits, and chance meetings become rare (n^2 / 2^27 over ten tables).

/// `SIGNS[v][i]` is +1 when bit i of byte v is set, -1 otherwise: one feature's vote on eight bits
/// is then one 8-wide multiply and add (one instruction each with AVX).
static SIGNS: [[f32; 8]; 256] = {
    let mut t = [[0f32; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut i = 0;
        while i < 8 {
            t[v][i] = if (v >> i) & 1 == 1 { 1.0 } else { -1.0 };
            i += 1;
        }
        v += 1;
    }
    t
};

/// SimHash of weighted features `(hash, weight)`; 0 when there is none.
pub fn simhash(features: impl IntoIterator<Item = (u64, f32)>) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the running CPU reported AVX2 support.
        return unsafe { simhash_avx2(features) };
    }
    simhash_portable(features)
}

/// [`simhash_portable`] with AVX: the 64 votes sit in eight 8-wide registers, and a feature's
/// vote on eight bits is one multiply and one add. Each lane does the same IEEE single-precision
/// operations in the same order as the portable loop (a product rounded, then a sum; no fused
/// multiply-add), so the votes and the SimHash are the same bits.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn simhash_avx2(features: impl IntoIterator<Item = (u64, f32)>) -> u64 {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps,
        _mm256_storeu_ps,
    };
    let mut acc = [_mm256_setzero_ps(); 8];
    for (h, w) in features {
        let w = _mm256_set1_ps(w);
        for (j, a) in acc.iter_mut().enumerate() {
            let signs = &SIGNS[((h >> (8 * j)) & 0xFF) as usize];
            // SAFETY: `signs` is eight f32s; unaligned loads are allowed.
            let s = unsafe { _mm256_loadu_ps(signs.as_ptr()) };
            *a = _mm256_add_ps(*a, _mm256_mul_ps(s, w));
        }
    }
    let mut out = 0u64;
    for (j, a) in acc.iter().enumerate() {
        let mut lane = [0f32; 8];
        // SAFETY: `lane` has room for eight f32s.
        unsafe { _mm256_storeu_ps(lane.as_mut_ptr(), *a) };
        for (i, &v) in lane.iter().enumerate() {
            if v > 0.0 {
                out |= 1u64 << (8 * j + i);
            }
        }
    }
    out
}

/// The SimHash loop: each feature votes on each bit in turn.
fn simhash_portable(features: impl IntoIterator<Item = (u64, f32)>) -> u64 {
    let mut acc = [[0f32; 8]; 8];
    for (h, w) in features {
        for (j, lane) in acc.iter_mut().enumerate() {
            let signs = &SIGNS[((h >> (8 * j)) & 0xFF) as usize];
            for (a, s) in lane.iter_mut().zip(signs) {
                *a += s * w;
            }
        }
    }
    let mut out = 0u64;
    for (j, lane) in acc.iter().enumerate() {
        for (i, &v) in lane.iter().enumerate() {
            if v > 0.0 {
                out |= 1u64 << (8 * j + i);
            }
        }
    }
    out
}

/// Hamming distance of two SimHashes.
#[inline]
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// The `max_hamming + 1` block keys of a SimHash: `block index << 32 | block bits` (block bits
/// right-aligned; with one block the key is the whole SimHash). Pairs within `max_hamming` share at
/// least one key.
pub fn block_keys(sh: u64, max_hamming: u32) -> impl Iterator<Item = u64> {
    let blocks = (max_hamming.min(63) + 1) as usize;
    let base = 64 / blocks;
    let extra = 64 % blocks; // the first `extra` blocks get one more bit
    let mut start = 0usize;
    (0..blocks).map(move |i| {
        let width = base + usize::from(i < extra);
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let bits = (sh >> start) & mask;
        start += width;
        if blocks == 1 {
            bits
        } else {
            ((i as u64) << 32) | bits
        }
    })
}

/// The masks of the pairs of blocks when the 64 bits are cut into `max_hamming + 2` contiguous
/// blocks (the first ones one bit longer when 64 is not a multiple): two SimHashes within
/// `max_hamming` of each other agree on all the bits of at least one mask.
pub fn pair_masks(max_hamming: u32) -> Vec<u64> {
    let blocks = (max_hamming.min(62) + 2) as usize;
    let (base, extra) = (64 / blocks, 64 % blocks);
    let mut start = 0usize;
    let masks: Vec<u64> = (0..blocks)
        .map(|i| {
            let width = base + usize::from(i < extra);
            let mask = ((1u64 << width) - 1) << start;
            start += width;
            mask
        })
        .collect();
    let mut out = Vec::new();
    for (i, &a) in masks.iter().enumerate() {
        out.extend(masks[i + 1..].iter().map(|&b| a | b));
    }
    out
}

/// The 32-bit key of a SimHash in the table of `mask` (one of [`pair_masks`]).
#[inline]
pub fn masked_key(sh: u64, mask: u64) -> u32 {
    (crate::minhash::mix64((sh & mask) ^ mask.rotate_left(17)) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identical_features_identical_hash_and_votes_count() {
        let f = [(0xF0F0u64, 1.0f32), (0x0FF0, 1.0), (0x00FF, 3.0)];
        assert_eq!(simhash(f), simhash(f));
        // bit 0..3 set by 0x00FF (weight 3) against 0xF0F0 (1) and 0x0FF0 (1) -> set.
        assert_eq!(simhash(f) & 0xF, 0xF);
        assert_eq!(simhash(std::iter::empty()), 0);
        // The high bits vote too: only bit 63 set, weight 2 against bit 0 set, weight 1.
        assert_eq!(simhash([(1u64 << 63, 2.0f32), (1, 1.0)]), 1u64 << 63);
    }

    #[test]
    fn blocks_cover_all_bits_once() {
        for d in [0u32, 3, 5, 7, 63] {
            let keys: Vec<u64> = block_keys(u64::MAX, d).collect();
            assert_eq!(keys.len(), d as usize + 1);
            let bits: u32 = keys
                .iter()
                .map(|k| {
                    if d == 0 {
                        k.count_ones()
                    } else {
                        (*k as u32).count_ones()
                    }
                })
                .sum();
            assert_eq!(bits, 64);
        }
    }

    #[test]
    fn pair_masks_cover_every_bit_and_are_wide() {
        for d in [0u32, 3, 7, 31] {
            let masks = pair_masks(d);
            assert_eq!(masks.iter().fold(0, |a, m| a | m), u64::MAX, "d={d}");
            let narrowest = masks.iter().map(|m| m.count_ones()).min().unwrap_or(0);
            assert!(narrowest >= 2 * (64 / (d + 2)), "d={d}: {narrowest}");
        }
        // d = 3: five blocks (13, 13, 13, 13, 12 bits), ten tables of 25 or 26 bits.
        assert_eq!(pair_masks(3).len(), 10);
        assert!(pair_masks(3).iter().all(|m| m.count_ones() >= 25));
    }

    #[test]
    fn vectorized_and_portable_loops_give_the_same_bits() {
        // Many features with uneven weights, so some bits' votes end near zero, where any
        // difference in rounding would show.
        let features: Vec<(u64, f32)> = (1..3000u64)
            .map(|i| {
                let h = crate::minhash::mix64(i);
                (h, 1.0 + ((i % 17) as f32).ln() / (1.0 + (i % 5) as f32))
            })
            .collect();
        for n in [0, 1, 2, 99, 2999] {
            let f = &features[..n];
            assert_eq!(
                simhash(f.iter().copied()),
                simhash_portable(f.iter().copied())
            );
        }
    }

    proptest! {
        // The guarantee: every pair within the Hamming bound shares a block key.
        #[test]
        fn pairs_within_bound_share_a_block(a in any::<u64>(), flips in proptest::collection::vec(0u32..64, 0..8), d in 0u32..8) {
            let mut b = a;
            for f in flips { b ^= 1u64 << f; }
            if hamming(a, b) <= d {
                let ka: Vec<u64> = block_keys(a, d).collect();
                prop_assert!(block_keys(b, d).any(|k| ka.contains(&k)));
            }
        }

        // The same guarantee for the pairs of blocks clustering keys on.
        #[test]
        fn pairs_within_bound_share_a_pair_of_blocks(a in any::<u64>(), flips in proptest::collection::vec(0u32..64, 0..8), d in 0u32..8) {
            let mut b = a;
            for f in flips { b ^= 1u64 << f; }
            let masks = pair_masks(d);
            prop_assert_eq!(masks.len() as u32, (d + 2) * (d + 1) / 2);
            if hamming(a, b) <= d {
                prop_assert!(masks.iter().any(|&m| masked_key(a, m) == masked_key(b, m)));
            }
        }
    }
}
