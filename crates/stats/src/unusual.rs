//! How unusual each document is, from its character 3-gram *kernels* (three consecutive
//! characters inside a word: letters and digits, lower-cased). Over the corpus every kernel `k`
//! has a *commonality* `c(k) = df(k) / N * count(k) / K`, where `df(k)` is the number of
//! documents containing it, `N` the number of documents, `count(k)` its occurrences and `K` the
//! occurrences of all kernels. A document's score is `sum over its kernels of n(k) / c(k)`,
//! divided by its number of kernels: high for documents made of rare kernels, low for the
//! template and boilerplate text every page repeats.
//!
//! Memory is bounded: kernels are hashed into [`STATS_KERNEL_BUCKETS`] buckets (12 MiB), and the
//! score needs the finished table, so each document's kernels wait in a temporary file as a
//! bottom-k sample ([`STATS_KERNEL_SAMPLE`] kernels with the smallest hashes); a document with
//! more distinct kernels is scored on its sample, scaled by its distinct count. Only the scores
//! (8 bytes a document, for the quantiles) and the listed documents stay in memory.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};

use crawlsift_common::limits::{STATS_KERNEL_BUCKETS, STATS_KERNEL_SAMPLE, STATS_UNUSUAL_LISTED};
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

/// A document's kernels: how many, and the count of each distinct one (by hash).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocKernels {
    /// Kernel occurrences in the document.
    pub total: u64,
    /// Distinct kernels, by hash, with their counts: the [`STATS_KERNEL_SAMPLE`] smallest
    /// hashes first, in order, then the others.
    pub counts: Vec<(u64, u32)>,
}

impl DocKernels {
    /// The kernels of a document given its lower-cased words, each with how often it occurs.
    pub fn of_words<'a>(words: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        SCRATCH.with_borrow_mut(|sc| {
            let Scratch {
                dense,
                touched,
                map,
            } = sc;
            dense.resize(ASCII_KERNELS, 0);
            map.clear();
            let mut total = 0u64;
            // Words are lower-cased: ASCII kernels are made of a-z and 0-9 only.
            let mut add_ascii = |k: &[u8], n: u32| {
                let i = k.iter().fold(0, |x, &c| x * 36 + digit36(c));
                if dense[i] == 0 {
                    touched.push(i as u32);
                }
                dense[i] = dense[i].saturating_add(n);
            };
            for (w, n) in words {
                if w.is_ascii() {
                    for k in w.as_bytes().windows(3) {
                        add_ascii(k, n);
                        total += u64::from(n);
                    }
                } else {
                    let mut at = w.char_indices().map(|(i, _)| i).chain([w.len()]);
                    let (mut a, mut b, mut c) = (at.next(), at.next(), at.next());
                    while let (Some(i), Some(_), Some(_), Some(j)) = (a, b, c, at.next()) {
                        let k = &w.as_bytes()[i..j];
                        if k.len() == 3 {
                            add_ascii(k, n);
                        } else {
                            let e = map.entry(kernel_hash(k)).or_default();
                            *e = e.saturating_add(n);
                        }
                        total += u64::from(n);
                        (a, b, c) = (b, c, Some(j));
                    }
                }
            }
            let mut counts: Vec<(u64, u32)> = Vec::with_capacity(touched.len() + map.len());
            for &i in touched.iter() {
                let i = i as usize;
                let k = [i / 1296, i / 36 % 36, i % 36].map(|d| DIGITS36[d]);
                counts.push((kernel_hash(&k), dense[i]));
                dense[i] = 0;
            }
            touched.clear();
            counts.extend(map.iter().map(|(&h, &c)| (h, c)));
            // The bottom-k sample first, in hash order; the rest in any order.
            let k = counts.len().min(STATS_KERNEL_SAMPLE);
            if counts.len() > k {
                counts.select_nth_unstable(k);
            }
            counts[..k].sort_unstable();
            DocKernels { total, counts }
        })
    }
}

/// Kernels of three ASCII letters or digits: counted in a dense array, without hashing.
const ASCII_KERNELS: usize = 36 * 36 * 36;

/// The characters of ASCII words, by their base-36 digit.
const DIGITS36: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

fn digit36(c: u8) -> usize {
    match c {
        b'0'..=b'9' => usize::from(c - b'0'),
        _ => usize::from(c.wrapping_sub(b'a')).min(25) + 10,
    }
}

/// A worker thread's counting space, reused from one document to the next.
#[derive(Default)]
struct Scratch {
    /// Counts of ASCII kernels by base-36 index (zero between documents).
    dense: Vec<u32>,
    /// The indices of `dense` this document touched.
    touched: Vec<u32>,
    /// Counts of other kernels by hash.
    map: HashMap<u64, u32, Mixed>,
}

thread_local! {
    /// Kernel counts of the document being read.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The hash of a kernel (3 characters: at most 12 bytes): the bytes packed into an integer and
/// mixed with murmur3's finaliser, a bijection, so kernels of up to 8 bytes never collide.
fn kernel_hash(b: &[u8]) -> u64 {
    let packed = b.iter().fold(0u128, |x, &c| (x << 8) | u128::from(c));
    let mut h = (packed as u64) ^ ((packed >> 64) as u64).rotate_left(29);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Kernel hashes are already mixed ([`kernel_hash`]): the map uses them as they are.
#[derive(Clone, Copy, Default)]
struct Mixed;

impl BuildHasher for Mixed {
    type Hasher = MixedHasher;
    fn build_hasher(&self) -> MixedHasher {
        MixedHasher(0)
    }
}

/// The hasher of [`Mixed`]: passes a `u64` through.
#[derive(Default)]
struct MixedHasher(u64);

impl Hasher for MixedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A document as the listings show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocRef {
    /// Record id (WARC-Record-ID, DOCNO).
    pub id: String,
    /// Target URL, if any.
    pub url: Option<String>,
    /// Input name.
    pub file: String,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// Whether a dedup run found it a duplicate (when known).
    pub duplicate: Option<bool>,
}

/// A scored document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// The document.
    #[serde(flatten)]
    pub doc: DocRef,
    /// Its unusualness (4 significant decimals).
    pub score: f64,
    /// Its first words, to see what it is.
    pub preview: String,
}

/// The distribution of scores and the extremes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnusualSummary {
    /// Documents with at least one kernel.
    pub scored: u64,
    /// Score quantiles: min, 10%, 25%, median, 75%, 90%, max.
    pub quantiles: Vec<(String, f64)>,
    /// The most unusual documents, most first.
    pub most: Vec<Scored>,
    /// The least unusual documents, least first.
    pub least: Vec<Scored>,
    /// Of the least unusual, how many a dedup run found duplicates (when known).
    pub least_duplicates: Option<usize>,
    /// Of the most unusual, how many a dedup run found duplicates (when known).
    pub most_duplicates: Option<usize>,
}

/// The corpus kernel table and the spilled per-document samples.
pub struct Unusual {
    /// Per bucket: kernel occurrences and documents containing it.
    table: Vec<(u64, u32)>,
    all: u64,
    documents: u64,
    spill: BufWriter<File>,
}

fn bucket(h: u64) -> usize {
    (h % STATS_KERNEL_BUCKETS as u64) as usize
}

impl Unusual {
    /// An empty table, with its spill file (an unnamed temporary file).
    pub fn new() -> io::Result<Self> {
        Ok(Unusual {
            table: vec![(0, 0); STATS_KERNEL_BUCKETS],
            all: 0,
            documents: 0,
            spill: BufWriter::new(tempfile::tempfile()?),
        })
    }

    /// Adds a document (in corpus order) with what the listings show of it.
    pub fn add(&mut self, doc: &DocRef, preview: &str, k: &DocKernels) -> io::Result<()> {
        self.documents += 1;
        self.all += k.total;
        for &(h, c) in &k.counts {
            let e = &mut self.table[bucket(h)];
            e.0 += u64::from(c);
            e.1 = e.1.saturating_add(1);
        }
        // `counts` begins with the bottom-k sample.
        let sample = &k.counts[..k.counts.len().min(STATS_KERNEL_SAMPLE)];
        let label = serde_json::to_vec(&(doc, preview)).map_err(io::Error::other)?;
        let w = &mut self.spill;
        w.write_all(&(label.len() as u64).to_le_bytes())?;
        w.write_all(&label)?;
        w.write_all(&k.total.to_le_bytes())?;
        w.write_all(&(k.counts.len() as u64).to_le_bytes())?;
        w.write_all(&(sample.len() as u64).to_le_bytes())?;
        for &(h, c) in sample {
            w.write_all(&h.to_le_bytes())?;
            w.write_all(&c.to_le_bytes())?;
        }
        Ok(())
    }

    /// Scores every document against the finished table.
    pub fn finish(self) -> io::Result<UnusualSummary> {
        let mut file = self.spill.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        let mut r = BufReader::new(file);
        let n = self.documents.max(1) as f64;
        let all = self.all.max(1) as f64;
        let commonality = |b: usize| {
            let (count, df) = self.table[b];
            (f64::from(df) / n) * (count as f64 / all)
        };
        let mut scores = Vec::new();
        let mut most: Vec<Scored> = Vec::new();
        let mut least: Vec<Scored> = Vec::new();
        for _ in 0..self.documents {
            let len = read_u64(&mut r)?;
            let mut label = vec![0; usize::try_from(len).map_err(io::Error::other)?];
            r.read_exact(&mut label)?;
            let (total, distinct, len) = (read_u64(&mut r)?, read_u64(&mut r)?, read_u64(&mut r)?);
            let mut sum = 0.0;
            for _ in 0..len {
                let h = read_u64(&mut r)?;
                let mut cb = [0u8; 4];
                r.read_exact(&mut cb)?;
                let c = commonality(bucket(h)).max(f64::MIN_POSITIVE);
                sum += f64::from(u32::from_le_bytes(cb)) / c;
            }
            if total == 0 || len == 0 {
                continue;
            }
            let score = sum * (distinct as f64 / len as f64) / total as f64;
            scores.push(score);
            let keep_most =
                most.len() < STATS_UNUSUAL_LISTED || most.last().is_some_and(|m| score > m.score);
            let keep_least =
                least.len() < STATS_UNUSUAL_LISTED || least.last().is_some_and(|m| score < m.score);
            if keep_most || keep_least {
                let (doc, preview): (DocRef, String) =
                    serde_json::from_slice(&label).map_err(io::Error::other)?;
                let s = Scored {
                    doc,
                    score,
                    preview,
                };
                if keep_most {
                    insert(&mut most, s.clone(), |a, b| b.total_cmp(&a));
                }
                if keep_least {
                    insert(&mut least, s, |a, b| a.total_cmp(&b));
                }
            }
        }
        for s in most.iter_mut().chain(least.iter_mut()) {
            s.score = significant(s.score);
        }
        scores.sort_unstable_by(f64::total_cmp);
        let q = |p: f64| {
            let i = ((scores.len() - 1) as f64 * p).round() as usize;
            significant(scores[i])
        };
        let quantiles = if scores.is_empty() {
            Vec::new()
        } else {
            [
                ("min", 0.0),
                ("p10", 0.1),
                ("p25", 0.25),
                ("median", 0.5),
                ("p75", 0.75),
                ("p90", 0.9),
                ("max", 1.0),
            ]
            .iter()
            .map(|&(name, p)| (name.to_string(), q(p)))
            .collect()
        };
        let dups = |v: &[Scored]| -> Option<usize> {
            v.iter()
                .map(|s| s.doc.duplicate.map(usize::from))
                .sum::<Option<usize>>()
        };
        Ok(UnusualSummary {
            scored: scores.len() as u64,
            quantiles,
            least_duplicates: dups(&least),
            most_duplicates: dups(&most),
            most,
            least,
        })
    }
}

/// Inserts `s` into `list`, kept sorted by `cmp` of scores and at most
/// [`STATS_UNUSUAL_LISTED`] long; equal scores keep corpus order.
fn insert(list: &mut Vec<Scored>, s: Scored, cmp: impl Fn(f64, f64) -> Ordering) {
    let at = list.partition_point(|x| cmp(x.score, s.score) != Ordering::Greater);
    list.insert(at, s);
    list.truncate(STATS_UNUSUAL_LISTED);
}

/// `x` rounded to 4 significant digits.
fn significant(x: f64) -> f64 {
    format!("{x:.3e}").parse().unwrap_or(x)
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str) -> DocRef {
        DocRef {
            id: id.into(),
            url: None,
            file: "f".into(),
            offset: 0,
            duplicate: Some(id.starts_with("dup")),
        }
    }

    #[test]
    fn kernels_are_three_characters_inside_words() {
        let k = DocKernels::of_words([("abcd", 1), ("ab", 1), ("été", 1)]);
        // abc, bcd, été: "ab" is too short; characters, not bytes.
        assert_eq!(k.total, 3);
        assert_eq!(k.counts.len(), 3);
        let k = DocKernels::of_words([("aaaa", 1)]);
        assert_eq!((k.total, k.counts.len(), k.counts[0].1), (2, 1, 2));
    }

    #[test]
    fn ascii_and_other_kernels_are_counted_alike() {
        // The dense ASCII path and the hashed path give the same hash for a kernel.
        let a = DocKernels::of_words([("abc9", 2), ("zz", 1)]);
        let mut want = vec![(kernel_hash(b"abc"), 2), (kernel_hash(b"bc9"), 2)];
        want.sort_unstable();
        assert_eq!((a.total, a.counts.clone()), (4, want));
        let b = DocKernels::of_words([("abcé", 1), ("abc", 1)]);
        let mut want = vec![(kernel_hash(b"abc"), 2), (kernel_hash("bcé".as_bytes()), 1)];
        want.sort_unstable();
        assert_eq!((b.total, b.counts), (3, want));
        // Scratch space is clean for the next document.
        assert_eq!(
            DocKernels::of_words([("abc", 1)]).counts,
            [(kernel_hash(b"abc"), 1)]
        );
    }

    #[test]
    fn boilerplate_scores_low_and_rare_text_high() {
        let mut u = Unusual::new().unwrap();
        let common = "home about contact privacy terms copyright";
        for i in 0..20 {
            let words = common.split(' ').map(|w| (w, 1));
            let id = if i % 2 == 0 { "dup" } else { "page" };
            u.add(
                &doc(&format!("{id}{i}")),
                common,
                &DocKernels::of_words(words),
            )
            .unwrap();
        }
        let rare = "zygomorphic quixotry xylophonist";
        u.add(
            &doc("rare"),
            rare,
            &DocKernels::of_words(rare.split(' ').map(|w| (w, 1))),
        )
        .unwrap();
        u.add(&doc("empty"), "", &DocKernels::of_words([("a", 1)]))
            .unwrap();
        let s = u.finish().unwrap();
        assert_eq!(s.scored, 21);
        assert_eq!(s.most[0].doc.id, "rare");
        assert_eq!(s.most[0].preview, rare);
        assert_eq!(s.least.len(), STATS_UNUSUAL_LISTED);
        assert!(s.least.iter().all(|d| d.doc.id != "rare"));
        // Equal scores keep corpus order.
        assert_eq!(s.least[0].doc.id, "dup0");
        assert_eq!(s.least_duplicates, Some(5));
        assert!(s.quantiles[0].1 < s.quantiles[6].1);
    }
}
