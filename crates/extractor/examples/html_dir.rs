//! Library-only twin of `crawlsift extract --html-dir IN --out-dir OUT [--method M]`, for tuning
//! without building the whole binary: `cargo run --release --example html_dir -- IN OUT [METHOD]`.
use crawlsift_extractor::{charset, CharsetMode, ExtractorBuilder, Method};
use std::sync::atomic::{AtomicUsize, Ordering};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (inp, out) = (&args[1], &args[2]);
    let method: Method = args
        .get(3)
        .map_or(Ok(Method::Blocks), |m| m.parse())
        .expect("method");
    std::fs::create_dir_all(out).expect("out dir");
    let mut pages: Vec<_> = std::fs::read_dir(inp)
        .expect("in dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    pages.sort();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut ex = ExtractorBuilder::new()
                    .method(method)
                    .charset(CharsetMode::Utf8)
                    .build()
                    .expect("config");
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = pages.get(i) else { break };
                    let bytes = std::fs::read(p).expect("read");
                    let d = charset::decode(&bytes, None, CharsetMode::Utf8);
                    let text = ex.html_text(&d.text).1;
                    let mut name = p.file_stem().unwrap_or_default().to_os_string();
                    name.push(".txt");
                    std::fs::write(std::path::Path::new(out).join(name), text).expect("write");
                }
            });
        }
    });
}
