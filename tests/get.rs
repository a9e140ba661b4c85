//! `crawlsift get` (issue 17): the capture closest to `--at` or the latest, by `--id`, each
//! format, revisits resolved to their original, and clear errors with exit status 1 (URL not in
//! the index, archive moved, offset not a record, a damaged index) without a panic. With
//! ../shared: every line of the index of the real crawl files reads back as its record.

mod util;

use std::io::Write;
use std::path::{Path, PathBuf};

use util::{crawlsift, crawlsift_ok};

fn record(kind: &str, url: &str, date: &str, extra: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}-{date}>\r\n\
         WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\n{extra}Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// A page whose body is gzip-encoded and chunked on the wire.
fn encoded_page(text: &str) -> Vec<u8> {
    let html = format!(
        "<html><head><title>t</title></head><body><article><p>{text}</p></article></body></html>"
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(html.as_bytes()).unwrap();
    let body = gz.finish().unwrap();
    let mut m = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\
        Transfer-Encoding: chunked\r\n\r\n"
        .to_vec();
    m.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
    m.extend_from_slice(&body);
    m.extend_from_slice(b"\r\n0\r\n\r\n");
    m
}

const URL: &str = "http://example.com/news";
const TEXT_1: &str =
    "The harbour council met on Tuesday evening to discuss the new ferry timetable for the island.";
const TEXT_2: &str = "The harbour council met again on Friday and approved the ferry timetable for the whole summer.";

/// A gzipped WARC with two captures of URL, a revisit of the first, and the index over it.
fn indexed() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("news.warc.gz");
    let records = [
        record(
            "response",
            URL,
            "2024-01-01T00:00:00Z",
            "",
            &encoded_page(TEXT_1),
        ),
        record(
            "response",
            URL,
            "2024-06-01T00:00:00Z",
            "",
            &encoded_page(TEXT_2),
        ),
        record(
            "revisit",
            URL,
            "2024-12-01T00:00:00Z",
            &format!(
                "WARC-Refers-To-Target-URI: {URL}\r\nWARC-Refers-To-Date: 2024-01-01T00:00:00Z\r\n"
            ),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        ),
    ];
    let mut f = std::fs::File::create(&warc).unwrap();
    for r in &records {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(r).unwrap();
        f.write_all(&e.finish().unwrap()).unwrap();
    }
    let idx = dir.path().join("idx");
    crawlsift_ok(&["index", s(&warc), "--out", s(&idx), "--quiet"], 0);
    (dir, warc, idx)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(crawlsift_ok(args, 0).stdout).unwrap()
}

#[test]
fn closest_capture_each_format_and_revisits() {
    let (_dir, _warc, idx) = indexed();
    let i = s(&idx);
    // Latest: the revisit, resolved to the January capture it refers to.
    let latest = stdout(&["get", i, URL]);
    assert!(latest.contains(TEXT_1), "{latest}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&["get", i, URL, "--format", "json"])).unwrap();
    assert_eq!(json["timestamp"], "20240101000000");
    assert_eq!(json["revisit"]["timestamp"], "20241201000000");
    assert_eq!(json["record_type"], "response");
    // Closest to --at.
    assert!(stdout(&["get", i, URL, "--at", "202405"]).contains(TEXT_2));
    assert!(stdout(&["get", i, URL, "--at", "2023"]).contains(TEXT_1));
    // Payload is de-chunked and gunzipped; text is the main text; raw is the stored record.
    let payload = stdout(&["get", i, URL, "--at", "20240601000000"]);
    assert!(payload.starts_with("<html>"), "{payload}");
    let text = stdout(&["get", i, URL, "--at", "20240601", "--format", "text"]);
    assert_eq!(text.trim(), TEXT_2);
    let raw = crawlsift_ok(&["get", i, URL, "--at", "20240601", "--format", "raw"], 0).stdout;
    assert!(raw.starts_with(b"WARC/1.0\r\nWARC-Type: response\r\n"));
    assert!(
        raw.windows(19).any(|w| w == b"Transfer-Encoding: "),
        "raw keeps the wire form"
    );
    // By record id, with or without <>.
    for id in [
        "urn:uuid:response-2024-06-01T00:00:00Z",
        "<urn:uuid:response-2024-06-01T00:00:00Z>",
    ] {
        assert!(stdout(&["get", i, URL, "--id", id]).contains(TEXT_2));
    }
    // The URL is canonicalised as the index keys are.
    assert!(
        stdout(&["get", i, "HTTP://WWW.Example.com:80/news#x", "--at", "2023"]).contains(TEXT_1)
    );
}

#[test]
fn clear_errors_and_statuses() {
    let (dir, warc, idx) = indexed();
    let i = s(&idx);
    let err = |args: &[&str], code: i32, says: &str| {
        let out = crawlsift(args);
        let msg = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {msg}");
        assert!(msg.contains(says), "{args:?}: {msg}");
        assert!(!msg.contains("panicked"), "{msg}");
    };
    err(&["get", i, "http://example.com/other"], 1, "not in");
    err(
        &["get", i, URL, "--id", "urn:uuid:nope"],
        1,
        "no capture of this URL has record id",
    );
    err(&["get", i, URL, "--at", "yesterday"], 2, "--at");
    err(&["get", s(&dir.path().join("none")), URL], 1, "index.cdxj");
    // A line pointing where no record starts names the archive and the offset.
    let index = idx.join("index.cdxj");
    let good = std::fs::read_to_string(&index).unwrap();
    let first = good.lines().next().unwrap().to_string();
    let off = first
        .split("\"offset\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        &index,
        good.replacen(&format!("\"offset\": \"{off}\""), "\"offset\": \"7\"", 1),
    )
    .unwrap();
    err(&["get", i, URL, "--at", "2023"], 1, "byte 7: not a record");
    // Garbage, a truncated file, lines out of order: errors with the file and byte, no panic.
    std::fs::write(&index, "com,example)/news 2024 {not json\n").unwrap();
    err(&["get", i, URL], 1, "index.cdxj: byte 0: bad JSON");
    std::fs::write(&index, &good[..good.len() / 2]).unwrap();
    let out = crawlsift(&["get", i, URL]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    let mut lines: Vec<&str> = good.lines().collect();
    lines.reverse();
    std::fs::write(&index, lines.join("\n") + "\n").unwrap();
    let out = crawlsift(&["get", i, URL]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    std::fs::write(&index, &good).unwrap();
    // The archive moved away.
    std::fs::rename(&warc, dir.path().join("moved.warc.gz")).unwrap();
    err(&["get", i, URL], 1, "was it moved?");
}

/// Every line of the index of the real crawl files reads back as the record it describes.
#[test]
#[ignore = "needs ../shared"]
fn every_real_capture_reads_back() {
    let shared = util::needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    crawlsift_ok(
        &[
            "index",
            s(&shared.join("corpus/real")),
            "--out",
            s(&idx),
            "--quiet",
        ],
        3,
    );
    let index = crawlsift_cdxj::fetch::IndexDir::open(&idx).unwrap();
    let text = std::fs::read_to_string(idx.join("index.cdxj")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let c = crawlsift_cdxj::Capture::parse(line).unwrap();
        let f = index.read(&c).unwrap_or_else(|e| panic!("{line}: {e}"));
        let again = crawlsift_cdxj::line::capture(&f.record, c.offset, c.length, &c.filename)
            .unwrap_or_else(|why| panic!("{line}: {why}"));
        assert_eq!(
            again.to_line(),
            line,
            "the record read back gives the same line"
        );
        n += 1;
    }
    assert!(n > 1000, "{n} lines");
}

/// Binary bytes (an image's payload, a gzip-encoded body in `--format raw`) are not printed to a
/// terminal: status 1 and a message saying what to do; to a pipe or file they are printed as
/// they are. The terminal is a real pseudo-terminal, made by `script` (util-linux).
#[test]
fn binary_bytes_are_not_printed_to_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    crawlsift_ok(
        &["index", "data/sample.warc.gz", "--out", s(&idx), "--quiet"],
        0,
    );
    let bin = env!("CARGO_BIN_EXE_crawlsift");
    let on_terminal = |args: &str| {
        let o = std::process::Command::new("script")
            .args([
                "-qec",
                &format!("{bin} get {} {args}", s(&idx)),
                "/dev/null",
            ])
            .current_dir(util::root())
            .output()
            .expect("script (util-linux) runs a command on a pseudo-terminal");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (code, said) = on_terminal("https://courier.example/logo.png");
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("binary (1024 bytes, image/png)") && said.contains("redirect"),
        "{said}"
    );
    let piped = crawlsift_ok(&["get", s(&idx), "https://courier.example/logo.png"], 0);
    assert_eq!(piped.stdout.len(), 1024);
    // Text goes to the terminal as ever.
    let (code, said) = on_terminal("https://courier.example/orchard");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Cold spring leaves orchards"), "{said}");
    // The stored record of a gzip-encoded page is binary too.
    let (_dir, _warc, news) = indexed();
    let o = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("{bin} get --format raw {} {URL}", s(&news)),
            "/dev/null",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("the record is binary"), "{said}");
}
