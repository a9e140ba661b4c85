//! Clustering-only benchmark: N synthetic documents with planted near-duplicates, fingerprinted,
//! then clustered; prints the clustering's time per signature, the candidate checks, the recall of
//! the planted copies and the process's peak memory.
//!
//! ```text
//! cargo run --release -p crawlsift-dedup --example cluster_bench -- DOCS [--threads N]
//!     [--copies SHARE] [--words W] [--memory BYTES [--spill DIR]]
//! ```
//!
//! An example of the dedup crate rather than a `crawlsift` subcommand: it exercises the clustering
//! alone (no archives, no extraction, no output files), so the figures are the clustering's, and it
//! builds with the crate alone. Documents are `--words` words (default 40) drawn from a vocabulary
//! of 200,000 by a fixed generator, so every run of one size is the same corpus; a share `--copies`
//! (default 0.1) of them are copies of an earlier document with 1-4 words replaced (word share >=
//! 0.9, planted near-duplicates). `min_words` is lowered to 30 so these short texts are judged.
//! Fingerprints keep their wide bytes (32-bit band keys), as `dedup` does from
//! `limits::DEDUP_WIDE_KEYS_FROM_BYTES` of input. Peak memory is the process's (VmHWM), fingerprints included; the resident size before
//! clustering is printed beside it. With `--spill DIR` the budget covers the fingerprints as in
//! `dedup --memory`: past half of it, word profiles, then signatures, go to files in `DIR` (as
//! `dedup` moves them once its catalog is on disk too), and the counts spilled are printed.

use std::time::Instant;

use crawlsift_common::budget::{MemoryBudget, Part, Spilled};
use crawlsift_dedup::minhash::mix64;
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprint, Fingerprinter};

const VOCABULARY: u64 = 200_000;

/// Document `i`: its words, and the earlier document it copies (if it is a planted copy).
fn document(i: u64, words: usize, copies: f64) -> (String, Option<u64>) {
    let mut state = mix64(i ^ 0x5EED);
    let mut next = || {
        state = mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        state
    };
    let copy = i > 0 && (next() % 1_000_000) as f64 / 1e6 < copies;
    let (base, mut edit) = if copy {
        let source = next() % i;
        // The source's own source, if it is a copy too: copies are of original documents.
        let (_, up) = document(source, words, copies);
        (up.unwrap_or(source), 1 + next() % 4)
    } else {
        (i, 0)
    };
    let mut bstate = mix64(base ^ 0xD0C);
    let mut text = String::with_capacity(words * 8);
    for w in 0..words {
        bstate = mix64(bstate.wrapping_add(0x9E37_79B9_7F4A_7C15));
        let mut word = bstate % VOCABULARY;
        if edit > 0 && next() % (words as u64) < 4 {
            word = next() % VOCABULARY;
            edit -= 1;
        }
        if w > 0 {
            text.push(' ');
        }
        text.push_str(&format!("w{word}"));
    }
    (text, copy.then_some(base))
}

fn vm(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut docs: Option<u64> = None;
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut copies, mut words) = (0.1f64, 40usize);
    let mut memory: Option<usize> = None;
    let mut spill: Option<std::path::PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--threads" => threads = val()?.parse()?,
            "--copies" => copies = val()?.parse()?,
            "--words" => words = val()?.parse()?,
            "--memory" => memory = Some(val()?.parse()?),
            "--spill" => spill = Some(val()?.into()),
            _ => docs = Some(a.parse()?),
        }
    }
    let n = docs.ok_or(
        "usage: cluster_bench DOCS [--threads N] [--copies SHARE] [--words W] [--memory BYTES [--spill DIR]]",
    )?;
    let cfg = DedupConfig {
        min_words: 30.min(words),
        ..DedupConfig::default()
    };
    cfg.validate()?;

    let t0 = Instant::now();
    let threads = threads.max(1);
    let mut planted: Vec<(u32, u32)> = Vec::new();
    let mut clusterer = Clusterer::new(&cfg)?;
    let mut budget = match memory {
        Some(bytes) => MemoryBudget::new(bytes, spill.as_deref()),
        None => MemoryBudget::default(),
    };
    // Fingerprinted in blocks on the threads, added in document order.
    const BLOCK: u64 = 100_000;
    let mut start = 0u64;
    while start < n {
        let end = (start + BLOCK).min(n);
        let parts: Vec<Vec<(Fingerprint, Option<u64>)>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads as u64)
                .map(|w| {
                    let cfg = &cfg;
                    s.spawn(move || {
                        let mut f = Fingerprinter::new(cfg).wide_keys(true);
                        let per = (end - start).div_ceil(threads as u64);
                        let (a, b) = (start + w * per, (start + (w + 1) * per).min(end));
                        (a..b)
                            .map(|i| {
                                let (text, of) = document(i, words, copies);
                                (f.fingerprint(&text), of)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().expect("worker")).collect()
        });
        for (fp, of) in parts.into_iter().flatten() {
            let d = clusterer.add_counted(fp, "", &mut budget);
            budget.keep(|part, bytes, dir| match part {
                Part::Profiles => clusterer.spill_profiles(bytes, dir),
                Part::Signatures => clusterer.spill_signatures(bytes, dir),
                Part::Catalog | Part::Fixed => Ok(Spilled::default()),
            })?;
            if let Some(of) = of {
                planted.push((of as u32, d));
            }
        }
        start = end;
    }
    let t_fp = t0.elapsed().as_secs_f64();
    let rss_before = vm("VmRSS:");
    let spilled = (
        clusterer.spilled_documents(),
        clusterer.spilled_signatures(),
    );

    let t1 = Instant::now();
    let result = clusterer.cluster_within(threads, &budget)?;
    let t_cl = t1.elapsed().as_secs_f64();
    let assign = result.assignments(n as usize);
    let found = planted
        .iter()
        .filter(|&&(a, b)| assign[a as usize].is_some() && assign[a as usize] == assign[b as usize])
        .count();
    let s = &result.stats;
    println!(
        "{{\"docs\":{n},\"threads\":{threads},\"fingerprint_s\":{t_fp:.2},\"cluster_s\":{t_cl:.2},\
         \"cluster_us_per_doc\":{:.3},\"minhash_checks\":{},\"simhash_checks\":{},\
         \"skipped\":{},\"verified_pairs\":{},\"planted\":{},\"recall\":{:.5},\
         \"clusters\":{},\"rss_before_cluster_mib\":{},\"peak_mib\":{},\
         \"spilled_profiles\":{},\"spilled_signatures\":{}}}",
        t_cl * 1e6 / n as f64,
        s.minhash_candidate_checks,
        s.simhash_candidate_checks,
        s.bucket_comparisons_skipped,
        s.verified_pairs,
        planted.len(),
        found as f64 / planted.len().max(1) as f64,
        s.clusters,
        rss_before / 1024,
        vm("VmHWM:") / 1024,
        spilled.0,
        spilled.1,
    );
    Ok(())
}
