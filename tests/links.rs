//! `crawlsift links` and `crawlsift rank` (issue #37) end to end: a small crawl's links resolved
//! against page URLs and `<base>`, redirects followed as links, the page and host graphs in
//! cc-webgraph's layout, incoming anchor texts counted apart by host, the same bytes for any
//! thread count; the ranks of its host graph as cc-webgraph's file gives them.

mod util;

use std::io::Read;
use std::path::Path;

use util::*;

fn response(url: &str, status: &str, headers: &str, body: &str) -> String {
    let http = format!("HTTP/1.1 {status}\r\n{headers}\r\n{body}");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        url.len(),
        http.len()
    )
}

fn gunzip(p: &Path) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

#[test]
fn a_crawls_links_become_page_and_host_graphs_with_anchor_texts_and_ranks() {
    let html = "Content-Type: text/html; charset=utf-8\r\n";
    let mut warc = response(
        "http://www.a.example/index.html",
        "200 OK",
        html,
        r#"<html><head><base href="/docs/"></head><body>
           <a href="guide.html#part2">The guide</a>
           <a href="http://b.example/" rel="nofollow">B site</a>
           <a href="mailto:x@a.example">mail</a></body></html>"#,
    );
    warc += &response(
        "http://b.example/",
        "200 OK",
        html,
        r#"<a href="http://www.a.example/docs/guide.html">A's guide</a><a href="/">home</a>"#,
    );
    warc += &response(
        "http://c.example/old",
        "301 Moved Permanently",
        "Location: http://b.example/\r\n",
        "",
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    std::fs::write(&input, &warc).unwrap();
    let i = input.to_str().unwrap();
    let out = |n: &str| dir.path().join(n);
    for t in ["1", "3"] {
        let o = out(&format!("g{t}"));
        crawlsift_ok(
            &["links", i, "--out", o.to_str().unwrap(), "-q", "-j", t],
            0,
        );
    }
    for f in [
        "pages/vertices.txt.gz",
        "pages/edges.txt.gz",
        "hosts/vertices.txt.gz",
        "hosts/edges.txt.gz",
        "anchors.jsonl.gz",
    ] {
        assert_eq!(
            contents(&out("g1").join(f)),
            contents(&out("g3").join(f)),
            "{f}"
        );
    }
    let g = out("g1");
    // SURT order: a.example (www. is no part of the key), b.example, c.example.
    assert_eq!(
        gunzip(&g.join("pages/vertices.txt.gz")),
        "0\thttp://www.a.example/docs/guide.html\n1\thttp://www.a.example/index.html\n\
         2\thttp://b.example/\n3\thttp://c.example/old\n"
    );
    assert_eq!(
        gunzip(&g.join("pages/edges.txt.gz")),
        "1\t0\n1\t2\n2\t0\n3\t2\n"
    );
    assert_eq!(
        gunzip(&g.join("hosts/vertices.txt.gz")),
        "0\texample.a\n1\texample.b\n2\texample.c\n"
    );
    assert_eq!(gunzip(&g.join("hosts/edges.txt.gz")), "0\t1\n1\t0\n2\t1\n");
    let anchors: Vec<serde_json::Value> = gunzip(&g.join("anchors.jsonl.gz"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(anchors[0]["url"], "http://www.a.example/docs/guide.html");
    assert_eq!(
        anchors[0]["anchors"],
        serde_json::json!([
            {"text": "A's guide", "other_hosts": 1, "same_host": 0},
            {"text": "The guide", "other_hosts": 0, "same_host": 1}
        ])
    );
    let report: serde_json::Value =
        serde_json::from_slice(&contents(&g.join("links-report.json"))).unwrap();
    assert_eq!(report["pages"], 3);
    assert_eq!(report["nofollow"], 1);
    assert_eq!(report["redirects"], 1);
    assert_eq!(report["unresolved"], 1, "mailto: names no web resource");
    // A second run refuses to overwrite without --force.
    crawlsift_ok(&["links", i, "--out", g.to_str().unwrap(), "-q"], 1);
    // Ranks of the host graph: a -> b, b -> a, c -> b.
    crawlsift_ok(&["rank", g.to_str().unwrap(), "-q"], 0);
    let ranks = gunzip(&g.join("hosts/ranks.txt.gz"));
    let rows: Vec<Vec<&str>> = ranks.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "#harmonicc_pos",
            "#harmonicc_val",
            "#pr_pos",
            "#pr_val",
            "#host_rev"
        ]
    );
    // example.b is reached from both others (harmonic 2), example.a from b (1 + 1/2 from c).
    assert_eq!(
        (rows[1][0], rows[1][1], rows[1][4]),
        ("1", "2.0", "example.b")
    );
    assert_eq!((rows[2][1], rows[2][4]), ("1.5", "example.a"));
    assert_eq!(rows[1][2], "1", "b also has the highest PageRank");
    let pr: f64 = rows
        .iter()
        .skip(1)
        .map(|r| r[3].parse::<f64>().unwrap())
        .sum();
    assert!((pr - 1.0).abs() < 1e-9, "PageRank sums to 1: {pr}");
    assert!(g.join("hosts/hits.txt.gz").exists());
    crawlsift_ok(&["rank", g.to_str().unwrap(), "-q", "--damping", "1.5"], 2);
    crawlsift_ok(&["rank", g.to_str().unwrap(), "-q", "--pages"], 0);
    assert!(g.join("pages/ranks.txt.gz").exists());
}

/// `rank --clusters`: a page and its mirror on another host (one `dedup` cluster) are one vertex
/// of the collapsed page graph: the mirror's link to a target is its representative's (counted
/// once), a link to the mirror goes to the representative.
#[test]
fn duplicates_collapse_into_their_representative_before_ranking() {
    let html = "Content-Type: text/html; charset=utf-8\r\n";
    let article: String = (0..150).map(|i| format!("word{i} ")).collect();
    let page = |extra: &str| {
        format!("<html><body><article><p>{article}</p></article>{extra}</body></html>")
    };
    let mut warc = response(
        "http://a.example/story",
        "200 OK",
        html,
        &page(r#"<a href="http://t.example/">target</a>"#),
    );
    warc += &response(
        "http://mirror.example/story",
        "200 OK",
        html,
        &page(r#"<a href="http://t.example/">target</a>"#),
    );
    warc += &response(
        "http://y.example/",
        "200 OK",
        html,
        r#"<a href="http://mirror.example/story">the story</a>"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    std::fs::write(&input, &warc).unwrap();
    let (i, g, d) = (
        input.to_str().unwrap(),
        dir.path().join("g"),
        dir.path().join("d"),
    );
    crawlsift_ok(&["links", i, "--out", g.to_str().unwrap(), "-q"], 0);
    crawlsift_ok(&["dedup", i, "--out", d.to_str().unwrap(), "-q"], 0);
    let clusters = d.join("clusters.jsonl");
    assert_eq!(
        json_lines(&clusters).len(),
        1,
        "the page and its mirror cluster"
    );
    let out = crawlsift_ok(
        &[
            "rank",
            g.to_str().unwrap(),
            "--clusters",
            clusters.to_str().unwrap(),
        ],
        0,
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("1 pages merged"), "{said}");
    let ranks = gunzip(&g.join("pages/collapsed/ranks.txt.gz"));
    let names: Vec<&str> = ranks
        .lines()
        .skip(1)
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{ranks}");
    assert!(
        names.contains(&"http://a.example/story")
            && !names.contains(&"http://mirror.example/story")
    );
    // The full page graph is ranked too, every page in it.
    assert_eq!(gunzip(&g.join("pages/ranks.txt.gz")).lines().count(), 5);
}
