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

/// The BVGraph beside an edge list, loaded by the `webgraph` crate, holds the same arcs.
fn assert_bvgraph_is_the_edge_list(dir: &Path) {
    use webgraph::prelude::*;
    let g = BvGraph::with_basename(dir.join("graph"))
        .endianness::<dsi_bitstream::traits::BE>()
        .load()
        .unwrap();
    let vertices = gunzip(&dir.join("vertices.txt.gz")).lines().count();
    assert_eq!(g.num_nodes(), vertices);
    let mut arcs = String::new();
    for v in 0..g.num_nodes() {
        for w in g.successors(v) {
            arcs += &format!("{v}\t{w}\n");
        }
    }
    assert_eq!(arcs, gunzip(&dir.join("edges.txt.gz")), "{}", dir.display());
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
    for f in crawlsift_pipeline::links::GRAPH_FILES {
        assert_eq!(
            contents(&out("g1").join(f)),
            contents(&out("g3").join(f)),
            "{f}"
        );
    }
    let g = out("g1");
    assert_bvgraph_is_the_edge_list(&g.join("pages"));
    assert_bvgraph_is_the_edge_list(&g.join("hosts"));
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
    // HyperBall's estimate, asked for: near the exact values, in the same order.
    let dir = g.to_str().unwrap();
    let hyperball = |registers: &str, code: i32| {
        let args = [
            "rank",
            dir,
            "-q",
            "--harmonic",
            "hyperball",
            "--registers",
            registers,
        ];
        crawlsift_ok(&args, code);
    };
    hyperball("12", 0);
    let ranks = gunzip(&g.join("hosts/ranks.txt.gz"));
    let rows: Vec<Vec<&str>> = ranks.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        (rows[1][4], rows[2][4]),
        ("example.b", "example.a"),
        "{ranks}"
    );
    for (row, exact) in [(1, 2.0), (2, 1.5)] {
        let got: f64 = rows[row][1].parse().unwrap();
        assert!((got - exact).abs() < 0.05, "{ranks}");
    }
    hyperball("3", 2);
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

/// `dedup --links`: the graph of the same pass equals `crawlsift links`' for any thread count,
/// `report.json` counts it, each kept `--text` line carries the anchor texts its URL is given, a
/// shard refuses it, and clusters are those of a plain `dedup`.
#[test]
fn dedup_links_writes_the_graph_and_anchors_in_the_same_pass() {
    let html = "Content-Type: text/html; charset=utf-8\r\n";
    let para = |topic: &str| {
        format!(
            "<p>{topic} is the subject of this page, and the page says a good deal about \
             {topic}: where it comes from, how it is made and who makes it today.</p>"
        )
    };
    let mut warc = response(
        "http://www.a.example/",
        "200 OK",
        html,
        &format!(
            "<html><body>{}<a href=\"http://b.example/tea\">all about tea</a> \
             <a href=\"/coffee\">coffee</a></body></html>",
            para("Bread")
        ),
    );
    warc += &response(
        "http://b.example/tea",
        "200 OK",
        html,
        &format!(
            "<html><body>{}<a href=\"http://www.a.example/coffee\">coffee at A</a>\
             <a href=\"/tea#top\">this page</a></body></html>",
            para("Tea")
        ),
    );
    warc += &response(
        "http://www.a.example/coffee",
        "200 OK",
        html,
        &format!("<html><body>{}</body></html>", para("Coffee")),
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    std::fs::write(&input, &warc).unwrap();
    let i = input.to_str().unwrap();
    let out = |n: &str| dir.path().join(n);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    crawlsift_ok(&["links", i, "--out", &s(&out("links")), "-q"], 0);
    crawlsift_ok(&["dedup", i, "--out", &s(&out("plain")), "-q"], 0);
    for t in ["1", "3"] {
        let o = out(&format!("d{t}"));
        let text = o.join("text.jsonl");
        let args = ["dedup", i, "--out", &s(&o), "--links", "--text", &s(&text)];
        crawlsift_ok(&[&args[..], &["-q", "-j", t]].concat(), 0);
        for f in crawlsift_pipeline::links::GRAPH_FILES {
            assert_eq!(
                contents(&out("links").join(f)),
                contents(&o.join(f)),
                "{f}, -j {t}"
            );
        }
        assert_bvgraph_is_the_edge_list(&o.join("pages"));
        assert_eq!(
            contents(&o.join("clusters.jsonl")),
            contents(&out("plain").join("clusters.jsonl"))
        );
    }
    assert_eq!(
        contents(&out("d1").join("text.jsonl")),
        contents(&out("d3").join("text.jsonl"))
    );
    let report: serde_json::Value =
        serde_json::from_slice(&contents(&out("d1").join("report.json"))).unwrap();
    assert_eq!(report["links"]["pages"], 3);
    assert_eq!(
        report["links"]["edges"], 3,
        "the link to the page itself is no edge"
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(contents(&out("d1").join("text.jsonl")))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let by_url = |u: &str| lines.iter().find(|l| l["url"] == u).unwrap();
    assert_eq!(
        by_url("http://www.a.example/coffee")["anchors"],
        serde_json::json!([
            {"text": "coffee", "other_hosts": 0, "same_host": 1},
            {"text": "coffee at A", "other_hosts": 1, "same_host": 0}
        ])
    );
    // The tea page's link to itself (its fragment dropped) is no edge, but it is an anchor text.
    assert_eq!(
        by_url("http://b.example/tea")["anchors"],
        serde_json::json!([
            {"text": "all about tea", "other_hosts": 1, "same_host": 0},
            {"text": "this page", "other_hosts": 0, "same_host": 1}
        ])
    );
    assert!(by_url("http://www.a.example/").get("anchors").is_none());
    // A Parquet clean corpus holds them as a column of their JSON text.
    let pq = out("text.parquet");
    let args = [
        "dedup",
        i,
        "--out",
        &s(&out("pq")),
        "--links",
        "--text",
        &s(&pq),
        "-q",
    ];
    crawlsift_ok(&args, 0);
    let file = std::fs::File::open(&pq).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut got = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        use arrow_array::Array;
        let column = |name: &str| {
            let c = batch.column_by_name(name).unwrap();
            let c = c
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap();
            (0..c.len())
                .map(|r| (!c.is_null(r)).then(|| c.value(r).to_string()))
                .collect::<Vec<_>>()
        };
        got.extend(column("url").into_iter().zip(column("anchors")));
    }
    let want: Vec<_> = lines
        .iter()
        .map(|l| {
            let anchors = l.get("anchors").map(|a| a.to_string());
            (l["url"].as_str().map(String::from), anchors)
        })
        .collect();
    assert_eq!(got, want);
    // The graph needs every page in one run.
    let shard = [
        "dedup",
        i,
        "--out",
        &s(&out("shard")),
        "--links",
        "--shard",
        "1/2",
    ];
    crawlsift_ok(&shard, 2);
}

/// `index --anchors`: the index keeps the anchor texts its pages give, `get --format json` shows
/// a capture's, and `--append` adds those of new archives to documents already indexed without
/// rewriting what is there.
#[test]
fn an_index_keeps_anchor_texts_and_append_adds_to_them() {
    let html = "Content-Type: text/html\r\n";
    let words = "Plenty of words about the subject of this page, enough to count as one. ";
    let target = response(
        "http://t.example/doc",
        "200 OK",
        html,
        &format!("<p>{}</p>", words.repeat(10)),
    );
    let a = target
        + &response(
            "http://a.example/",
            "200 OK",
            html,
            r#"<a href="http://t.example/doc">the doc</a> <a href="/x">x</a>"#,
        );
    let b = response(
        "http://b.example/",
        "200 OK",
        html,
        r#"<a href="http://t.example/doc">the doc</a><a href="http://t.example/doc">read more</a>"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let (fa, fb) = (dir.path().join("a.warc"), dir.path().join("b.warc"));
    std::fs::write(&fa, a).unwrap();
    std::fs::write(&fb, b).unwrap();
    let idx = dir.path().join("idx");
    let i = idx.to_str().unwrap();
    let get = || {
        let o = crawlsift_ok(&["get", i, "http://t.example/doc", "--format", "json"], 0);
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    // Without --anchors, no anchor field at all.
    crawlsift_ok(&["index", fa.to_str().unwrap(), "--out", i, "-q"], 0);
    assert!(get().get("anchors").is_none());
    let fa = fa.to_str().unwrap();
    crawlsift_ok(&["index", fa, "--out", i, "-q", "--anchors"], 1);
    let cdxj_only = [
        "index",
        fa,
        "--out",
        i,
        "-q",
        "--anchors",
        "--cdxj-only",
        "--force",
    ];
    crawlsift_ok(&cdxj_only, 2);
    crawlsift_ok(&["index", fa, "--out", i, "-q", "--anchors", "--force"], 0);
    let v = get();
    assert_eq!(v["anchor_texts"], 1);
    assert_eq!(
        v["anchors"],
        serde_json::json!([{"text": "the doc", "other_hosts": 1, "same_host": 0}])
    );
    let files = |d: &Path| {
        let mut f: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        f.sort();
        f
    };
    let first = files(&idx.join("anchors"));
    assert_eq!(first.len(), 1);
    let before = contents(&first[0]);
    // Appended without asking: the index keeps anchors, so the new archive's are added.
    crawlsift_ok(
        &["index", fb.to_str().unwrap(), "--out", i, "-q", "--append"],
        0,
    );
    let v = get();
    assert_eq!(v["anchor_texts"], 2);
    assert_eq!(
        v["anchors"],
        serde_json::json!([
            {"text": "the doc", "other_hosts": 2, "same_host": 0},
            {"text": "read more", "other_hosts": 1, "same_host": 0}
        ])
    );
    assert_eq!(files(&idx.join("anchors")).len(), 2);
    assert_eq!(
        contents(&first[0]),
        before,
        "the first file is not rewritten"
    );
}
