//! `--memory` bounds what clustering keeps in memory: past its share of the budget, word profiles,
//! then the oldest records of the catalog (`documents.jsonl.gz`'s rows), then the oldest MinHash
//! signatures go to temporary files in the output folder and are read back when needed. A run
//! that spills
//! writes the same bytes as one that does not: `clusters.jsonl`, `documents.jsonl.gz`, the clean
//! corpus and `report.json` (but for how and when the run went), on one thread or two, and when
//! shards are merged under the same small budget.

mod util;

use std::path::{Path, PathBuf};

use util::*;

/// Runs `crawlsift` with `args` plus `--out OUT --text OUT.jsonl.gz`; returns its stderr.
fn run(args: &[&str], out: &Path) -> String {
    let text = out.with_extension("jsonl.gz");
    let mut all = args.to_vec();
    all.extend([
        "--out",
        out.to_str().unwrap(),
        "--text",
        text.to_str().unwrap(),
    ]);
    let o = crawlsift_ok(&all, 0);
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The outputs of `b` are those of `a`, byte for byte.
fn same_outputs(a: &Path, b: &Path, what: &str) {
    for f in ["clusters.jsonl", "documents.jsonl.gz"] {
        assert!(
            contents(&a.join(f)) == contents(&b.join(f)),
            "{f} differs: {what}"
        );
    }
    assert!(
        std::fs::read(a.with_extension("jsonl.gz")).unwrap()
            == std::fs::read(b.with_extension("jsonl.gz")).unwrap(),
        "the clean corpus differs: {what}"
    );
    assert_eq!(
        report_findings(a),
        report_findings(b),
        "report.json: {what}"
    );
}

/// The names in a folder, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
#[ignore = "needs ../shared"]
fn spilling_profiles_records_and_signatures_changes_no_output_byte() {
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    // 30,000 pages hold some 90 MB of word profiles and their catalog some 8 MB, each more than
    // half of the smallest budget; what stays of their fingerprints (some 250 bytes a document
    // with the signatures) passes that half too, if barely: every profile, the catalog and a
    // chunk or more of the signatures spill.
    let args = [
        "--docs", "30000", "--seed", "3", "--format", "warc-gz", "--files", "3",
    ];
    makecorpus(&shared, &corpus, &args);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
        .collect();
    inputs.sort();
    let inputs: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
    let with = |extra: &[&'static str]| -> Vec<&str> {
        let mut a = vec!["dedup"];
        a.extend(extra);
        a.extend(&inputs);
        a
    };

    let whole = dir.path().join("whole");
    let said = run(&with(&["-j", "2"]), &whole);
    assert!(
        !said.contains("spilled"),
        "the default budget holds 30,000 pages: {said}"
    );
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("spilled-j{threads}"));
        let mut a = with(&["-j", "--memory", "16M"]);
        a.insert(2, threads);
        let said = run(&a, &out);
        assert!(
            said.contains("word profiles of")
                && said.contains("records of the catalog were spilled")
                && said.contains("signatures of"),
            "a 16M budget spills profiles, records and signatures: {said}"
        );
        same_outputs(&whole, &out, &format!("spilled, {threads} threads"));
        assert_eq!(
            listing(&out),
            listing(&whole),
            "no spill file is left behind"
        );
    }

    // Two shards merged under the same budget: the merge spills too.
    let mut shards = Vec::new();
    for i in 0..2 {
        let out = dir.path().join(format!("shard{i}"));
        let spec = format!("{i}/2");
        let mut a = with(&["-q", "--shard"]);
        a.insert(3, &spec);
        let unused = dir.path().join("unused.jsonl.gz");
        a.extend([
            "--out",
            out.to_str().unwrap(),
            "--text",
            unused.to_str().unwrap(),
        ]);
        crawlsift_ok(&a, 0);
        shards.push(out.to_str().unwrap().to_string());
    }
    let merged = dir.path().join("merged");
    let mut a = vec!["merge", "-j", "2", "--memory", "16M"];
    a.extend(shards.iter().map(String::as_str));
    let said = run(&a, &merged);
    assert!(
        said.contains("word profiles of")
            && said.contains("records of the catalog were spilled")
            && said.contains("signatures of"),
        "the merge spills: {said}"
    );
    same_outputs(&whole, &merged, "two shards merged with spilling");
}
