//! Every outcome said (issue #34): the cases where a command used to end in silence, a wrong
//! count, an empty output or an unhelpful message, each pinned with what it must say now and the
//! exit status the README's table gives. Inputs are made from `data/sample.warc.gz` in a
//! temporary folder, so nothing here needs `../shared`.

mod util;

use std::path::Path;
use std::process::Output;

use util::{crawlsift, root};

const SAMPLE: &str = "data/sample.warc.gz";

/// Runs crawlsift with `args`, asserts its exit status is `code`, and returns its stderr.
fn said(args: &[&str], code: i32) -> (Output, String) {
    let o = crawlsift(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        o.status.code(),
        Some(code),
        "crawlsift {args:?}\nstdout: {}\nstderr: {err}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(!err.contains("panicked"), "{err}");
    (o, err)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sample() -> String {
    s(&root().join(SAMPLE)).to_string()
}

/// A folder holding only files that are no archive: a README and a checksum list.
fn no_archives(dir: &Path) -> std::path::PathBuf {
    let d = dir.join("notes");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("README.md"), "# A crawl\nnothing here yet\n").unwrap();
    std::fs::write(d.join("SHA256SUMS"), "00ff  a.warc.gz\n").unwrap();
    d
}

/// Case 1: two crawl folders, each with an archive and a non-archive `peers.jsonl` of the same
/// name: the non-archives are skipped and named once each, the archives indexed.
#[test]
fn index_skips_same_named_non_archives() {
    let t = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(root().join(SAMPLE)).unwrap();
    for (crawl, name) in [("a", "a.warc.gz"), ("b", "b.warc.gz")] {
        let d = t.path().join(crawl);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(name), &bytes).unwrap();
        std::fs::write(
            d.join("peers.jsonl"),
            format!("{{\"crawl\":\"{crawl}\"}}\n"),
        )
        .unwrap();
    }
    let idx = t.path().join("idx");
    let (_, err) = said(
        &[
            "index",
            s(&t.path().join("a")),
            s(&t.path().join("b")),
            "--out",
            s(&idx),
        ],
        3,
    );
    for crawl in ["a", "b"] {
        let p = format!("{crawl}/peers.jsonl");
        assert_eq!(err.matches(&p).count(), 1, "{p} named once: {err}");
    }
    assert!(!err.contains("same name"), "{err}");
    let cdxj = std::fs::read_to_string(idx.join("index.cdxj")).unwrap();
    assert!(
        cdxj.contains("a.warc.gz") && cdxj.contains("b.warc.gz"),
        "{cdxj}"
    );
}

/// Case 2: a folder with no archive stops every command reading archives with status 1,
/// "no archive found in <path>", and leaves no output behind.
#[test]
fn no_archive_is_fatal_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let notes = no_archives(t.path());
    let out = t.path().join("out");
    let o = s(&out);
    let n = s(&notes);
    for args in [
        vec!["dedup", n, "--out", o],
        vec!["records", n],
        vec!["extract", n],
        vec!["stats", n],
        vec!["index", n, "--out", o],
        vec!["reuse", n, "--out", o],
    ] {
        let (output, err) = said(&args, 1);
        assert!(
            err.contains(&format!("no archive found in {n}")),
            "{args:?}: {err}"
        );
        assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(!out.exists(), "{args:?} left {} behind", out.display());
    }
    // One archive among the non-archives: read, the others skipped, status 3 as before.
    let (o, _) = said(&["records", "--summary", &sample(), n], 3);
    let total = String::from_utf8_lossy(&o.stdout);
    assert!(
        total.contains("skipped_inputs=2 [not_archive=2]"),
        "{total}"
    );
}

/// Case 3: a page too short to judge says so (status 1), and a page with no near-duplicate
/// says that on stderr (status 0).
#[test]
fn query_says_why_nothing_was_found() {
    let t = tempfile::tempdir().unwrap();
    let idx = t.path().join("idx");
    said(&["index", &sample(), "--out", s(&idx), "--quiet"], 0);
    let short = t.path().join("short.html");
    std::fs::write(&short, "<html><body><p>Too short.</p></body></html>").unwrap();
    let (o, err) = said(&["query", s(&idx), "--html", s(&short)], 1);
    assert!(o.stdout.is_empty());
    assert!(err.contains("has 2 words, fewer than the 100"), "{err}");
    let long = t.path().join("long.txt");
    let text: String = (0..150).map(|i| format!("unrelated{i} ")).collect();
    std::fs::write(&long, text).unwrap();
    let (o, err) = said(&["query", s(&idx), "--text", s(&long)], 0);
    assert!(o.stdout.is_empty());
    assert!(
        err.contains("no indexed document is a near-duplicate"),
        "{err}"
    );
}

/// Case 4: `query` on a `--cdxj-only` index says what the index is and what reads it.
#[test]
fn query_on_a_cdxj_only_index() {
    let t = tempfile::tempdir().unwrap();
    let idx = t.path().join("idx");
    said(
        &[
            "index",
            &sample(),
            "--out",
            s(&idx),
            "--cdxj-only",
            "--quiet",
        ],
        0,
    );
    let (_, err) = said(
        &["query", s(&idx), "--url", "https://courier.example/harbour"],
        1,
    );
    assert!(
        err.contains("built with --cdxj-only") && err.contains("crawlsift get"),
        "{err}"
    );
    assert!(!err.contains("No such file"), "{err}");
}

/// Case 5: `--append` with nothing new keeps the index's cluster count, and names the skipped
/// file once.
#[test]
fn append_with_nothing_new() {
    let t = tempfile::tempdir().unwrap();
    let idx = t.path().join("idx");
    let (_, first) = said(&["index", &sample(), "--out", s(&idx)], 0);
    let clusters = std::fs::read_to_string(idx.join("fp/clusters.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(clusters > 0);
    assert!(first.contains(&format!("{clusters} clusters")), "{first}");
    let (_, err) = said(&["index", &sample(), "--out", s(&idx), "--append"], 0);
    assert!(
        err.contains(&format!(
            "0 documents added, 8 in 1 segments, {clusters} clusters"
        )),
        "{err}"
    );
    assert_eq!(err.matches("sample.warc.gz").count(), 1, "{err}");
}

/// Case 7: `extract` on an HTML page points to `--html`.
#[test]
fn extract_of_a_page_hints_html() {
    let t = tempfile::tempdir().unwrap();
    let page = t.path().join("page.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><p>A page.</p></body></html>",
    )
    .unwrap();
    let (o, err) = said(&["extract", s(&page)], 1);
    assert!(o.stdout.is_empty());
    assert!(
        err.contains("no archive found") && err.contains("extract --html"),
        "{err}"
    );
}

/// Case 11: no command's help sends the user to the project's internal scripts.
#[test]
fn help_is_for_users() {
    for cmd in [
        "records", "extract", "dedup", "merge", "stats", "index", "get", "query", "reuse",
    ] {
        let (o, _) = said(&[cmd, "--help"], 0);
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(!help.contains("scripts/"), "{cmd} --help: {help}");
        assert!(!help.contains(".py"), "{cmd} --help: {help}");
    }
}
