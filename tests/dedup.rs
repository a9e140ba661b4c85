//! End-to-end tests of `crawlsift dedup`: known duplicates in the sample crawl are found, unrelated
//! pages are not joined, outputs are identical for any thread count, and a previous run's outputs
//! are not overwritten without `--force`.

mod util;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use util::*;

fn url_clusters(out: &Path) -> Vec<BTreeSet<String>> {
    json_lines(&out.join("clusters.jsonl"))
        .iter()
        .map(|c| {
            assert_eq!(
                c["size"].as_u64().unwrap() as usize,
                c["members"].as_array().unwrap().len()
            );
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["url"].as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn sample_crawl_duplicates_are_found_and_nothing_else_is_joined() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let text = dir.path().join("clean.jsonl.gz");
    let o = crawlsift_ok(
        &[
            "dedup",
            "data/sample.warc.gz",
            "--out",
            out.to_str().unwrap(),
            "--text",
            text.to_str().unwrap(),
        ],
        0,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("clusters.jsonl"),
        "the summary says where the clusters are: {stderr}"
    );

    let clusters = url_clusters(&out);
    let harbour: BTreeSet<String> = [
        "https://courier.example/harbour",
        "https://mirror.example/courier/harbour",
        "https://citynews.example/2026/bridge",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let orchard: BTreeSet<String> = [
        "https://courier.example/orchard",
        "https://growers-blog.example/posts/apples",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert!(
        clusters.contains(&harbour),
        "exact mirror and edited copy join the original: {clusters:?}"
    );
    assert!(
        clusters.contains(&orchard),
        "a re-templated, re-encoded copy joins its original: {clusters:?}"
    );
    assert_eq!(
        clusters.len(),
        2,
        "unrelated articles in one template are not joined: {clusters:?}"
    );

    let docs = json_lines(&out.join("documents.jsonl.gz"));
    let by_url: HashMap<&str, &serde_json::Value> = docs
        .iter()
        .map(|d| (d["url"].as_str().unwrap(), d))
        .collect();
    assert_eq!(
        by_url["https://courier.example/login"]["too_short"], true,
        "a login page is too short to judge"
    );
    assert!(by_url["https://courier.example/login"]["cluster"].is_null());
    assert_eq!(
        by_url["https://courier.example/missing"]["skipped"],
        "http_status"
    );
    assert_eq!(
        by_url["https://courier.example/logo.png"]["skipped"],
        "image"
    );
    assert_eq!(
        by_url["https://mirror.example/courier/harbour"]["duplicate_of"],
        by_url["https://courier.example/harbour"]["id"]
    );
    for d in &docs {
        assert!(
            d["id"].as_str().unwrap().starts_with("<urn:uuid:"),
            "ids are WARC-Record-IDs as written"
        );
        assert!(d["offset"].as_u64().is_some());
    }

    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["records"], 23);
    assert_eq!(report["documents"], 8);
    assert_eq!(report["clusters"], 2);
    // The mirror and the blog's repost (its "3 comments - add yours" line is furniture) are
    // exact copies of their originals' text; the city paper's rewrite is a near one.
    assert_eq!(report["duplicates"]["exact"], 2);
    assert_eq!(report["duplicates"]["near"], 1);

    // The clean corpus: 8 documents less the 3 duplicates.
    let clean = json_lines(&text);
    assert_eq!(clean.len(), 5);
    assert!(clean
        .iter()
        .all(|d| !d["text"].as_str().unwrap().is_empty()));
    assert!(!clean
        .iter()
        .any(|d| d["url"] == "https://mirror.example/courier/harbour"));
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    // clusters.jsonl, documents.jsonl.gz, report.json and report.html.
    assert_eq!(leftovers.len(), 4, "{leftovers:?}");
}

#[test]
fn outputs_are_identical_with_one_and_four_threads() {
    let dir = tempfile::tempdir().unwrap();
    assert_same_outputs_with_one_and_four_threads(dir.path(), &["data/sample.warc.gz"], 0);
}

#[test]
#[ignore = "needs ../shared"]
fn outputs_of_a_generated_corpus_are_identical_with_one_and_four_threads() {
    // A larger generated corpus: more batches, more reordering.
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    makecorpus(
        &shared,
        &corpus,
        &[
            "--docs", "400", "--seed", "9", "--format", "warc-gz", "--files", "2",
        ],
    );
    // The corpus folder holds its labels (truth.jsonl, manifest.json) beside the archives: they
    // are skipped inputs, not archives, so the runs finish with status 3.
    assert_same_outputs_with_one_and_four_threads(
        dir.path(),
        &["data/sample.warc.gz", corpus.to_str().unwrap()],
        3,
    );
}

/// Runs dedup over `inputs` with 1 and with 4 threads (outputs under `dir`), each ending with
/// status `code`, and compares.
fn assert_same_outputs_with_one_and_four_threads(dir: &Path, inputs: &[&str], code: i32) {
    let mut outs = Vec::new();
    for threads in ["1", "4"] {
        let out = dir.join(format!("out{threads}"));
        let mut args = vec![
            "dedup",
            "--quiet",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(inputs);
        crawlsift_ok(&args, code);
        outs.push(out);
    }
    for f in ["clusters.jsonl", "documents.jsonl.gz"] {
        assert!(
            contents(&outs[0].join(f)) == contents(&outs[1].join(f)),
            "{f} differs between 1 and 4 threads"
        );
    }
}

#[test]
fn an_earlier_runs_outputs_are_kept_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    crawlsift_ok(&["dedup", "-q", "data/sample.warc.gz", "--out", out_s], 0);
    let before = std::fs::read(out.join("clusters.jsonl")).unwrap();
    let o = crawlsift_ok(&["dedup", "-q", "data/sample.warc.gz", "--out", out_s], 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(out.join("clusters.jsonl")).unwrap(), before);
    crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--out",
            out_s,
            "--force",
        ],
        0,
    );
}

#[test]
#[ignore = "needs ../shared"]
fn generated_corpus_copies_are_found_and_negatives_stay_apart() {
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    for (format, seed) in [("warc-gz", "21"), ("trec-gz", "22")] {
        let c = corpus.join(format);
        makecorpus(
            &shared,
            &c,
            &[
                "--docs",
                "2000",
                "--seed",
                seed,
                "--format",
                format,
                "--dup-rate",
                "0.5",
            ],
        );
        let out = dir.path().join(format!("out-{format}"));
        // The labels beside the archives are skipped inputs (not archives): status 3, and the
        // report counts them apart from record errors.
        crawlsift_ok(
            &[
                "dedup",
                "-q",
                c.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            3,
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        assert_eq!(report["skipped_inputs"]["not_archive"], 2, "{report}");
        assert_eq!(report["record_errors"], serde_json::json!({}), "{report}");
        let truth = json_lines(&c.join("truth.jsonl"));
        let mut cluster_of: HashMap<String, u64> = HashMap::new();
        for cl in json_lines(&out.join("clusters.jsonl")) {
            for m in cl["members"].as_array().unwrap() {
                cluster_of.insert(
                    m["id"].as_str().unwrap().to_string(),
                    cl["cluster"].as_u64().unwrap(),
                );
            }
        }
        let kind_of: HashMap<&str, &str> = truth
            .iter()
            .map(|t| (t["id"].as_str().unwrap(), t["kind"].as_str().unwrap()))
            .collect();
        let mut found: HashMap<&str, (usize, usize)> = HashMap::new();
        for t in &truth {
            let kind = t["kind"].as_str().unwrap();
            let id = t["id"].as_str().unwrap();
            let e = found.entry(kind).or_default();
            e.1 += 1;
            match kind {
                "exact" | "edited" | "retemplated" | "reencoded" | "boilerplate-changed" => {
                    let src = t["source"].as_str().unwrap();
                    if cluster_of.contains_key(id) && cluster_of.get(id) == cluster_of.get(src) {
                        e.0 += 1;
                    }
                }
                // A negative is wrongly clustered when it shares a cluster with anything.
                _ if t["cluster"].is_null() && cluster_of.contains_key(id) => e.0 += 1,
                _ => {}
            }
        }
        for (kind, (hit, total)) in &found {
            match *kind {
                "exact" | "edited" | "retemplated" | "reencoded" | "boilerplate-changed" => {
                    assert!(
                        *hit as f64 >= 0.95 * *total as f64,
                        "{format}: {kind} copies found {hit}/{total}"
                    )
                }
                "near-miss" | "short-page" => assert!(
                    (*hit as f64) <= 0.01 * *total as f64,
                    "{format}: {kind} wrongly clustered {hit}/{total}"
                ),
                _ => {}
            }
        }
        assert!(
            cluster_of
                .keys()
                .all(|id| kind_of.contains_key(id.as_str())),
            "{format}: only page documents are clustered"
        );
    }
}
