//! Reads every input, decodes every HTTP payload, and prints counts per file and in total:
//! the reader's throughput benchmark (`cargo run --release --example summary -- [-t N] FILE...`).
//!
//! HTTP decoding runs on `N` worker threads fed by a bounded channel, while the reader inflates
//! with `N` threads of its own.

use std::path::PathBuf;
use std::time::Instant;

use crawlsift_reader::{expand_inputs, read_input, FileReport, ReaderConfig, Record};

fn main() {
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut verify = false;
    let mut decode_http = true;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-t" | "--threads" => threads = args.next().and_then(|t| t.parse().ok()).unwrap_or(1),
            "--verify-digests" => verify = true,
            // Measure the reader alone: records are counted, HTTP is not parsed.
            "--no-http" => decode_http = false,
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let inputs = match expand_inputs(&paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let cfg = ReaderConfig {
        threads,
        verify_digests: verify,
        ..ReaderConfig::default()
    };
    let start = Instant::now();
    let (tx, rx) =
        crossbeam_channel::bounded::<Vec<Record>>(crawlsift_common::limits::RAW_QUEUE_CAP);
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let rx = rx.clone();
            std::thread::spawn(move || {
                let (mut http, mut bytes, mut lied, mut bad) = (0u64, 0u64, 0u64, 0u64);
                for batch in rx {
                    for r in &batch {
                        if !decode_http {
                            bytes += r.block.len() as u64;
                            continue;
                        }
                        match r.http() {
                            Some(Ok(h)) => {
                                http += 1;
                                bytes += h.body.len() as u64;
                                lied += h.flags.lied() as u64;
                            }
                            Some(Err(_)) => bad += 1,
                            None => bytes += r.payload().len() as u64,
                        }
                    }
                }
                (http, bytes, lied, bad)
            })
        })
        .collect();
    drop(rx);
    let mut total = FileReport::default();
    let mut failed = false;
    for (i, input) in inputs.iter().enumerate() {
        match read_input(input, i as u32, &cfg, &mut |b| tx.send(b).is_ok()) {
            Ok(rep) => {
                println!(
                    "{}: {} {} records={} bytes_in={} errors={:?} digests={:?} ranges={}",
                    input.path().display(),
                    rep.format.map_or("?", |f| f.as_str()),
                    rep.compression.as_str(),
                    rep.records,
                    rep.bytes_in,
                    rep.errors
                        .iter()
                        .map(|(k, v)| (k.as_str(), *v))
                        .collect::<Vec<_>>(),
                    rep.digests,
                    rep.parallel_ranges,
                );
                for e in rep.error_examples.iter().take(3) {
                    println!("  {e}");
                }
                total.bytes_in += rep.bytes_in;
                total.merge(&rep);
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    drop(tx);
    let (mut http, mut bytes, mut lied, mut bad) = (0, 0, 0, 0);
    for w in workers {
        let (a, b, c, d) = w.join().unwrap_or_default();
        http += a;
        bytes += b;
        lied += c;
        bad += d;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "total: files={} records={} by_kind={:?} http={http} http_errors={bad} lied={lied} payload_bytes={bytes} block_bytes={} errors={} digests={:?}",
        inputs.len(),
        total.records,
        total.records_by_kind,
        total.block_bytes,
        total.error_count(),
        total.digests,
    );
    println!(
        "seconds={secs:.3} MB/s(decoded)={:.1} threads={threads}",
        total.block_bytes as f64 / secs / 1e6
    );
    if failed {
        std::process::exit(1);
    }
}
