//! Measures candidate HTML tokenizers on a folder of pages: `cargo run --release --example tokbench DIR...`.
use std::time::Instant;

fn main() {
    let mut pages = Vec::new();
    for dir in std::env::args().skip(1) {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            pages.push(std::fs::read(e.path()).unwrap());
        }
    }
    let bytes: usize = pages.iter().map(|p| p.len()).sum();
    let t = Instant::now();
    let mut n = 0usize;
    for p in &pages {
        let mut count = 0usize;
        let mut em = html5gum::emitters::callback::CallbackEmitter::new(
            |ev: html5gum::emitters::callback::CallbackEvent<'_>| -> Option<()> {
                if let html5gum::emitters::callback::CallbackEvent::String { value } = ev {
                    count += value.len();
                }
                None
            },
        );
        em.naively_switch_states(true);
        for _ in html5gum::Tokenizer::new_with_emitter(p.as_slice(), em) {}
        n += count;
    }
    let d = t.elapsed().as_secs_f64();
    println!(
        "html5gum callback: {:.1} MB/s ({n})",
        bytes as f64 / d / 1e6
    );
    let t = Instant::now();
    let mut n = 0usize;
    for p in &pages {
        let s = String::from_utf8_lossy(p);
        let dom = tl::parse(&s, tl::ParserOptions::default()).unwrap();
        n += dom.nodes().len();
    }
    let d = t.elapsed().as_secs_f64();
    println!("tl: {:.1} MB/s ({n})", bytes as f64 / d / 1e6);
}
