//! Clusters main texts given as JSONL `{"id","text"}` lines and writes `{"id","cluster"}` lines.
//!
//! ```text
//! cargo run --release -p crawlsift-dedup --example cluster_jsonl -- TEXTS.jsonl OUT.jsonl
//!     [--threads N] [--truth truth.jsonl] [--shingle K] [--perms P] [--bands B] [--rows R]
//!     [--min-jaccard T] [--hamming D] [--min-words W] [--popular P] [--pairings K]
//!     [--evidence R]
//! ```
//! With `--truth` (a makecorpus truth.jsonl) it also prints, per copy kind, the distribution of the
//! estimated Jaccard and SimHash distance between each copy and its source, and between each
//! near-miss and the article it borrows from: the measurements behind the thresholds.
//! Timing, bytes per document and the clustering counters go to stderr.

use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::time::Instant;

use crawlsift_dedup::minhash::{agreements, estimate_jaccard};
use crawlsift_dedup::simhash::hamming;
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprint, Fingerprinter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut pos = Vec::new();
    let mut cfg = DedupConfig::default();
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut truth = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--threads" => threads = val()?.parse()?,
            "--truth" => truth = Some(val()?),
            "--shingle" => cfg.shingle_words = val()?.parse()?,
            "--perms" => cfg.minhash_perms = val()?.parse()?,
            "--bands" => cfg.lsh_bands = val()?.parse()?,
            "--rows" => cfg.lsh_rows = val()?.parse()?,
            "--min-jaccard" => cfg.min_jaccard = val()?.parse()?,
            "--hamming" => cfg.simhash_max_hamming = val()?.parse()?,
            "--min-words" => cfg.min_words = val()?.parse()?,
            "--popular" => cfg.popular_docs = val()?.parse()?,
            "--pairings" => cfg.popular_pairings = val()?.parse()?,
            "--threshold" => cfg.threshold = val()?.parse()?,
            _ => pos.push(a.clone()),
        }
    }
    let [input, output] = pos.as_slice() else {
        return Err("usage: cluster_jsonl TEXTS.jsonl OUT.jsonl [options]".into());
    };
    cfg.validate()?;

    let mut ids = Vec::new();
    let mut texts = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(input)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        ids.push(v["id"].as_str().unwrap_or("").to_string());
        texts.push(v["text"].as_str().unwrap_or("").to_string());
    }
    let text_bytes: usize = texts.iter().map(String::len).sum();

    // Fingerprint on `threads` workers: each takes every threads-th document.
    let t0 = Instant::now();
    let threads = threads.max(1);
    let mut fps: Vec<Option<Fingerprint>> = vec![None; texts.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let texts = &texts;
                let cfg = &cfg;
                s.spawn(move || {
                    let mut f = Fingerprinter::new(cfg);
                    (w..texts.len())
                        .step_by(threads)
                        .map(|i| (i, f.fingerprint(&texts[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, fp) in h.join().expect("worker panicked") {
                fps[i] = Some(fp);
            }
        }
    });
    let fps: Vec<Fingerprint> = fps.into_iter().flatten().collect();
    let t_fp = t0.elapsed().as_secs_f64();

    if let Some(truth) = &truth {
        similarity_report(truth, &ids, &fps, &cfg)?;
    }

    let t1 = Instant::now();
    let mut clusterer = Clusterer::new(&cfg)?;
    for fp in &fps {
        clusterer.add(fp.clone());
    }
    let bytes_per_doc = clusterer.index_bytes_per_document();
    let result = clusterer.finish()?;
    let t_cl = t1.elapsed().as_secs_f64();

    let mut out = BufWriter::new(std::fs::File::create(output)?);
    for (ci, c) in result.clusters.iter().enumerate() {
        for m in &c.members {
            let line = serde_json::json!({"id": ids[m.doc as usize], "cluster": ci});
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    eprintln!(
        "docs {} ({:.1} MB text), threads {threads}: fingerprint {:.3} s ({:.0} docs/s, {:.0} MB/s), cluster {:.3} s ({:.0} docs/s), index {:.0} bytes/doc",
        fps.len(),
        text_bytes as f64 / 1e6,
        t_fp,
        fps.len() as f64 / t_fp,
        text_bytes as f64 / 1e6 / t_fp,
        t_cl,
        fps.len() as f64 / t_cl,
        bytes_per_doc
    );
    eprintln!("{}", serde_json::to_string(&result.stats)?);
    if let Some(truth) = &truth {
        let kinds = truth_kinds(truth)?;
        let mut by_kind: std::collections::BTreeMap<&str, usize> = Default::default();
        for &d in &result.boilerplate {
            *by_kind
                .entry(kinds.get(&ids[d as usize]).map_or("?", String::as_str))
                .or_default() += 1;
        }
        eprintln!("boilerplate by kind: {by_kind:?}");
    }
    Ok(())
}

fn truth_kinds(truth: &str) -> Result<HashMap<String, String>, Box<dyn std::error::Error>> {
    let mut out = HashMap::new();
    for line in std::io::BufReader::new(std::fs::File::open(truth)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        if let (Some(id), Some(kind)) = (v["id"].as_str(), v["kind"].as_str()) {
            out.insert(id.to_string(), kind.to_string());
        }
    }
    Ok(out)
}

fn quantiles(mut xs: Vec<f64>) -> String {
    if xs.is_empty() {
        return "-".into();
    }
    xs.sort_by(f64::total_cmp);
    let q = |p: f64| xs[((p * xs.len() as f64) as usize).min(xs.len() - 1)];
    format!(
        "min {:.3} p1 {:.3} p5 {:.3} p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
        xs[0],
        q(0.01),
        q(0.05),
        q(0.5),
        q(0.95),
        q(0.99),
        xs[xs.len() - 1]
    )
}

fn similarity_report(
    truth: &str,
    ids: &[String],
    fps: &[Fingerprint],
    cfg: &DedupConfig,
) -> Result<(), Box<dyn std::error::Error>> {
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut by_kind: HashMap<String, (Vec<f64>, Vec<f64>)> = HashMap::new();
    for line in std::io::BufReader::new(std::fs::File::open(truth)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        let kind = v["kind"].as_str().unwrap_or("").to_string();
        let other = v["source"].as_str().or(v["near_of"].as_str());
        let (Some(other), Some(id)) = (other, v["id"].as_str()) else {
            continue;
        };
        let (Some(&a), Some(&b)) = (index.get(id), index.get(other)) else {
            continue;
        };
        let (fa, fb) = (&fps[a], &fps[b]);
        if fa.minhash.is_empty() || fb.minhash.is_empty() {
            continue;
        }
        let j = estimate_jaccard(agreements(&fa.minhash, &fb.minhash), cfg.minhash_perms);
        let e = by_kind.entry(kind).or_default();
        e.0.push(j);
        e.1.push(f64::from(hamming(fa.simhash, fb.simhash)));
    }
    let mut kinds: Vec<_> = by_kind.into_iter().collect();
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    for (k, (j, h)) in kinds {
        eprintln!("{k:>20} n={:5} jaccard~ {}", j.len(), quantiles(j));
        eprintln!("{:>28} hamming {}", "", quantiles(h));
    }
    Ok(())
}
