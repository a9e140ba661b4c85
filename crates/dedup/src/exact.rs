//! Exact-duplicate identity: a 128-bit hash of the normalized text, and the Adler-32 checksum the
//! report uses to show why 32 bits are not enough.
//!
//! XXH3-128 is used: non-cryptographic, tens of GB/s, and with 128 bits an accidental collision
//! among even 10^12 documents has probability about 10^-15 (birthday bound n^2 / 2^129).

/// 128-bit XXH3 hash of the normalized text (seed 0, stable across versions of the algorithm).
pub fn exact_hash(normalized: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(normalized.as_bytes())
}

/// Adler-32 (RFC 1950) of the normalized text. Only for the report: counting distinct texts whose
/// Adler-32 collide shows what a 32-bit checksum would have merged.
pub fn adler32(normalized: &str) -> u32 {
    // The well-kept SIMD implementation (as used by miniz_oxide): the scalar loop carried a
    // dependency from byte to byte.
    simd_adler32::adler32(&normalized.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler32_known_values() {
        // RFC 1950 / zlib reference values.
        assert_eq!(adler32(""), 1);
        assert_eq!(adler32("Wikipedia"), 0x11E6_0398);
        let long = "a".repeat(100_000);
        // Reference by the naive definition (mod after every byte).
        let (mut a, mut b) = (1u64, 0u64);
        for _ in 0..100_000 {
            a = (a + 97) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&long), ((b << 16) | a) as u32);
    }

    #[test]
    fn exact_hash_separates_texts() {
        assert_eq!(exact_hash("a b c"), exact_hash("a b c"));
        assert_ne!(exact_hash("a b c"), exact_hash("a b d"));
    }
}
