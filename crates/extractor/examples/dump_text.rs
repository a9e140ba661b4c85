//! Byte-exactness check for extractor changes: writes the title and text of every page in a
//! folder, with every HTML method, to one file, so two builds can be compared with `cmp`:
//! `cargo run --release --example dump_text -- DIR OUT`.
use crawlsift_extractor::{ExtractorBuilder, Method};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: dump_text DIR OUT");
        std::process::exit(2);
    };
    let mut pages: Vec<_> = std::fs::read_dir(dir)
        .expect("in dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    pages.sort();
    let mut w = std::io::BufWriter::new(std::fs::File::create(out).expect("out file"));
    for method in [Method::Blocks, Method::Plateau, Method::Full] {
        let mut ex = ExtractorBuilder::new()
            .method(method)
            .build()
            .expect("config");
        for p in &pages {
            let bytes = std::fs::read(p).expect("read");
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            match ex.extract(&bytes, Some("text/html"), None) {
                Ok(e) => writeln!(
                    w,
                    "=== {} {name} {}\n{}\n---\n{}",
                    method.as_str(),
                    e.charset,
                    e.title,
                    e.text
                ),
                Err(s) => writeln!(w, "=== {} {name} skip {}", method.as_str(), s.as_str()),
            }
            .expect("write");
        }
    }
}
