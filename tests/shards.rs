//! Shards and merge are exact: `crawlsift dedup --shard I/N` on every shard, then `crawlsift merge`
//! of their folders, writes the same `clusters.jsonl`, `documents.jsonl.gz` and clean corpus as a
//! single run, and the same `report.json` but for the run's command line, clock times, timings and
//! peak memory; for N = 1, 2, 3 and 8 (more shards than inputs), and with the shards in any order.
//! Merges of incomplete or mixed shards are refused, naming what is wrong.

mod util;

use std::path::{Path, PathBuf};

use util::*;

/// Four inputs: three parts of the sample crawl (the second and third share records with the
/// first, so clusters cross inputs and shards) and one file that is not an archive.
fn sample_inputs(dir: &Path) -> Vec<PathBuf> {
    let sample = std::fs::read(root().join("data/sample.warc.gz")).unwrap();
    let mut files = Vec::new();
    for (i, copies) in [1usize, 2, 3].iter().enumerate() {
        let p = dir.join(format!("part-{i}.warc.gz"));
        std::fs::write(&p, sample.repeat(*copies)).unwrap();
        files.push(p);
    }
    let readme = dir.join("README.txt");
    std::fs::write(&readme, "not an archive\n").unwrap();
    files.push(readme);
    files
}

/// Runs every shard of N, merges them (in reverse order), and checks the outputs against `single`.
fn check_shards(inputs: &[PathBuf], dir: &Path, n: u32, single: &Path, code: i32) {
    let mut shard_dirs = Vec::new();
    for i in 0..n {
        let out = dir.join(format!("n{n}-shard{i}"));
        let spec = format!("{i}/{n}");
        let mut args = vec!["dedup", "-q", "-j", "2", "--shard", &spec];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        let out_s = out.to_str().unwrap().to_string();
        let text = dir.join("unused.jsonl.gz");
        let text_s = text.to_str().unwrap().to_string();
        args.extend(["--out", &out_s, "--text", &text_s]);
        let o = crawlsift(&args);
        assert!(
            matches!(o.status.code(), Some(0) | Some(3)),
            "shard {spec}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!text.exists(), "a shard does not write the clean corpus");
        shard_dirs.push(out_s);
    }
    shard_dirs.reverse();
    let merged = dir.join(format!("n{n}-merged"));
    let text = dir.join(format!("n{n}-text.jsonl.gz"));
    let mut args = vec!["merge", "-q", "-j", "2"];
    if n % 2 == 1 {
        // Clustering in parts under a small budget gives the same bytes.
        args.extend(["--memory", "16M"]);
    }
    args.extend(shard_dirs.iter().map(String::as_str));
    let (m, t) = (merged.to_str().unwrap(), text.to_str().unwrap());
    args.extend(["--out", m, "--text", t]);
    crawlsift_ok(&args, code);
    for f in ["clusters.jsonl", "documents.jsonl.gz"] {
        assert!(
            contents(&single.join(f)) == contents(&merged.join(f)),
            "{f} of {n} merged shards differs from the single run"
        );
    }
    assert!(
        std::fs::read(single.with_extension("jsonl.gz")).unwrap() == std::fs::read(&text).unwrap(),
        "the clean corpus of {n} merged shards differs"
    );
    assert_eq!(
        report_findings(single),
        report_findings(&merged),
        "report.json of {n} merged shards"
    );
}

/// The single run the shards are compared with.
fn single_run(inputs: &[PathBuf], dir: &Path, code: i32) -> PathBuf {
    let single = dir.join("single");
    let text = single.with_extension("jsonl.gz");
    let mut args = vec!["dedup", "-q", "-j", "2"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    let (s, t) = (single.to_str().unwrap(), text.to_str().unwrap());
    args.extend(["--out", s, "--text", t]);
    crawlsift_ok(&args, code);
    single
}

#[test]
fn merged_shards_are_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sample_inputs(dir.path());
    let single = single_run(&inputs, dir.path(), 3);
    let clusters = std::fs::read_to_string(single.join("clusters.jsonl")).unwrap();
    assert!(clusters.lines().count() >= 3, "the inputs have clusters");
    for n in [1, 2, 3, 8] {
        check_shards(&inputs, dir.path(), n, &single, 3);
    }
}

#[test]
#[ignore = "needs ../shared"]
fn merged_shards_are_the_single_run_on_the_seed7_trec_corpus() {
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let args = [
        "--docs",
        "2000",
        "--seed",
        "7",
        "--format",
        "trec-gz",
        "--dup-rate",
        "0.5",
        "--files",
        "5",
    ];
    makecorpus(&shared, &corpus, &args);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
        .collect();
    inputs.sort();
    assert_eq!(inputs.len(), 5);
    let single = single_run(&inputs, dir.path(), 0);
    for n in [1, 2, 3, 8] {
        check_shards(&inputs, dir.path(), n, &single, 0);
    }
}

#[test]
fn incomplete_or_mixed_shards_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = sample_inputs(dir.path());
    let names: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
    let shard = |spec: &str, out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec!["dedup", "-q", "--shard", spec];
        args.extend(&names);
        args.extend(extra);
        args.extend(["--out", out.to_str().unwrap()]);
        crawlsift(&args);
        out.to_str().unwrap().to_string()
    };
    let a0 = shard("0/2", "a0", &[]);
    let a1 = shard("1/2", "a1", &[]);
    let b1 = shard("1/2", "b1", &["--min-words", "50"]);
    let merged = dir.path().join("m");
    let m = merged.to_str().unwrap();

    let err = |o: std::process::Output| String::from_utf8_lossy(&o.stderr).to_string();
    let o = crawlsift_ok(&["merge", &a0, "--out", m], 1);
    assert!(err(o).contains("shards missing: 1/2"));
    let o = crawlsift_ok(&["merge", &a0, &b1, "--out", m], 1);
    assert!(err(o).contains("different runs"));
    let o = crawlsift_ok(&["merge", &a0, &a0, &a1, "--out", m], 1);
    assert!(err(o).contains("are both shard 0/2"));
    let o = crawlsift_ok(&["merge", &a0, names[0], "--out", m], 1);
    assert!(err(o).contains("is not a finished shard"));
    crawlsift_ok(&["merge", &a0, &a1, "--out", &a0], 2);
    crawlsift_ok(&["merge", &a0, &a1, "--out", m, "--text", "t.jsonl.gz"], 2);
    assert!(!merged.join("clusters.jsonl").exists());
    crawlsift_ok(&["merge", &a0, &a1, "--out", m], 3);
    assert!(merged.join("clusters.jsonl").exists());

    for bad in ["2/2", "1/0", "x"] {
        let mut args = vec!["dedup", "--shard", bad, names[0], "--out", m];
        args.push("--force");
        crawlsift_ok(&args, 2);
    }
    let o = crawlsift_ok(&["dedup", "--shard", "0/2", "-", "--out", m, "--force"], 2);
    assert!(err(o).contains("standard input"));
}
