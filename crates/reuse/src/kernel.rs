//! Character 3-gram kernels and the seed's commonality-weighted comparison of two texts, which
//! tells the same story told in other words (rewritten news, syndicated copies with edits) from
//! unrelated text, where word-level measures need the same words.
//!
//! A text's **kernels** are its letters and digits (Unicode letters and numbers, lower-cased,
//! everything else left out) taken three consecutive at a time, counted ([`Kernels`]). A
//! kernel's **commonality** in a corpus is the share of documents holding it times its share
//! of all kernel counts, `c = df / N × cf / CF` ([`KernelTable`]). The seed's distance between
//! two documents is the sum over kernels of the squared difference of their counts divided by
//! the commonality, `D(a, b) = Σ (a_k − b_k)² / c_k`; counts are taken relative to each
//! document's total here, so that a longer telling of a story is not far for its length alone.
//! The **similarity** ([`KernelTable::similarity`]) is `1 − D(a, b) / (D(a, ∅) + D(b, ∅))`,
//! which is `2 Σ a_k b_k / c_k / (Σ a_k² / c_k + Σ b_k² / c_k)`: 1 for the same kernel
//! profile, 0 for no kernel in common. The constants `N` and `CF` cancel, so only `df × cf`
//! of each kernel matters. A kernel the table does not hold counts as held once.
//!
//! Rare kernels (names, numbers, rare words) weigh most: unrelated pages of one language share
//! their common kernels and score near 0 (on the 845 real pages of `bench/reuse`, 99% of random
//! pairs below 0.03), while retellings share the rare ones.

use crawlsift_common::limits::STORY_KERNEL_SLOTS;
use crawlsift_common::words::is_word_char;

/// Kernels made of ASCII letters and digits only: each has its own slot.
const ASCII_KERNELS: u32 = 36 * 36 * 36;

/// Per-thread counters of [`Kernels::of`]: a dense count for each ASCII kernel (most kernels of
/// most pages) and the slots touched, so that only the distinct kernels are sorted.
struct Scratch {
    ascii: Vec<u32>,
    touched: Vec<u32>,
    other: Vec<u32>,
}

thread_local! {
    static KERNEL_SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch {
        ascii: vec![0; ASCII_KERNELS as usize],
        touched: Vec::new(),
        other: Vec::new(),
    });
}

impl Scratch {
    fn kernels(&mut self, text: &str, max_chars: usize) -> Kernels {
        let mut window = ['\0'; 3];
        let mut codes = [0u32; 3];
        let mut seen = 0usize;
        let mut total = 0u64;
        let mut step = |l: char, this: &mut Scratch| {
            window = [window[1], window[2], l];
            codes = [codes[1], codes[2], ascii_code(l).unwrap_or(u32::MAX)];
            seen += 1;
            if seen < 3 {
                return;
            }
            total += 1;
            if codes.iter().all(|&c| c != u32::MAX) {
                let s = codes[0] * 1296 + codes[1] * 36 + codes[2];
                let n = &mut this.ascii[s as usize];
                if *n == 0 {
                    this.touched.push(s);
                }
                *n += 1;
            } else {
                this.other.push(slot(window));
            }
        };
        let (bytes, mut at, mut taken) = (text.as_bytes(), 0usize, 0usize);
        'text: while at < bytes.len() && taken < max_chars {
            let b = bytes[at];
            if b < 0x80 {
                at += 1;
                if b.is_ascii_alphanumeric() {
                    taken += 1;
                    step(b.to_ascii_lowercase() as char, self);
                }
                continue;
            }
            let c = text[at..].chars().next().expect("at is a char boundary");
            at += c.len_utf8();
            if !is_word_char(c) {
                continue;
            }
            for l in c.to_lowercase() {
                if taken >= max_chars {
                    break 'text;
                }
                taken += 1;
                step(l, self);
            }
        }
        self.other.sort_unstable();
        self.touched.sort_unstable();
        let mut counts: Vec<(u32, u32)> = Vec::with_capacity(self.touched.len() + self.other.len());
        for &s in &self.touched {
            let n = &mut self.ascii[s as usize];
            counts.push((s, *n));
            *n = 0;
        }
        for run in self.other.chunk_by(|a, b| a == b) {
            counts.push((run[0], run.len() as u32));
        }
        self.touched.clear();
        self.other.clear();
        Kernels { counts, total }
    }
}

/// A text's kernels: each kernel's slot in the [`KernelTable`] with its count, sorted by slot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kernels {
    /// (slot, count), sorted by slot, each slot once.
    pub counts: Vec<(u32, u32)>,
    /// Sum of the counts.
    pub total: u64,
}

/// The code of an ASCII letter or digit (0-35), or `None`.
fn ascii_code(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        'a'..='z' => Some(10 + c as u32 - 'a' as u32),
        _ => None,
    }
}

/// The table slot of a kernel.
fn slot(k: [char; 3]) -> u32 {
    if let (Some(a), Some(b), Some(c)) = (ascii_code(k[0]), ascii_code(k[1]), ascii_code(k[2])) {
        return a * 1296 + b * 36 + c;
    }
    let mut h = (k[0] as u64) | (k[1] as u64) << 21 | (k[2] as u64) << 42;
    // splitmix64's finaliser
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    ASCII_KERNELS + (h % u64::from(STORY_KERNEL_SLOTS as u32 - ASCII_KERNELS)) as u32
}

impl Kernels {
    /// The kernels of the first `max_chars` letters and digits of `text`.
    pub fn of(text: &str, max_chars: usize) -> Kernels {
        KERNEL_SCRATCH.with(|s| s.borrow_mut().kernels(text, max_chars))
    }

    /// Appends the kernels to `out` compactly (slot gaps and counts as LEB128 varints, some 2-3
    /// bytes a kernel), for a scratch file; [`Kernels::decode`] reads them back.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut put = |mut v: u64| loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        };
        put(self.counts.len() as u64);
        let mut last = 0u32;
        for &(s, n) in &self.counts {
            put(u64::from(s - last));
            put(u64::from(n));
            last = s;
        }
    }

    /// The kernels [`Kernels::encode`] wrote, or `None` when the bytes are not such.
    pub fn decode(bytes: &[u8]) -> Option<Kernels> {
        let mut at = 0usize;
        let mut get = || -> Option<u64> {
            let mut v = 0u64;
            for shift in (0..64).step_by(7) {
                let b = *bytes.get(at)?;
                at += 1;
                v |= u64::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    return Some(v);
                }
            }
            None
        };
        let n = usize::try_from(get()?).ok()?;
        let mut counts = Vec::with_capacity(n.min(bytes.len()));
        let (mut slot, mut total) = (0u64, 0u64);
        for _ in 0..n {
            slot += get()?;
            let c = u32::try_from(get()?).ok()?;
            if slot >= STORY_KERNEL_SLOTS as u64 {
                return None;
            }
            counts.push((slot as u32, c));
            total += u64::from(c);
        }
        (at == bytes.len()).then_some(Kernels { counts, total })
    }

    /// Whether the text has no kernel (fewer than three letters and digits).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// Each kernel's documents and count over a corpus (the commonality's two factors), in a flat
/// table of [`STORY_KERNEL_SLOTS`] slots.
#[derive(Debug, Clone)]
pub struct KernelTable {
    /// Documents holding each slot's kernels.
    df: Vec<u32>,
    /// Count of each slot's kernels over all documents.
    cf: Vec<u64>,
    docs: u64,
}

impl Default for KernelTable {
    fn default() -> Self {
        Self::new()
    }
}

impl KernelTable {
    /// An empty table.
    pub fn new() -> KernelTable {
        KernelTable {
            df: vec![0; STORY_KERNEL_SLOTS],
            cf: vec![0; STORY_KERNEL_SLOTS],
            docs: 0,
        }
    }

    /// The table of a corpus of texts.
    pub fn of_texts<'a>(texts: impl IntoIterator<Item = &'a str>, max_chars: usize) -> Self {
        let mut t = KernelTable::new();
        for text in texts {
            t.add(&Kernels::of(text, max_chars));
        }
        t
    }

    /// Counts a document's kernels.
    pub fn add(&mut self, k: &Kernels) {
        self.docs += 1;
        for &(s, n) in &k.counts {
            let s = s as usize;
            self.df[s] = self.df[s].saturating_add(1);
            self.cf[s] = self.cf[s].saturating_add(u64::from(n));
        }
    }

    /// Documents counted.
    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// Documents holding a slot's kernels.
    pub fn documents_holding(&self, slot: u32) -> u32 {
        self.df[slot as usize]
    }

    /// `1 / (df × cf)` of a slot (a kernel the table does not hold counts as held once).
    fn inverse(&self, slot: u32) -> f64 {
        let df = self.df[slot as usize].max(1) as f64;
        let cf = self.cf[slot as usize].max(1) as f64;
        1.0 / (df * cf)
    }

    /// `D(k, ∅)`, a document's own weight: the sum over its kernels of their squared relative
    /// counts divided by their commonality (up to the constant factor that cancels).
    pub fn norm(&self, k: &Kernels) -> f64 {
        norm_with(k, |s| self.inverse(s))
    }

    /// The kernel similarity of two documents (see the module's doc), in [0, 1]; 0 when either
    /// has no kernel. Symmetric.
    pub fn similarity(&self, a: &Kernels, b: &Kernels) -> f64 {
        let w = |s| self.inverse(s);
        similarity_with((a, norm_with(a, w)), (b, norm_with(b, w)), w)
    }

    /// Each slot's `1 / (df × cf)` computed once, for comparing many documents.
    pub fn weights(&self) -> KernelWeights {
        KernelWeights {
            inverse: (0..STORY_KERNEL_SLOTS as u32)
                .map(|s| self.inverse(s))
                .collect(),
        }
    }
}

/// A [`KernelTable`]'s weights computed once (8 MiB): the same figures as the table's, without
/// a division per kernel.
#[derive(Debug, Clone)]
pub struct KernelWeights {
    inverse: Vec<f64>,
}

impl KernelWeights {
    /// [`KernelTable::norm`].
    pub fn norm(&self, k: &Kernels) -> f64 {
        norm_with(k, |s| self.inverse[s as usize])
    }

    /// [`KernelTable::similarity`] of two documents whose [`KernelWeights::norm`]s are known
    /// (computed once for a document compared with many): only the kernels both hold are
    /// looked up.
    pub fn similarity_normed(&self, a: (&Kernels, f64), b: (&Kernels, f64)) -> f64 {
        similarity_with(a, b, |s| self.inverse[s as usize])
    }
}

fn norm_with(k: &Kernels, inverse: impl Fn(u32) -> f64) -> f64 {
    let t = k.total as f64;
    k.counts
        .iter()
        .map(|&(s, n)| {
            let p = f64::from(n) / t;
            p * p * inverse(s)
        })
        .sum()
}

fn similarity_with(
    (a, na): (&Kernels, f64),
    (b, nb): (&Kernels, f64),
    inverse: impl Fn(u32) -> f64,
) -> f64 {
    if a.is_empty() || b.is_empty() || na + nb <= 0.0 {
        return 0.0;
    }
    let (ta, tb) = (a.total as f64, b.total as f64);
    let mut shared = 0.0f64;
    let (mut i, mut j) = (0, 0);
    while i < a.counts.len() && j < b.counts.len() {
        let ((sa, ca), (sb, cb)) = (a.counts[i], b.counts[j]);
        if sa == sb {
            shared += f64::from(ca) / ta * (f64::from(cb) / tb) * inverse(sa);
        }
        i += usize::from(sa <= sb);
        j += usize::from(sb <= sa);
    }
    (2.0 * shared / (na + nb)).clamp(0.0, 1.0)
}

/// The kernel similarity of two texts, each kernel's commonality counted over `corpus` and the
/// two texts themselves (over the two alone when `corpus` is empty: then kernels held by both
/// weigh less than those held by one).
pub fn kernel_similarity<'a>(
    a: &str,
    b: &str,
    corpus: impl IntoIterator<Item = &'a str>,
    max_chars: usize,
) -> f64 {
    let (ka, kb) = (Kernels::of(a, max_chars), Kernels::of(b, max_chars));
    let mut table = KernelTable::of_texts(corpus, max_chars);
    table.add(&ka);
    table.add(&kb);
    table.similarity(&ka, &kb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_lower_cased_letters_and_digits_three_at_a_time() {
        let k = Kernels::of("Ab-c, ABC!", usize::MAX);
        // "abcabc": abc, bca, cab, abc
        assert_eq!(k.total, 4);
        let abc = slot(['a', 'b', 'c']);
        assert_eq!(k.counts.iter().find(|x| x.0 == abc).map(|x| x.1), Some(2));
        assert_eq!(k.counts.len(), 3);
        assert!(Kernels::of("a b", usize::MAX).is_empty());
        // Non-ASCII letters are kernels too, hashed past the ASCII slots.
        let s = slot(['é', 't', 'é']);
        assert!((ASCII_KERNELS..STORY_KERNEL_SLOTS as u32).contains(&s));
        assert_eq!(Kernels::of("ÉTÉ", usize::MAX).counts, vec![(s, 1)]);
        assert_eq!(Kernels::of("abcdef", 4).total, 2);
    }

    #[test]
    fn kernels_read_back_as_written() {
        let k = Kernels::of(
            "Zürich's 2024 budget: 9.1 billion francs, ZÜRICH said.",
            usize::MAX,
        );
        let mut bytes = Vec::new();
        k.encode(&mut bytes);
        assert_eq!(Kernels::decode(&bytes), Some(k.clone()));
        assert_eq!(Kernels::decode(&bytes[..bytes.len() - 1]), None);
        bytes.push(0);
        assert_eq!(Kernels::decode(&bytes), None);
        let mut empty = Vec::new();
        Kernels::default().encode(&mut empty);
        assert_eq!(Kernels::decode(&empty), Some(Kernels::default()));
    }

    #[test]
    fn similarity_is_one_for_the_same_profile_zero_for_nothing_shared_and_symmetric() {
        let texts = [
            "The harbour authority of Valparaiso closed the port on Tuesday after the storm.",
            "After Tuesday's storm, Valparaiso's harbour authority shut the port.",
            "Quarterly earnings of the chip maker rose by nine percent, beating forecasts.",
            "xyz",
        ];
        let t = KernelTable::of_texts(texts, usize::MAX);
        let k: Vec<Kernels> = texts.iter().map(|s| Kernels::of(s, usize::MAX)).collect();
        assert_eq!(t.similarity(&k[0], &k[0]), 1.0);
        let doubled = Kernels::of(&format!("{} {}", texts[0], texts[0]), usize::MAX);
        let d = t.similarity(&k[0], &doubled);
        assert!(d > 0.9, "{d}");
        assert_eq!(t.similarity(&k[0], &k[3]), 0.0);
        assert_eq!(t.similarity(&k[0], &Kernels::default()), 0.0);
        let (ab, ba) = (t.similarity(&k[0], &k[1]), t.similarity(&k[1], &k[0]));
        assert_eq!(ab.to_bits(), ba.to_bits());
        let unrelated = t.similarity(&k[0], &k[2]);
        assert!(
            ab > 0.3 && unrelated < 0.1,
            "retold {ab}, unrelated {unrelated}"
        );
    }

    #[test]
    fn kernel_similarity_of_two_texts_needs_no_corpus() {
        let a = "Heavy rain flooded the lower town of Ribeira overnight.";
        let b = "The lower town of Ribeira was flooded by heavy overnight rain.";
        let c = "Quarterly earnings of the chip maker rose by nine percent, beating forecasts.";
        let s = kernel_similarity(a, b, [], usize::MAX);
        let u = kernel_similarity(a, c, [], usize::MAX);
        assert!(s > 0.3 && u < 0.1, "retold {s}, unrelated {u}");
        let with = kernel_similarity(a, b, ["An unrelated text about chess openings."], 64);
        assert!((0.0..=1.0).contains(&with));
    }
}
