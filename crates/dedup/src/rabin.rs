//! 64-bit Rabin fingerprints over GF(2): of words, and of k-word shingles by extension and prefix
//! deletion, the document taken as a circle (n words give n shingles; Fetterly, Manasse and Najork,
//! "On the evolution of clusters of near-duplicate web pages", 2003).
//!
//! A byte string is read as a polynomial over GF(2) (first byte highest, most significant bit
//! first); its fingerprint is that polynomial modulo the irreducible polynomial
//! P(x) = x^64 + [`POLY`]. The arithmetic is table-driven: appending one byte is a shift, one
//! lookup in a 256-entry table of `v * x^64 mod P` and two XORs.
//!
//! The polynomial: the first irreducible one at or above x^64 + 0x243F6A8885A308D3 (the fractional
//! hex digits of pi, a nothing-up-my-sleeve start), searched upward over odd low parts. Its
//! irreducibility is checked by the Ben-Or test in this module's tests (x^(2^64) = x mod P and
//! gcd(x^(2^32) - x, P) = 1).
//!
//! A shingle's fingerprint is the fingerprint of the concatenation of its k word fingerprints
//! (8 bytes each, big-endian). Rolling to the next shingle deletes the first word's term
//! (`f0 * x^(64(k-1)) mod P`, eight table lookups) and appends the next word's 8 bytes.

/// The low 64 coefficients of the irreducible degree-64 polynomial P (the x^64 term is implicit).
pub const POLY: u64 = 0x243F_6A88_85A3_0907;

/// Table-driven Rabin fingerprinter for one polynomial.
#[derive(Clone)]
pub struct Rabin {
    /// `shift[v] = (v(x) * x^64) mod P` for every byte value v.
    shift: [u64; 256],
    /// `shift8[j][v] = (v(x) * x^(8 j) * x^64) mod P`: appending 8 bytes at once ("slicing by
    /// 8"): the old fingerprint's byte j lands at x^(8 j + 64), eight independent lookups.
    shift8: Box<[[u64; 256]; 8]>,
}

impl std::fmt::Debug for Rabin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rabin")
            .field("poly", &format_args!("{POLY:#018x}"))
            .finish()
    }
}

impl Default for Rabin {
    fn default() -> Self {
        Self::new()
    }
}

/// `a(x) * b(x) mod P` by shift-and-add (used to build tables, not on the hot path).
fn mul_mod(mut a: u64, mut b: u64) -> u64 {
    let mut r = 0u64;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        b >>= 1;
        let carry = a >> 63;
        a <<= 1;
        if carry != 0 {
            a ^= POLY;
        }
    }
    r
}

/// `x^(8 n) mod P`.
fn x_pow_bytes(n: usize) -> u64 {
    let mut r = 1u64;
    let x8 = 1u64 << 8;
    for _ in 0..n {
        r = mul_mod(r, x8);
    }
    r
}

impl Rabin {
    /// Builds the byte table.
    pub fn new() -> Self {
        let mut shift = [0u64; 256];
        let x64 = mul_mod(1u64 << 63, 2); // x^64 mod P = POLY
        for (v, slot) in shift.iter_mut().enumerate() {
            *slot = mul_mod(v as u64, x64);
        }
        let mut shift8 = Box::new([[0u64; 256]; 8]);
        for (j, table) in shift8.iter_mut().enumerate() {
            let pos = mul_mod(x64, x_pow_bytes(j));
            for (v, slot) in table.iter_mut().enumerate() {
                *slot = mul_mod(v as u64, pos);
            }
        }
        Self { shift, shift8 }
    }

    /// Fingerprint of `fp`'s string followed by byte `b`.
    #[inline]
    pub fn push_byte(&self, fp: u64, b: u8) -> u64 {
        (fp << 8) ^ self.shift[(fp >> 56) as usize] ^ u64::from(b)
    }

    /// Fingerprint of `fp`'s string followed by `bytes`. Whole 8-byte chunks go in one step
    /// ([`push_u64`](Self::push_u64): eight independent table lookups instead of a chain of eight).
    #[inline]
    pub fn extend(&self, mut fp: u64, bytes: &[u8]) -> u64 {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut m = [0u8; 8];
            m.copy_from_slice(c);
            fp = self.push_u64(fp, u64::from_be_bytes(m));
        }
        for &b in chunks.remainder() {
            fp = self.push_byte(fp, b);
        }
        fp
    }

    /// Fingerprint of `bytes`. Up to eight bytes the polynomial has degree below 64, so it is its
    /// own remainder: the bytes read as a big-endian number, with no table lookup at all (most
    /// words are that short).
    #[inline]
    pub fn fingerprint(&self, bytes: &[u8]) -> u64 {
        let (head, rest) = bytes.split_at(bytes.len().min(8));
        let fp = head.iter().fold(0u64, |fp, &b| fp << 8 | u64::from(b));
        self.extend(fp, rest)
    }

    /// Fingerprint of `text[start..end]`. A word of up to eight bytes is read with one 8-byte
    /// load when the text has eight bytes from `start` (the bytes after the word are shifted out);
    /// otherwise as [`fingerprint`](Self::fingerprint).
    #[inline]
    pub fn fingerprint_in(&self, text: &[u8], start: usize, end: usize) -> u64 {
        let len = end.saturating_sub(start);
        if (1..=8).contains(&len) {
            if let Some(w) = text.get(start..start + 8) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                return u64::from_be_bytes(b) >> (8 * (8 - len));
            }
        }
        self.fingerprint(text.get(start..end).unwrap_or(&[]))
    }

    /// Fingerprint of `fp`'s string followed by the 8 big-endian bytes of `word_fp`.
    #[inline]
    pub fn push_u64(&self, fp: u64, word_fp: u64) -> u64 {
        let mut r = word_fp;
        for (j, table) in self.shift8.iter().enumerate() {
            r ^= table[((fp >> (8 * j)) & 0xFF) as usize];
        }
        r
    }
}

/// Rolls k-word shingle fingerprints over word fingerprints (extension and prefix deletion).
#[derive(Clone)]
pub struct ShingleRoller {
    rabin: Rabin,
    k: usize,
    /// `drop[j][v] = (v(x) * x^(8 j) * x^(64 (k - 1))) mod P`: the term a word fingerprint's byte
    /// j (from the least significant) contributes at the head of a k-word window.
    drop: Box<[[u64; 256]; 8]>,
}

impl std::fmt::Debug for ShingleRoller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShingleRoller").field("k", &self.k).finish()
    }
}

impl ShingleRoller {
    /// A roller for shingles of `k` words (`k >= 1`; 0 is taken as 1).
    pub fn new(k: usize) -> Self {
        let k = k.max(1);
        let head = x_pow_bytes(8 * (k - 1));
        let mut drop = Box::new([[0u64; 256]; 8]);
        for (j, table) in drop.iter_mut().enumerate() {
            let pos = mul_mod(head, x_pow_bytes(j));
            for (v, slot) in table.iter_mut().enumerate() {
                *slot = mul_mod(v as u64, pos);
            }
        }
        Self {
            rabin: Rabin::new(),
            k,
            drop,
        }
    }

    /// Shingle length in words.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The byte fingerprinter.
    pub fn rabin(&self) -> &Rabin {
        &self.rabin
    }

    /// `word_fp * x^(64 (k - 1)) mod P`: the head word's term in a window fingerprint.
    #[inline]
    fn head_term(&self, word_fp: u64) -> u64 {
        let mut r = 0u64;
        for (j, table) in self.drop.iter().enumerate() {
            r ^= table[((word_fp >> (8 * j)) & 0xFF) as usize];
        }
        r
    }

    /// Calls `out` with the fingerprint of each of the n circular shingles of `words` (word
    /// fingerprints): shingle i covers words i, i+1, ..., i+k-1 (indices mod n). Nothing for n = 0.
    pub fn for_each_shingle(&self, words: &[u64], mut out: impl FnMut(u64)) {
        let n = words.len();
        if n == 0 {
            return;
        }
        let mut fp = 0u64;
        for j in 0..self.k {
            fp = self.rabin.push_u64(fp, words[j % n]);
        }
        out(fp);
        for i in 1..n {
            fp ^= self.head_term(words[i - 1]);
            fp = self.rabin.push_u64(fp, words[(i + self.k - 1) % n]);
            out(fp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const P128: u128 = (1u128 << 64) | POLY as u128;

    /// The oracle: bytes as a polynomial, reduced bit by bit (long division over GF(2)).
    fn naive(bytes: &[u8]) -> u64 {
        let mut r: u128 = 0;
        for &byte in bytes {
            for bit in (0..8).rev() {
                r = (r << 1) | u128::from((byte >> bit) & 1);
                if r >> 64 & 1 == 1 {
                    r ^= P128;
                }
            }
        }
        r as u64
    }

    fn naive_shingle(word_fps: &[u64]) -> u64 {
        let bytes: Vec<u8> = word_fps.iter().flat_map(|w| w.to_be_bytes()).collect();
        naive(&bytes)
    }

    /// Polynomial remainder a mod b over GF(2) (u128 operands).
    fn poly_rem(mut a: u128, b: u128) -> u128 {
        let db = 127 - b.leading_zeros();
        while a != 0 && 127 - a.leading_zeros() >= db {
            a ^= b << (127 - a.leading_zeros() - db);
        }
        a
    }

    fn poly_gcd(mut a: u128, mut b: u128) -> u128 {
        while b != 0 {
            let r = poly_rem(a, b);
            a = b;
            b = r;
        }
        a
    }

    #[test]
    fn polynomial_is_irreducible() {
        // Ben-Or: a degree-n polynomial is irreducible iff x^(2^n) = x mod P and, for each prime q
        // dividing n, gcd(x^(2^(n/q)) - x, P) = 1. For n = 64 the only prime is 2.
        let mut t = 2u64; // x
        let mut half = 0u64;
        for i in 1..=64 {
            t = mul_mod(t, t);
            if i == 32 {
                half = t;
            }
        }
        assert_eq!(t, 2, "x^(2^64) must be x mod P");
        assert_eq!(poly_gcd(P128, u128::from(half ^ 2)), 1);
        // The test itself can fail: a known reducible polynomial (x^64 + 1 = (x + 1)^64) is caught.
        assert_ne!(poly_gcd((1u128 << 64) | 1, 1u128 << 1 ^ 1), 1);
    }

    #[test]
    fn known_small_values() {
        let r = Rabin::new();
        assert_eq!(r.fingerprint(b""), 0);
        assert_eq!(r.fingerprint(b"a"), 0x61);
        // 9 bytes overflow degree 64: the reduction must kick in.
        assert_eq!(r.fingerprint(b"abcdefghi"), naive(b"abcdefghi"));
    }

    #[test]
    fn push_u64_equals_eight_bytes() {
        let r = Rabin::new();
        for (fp, w) in [
            (0u64, 0u64),
            (u64::MAX, 1),
            (0x0123_4567_89AB_CDEF, u64::MAX),
        ] {
            assert_eq!(r.push_u64(fp, w), r.extend(fp, &w.to_be_bytes()));
        }
    }

    #[test]
    fn short_documents_wrap_around_the_circle() {
        let roller = ShingleRoller::new(3);
        let mut got = Vec::new();
        roller.for_each_shingle(&[7, 9], |f| got.push(f));
        assert_eq!(
            got,
            vec![naive_shingle(&[7, 9, 7]), naive_shingle(&[9, 7, 9])]
        );
        let mut none = 0;
        roller.for_each_shingle(&[], |_| none += 1);
        assert_eq!(none, 0);
    }

    proptest! {
        #[test]
        fn table_driven_equals_naive(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(Rabin::new().fingerprint(&bytes), naive(&bytes));
        }

        #[test]
        fn a_word_inside_a_text_has_the_fingerprint_of_the_word_alone(
            text in proptest::collection::vec(any::<u8>(), 0..40),
            a in 0usize..40,
            len in 0usize..20,
        ) {
            let r = Rabin::new();
            let start = a.min(text.len());
            let end = (start + len).min(text.len());
            prop_assert_eq!(r.fingerprint_in(&text, start, end), naive(&text[start..end]));
        }

        #[test]
        fn extending_equals_naive_of_the_concatenation(
            a in proptest::collection::vec(any::<u8>(), 0..40),
            b in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            let r = Rabin::new();
            let whole: Vec<u8> = a.iter().chain(&b).copied().collect();
            prop_assert_eq!(r.extend(r.fingerprint(&a), &b), naive(&whole));
        }

        #[test]
        fn rolling_equals_recomputed(words in proptest::collection::vec(any::<u64>(), 1..40), k in 1usize..7) {
            let roller = ShingleRoller::new(k);
            let mut got = Vec::new();
            roller.for_each_shingle(&words, |f| got.push(f));
            prop_assert_eq!(got.len(), words.len());
            let n = words.len();
            for (i, fp) in got.iter().enumerate() {
                let window: Vec<u64> = (0..k).map(|j| words[(i + j) % n]).collect();
                prop_assert_eq!(*fp, naive_shingle(&window));
            }
        }
    }
}
