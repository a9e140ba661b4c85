//! End-to-end tests of `crawlsift dedup --against IDX`: the new documents that duplicate indexed
//! ones are reported with their match (without the old archives), counted in `report.json`, and
//! still clustered among themselves; an index made with other settings is refused before
//! anything is read.

mod util;

use std::path::Path;

use util::inputs::warc_page;
use util::*;

/// `paragraphs` paragraphs of 60 words from a vocabulary of its own (`seed`), as an HTML page.
fn page(seed: u64, paragraphs: usize, rewrite: Option<u64>) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut body = String::new();
    for p in 0..paragraphs {
        if p + 1 == paragraphs {
            if let Some(r) = rewrite {
                x = r.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            }
        }
        body.push_str("<p>");
        for _ in 0..60 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            body.push_str(&format!("w{} ", x % 5000));
        }
        body.push_str(".</p>\n");
    }
    format!("<html><head><title>P</title></head><body><article>{body}</article></body></html>")
        .into_bytes()
}

fn warc(path: &Path, pages: &[(&str, Vec<u8>)]) {
    let mut w = Vec::new();
    for (uri, html) in pages {
        w.extend(warc_page(uri, html));
    }
    std::fs::write(path, w).unwrap();
}

#[test]
fn new_documents_found_in_the_index_are_reported_and_still_clustered_among_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.warc"), dir.path().join("new.warc"));
    warc(&old, &[("a", page(1, 6, None)), ("b", page(2, 6, None))]);
    warc(
        &new,
        &[
            ("a-near", page(1, 6, Some(9))),
            ("a-copy", page(1, 6, None)),
            ("c", page(3, 6, None)),
        ],
    );
    let (idx, out) = (dir.path().join("idx"), dir.path().join("out"));
    let (idx_s, out_s) = (idx.to_str().unwrap(), out.to_str().unwrap());
    crawlsift_ok(
        &[
            "index",
            "-q",
            "--min-words",
            "50",
            "--out",
            idx_s,
            old.to_str().unwrap(),
        ],
        0,
    );
    std::fs::remove_file(&old).unwrap(); // the old archive is not needed any more
    let args = [
        "dedup",
        "-q",
        "--min-words",
        "50",
        new.to_str().unwrap(),
        "--against",
        idx_s,
        "--out",
        out_s,
    ];
    crawlsift_ok(&args, 0);
    let lines = json_lines(&out.join("against.jsonl"));
    let got: Vec<(String, String, String)> = lines
        .iter()
        .map(|l| {
            (
                l["url"].as_str().unwrap().to_string(),
                l["indexed"]["url"].as_str().unwrap().to_string(),
                l["match"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let e = |a: &str, b: &str, m: &str| {
        (
            format!("http://example.com/{a}"),
            format!("http://example.com/{b}"),
            m.to_string(),
        )
    };
    assert_eq!(got, [e("a-near", "a", "near"), e("a-copy", "a", "exact")]);
    assert!(lines[0]["similarity"].as_f64().unwrap() < 1.0);
    assert!(lines[0]["indexed"]["file"]
        .as_str()
        .unwrap()
        .ends_with("old.warc"));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let a = &report["against"];
    assert_eq!(
        (
            a["indexed_documents"].as_u64(),
            a["documents_checked"].as_u64(),
            a["duplicates"].as_u64(),
            a["exact"].as_u64(),
            a["near"].as_u64()
        ),
        (Some(2), Some(3), Some(2), Some(1), Some(1))
    );
    // Among themselves the new documents cluster as without --against.
    let clusters = json_lines(&out.join("clusters.jsonl"));
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0]["size"].as_u64(), Some(2));
}

#[test]
fn an_index_made_with_other_settings_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    let idx_s = idx.to_str().unwrap();
    crawlsift_ok(&["index", "-q", "--out", idx_s, "data/sample.warc.gz"], 0);
    let manifest = idx.join("fp/manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"lsh_bands\": 96", "\"lsh_bands\": 48"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--against",
            idx_s,
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("other settings") && err.contains("lsh_bands"),
        "{err}"
    );
    assert!(!out.join("report.json").exists());
    let missing = dir.path().join("missing");
    crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--against",
            missing.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
}
