//! Scores pairs of texts for `scripts/bench_rewriting.py`: reads lines `LABEL<TAB>TEXT<TAB>TEXT`
//! from the file named by its argument, counts the kernels of all its distinct texts into one
//! table (the corpus of commonality), and prints for each line `LABEL<TAB>KERNEL<TAB>DICE<TAB>CANDIDATE`:
//! the kernel similarity, the Dice coefficient of the two word multisets (the measure `dedup`
//! clusters with) and 1 when the story sketches would compare the pair (a band in common).
//!
//! usage: cargo run --release -p crawlsift-reuse --example kernel_pairs -- PAIRS.tsv

use std::collections::HashMap;

use crawlsift_common::limits::STORY_MAX_CHARS;
use crawlsift_common::words::words;
use crawlsift_reuse::{KernelTable, Kernels, StoryConfig};

fn dice(a: &str, b: &str) -> f64 {
    let count = |t: &str| {
        let mut m: HashMap<String, u32> = HashMap::new();
        for w in words(t) {
            *m.entry(w).or_default() += 1;
        }
        m
    };
    let (ma, mb) = (count(a), count(b));
    let (na, nb): (u32, u32) = (ma.values().sum(), mb.values().sum());
    let shared: u32 = ma
        .iter()
        .map(|(w, n)| (*n).min(*mb.get(w).unwrap_or(&0)))
        .sum();
    if na + nb == 0 {
        0.0
    } else {
        2.0 * f64::from(shared) / f64::from(na + nb)
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: kernel_pairs PAIRS.tsv");
    let data = std::fs::read_to_string(&path).expect("cannot read the pairs file");
    let rows: Vec<Vec<&str>> = data
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r.len() >= 3)
        .collect();
    let kernels: Vec<(Kernels, Kernels)> = rows
        .iter()
        .map(|r| {
            (
                Kernels::of(r[1], STORY_MAX_CHARS),
                Kernels::of(r[2], STORY_MAX_CHARS),
            )
        })
        .collect();
    // The corpus: each distinct text once, however many pairs it is in.
    let mut table = KernelTable::new();
    let mut seen = std::collections::HashSet::new();
    for (r, (a, b)) in rows.iter().zip(&kernels) {
        if seen.insert(r[1]) {
            table.add(a);
        }
        if seen.insert(r[2]) {
            table.add(b);
        }
    }
    let cfg = StoryConfig::default();
    for (r, (a, b)) in rows.iter().zip(&kernels) {
        let (ka, kb) = (cfg.band_keys(a, &table), cfg.band_keys(b, &table));
        let candidate = ka.iter().any(|k| kb.contains(k));
        println!(
            "{}\t{:.6}\t{:.6}\t{}",
            r[0],
            table.similarity(a, b),
            dice(r[1], r[2]),
            u8::from(candidate)
        );
    }
}
