//! Single-thread cost of the whole `extract` call (sniff, decode, parse, method) as `crawlsift
//! dedup` runs it, on a folder of pages: `cargo run --release --example extractbench -- DIR
//! [METHOD] [ROUNDS]`. Pages are read first, so under `valgrind --tool=cachegrind` the
//! instruction count is nearly all extraction.
use crawlsift_extractor::{ExtractorBuilder, Method};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: extractbench DIR [METHOD] [ROUNDS]");
        std::process::exit(2);
    };
    let method: Method = args
        .get(2)
        .map_or(Ok(Method::Blocks), |m| m.parse())
        .expect("method");
    let rounds: usize = args.get(3).map_or(1, |r| r.parse().expect("rounds"));
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    let pages: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let mb = pages.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    let mut ex = ExtractorBuilder::new()
        .method(method)
        .build()
        .expect("config");
    let t = Instant::now();
    let mut out = 0;
    for _ in 0..rounds {
        for p in &pages {
            if let Ok(e) = ex.extract(p, Some("text/html"), None) {
                out += e.text.len();
            }
        }
    }
    let d = t.elapsed().as_secs_f64();
    let n = (pages.len() * rounds) as f64;
    println!(
        "extract {}: {:.1} MB/s, {:.0} pages/s ({out} bytes out)",
        method.as_str(),
        mb * rounds as f64 / d,
        n / d
    );
}
