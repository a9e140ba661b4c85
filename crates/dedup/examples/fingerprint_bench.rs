//! Fingerprints the `text` field of every line of a JSONL file (as `crawlsift extract` writes
//! it), `ROUNDS` times on one thread, and prints the CPU time a round took (best of the rounds)
//! and a digest of every fingerprint, so a change to fingerprinting can be timed alone and shown
//! to give the same fingerprints.
//!
//! usage: cargo run --release -p crawlsift-dedup --example fingerprint_bench -- FILE.jsonl [ROUNDS]

use std::hash::{Hash, Hasher};
use std::io::BufRead;
use std::time::Instant;

use crawlsift_dedup::{DedupConfig, Fingerprinter};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: fingerprint_bench FILE.jsonl [ROUNDS]");
    let rounds: usize = args.next().map_or(5, |r| r.parse().expect("ROUNDS"));
    let file = std::io::BufReader::new(std::fs::File::open(&path).expect("open"));
    let texts: Vec<String> = file
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l.expect("read")).expect("json");
            v["text"].as_str().unwrap_or("").to_owned()
        })
        .collect();
    let mut f = Fingerprinter::new(&DedupConfig::default());
    let mut best = f64::MAX;
    let mut digest = 0u64;
    for _ in 0..rounds {
        let t = Instant::now();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for text in &texts {
            let fp = f.fingerprint(text);
            (fp.words, fp.exact, fp.adler32, fp.simhash).hash(&mut h);
            fp.minhash.hash(&mut h);
            fp.profile.words.hash(&mut h);
            for l in fp.profile.lines.iter() {
                (l.hash, l.end).hash(&mut h);
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
        digest = h.finish();
    }
    println!(
        "{} texts, best round {best:.3} s, digest {digest:016x}",
        texts.len()
    );
}
