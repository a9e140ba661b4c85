//! 64-bit FNV-1a, the one small hash crawlsift keeps or compares across runs and machines: the
//! line hashes of a seek table (on disk), the training folds of the extraction model, its block
//! keys, the tag names of the HTML builder. It is defined by its two constants, needs no state
//! and no seed, so its values are the same on every platform and in every version; it is not for
//! hostile keys (hash maps keep the standard library's seeded hasher).

/// The hash of no input.
pub const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// The multiplier of each step.
pub const PRIME: u64 = 0x0100_0000_01b3;

/// Folds one unit into `h`: a byte, or a wider value where the caller hashes values whole.
#[inline]
pub const fn step(h: u64, unit: u64) -> u64 {
    (h ^ unit).wrapping_mul(PRIME)
}

/// The hash of a byte sequence.
pub fn hash(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(OFFSET, |h, b| step(h, u64::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_test_vectors() {
        // From the FNV reference (Fowler, Noll, Vo): FNV-1a 64 of "", "a" and "foobar".
        assert_eq!(hash(*b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(*b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(*b"foobar"), 0x8594_4171_f739_67e8);
    }
}
