//! End-to-end tests of `crawlsift query`: a page's copies are found (exact and near), unrelated
//! pages are not, the page itself is left out of a `--url` search, every way of giving the
//! document agrees, and on a generated corpus `--url` finds 99% of each page's cluster-mates.

mod util;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use util::inputs::warc_page;
use util::*;

/// Text of `paragraphs` paragraphs of 60 words from a vocabulary of its own (`seed`).
fn text(seed: u64, paragraphs: usize) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..paragraphs)
        .map(|_| {
            (0..60)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    format!("w{}", x % 5000)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn html(paragraphs: &[String]) -> String {
    let body: String = paragraphs
        .iter()
        .map(|p| format!("<p>{p}.</p>\n"))
        .collect();
    format!("<html><head><title>Page</title></head><body><article>{body}</article></body></html>")
}

/// A, a near copy of A, an exact copy of A and an unrelated page B, in one WARC.
fn corpus(dir: &Path) -> (std::path::PathBuf, String) {
    let a = text(1, 6);
    let mut near = a.clone();
    near[5] = text(9, 1).remove(0); // one paragraph of six rewritten
    let b = text(2, 6);
    let mut warc = Vec::new();
    for (uri, page) in [("a", &a), ("near", &near), ("copy", &a), ("b", &b)] {
        warc.extend(warc_page(uri, html(page).as_bytes()));
    }
    let path = dir.join("pages.warc");
    std::fs::write(&path, warc).unwrap();
    (path, html(&a))
}

fn results(out: &std::process::Output) -> Vec<(String, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            for k in ["id", "url", "file", "offset", "similarity", "match"] {
                assert!(v.get(k).is_some(), "{k} missing in {l}");
            }
            let url = v["url"].as_str().unwrap();
            (
                url.rsplit('/').next().unwrap().to_string(),
                v["match"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn copies_are_found_unrelated_pages_are_not_and_every_way_of_asking_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let (warc, page) = corpus(dir.path());
    let idx = dir.path().join("idx");
    let idx_s = idx.to_str().unwrap();
    crawlsift_ok(
        &[
            "index",
            "-q",
            "--min-words",
            "50",
            "--out",
            idx_s,
            warc.to_str().unwrap(),
        ],
        0,
    );
    let pair = |u: &str, m: &str| (u.to_string(), m.to_string());
    let by_url = crawlsift_ok(&["query", idx_s, "--url", "http://example.com/a"], 0);
    assert_eq!(
        results(&by_url),
        [pair("copy", "exact"), pair("near", "near")]
    );

    let page_file = dir.path().join("a.html");
    std::fs::write(&page_file, &page).unwrap();
    let expected = [
        pair("a", "exact"),
        pair("copy", "exact"),
        pair("near", "near"),
    ];
    let by_html = crawlsift_ok(&["query", idx_s, "--html", page_file.to_str().unwrap()], 0);
    assert_eq!(results(&by_html), expected);
    let mut child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(["query", idx_s, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let by_stdin = child.wait_with_output().unwrap();
    assert_eq!(by_stdin.stdout, by_html.stdout);
    let text_file = dir.path().join("a.txt");
    std::fs::write(&text_file, text(1, 6).join(".\n") + ".").unwrap();
    let by_text = crawlsift_ok(&["query", idx_s, "--text", text_file.to_str().unwrap()], 0);
    assert_eq!(results(&by_text), expected);

    let exact_only = crawlsift_ok(
        &[
            "query",
            idx_s,
            "--url",
            "http://example.com/a",
            "--threshold",
            "1",
        ],
        0,
    );
    assert_eq!(results(&exact_only), [pair("copy", "exact")]);
    let one = crawlsift_ok(
        &[
            "query",
            idx_s,
            "--url",
            "http://example.com/a",
            "--limit",
            "1",
        ],
        0,
    );
    assert_eq!(results(&one).len(), 1);
    let b = crawlsift_ok(&["query", idx_s, "--url", "http://example.com/b"], 0);
    assert!(results(&b).is_empty());
    crawlsift_ok(&["query", idx_s, "--url", "http://example.com/none"], 1);
    crawlsift_ok(
        &[
            "query",
            idx_s,
            "--url",
            "http://example.com/a",
            "--threshold",
            "0",
        ],
        2,
    );
    crawlsift_ok(&["query", idx_s], 2);
}

#[test]
#[ignore = "needs ../shared"]
fn url_queries_find_99_percent_of_each_pages_cluster_mates() {
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
            "23",
            "--files",
            "2",
            "--dup-rate",
            "0.5",
            "--siblings",
            "0.1",
        ],
    );
    let idx = dir.path().join("idx");
    let idx_s = idx.to_str().unwrap();
    // The corpus folder holds its labels beside the archives: skipped inputs, status 3.
    crawlsift_ok(
        &["index", "-q", "--out", idx_s, corpus.to_str().unwrap()],
        3,
    );
    let mut mates: BTreeMap<String, BTreeSet<(String, u64)>> = BTreeMap::new();
    for c in json_lines(&idx.join("fp/clusters.jsonl")) {
        let members = c["members"].as_array().unwrap();
        let at = |m: &serde_json::Value| {
            (
                m["file"].as_str().unwrap().to_string(),
                m["offset"].as_u64().unwrap(),
            )
        };
        for m in members {
            let others = members.iter().filter(|o| at(o) != at(m)).map(at).collect();
            mates.insert(m["url"].as_str().unwrap().to_string(), others);
        }
    }
    assert!(mates.len() > 300, "{} clustered pages", mates.len());
    let (mut found, mut wanted) = (0usize, 0usize);
    for (url, want) in &mates {
        let o = crawlsift_ok(&["query", idx_s, "--url", url], 0);
        let got: BTreeSet<(String, u64)> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["file"].as_str().unwrap().to_string(),
                    v["offset"].as_u64().unwrap(),
                )
            })
            .collect();
        found += want.intersection(&got).count();
        wanted += want.len();
    }
    let recall = found as f64 / wanted as f64;
    println!("recall {found}/{wanted} = {recall:.4}");
    assert!(recall >= 0.99, "recall {found}/{wanted} = {recall:.4}");
}
