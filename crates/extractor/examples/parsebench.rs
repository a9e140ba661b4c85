//! Single-thread time of each stage on a folder of pages:
//! `cargo run --release --example parsebench DIR...` (reports MB/s of parse and of blocks).
use crawlsift_extractor::{dom::Doc, html, ExtractorBuilder};
use std::time::Instant;

fn main() {
    let mut pages = Vec::new();
    for dir in std::env::args().skip(1) {
        for e in std::fs::read_dir(&dir).expect("dir").flatten() {
            let b = std::fs::read(e.path()).expect("read");
            pages.push(String::from_utf8_lossy(&b).into_owned());
        }
    }
    let bytes: usize = pages.iter().map(|p| p.len()).sum();
    let mb = bytes as f64 / 1e6;
    let mut doc = Doc::default();
    let t = Instant::now();
    for p in &pages {
        html::parse(p, &mut doc);
    }
    let d = t.elapsed().as_secs_f64();
    println!(
        "parse: {:.1} MB/s, {:.0} pages/s",
        mb / d,
        pages.len() as f64 / d
    );
    let mut ex = ExtractorBuilder::new().build().expect("config");
    let t = Instant::now();
    let mut n = 0;
    for p in &pages {
        n += ex.html_text(p).1.len();
    }
    let d = t.elapsed().as_secs_f64();
    println!(
        "parse+blocks: {:.1} MB/s, {:.0} pages/s ({n} bytes out)",
        mb / d,
        pages.len() as f64 / d
    );
}
