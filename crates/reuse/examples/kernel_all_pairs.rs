//! The kernel similarity of every pair of documents of a TREC text file (`<DOC><DOCNO>`, text
//! in `<TEXT>`), for `scripts/bench_rewriting.py --documents`: prints `DOCNO<TAB>DOCNO<TAB>SIM`
//! for each pair at or above the second argument (default 0.01), and on the last line
//! `pairs<TAB>N`, the number of pairs compared. Quadratic: for benchmark corpora only.
//!
//! usage: cargo run --release -p crawlsift-reuse --example kernel_all_pairs -- DOCS.trectext [MIN]

use crawlsift_common::limits::STORY_MAX_CHARS;
use crawlsift_reuse::{KernelTable, Kernels};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: kernel_all_pairs DOCS.trectext [MIN]");
    let min: f64 = args
        .next()
        .map_or(0.01, |m| m.parse().expect("MIN is a number"));
    let data = std::fs::read_to_string(&path).expect("cannot read the documents");
    let mut docs: Vec<(&str, Kernels)> = Vec::new();
    for doc in data.split("<DOC>").skip(1) {
        let no = doc
            .split("<DOCNO>")
            .nth(1)
            .and_then(|d| d.split("</DOCNO>").next())
            .unwrap_or("")
            .trim();
        let text = doc
            .split("<TEXT>")
            .nth(1)
            .and_then(|d| d.split("</TEXT>").next())
            .unwrap_or("");
        docs.push((no, Kernels::of(text, STORY_MAX_CHARS)));
    }
    let mut table = KernelTable::new();
    for (_, k) in &docs {
        table.add(k);
    }
    let mut pairs = 0u64;
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            pairs += 1;
            let s = table.similarity(&docs[i].1, &docs[j].1);
            if s >= min {
                println!("{}\t{}\t{:.6}", docs[i].0, docs[j].0, s);
            }
        }
    }
    println!("pairs\t{pairs}");
}
