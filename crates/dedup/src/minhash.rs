//! MinHash signatures over shingle fingerprints, kept as b-bit minima, and their LSH band keys.
//!
//! Each permutation i is the affine map `h_i(x) = a_i x + b_i mod 2^32` (a_i odd, a bijection of
//! the 32-bit words) applied to a SplitMix64-mixed shingle fingerprint (Rabin fingerprints are
//! linear over GF(2), the mix removes that structure). The minimum over the document's shingles is
//! kept as its top [`DEDUP_MINHASH_BITS`](crawlsift_common::limits::DEDUP_MINHASH_BITS) bits after
//! a second mix (b-bit MinHash, Li and Koenig 2010): two documents agree on one stored value with
//! probability `J + (1 - J) 2^-b`, which [`estimate_jaccard`] inverts.
//!
//! The next 8 bits of the same mixed minimum are kept beside the signature ([`MinHasher::wide`]):
//! not for the estimate, but to make LSH band keys from 16 bits a row ([`wide_band_key`]). Two
//! documents then share a band key when their rows' minima agree, not merely their top 8 bits, so
//! unrelated documents meet in a bucket with probability about 2^-32 a band instead of 2^-16:
//! candidate search grows with the corpus, not its square.
//!
//! The multipliers and offsets come from SplitMix64 seeded with a fixed constant, so signatures are
//! comparable across runs, machines and versions of this crate that keep [`SEED`].

/// Seed of the permutation constants (fractional hex digits of e). Changing it changes every
/// signature: fingerprints from different seeds must not be mixed.
pub const SEED: u64 = 0xB7E1_5162_8AED_2A6A;

/// SplitMix64 finalizer (Stafford's variant 13): a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Computes b-bit MinHash signatures; reusable across documents.
#[derive(Debug, Clone)]
pub struct MinHasher {
    a: Vec<u32>,
    b: Vec<u32>,
    mins: Vec<u32>,
    /// The mixed 32-bit values of the shingles being added (reused).
    xs: Vec<u32>,
    /// The CPU runs AVX2: the same loop compiled for it is 4-5x faster (eight 32-bit lanes).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

/// Permutations one pass over a document's shingles updates: their multipliers, offsets and
/// minima stay in registers (12 of AVX2's 16) while every shingle goes by, where a pass per
/// shingle over all permutations loads and stores each minimum once a shingle.
const TILE: usize = 32;

/// The MinHash inner loop: for each shingle's mixed value `x`, each permutation's value, kept if
/// smaller. Tiles of [`TILE`] permutations take every shingle in turn; written so the compiler
/// vectorizes it over permutations. The minima do not depend on the order of the work.
#[inline(always)]
fn update_portable(mins: &mut [u32], a: &[u32], b: &[u32], xs: &[u32]) {
    let done = mins.len() - mins.len() % TILE;
    let mut tiles = mins.chunks_exact_mut(TILE);
    for ((m, a), b) in (&mut tiles)
        .zip(a.chunks_exact(TILE))
        .zip(b.chunks_exact(TILE))
    {
        let (Ok(m), Ok(a), Ok(b)) = (
            <&mut [u32; TILE]>::try_from(m),
            <&[u32; TILE]>::try_from(a),
            <&[u32; TILE]>::try_from(b),
        ) else {
            continue;
        };
        let (a, b) = (*a, *b);
        let mut acc = *m;
        for &x in xs {
            for i in 0..TILE {
                acc[i] = acc[i].min(a[i].wrapping_mul(x).wrapping_add(b[i]));
            }
        }
        *m = acc;
    }
    let rest = tiles
        .into_remainder()
        .iter_mut()
        .zip(&a[done..])
        .zip(&b[done..]);
    for ((m, &a), &b) in rest {
        for &x in xs {
            *m = (*m).min(a.wrapping_mul(x).wrapping_add(b));
        }
    }
}

/// [`update_portable`] compiled with AVX2 enabled.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_avx2(mins: &mut [u32], a: &[u32], b: &[u32], xs: &[u32]) {
    update_portable(mins, a, b, xs)
}

/// The 32-bit value a shingle fingerprint enters every permutation as.
#[inline]
fn mixed_value(shingle_fp: u64) -> u32 {
    (mix64(shingle_fp) >> 32) as u32
}

impl MinHasher {
    /// A hasher with `perms` permutations.
    pub fn new(perms: usize) -> Self {
        let mut state = SEED;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            mix64(state)
        };
        let mut a = Vec::with_capacity(perms);
        let mut b = Vec::with_capacity(perms);
        for _ in 0..perms {
            let v = next();
            a.push((v as u32) | 1);
            b.push((v >> 32) as u32);
        }
        Self {
            a,
            b,
            mins: vec![u32::MAX; perms],
            xs: Vec::new(),
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
        }
    }

    /// Number of permutations.
    pub fn perms(&self) -> usize {
        self.a.len()
    }

    /// Starts a new document.
    pub fn reset(&mut self) {
        self.mins.fill(u32::MAX);
    }

    /// Adds one shingle fingerprint (adding it twice changes nothing).
    #[inline]
    pub fn update(&mut self, shingle_fp: u64) {
        self.update_all(&[shingle_fp]);
    }

    /// Adds shingle fingerprints (in any order, repeats allowed).
    pub fn update_all(&mut self, shingle_fps: &[u64]) {
        self.xs.clear();
        self.xs
            .extend(shingle_fps.iter().map(|&fp| mixed_value(fp)));
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is true only when the running CPU reported AVX2 support.
            unsafe { update_avx2(&mut self.mins, &self.a, &self.b, &self.xs) };
            return;
        }
        update_portable(&mut self.mins, &self.a, &self.b, &self.xs);
    }

    /// The b-bit signature of the shingles added since the last reset (8 bits per permutation).
    pub fn signature(&self) -> Box<[u8]> {
        self.mixed().map(|m| (m >> 56) as u8).collect()
    }

    /// The next 8 bits of each permutation's mixed minimum (below the signature's 8): with the
    /// signature they make [`wide_band_key`]s.
    pub fn wide(&self) -> Box<[u8]> {
        self.mixed().map(|m| (m >> 48) as u8).collect()
    }

    fn mixed(&self) -> impl Iterator<Item = u64> + '_ {
        self.mins
            .iter()
            .enumerate()
            .map(|(i, &m)| mix64(u64::from(m) ^ ((i as u64) << 32)))
    }
}

/// Up to eight bytes as a little-endian word, zero-padded (signatures are compared eight rows at
/// a time).
#[inline]
pub(crate) fn word(bytes: &[u8]) -> u64 {
    match <[u8; 8]>::try_from(bytes) {
        Ok(w) => u64::from_le_bytes(w),
        Err(_) => {
            let mut w = [0u8; 8];
            let n = bytes.len().min(8);
            w[..n].copy_from_slice(&bytes[..n]);
            u64::from_le_bytes(w)
        }
    }
}

/// The high bit of each byte of `x` set exactly where that byte is zero: applied to the XOR of
/// two signature words, the rows where they agree.
#[inline]
pub(crate) fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// Number of positions where two signatures agree (over the shorter length), eight positions
/// per word (clustering calls this for every pair sharing a bucket).
#[inline]
pub fn agreements(a: &[u8], b: &[u8]) -> u32 {
    let n = a.len().min(b.len());
    let (ca, cb) = (a[..n].chunks_exact(8), b[..n].chunks_exact(8));
    let tail =
        zero_bytes(word(ca.remainder()) ^ word(cb.remainder())) & ((1u64 << (8 * (n % 8))) - 1);
    ca.zip(cb)
        .map(|(x, y)| zero_bytes(word(x) ^ word(y)).count_ones())
        .sum::<u32>()
        + tail.count_ones()
}

/// Jaccard estimate from `agree` agreeing positions out of `perms` 8-bit minima: the chance
/// agreement 2^-8 of different minima is removed; clamped to [0, 1].
pub fn estimate_jaccard(agree: u32, perms: usize) -> f64 {
    if perms == 0 {
        return 0.0;
    }
    let chance = 1.0 / 256.0;
    let raw = f64::from(agree) / perms as f64;
    ((raw - chance) / (1.0 - chance)).clamp(0.0, 1.0)
}

/// Smallest agreement count whose estimate reaches `threshold` (so verification compares integers).
pub fn agreements_for(threshold: f64, perms: usize) -> u32 {
    let chance = 1.0 / 256.0;
    let need = (threshold * (1.0 - chance) + chance) * perms as f64;
    (need.ceil().max(0.0) as u32).min(perms as u32)
}

/// LSH band key of band `band` (rows `band*rows .. band*rows+rows` of the signature), tagged with
/// the band number so keys of different bands never meet. `None` past the signature's end.
#[inline]
pub fn band_key(sig: &[u8], band: usize, rows: usize) -> Option<u64> {
    Some(band_key_of_rows(
        sig.get(band * rows..band * rows + rows)?,
        band,
    ))
}

/// [`band_key`] from the band's own rows (`rows_bytes`, one byte a row), wherever they are kept.
#[inline]
pub fn band_key_of_rows(rows_bytes: &[u8], band: usize) -> u64 {
    let mut key = band as u64;
    for &v in rows_bytes {
        key = (key << 8) | u64::from(v);
    }
    // Rows beyond 6 would shift the band tag out; mix to keep all bits in play.
    if rows_bytes.len() > 6 {
        mix64(key ^ band as u64)
    } else {
        key
    }
}

/// A band key folded to 32 bits (keys of one band are compared only with each other, so the
/// band tag may mix into the low bits): exact for bands of up to four 8-bit rows.
#[inline]
pub fn fold32(key: u64) -> u32 {
    (key ^ (key >> 32)) as u32
}

/// The 32-bit LSH band key of band `band` from 16 bits a row: each row's signature byte and its
/// [`MinHasher::wide`] byte. Two documents share it when the rows' minima agree (or, by chance, with
/// probability about 2^-32). `None` past the end of either.
#[inline]
pub fn wide_band_key(sig: &[u8], wide: &[u8], band: usize, rows: usize) -> Option<u32> {
    let range = band * rows..band * rows + rows;
    Some(wide_band_key_of_rows(
        sig.get(range.clone())?,
        wide.get(range)?,
        band,
    ))
}

/// [`wide_band_key`] from the band's own rows: their signature bytes `s` and wide bytes `w`.
#[inline]
pub fn wide_band_key_of_rows(s: &[u8], w: &[u8], band: usize) -> u32 {
    let mut key = mix64(band as u64 ^ 0xBA4D);
    for (&a, &b) in s.iter().zip(w) {
        key = mix64(key ^ (u64::from(a) << 8 | u64::from(b)));
    }
    (key >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(items: impl IntoIterator<Item = u64>, perms: usize) -> Box<[u8]> {
        let mut m = MinHasher::new(perms);
        for x in items {
            m.update(x);
        }
        m.signature()
    }

    #[test]
    fn estimate_tracks_true_jaccard() {
        // Sets of 1000 with overlap chosen for J = 0.2, 0.5, 0.8; the mean estimate over several
        // disjoint trials must be within 0.03 of the truth.
        for &(common, j) in &[(333u64, 0.2), (667, 0.5), (889, 0.8)] {
            let mut total = 0.0;
            let trials = 20u64;
            for t in 0..trials {
                let base = t * 1_000_000;
                let a = (0..1000).map(|i| base + i);
                let b = (0..1000).map(|i| {
                    if i < common {
                        base + i
                    } else {
                        base + 500_000 + i
                    }
                });
                let (sa, sb) = (sig(a, 192), sig(b, 192));
                total += estimate_jaccard(agreements(&sa, &sb), 192);
            }
            let truth = common as f64 / (2000 - common) as f64;
            assert!((truth - j).abs() < 0.01);
            let mean = total / trials as f64;
            assert!(
                (mean - truth).abs() < 0.03,
                "J={truth} mean estimate {mean}"
            );
        }
    }

    #[test]
    fn vectorized_and_portable_loops_agree_with_the_definition() {
        let fps: Vec<u64> = (0..500u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        // Whole tiles, a remainder, and fewer permutations than a tile.
        for perms in [192, 200, 7] {
            let mut m = MinHasher::new(perms);
            m.update_all(&fps[..250]);
            m.update_all(&fps[250..]);
            let xs: Vec<u32> = fps.iter().map(|&fp| mixed_value(fp)).collect();
            let mut mins = vec![u32::MAX; perms];
            update_portable(&mut mins, &m.a, &m.b, &xs);
            let want: Vec<u32> = (0..perms)
                .map(|i| {
                    xs.iter()
                        .map(|&x| m.a[i].wrapping_mul(x).wrapping_add(m.b[i]))
                        .min()
                        .unwrap_or(u32::MAX)
                })
                .collect();
            assert_eq!(m.mins, want, "{perms} permutations");
            assert_eq!(mins, want, "{perms} permutations");
        }
    }

    #[test]
    fn duplicates_in_the_input_change_nothing() {
        assert_eq!(sig([1, 2, 3], 32), sig([3, 2, 1, 1, 2], 32));
    }

    #[test]
    fn agreements_count_equal_positions_of_any_length() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = mix64(state);
            (state % 3) as u8
        };
        for len in 0..40 {
            let a: Vec<u8> = (0..len).map(|_| next()).collect();
            let b: Vec<u8> = (0..len + 3).map(|_| next()).collect();
            let naive = a.iter().zip(&b).filter(|(x, y)| x == y).count() as u32;
            assert_eq!(agreements(&a, &b), naive, "{a:?} {b:?}");
            assert_eq!(agreements(&b, &a), naive);
        }
        assert_eq!(agreements(&[0x80, 0, 1], &[0x80, 0, 2]), 2);
    }

    #[test]
    fn agreements_for_matches_estimate() {
        for perms in [64usize, 192] {
            for t in [0.1, 0.19, 0.5, 0.9] {
                let k = agreements_for(t, perms);
                assert!(estimate_jaccard(k, perms) >= t - 1e-12);
                assert!(k == 0 || estimate_jaccard(k - 1, perms) < t);
            }
        }
    }

    #[test]
    fn wide_rows_extend_the_signature_bytes() {
        let mut m = MinHasher::new(64);
        m.update_all(&[1, 2, 3, 99, 12345]);
        let (sig, wide) = (m.signature(), m.wide());
        assert_eq!(wide.len(), sig.len());
        // A row whose wide byte differs (its minimum differs although the top 8 bits agree)
        // changes its band's key and no other.
        let k = |s: &[u8], w: &[u8], b| wide_band_key(s, w, b, 2);
        let mut other = wide.to_vec();
        other[7] ^= 1;
        assert_ne!(k(&sig, &wide, 3), k(&sig, &other, 3));
        assert_eq!(k(&sig, &wide, 2), k(&sig, &other, 2));
        assert_eq!(k(&sig, &wide, 32), None);
        assert_eq!(k(&sig, &wide[..10], 5), None);
    }

    #[test]
    fn band_keys_differ_by_band() {
        let s = [1u8, 2, 1, 2];
        assert_ne!(band_key(&s, 0, 2), band_key(&s, 1, 2));
        assert_eq!(band_key(&s, 2, 2), None);
    }
}
