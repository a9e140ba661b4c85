//! End-to-end tests of `crawlsift index` (fingerprint half): the index's clusters are dedup's,
//! `--append` gives the clusters of indexing everything at once, the files are the same bytes
//! for any thread count, and a damaged index is an error naming the file, never a panic.

mod util;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use util::*;

/// Clusters as sets of (file, offset, match, similarity) members, whatever the line layout.
fn clusters(path: &Path) -> BTreeSet<Vec<(String, u64, String, String)>> {
    json_lines(path)
        .iter()
        .map(|c| {
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["file"].as_str().unwrap().to_string(),
                        m["offset"].as_u64().unwrap(),
                        m["match"].as_str().unwrap().to_string(),
                        format!("{:.4}", m["similarity"].as_f64().unwrap()),
                    )
                })
                .collect()
        })
        .collect()
}

fn canonical_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| std::fs::canonicalize(e.unwrap().path()).unwrap())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    v.sort();
    v
}

fn index(inputs: &[&Path], idx: &Path, extra: &[&str], code: i32) -> std::process::Output {
    let mut args = vec!["index", "--quiet", "--out", idx.to_str().unwrap()];
    args.extend(extra);
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    crawlsift_ok(&args, code)
}

#[test]
fn the_sample_crawls_index_holds_dedups_clusters_and_is_not_replaced_unasked() {
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("data/sample.warc.gz");
    let (idx, out) = (dir.path().join("idx"), dir.path().join("out"));
    index(&[&sample], &idx, &[], 0);
    crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    let ours = clusters(&idx.join("fp/clusters.jsonl"));
    assert!(!ours.is_empty());
    // dedup names inputs as given, the index by absolute path.
    let theirs: BTreeSet<_> = clusters(&out.join("clusters.jsonl"))
        .into_iter()
        .map(|c| {
            c.into_iter()
                .map(|(f, o, m, s)| (root().join(f).display().to_string(), o, m, s))
                .collect()
        })
        .collect();
    assert_eq!(ours, theirs);
    let o = index(&[&sample], &idx, &[], 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--append"));
    index(&[&sample], &idx, &["--force"], 0);
    // Appending what is already there adds nothing and says so.
    let o = crawlsift_ok(
        &[
            "index",
            "--append",
            "--out",
            idx.to_str().unwrap(),
            "data/sample.warc.gz",
        ],
        0,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("already indexed"));
    assert_eq!(clusters(&idx.join("fp/clusters.jsonl")), ours);
    let missing = dir.path().join("none");
    index(&[&sample], &missing, &["--append"], 1);
    crawlsift_ok(
        &["index", "--out", idx.to_str().unwrap(), "--force", "-"],
        2,
    );
}

#[test]
#[ignore = "needs ../shared"]
fn append_gives_the_clusters_of_one_build_and_threads_change_no_byte() {
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    makecorpus(
        &shared,
        &corpus,
        &[
            "--docs",
            "1500",
            "--seed",
            "17",
            "--files",
            "3",
            "--dup-rate",
            "0.4",
            "--siblings",
            "0.1",
        ],
    );
    let files = canonical_files(&corpus);
    let all: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    index(&all, &one, &["--threads", "1"], 0);
    index(&all, &two, &["--threads", "2"], 0);
    for f in [
        "manifest.json",
        "seg-000000.fp",
        "seg-000000.prof",
        "state.bin",
        "clusters.jsonl",
    ] {
        assert!(
            contents(&one.join("fp").join(f)) == contents(&two.join("fp").join(f)),
            "{f} differs between 1 and 2 threads"
        );
    }
    // Dedup over the same inputs finds the same clusters.
    let out = dir.path().join("out");
    let mut args = vec!["dedup", "-q", "--out", out.to_str().unwrap()];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    crawlsift_ok(&args, 0);
    let whole = clusters(&one.join("fp/clusters.jsonl"));
    assert!(whole.len() > 50, "{} clusters", whole.len());
    assert_eq!(whole, clusters(&out.join("clusters.jsonl")));
    // The first two files, then the third appended (with the first again: skipped).
    let app = dir.path().join("appended");
    index(&all[..2], &app, &[], 0);
    index(&[all[2], all[0]], &app, &["--append"], 0);
    assert_eq!(clusters(&app.join("fp/clusters.jsonl")), whole);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(app.join("fp/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["segments"].as_array().unwrap().len(), 2);
}

#[test]
fn a_damaged_index_is_an_error_naming_the_file_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    index(&[&root().join("data/sample.warc.gz")], &idx, &[], 0);
    let idx_s = idx.to_str().unwrap();
    let probe = json_lines(&idx.join("fp/clusters.jsonl"))[0]["members"][0]["url"]
        .as_str()
        .unwrap()
        .to_string();
    crawlsift_ok(&["query", idx_s, "--url", &probe], 0);
    for name in [
        "seg-000000.fp",
        "seg-000000.prof",
        "state.bin",
        "manifest.json",
    ] {
        let path = idx.join("fp").join(name);
        let good = std::fs::read(&path).unwrap();
        for cut in [0, 7, 47, good.len() / 3, good.len() - 2] {
            std::fs::write(&path, &good[..cut]).unwrap();
            let o = crawlsift(&["query", idx_s, "--url", &probe]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name} cut at {cut}: {err}");
            assert!(err.contains(name), "{name} cut at {cut}: {err}");
        }
        std::fs::write(&path, &good).unwrap();
    }
    // Garbage where the band tables are: every query still ends, with results or an error.
    let path = idx.join("fp/seg-000000.fp");
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let start = bad.len() / 2;
    for (i, b) in bad[start..].iter_mut().enumerate() {
        *b = (i * 37 % 251) as u8;
    }
    std::fs::write(&path, &bad).unwrap();
    let o = crawlsift(&["query", idx_s, "--url", &probe]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
}
