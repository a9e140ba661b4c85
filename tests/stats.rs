//! `crawlsift stats`: the reference counts of a real collection, the table layout, and the
//! figures after dedup.

mod util;

use std::path::Path;

use serde_json::Value;
use util::{crawlsift_ok, needs_shared};

/// A TREC text file of `docs` (DOCNO, text) pairs.
fn trec(path: &Path, docs: &[(&str, &str)]) {
    let mut s = String::new();
    for (no, text) in docs {
        s.push_str(&format!("<DOC>\n<DOCNO>{no}</DOCNO>\n{text}\n</DOC>\n"));
    }
    std::fs::write(path, s).unwrap();
}

fn stats_json(args: &[&str]) -> Value {
    let out = crawlsift_ok(args, 0);
    serde_json::from_slice(&out.stdout).expect("stats --json prints one JSON object")
}

#[test]
#[ignore = "needs ../shared"]
fn vaswani_npl_gives_the_reference_counts() {
    let shared = needs_shared();
    let input = shared.join("corpus/text/vaswani_npl.trectext");
    let v = stats_json(&["stats", input.to_str().unwrap(), "--json", "-q"]);
    // ../shared/corpus/text/INDEX.md
    assert_eq!(v["documents"], 11_429);
    assert_eq!(v["word_occurrences"], 479_163);
    assert_eq!(v["vocabulary"], 12_189);
    assert_eq!(v["hapax"], 4_649);
    assert_eq!(v["words_over_1000"], 38);
    assert_eq!(v["approximate"], false);
    let top: Vec<(String, u64, f64)> = v["zipf"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|z| {
            (
                z["word"].as_str().unwrap().to_string(),
                z["freq"].as_u64().unwrap(),
                (z["r_p_r"].as_f64().unwrap() * 1000.0).round() / 1000.0,
            )
        })
        .collect();
    let want = [
        ("the", 36_986, 0.077),
        ("of", 32_921, 0.137),
        ("a", 15_840, 0.099),
        ("and", 13_670, 0.114),
        ("in", 10_527, 0.110),
    ];
    for (got, want) in top.iter().zip(want) {
        assert_eq!((got.0.as_str(), got.1, got.2), want);
    }
    assert_eq!(v["zipf"].as_array().unwrap().len(), 50);
    let beta = v["heaps"]["beta"].as_f64().unwrap();
    assert!((0.3..0.8).contains(&beta), "Heaps beta {beta}");
    let s = v["zipf_exponent"].as_f64().unwrap();
    assert!((0.6..1.4).contains(&s), "Zipf exponent {s}");
    assert_eq!(v["unusual"]["scored"], 11_429);
}

#[test]
fn the_table_is_laid_out_like_ap89_and_json_has_the_issue_fields() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("small.trec");
    trec(
        &input,
        &[
            ("1", "The cat sat on the mat."),
            ("2", "The dog_sat; THE end 2024."),
        ],
    );
    let path = input.to_str().unwrap();
    let out = crawlsift_ok(&["stats", path, "-q", "--top", "3"], 0);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Total documents") && lines[0].ends_with(" 2"),
        "{text}"
    );
    assert!(lines[1].starts_with("Total word occurrences") && lines[1].ends_with(" 12"));
    assert!(lines[2].starts_with("Vocabulary size") && lines[2].ends_with(" 8"));
    assert!(lines[3].starts_with("Words occurring > 1000 times") && lines[3].ends_with(" 0"));
    assert!(lines[4].starts_with("Words occurring once") && lines[4].ends_with(" 6"));
    assert!(
        text.contains("the                             4      1     33.33   0.333"),
        "{text}"
    );
    let v = stats_json(&["stats", path, "-q", "--json", "--top", "3"]);
    for key in [
        "documents",
        "word_occurrences",
        "vocabulary",
        "words_over_1000",
        "hapax",
    ] {
        assert!(v[key].is_u64(), "{key}");
    }
    assert_eq!(v["zipf"][0]["word"], "the");
    assert_eq!(v["zipf"][0]["p_r"], 33.3333);
    assert_eq!(v["zipf"].as_array().unwrap().len(), 3);
    assert!(v["heaps"]["k"].is_f64() && v["heaps"]["beta"].is_f64());
    assert!(v.get("after_dedup").is_none());
    // The help says what a word is.
    let help = crawlsift_ok(&["stats", "--help"], 0);
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("no stemming, no stop list"), "{help}");
}

#[test]
fn after_dedup_counts_only_the_kept_documents_and_names_the_inflated_words() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("dups.trec");
    let promo = "Buy cheap promo tickets now with this promo code and save on promo fares today";
    trec(
        &input,
        &[
            (
                "1",
                "Physics of the upper atmosphere measured by radio waves at night.",
            ),
            ("2", promo),
            (
                "3",
                "Transistor amplifiers for low frequency circuits in the laboratory.",
            ),
            ("4", promo),
            ("5", promo),
        ],
    );
    let out = dir.path().join("out");
    let (path, out_s) = (input.to_str().unwrap(), out.to_str().unwrap());
    crawlsift_ok(&["dedup", path, "--out", out_s, "-q"], 0);
    let v = stats_json(&["stats", path, "-q", "--json", "--after-dedup", out_s]);
    assert_eq!(v["documents"], 5);
    let d = &v["after_dedup"];
    assert_eq!(d["documents"], 3, "{v}");
    assert_eq!(
        v["word_occurrences"].as_u64().unwrap() - d["word_occurrences"].as_u64().unwrap(),
        2 * 15
    );
    assert_eq!(v["inflated"][0]["word"], "promo");
    assert_eq!(v["inflated"][0]["raw_freq"], 9);
    assert_eq!(v["inflated"][0]["dedup_freq"], 3);
    // The duplicates are flagged in the listings of unusual documents.
    let least = v["unusual"]["least"].as_array().unwrap();
    assert!(least.iter().all(|s| s["duplicate"].is_boolean()));
    // The table shows both columns.
    let table = crawlsift_ok(&["stats", path, "-q", "--after-dedup", out_s], 0);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.lines().next().unwrap().contains("after dedup"),
        "{table}"
    );
    assert!(
        table.contains("Words the duplicates inflated most"),
        "{table}"
    );
    // A folder without a dedup run's outputs is an error that names the file.
    let err = util::crawlsift(&["stats", path, "--after-dedup", path]);
    assert_eq!(err.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&err.stderr).contains("documents.jsonl.gz"));
    // The run of other inputs: none of its duplicates is met, raw equals after, and stats says
    // why rather than showing two equal columns in silence.
    let other = dir.path().join("other.trec");
    trec(
        &other,
        &[
            (
                "9",
                "Glaciers of the northern valleys retreat faster each summer.",
            ),
            (
                "10",
                "Soil samples from the river delta hold more clay than sand.",
            ),
        ],
    );
    let o = crawlsift_ok(
        &["stats", other.to_str().unwrap(), "--after-dedup", out_s],
        0,
    );
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains(
            "2 duplicates listed in documents.jsonl.gz were not among the documents read"
        ) && said.contains("was the dedup run over the same inputs?"),
        "{said}"
    );
}
