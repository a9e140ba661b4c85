//! `crawlsift extract` as a user meets it: the charset is detected by default, `--html-dir`
//! walks a tree of pages, archive rows lead back to their record, `extract` and `dedup` agree on
//! what a document is, and every output format (`--format txt|json|markdown|xml`) of every
//! mode, pinned by golden files in `tests/golden/`.

mod util;

use std::path::Path;

use util::{crawlsift, crawlsift_ok, inputs::warc_page};

/// A WARC record of type `kind` with a plain block.
fn warc_block(kind: &str, uri: &str, ctype: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}-{}>\r\n\
         WARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: {uri}\r\nContent-Type: {ctype}\r\n\
         Content-Length: {}\r\n\r\n",
        uri.len(),
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn an_undeclared_windows_1252_page_reads_right_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("fr.html");
    let text = "Le café est très célèbre: crêpes, gâteaux et thé. L’été «c’est beau» — oui.";
    let html = format!("<html><body><p>{text}</p></body></html>");
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&html);
    std::fs::write(&page, &bytes).unwrap();
    let o = crawlsift_ok(&["extract", "--html", page.to_str().unwrap()], 0);
    assert_eq!(stdout(&o), format!("{text}\n"));
    // Forced UTF-8 is still there for pages known to be UTF-8 whatever they declare.
    let o = crawlsift_ok(
        &[
            "extract",
            "--charset",
            "utf-8",
            "--html",
            page.to_str().unwrap(),
        ],
        0,
    );
    assert!(stdout(&o).contains('\u{fffd}'));
}

#[test]
fn html_dir_recurses_matches_any_case_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    for (name, word) in [
        ("a.html", "alpha"),
        ("sub/b.HTM", "bravo"),
        ("sub/deeper/c.Html", "charlie"),
        ("notes.txt", "none"),
    ] {
        let p = src.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("<p>The word is {word} here.</p>")).unwrap();
    }
    let out = dir.path().join("out");
    let o = crawlsift_ok(
        &[
            "extract",
            "--html-dir",
            src.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
        ],
        0,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("3 pages written"), "{err}");
    for (name, word) in [
        ("a.txt", "alpha"),
        ("sub/b.txt", "bravo"),
        ("sub/deeper/c.txt", "charlie"),
    ] {
        let got = std::fs::read_to_string(out.join(name)).unwrap();
        assert_eq!(got, format!("The word is {word} here."));
    }
    assert!(!out.join("notes.txt").exists());
}

/// An archive with a page, a feed, a robots.txt, a crawler log and a page kept as a resource.
fn mixed_archive(dir: &Path) -> std::path::PathBuf {
    let page = b"<html><head><title>T</title></head><body><p>A page with a few words of text in it, enough to keep.</p></body></html>";
    let feed = b"<?xml version='1.0'?><rss><channel><title>C</title><item><title>I</title><link>http://a.example/i</link><description>Item text of the feed</description><pubDate>Sat, 01 Jan 2000 00:00:00 +0000</pubDate></item></channel></rss>";
    let http = |ctype: &str, body: &[u8]| {
        let mut h = format!("HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n\r\n").into_bytes();
        h.extend_from_slice(body);
        h
    };
    let mut w = warc_page("page", page);
    let recs = [
        ("http://a.example/feed", "application/rss+xml", &feed[..]),
        (
            "http://a.example/robots.txt",
            "text/plain",
            b"User-agent: *\nDisallow: /",
        ),
    ];
    for (uri, ctype, body) in recs {
        w.extend(warc_block(
            "response",
            uri,
            "application/http; msgtype=response",
            &http(ctype, body),
        ));
    }
    w.extend(warc_block(
        "resource",
        "metadata://gnu.org/software/wget/warc/wget.log",
        "text/plain",
        b"Opening WARC file crawl.warc.gz.\nConnecting to a.example... connected.\n",
    ));
    let path = dir.join("mixed.warc");
    std::fs::write(&path, w).unwrap();
    path
}

#[test]
fn archive_rows_lead_back_to_their_record_and_extract_agrees_with_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let warc = mixed_archive(dir.path());
    let o = crawlsift_ok(&["extract", warc.to_str().unwrap()], 0);
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["file"], warc.to_str().unwrap());
    assert_eq!(rows[0]["offset"], 0);
    assert_eq!(rows[0]["url"], "http://example.com/page");
    assert!(rows[0]["date"].is_string());
    let err = String::from_utf8_lossy(&o.stderr);
    for why in ["feed=1", "robots_txt=1", "crawler_log=1"] {
        assert!(err.contains(why), "{err}");
    }
    // With --feeds the feed's items are lines, with the feed record's position.
    let o = crawlsift_ok(&["extract", "--feeds", warc.to_str().unwrap()], 0);
    let items: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["method"] == "feed")
        .collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["published"], "2000-01-01T00:00:00Z");
    assert!(items[0]["offset"].as_u64().unwrap() > 0);
    // dedup skips the same records under the same names.
    let out = dir.path().join("dedup");
    let text = dir.path().join("clean.jsonl.gz");
    let o = crawlsift(&[
        "dedup",
        warc.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--text",
        text.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let docs = util::json_lines(&out.join("documents.jsonl.gz"));
    let mut skipped: Vec<&str> = docs.iter().filter_map(|d| d["skipped"].as_str()).collect();
    skipped.sort();
    assert_eq!(skipped, ["crawler_log", "feed", "robots_txt"]);
    // Its clean corpus names the same record, with the same date, and holds the same text.
    let clean = util::json_lines(&text);
    assert_eq!(clean.len(), 1, "{clean:?}");
    for field in ["file", "offset", "date", "id", "url", "title", "text"] {
        assert_eq!(clean[0][field], rows[0][field], "{field}");
    }
}

/// The golden pages (`tests/golden/pages/*.html`, written for these tests) and formats: each
/// page's output in each format, with metadata, is `tests/golden/<stem>.<ext>`; the Markdown
/// without metadata is `tests/golden/<stem>.plain.md`. `UPDATE_GOLDEN=1` rewrites them.
const GOLDEN_PAGES: [&str; 2] = ["article", "product"];
const FORMATS: [(&str, &str); 4] = [
    ("txt", "txt"),
    ("json", "json"),
    ("markdown", "md"),
    ("xml", "xml"),
];

fn golden(name: &str, got: &str) {
    let path = util::root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(got, want, "{name} differs from its golden file");
}

#[test]
fn every_format_of_html_matches_its_golden_file() {
    for stem in GOLDEN_PAGES {
        let page = format!("tests/golden/pages/{stem}.html");
        for (format, ext) in FORMATS {
            let o = crawlsift_ok(
                &[
                    "extract",
                    "--html",
                    &page,
                    "--format",
                    format,
                    "--with-metadata",
                ],
                0,
            );
            golden(&format!("{stem}.{ext}"), &stdout(&o));
        }
        let o = crawlsift_ok(&["extract", "--html", &page, "--format", "markdown"], 0);
        golden(&format!("{stem}.plain.md"), &stdout(&o));
    }
}

#[test]
fn html_dir_writes_the_same_documents_with_the_format_extension() {
    let dir = tempfile::tempdir().unwrap();
    for (format, ext) in FORMATS {
        let out = dir.path().join(format);
        crawlsift_ok(
            &[
                "extract",
                "--html-dir",
                "tests/golden/pages",
                "--out-dir",
                out.to_str().unwrap(),
                "--format",
                format,
                "--with-metadata",
            ],
            0,
        );
        for stem in GOLDEN_PAGES {
            let got = std::fs::read_to_string(out.join(format!("{stem}.{ext}"))).unwrap();
            let want =
                std::fs::read_to_string(util::root().join(format!("tests/golden/{stem}.{ext}")))
                    .unwrap();
            // `--html` ends its output with a line break; files hold the document as it is.
            assert_eq!(got.trim_end(), want.trim_end(), "{stem}.{ext}");
        }
    }
}

#[test]
fn archive_documents_in_every_format_say_where_they_come_from() {
    let dir = tempfile::tempdir().unwrap();
    let article = std::fs::read(util::root().join("tests/golden/pages/article.html")).unwrap();
    let warc = dir.path().join("a.warc");
    std::fs::write(&warc, warc_page("tides", &article)).unwrap();
    let w = warc.to_str().unwrap();
    let json = crawlsift_ok(&["extract", w, "--with-metadata"], 0);
    let row: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(row["author"], "Maren Holt");
    assert_eq!(row["published"], "2023-06-14");
    assert_eq!(row["title"], "Tide tables and the harbour pilots");
    let md = stdout(&crawlsift_ok(&["extract", w, "--format", "markdown"], 0));
    assert!(
        md.starts_with(&format!("---\nfile: \"{w}\"\noffset: \"0\"\n")),
        "{md}"
    );
    assert!(md.contains("\n| Ferry | 6.5 m | 3 hours |\n"), "{md}");
    let xml = stdout(&crawlsift_ok(&["extract", w, "--format", "xml"], 0));
    assert!(
        xml.starts_with(&format!("<doc file=\"{w}\" offset=\"0\"")),
        "{xml}"
    );
    assert!(xml.ends_with("</doc>\n"), "{xml}");
    let txt = stdout(&crawlsift_ok(&["extract", w, "--format", "txt"], 0));
    assert!(
        txt.contains("\nurl: \"http://example.com/tides\"\n"),
        "{txt}"
    );
    // Compressed by the output's name, whatever the format.
    let gz = dir.path().join("out.md.gz");
    crawlsift_ok(
        &[
            "extract",
            w,
            "--format",
            "markdown",
            "-o",
            gz.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(String::from_utf8(util::contents(&gz)).unwrap(), md);
}
