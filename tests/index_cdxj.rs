//! `crawlsift index` (the CDXJ half, issue 17): the lines, their order, offsets and lengths that
//! find the records again, the same bytes for any thread count, `--append` without re-reading old
//! archives, `--compress`, refusals; and (with ../shared) our SURT keys of every URL of the real
//! crawl files against the Python `surt` package's.

mod util;

use std::io::Write;
use std::path::{Path, PathBuf};

use crawlsift_cdxj::fetch::IndexDir;
use crawlsift_cdxj::Capture;
use util::{crawlsift, crawlsift_ok};

/// A WARC record of `kind` with `fields` extra header lines and `block`.
fn record(kind: &str, url: &str, date: &str, extra: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}-{url}-{date}>\r\n\
         WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\n{extra}Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn http(status: &str, ctype: &str, body: &str) -> Vec<u8> {
    format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n\r\n{body}").into_bytes()
}

const RESP: &str = "Content-Type: application/http; msgtype=response\r\n";

/// The records of a small crawl: pages, a redirect, a request, metadata, a revisit, a DNS record.
fn crawl(tag: &str) -> Vec<Vec<u8>> {
    vec![
        record("warcinfo", "", "2024-01-01T00:00:00Z", "Content-Type: application/warc-fields\r\n", b"software: test\r\n"),
        record("response", &format!("http://www.example.com/{tag}/a?b=2&a=1"), "2024-01-02T03:04:05Z", RESP, &http("200 OK", "text/html; charset=utf-8", &format!("<p>page a of {tag}</p>"))),
        record("request", &format!("http://www.example.com/{tag}/a?b=2&a=1"), "2024-01-02T03:04:05Z", "Content-Type: application/http; msgtype=request\r\n", b"GET / HTTP/1.1\r\n\r\n"),
        record("response", &format!("http://example.com/{tag}/moved"), "2024-01-02T03:04:06Z", RESP, &http("301 Moved", "text/html", "")),
        record("metadata", &format!("http://example.com/{tag}/a"), "2024-01-02T03:04:07Z", "Content-Type: application/warc-fields\r\n", b"via: x\r\n"),
        record("resource", &format!("http://example.com/{tag}/file.txt"), "2024-01-02T03:04:08Z", "Content-Type: text/plain\r\n", b"plain text resource"),
        record("response", &format!("http://www.example.com/{tag}/a?a=1&b=2"), "2024-02-01T00:00:00Z", &format!("{RESP}WARC-Payload-Digest: sha1:AAAA\r\n"), &http("200 OK", "text/html", &format!("<p>page a of {tag}, later</p>"))),
        record("revisit", &format!("http://example.com/{tag}/a?a=1&b=2"), "2024-03-01T00:00:00Z", &format!("{RESP}WARC-Refers-To-Target-URI: http://www.example.com/{tag}/a?b=2&a=1\r\nWARC-Refers-To-Date: 2024-01-02T03:04:05Z\r\nWARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n"), b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"),
        record("response", "dns:example.com", "2024-01-02T03:04:09Z", "Content-Type: text/dns\r\n", b"20240102030409\nexample.com. 60 IN A 1.2.3.4\n"),
    ]
}

/// Writes `records` to `path`, one gzip member each when `gzip`.
fn write_warc(path: &Path, records: &[Vec<u8>], gzip: bool) {
    let mut f = std::fs::File::create(path).unwrap();
    for r in records {
        if gzip {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(r).unwrap();
            f.write_all(&e.finish().unwrap()).unwrap();
        } else {
            f.write_all(r).unwrap();
        }
    }
}

fn lines(idx: &Path) -> Vec<String> {
    std::fs::read_to_string(idx.join("index.cdxj"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Two archives, gzipped per record and plain, in a temporary directory.
fn two_archives() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.warc.gz");
    let b = dir.path().join("b.warc");
    write_warc(&a, &crawl("one"), true);
    write_warc(&b, &crawl("two"), false);
    (dir, a, b)
}

#[test]
fn lines_have_cdxj_indexers_fields_and_find_their_records() {
    let (dir, a, b) = two_archives();
    let idx = dir.path().join("idx");
    crawlsift_ok(&["index", s(&a), s(&b), "--out", s(&idx), "--quiet"], 0);
    let l = lines(&idx);
    // Per archive: the page, the redirect, the resource, the later page, the revisit, DNS; not the
    // warcinfo, request or warc-fields metadata.
    assert_eq!(l.len(), 12, "{l:#?}");
    let mut sorted = l.clone();
    sorted.sort_by(|x, y| format!("{x}\n").cmp(&format!("{y}\n")));
    assert_eq!(l, sorted, "lines sorted byte-wise");
    let page = l
        .iter()
        .find(|x| x.contains("one/a?b=2&a=1") && x.contains("20240102030405"))
        .unwrap();
    assert!(
        page.starts_with("com,example)/one/a?a=1&b=2 20240102030405 {\"url\": \"http://www.example.com/one/a?b=2&a=1\", \"mime\": \"text/html\", \"status\": \"200\", \"digest\": \"sha1:"),
        "{page}"
    );
    let revisit = l
        .iter()
        .find(|x| x.contains("warc/revisit") && x.contains("a.warc.gz"))
        .unwrap();
    assert!(
        !revisit.contains("digest"),
        "a revisit without a payload digest has none: {revisit}"
    );
    assert!(
        l.iter().any(|x| x.contains("\"digest\": \"sha1:AAAA\"")),
        "WARC-Payload-Digest kept as written"
    );
    assert!(l.iter().any(|x| x.starts_with("dns:example.com ")));
    assert!(l
        .iter()
        .any(|x| x.contains("\"mime\": \"text/plain\"") && !x.contains("status")));
    // Every line's offset and length hold the record it describes.
    let index = IndexDir::open(&idx).unwrap();
    for line in &l {
        let c = Capture::parse(line).unwrap();
        let f = index.read(&c).unwrap();
        assert_eq!(f.record.url.as_deref(), c.url.as_deref(), "{line}");
        let (len, off) = (c.length as usize, c.offset as usize);
        let file = std::fs::read(if c.filename == "a.warc.gz" { &a } else { &b }).unwrap();
        if c.filename == "b.warc" {
            assert!(file[off..].starts_with(b"WARC/1.0\r\n"));
            assert!(
                file[off + len..].starts_with(b"\r\n\r\n"),
                "length stops before the blank lines"
            );
        } else {
            assert_eq!(
                &file[off..off + 2],
                b"\x1f\x8b",
                "a gzip member starts at the offset"
            );
        }
    }
}

#[test]
fn same_bytes_for_any_thread_count_and_force_replaces() {
    let (dir, a, b) = two_archives();
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    crawlsift_ok(
        &[
            "index",
            s(&a),
            s(&b),
            "--out",
            s(&one),
            "--threads",
            "1",
            "--quiet",
        ],
        0,
    );
    crawlsift_ok(
        &[
            "index",
            s(&b),
            s(&a),
            "--out",
            s(&two),
            "--threads",
            "2",
            "--quiet",
        ],
        0,
    );
    assert_eq!(lines(&one), lines(&two));
    let cdxj_only = dir.path().join("cdxj-only");
    crawlsift_ok(
        &[
            "index",
            s(&a),
            s(&b),
            "--out",
            s(&cdxj_only),
            "--cdxj-only",
            "--quiet",
        ],
        0,
    );
    assert_eq!(lines(&cdxj_only), lines(&one));
    assert!(one.join("fp").is_dir() && !cdxj_only.join("fp").exists());
    let again = crawlsift(&["index", s(&a), "--out", s(&one), "--quiet"]);
    assert_eq!(
        again.status.code(),
        Some(1),
        "an existing index is not replaced without --force"
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    crawlsift_ok(&["index", s(&a), "--out", s(&one), "--force", "--quiet"], 0);
    assert_eq!(lines(&one).len(), 6);
    let stdin = crawlsift(&["index", "-", "--out", s(&one), "--force"]);
    assert_eq!(
        stdin.status.code(),
        Some(2),
        "stdin has no offsets to index"
    );
}

#[test]
fn append_merges_without_reading_old_archives() {
    let (dir, a, b) = two_archives();
    let both = dir.path().join("both");
    crawlsift_ok(&["index", s(&a), s(&b), "--out", s(&both), "--quiet"], 0);
    let idx = dir.path().join("idx");
    crawlsift_ok(&["index", s(&a), "--out", s(&idx), "--quiet"], 0);
    // The old archive is gone: appending must not need it.
    let moved = dir.path().join("elsewhere.warc.gz");
    std::fs::rename(&a, &moved).unwrap();
    crawlsift_ok(
        &["index", s(&b), "--out", s(&idx), "--append", "--quiet"],
        0,
    );
    assert_eq!(
        lines(&idx),
        lines(&both),
        "append gives what one build gives"
    );
    // An archive already indexed is not added twice.
    crawlsift_ok(
        &["index", s(&b), "--out", s(&idx), "--append", "--quiet"],
        0,
    );
    assert_eq!(lines(&idx), lines(&both));
    let manifest = std::fs::read_to_string(idx.join("archives.jsonl")).unwrap();
    assert_eq!(manifest.lines().count(), 2, "{manifest}");
    // Another archive of the same name is refused (lines name archives by base name).
    let other = dir.path().join("sub");
    std::fs::create_dir(&other).unwrap();
    write_warc(&other.join("b.warc"), &crawl("three"), false);
    let clash = crawlsift(&[
        "index",
        s(&other.join("b.warc")),
        "--out",
        s(&idx),
        "--append",
    ]);
    assert_eq!(clash.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&clash.stderr).contains("same name"));
}

#[test]
fn compressed_index_serves_the_same_captures() {
    let (dir, a, b) = two_archives();
    let idx = dir.path().join("idx");
    crawlsift_ok(
        &[
            "index",
            s(&a),
            s(&b),
            "--out",
            s(&idx),
            "--compress",
            "--quiet",
        ],
        0,
    );
    for f in ["index.cdxj.gz", "index.idx", "index.loc"] {
        assert!(idx.join(f).is_file(), "{f}");
    }
    let summary = std::fs::read_to_string(idx.join("index.idx")).unwrap();
    let first = lines(&idx)[0].clone();
    let mut parts = first.splitn(3, ' ');
    let prefix = format!(
        "{} {}\tindex\t0\t",
        parts.next().unwrap(),
        parts.next().unwrap()
    );
    assert!(summary.starts_with(&prefix), "{summary}");
    let url = "http://www.example.com/two/a?a=1&b=2";
    let plain = crawlsift_ok(&["get", s(&idx), url, "--at", "20240102"], 0).stdout;
    std::fs::remove_file(idx.join("index.cdxj")).unwrap();
    let zipped = crawlsift_ok(&["get", s(&idx), url, "--at", "20240102"], 0).stdout;
    assert_eq!(plain, zipped);
    assert_eq!(String::from_utf8_lossy(&zipped), "<p>page a of two</p>");
}

#[test]
fn not_an_archive_and_huge_urls_are_counted_and_the_rest_indexed() {
    let (dir, a, _b) = two_archives();
    let readme = dir.path().join("README.txt");
    std::fs::write(&readme, "not an archive\n").unwrap();
    let long = dir.path().join("long.warc");
    let url = format!("http://example.com/{}", "x".repeat(70_000));
    write_warc(
        &long,
        &[record(
            "response",
            &url,
            "2024-01-01T00:00:00Z",
            RESP,
            &http("200 OK", "text/html", "x"),
        )],
        false,
    );
    let idx = dir.path().join("idx");
    let out = crawlsift_ok(&["index", s(&a), s(&readme), s(&long), "--out", s(&idx)], 3);
    let err = String::from_utf8_lossy(&out.stderr);
    // Named once, by the half that reads for both.
    assert!(err.contains("README.txt: not an archive"), "{err}");
    assert_eq!(err.matches("README.txt").count(), 1, "{err}");
    assert!(err.contains("line_too_long 1"), "{err}");
    assert_eq!(lines(&idx).len(), 6);
}

/// `index` reads each archive once, its CDXJ half taking the records the fingerprint half reads:
/// its `index.cdxj` is byte for byte `--cdxj-only`'s, including the lines of an archive the
/// fingerprint half does not read (a copy of another under a new name: same content).
#[test]
fn one_pass_gives_cdxj_only_bytes_even_for_archives_fingerprints_skip() {
    let (dir, a, b) = two_archives();
    let copy = dir.path().join("copy.warc.gz");
    std::fs::copy(&a, &copy).unwrap();
    let full = dir.path().join("full");
    let only = dir.path().join("only");
    let args = |out: &Path| {
        vec![
            s(&a).to_string(),
            s(&b).into(),
            s(&copy).into(),
            "--out".into(),
            s(out).into(),
            "--quiet".into(),
        ]
    };
    let mut f = args(&full);
    f.insert(0, "index".into());
    let f: Vec<&str> = f.iter().map(String::as_str).collect();
    crawlsift_ok(&f, 0);
    let mut o = args(&only);
    o.splice(0..0, ["index".to_string(), "--cdxj-only".into()]);
    let o: Vec<&str> = o.iter().map(String::as_str).collect();
    crawlsift_ok(&o, 0);
    let full_bytes = std::fs::read(full.join("index.cdxj")).unwrap();
    assert_eq!(full_bytes, std::fs::read(only.join("index.cdxj")).unwrap());
    assert_eq!(
        lines(&full)
            .iter()
            .filter(|l| l.contains("\"copy.warc.gz\""))
            .count(),
        6
    );
}

/// The same for every real crawl file of ../shared (WARC, ARC, TREC, damaged ones), one index
/// over all of them.
#[test]
#[ignore = "needs ../shared"]
fn one_pass_gives_cdxj_only_bytes_on_every_real_file() {
    let real = util::needs_shared().join("corpus/real");
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let only = dir.path().join("only");
    crawlsift_ok(&["index", s(&real), "--out", s(&full), "--quiet"], 3);
    crawlsift_ok(
        &[
            "index",
            "--cdxj-only",
            s(&real),
            "--out",
            s(&only),
            "--quiet",
        ],
        3,
    );
    let got = std::fs::read(full.join("index.cdxj")).unwrap();
    assert!(got.len() > 100_000, "{} bytes", got.len());
    assert!(got == std::fs::read(only.join("index.cdxj")).unwrap());
    assert_eq!(
        std::fs::read(full.join("archives.jsonl")).unwrap(),
        std::fs::read(only.join("archives.jsonl")).unwrap()
    );
}

/// Our SURT key of every URL in every real crawl file against Python `surt` 0.3.1's (the venv the
/// cdxj gate installs).
#[test]
#[ignore = "needs ../shared"]
fn surt_keys_of_every_real_url_match_python() {
    let shared = util::needs_shared();
    let venv = std::process::Command::new("bash")
        .args(["scripts/ci-gates/cdxj.sh", "--venv"])
        .current_dir(util::root())
        .output()
        .expect("running scripts/ci-gates/cdxj.sh --venv");
    assert!(
        venv.status.success(),
        "{}",
        String::from_utf8_lossy(&venv.stderr)
    );
    let python = String::from_utf8(venv.stdout).unwrap().trim().to_string();
    let mut urls = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(shared.join("corpus/real")).unwrap() {
        let input = crawlsift_reader::Input::Path(entry.unwrap().path());
        let cfg = crawlsift_reader::ReaderConfig::default();
        let _ = crawlsift_reader::read_input(&input, 0, &cfg, &mut |batch| {
            urls.extend(batch.into_iter().filter_map(|r| r.url));
            true
        });
    }
    assert!(urls.len() > 400, "{} distinct URLs", urls.len());
    let input: String = urls
        .iter()
        .map(|u| serde_json::to_string(u).unwrap() + "\n")
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("urls.jsonl");
    std::fs::write(&list, input).unwrap();
    let script = "import json,sys,surt\n\
        def k(u):\n    try:\n        return surt.surt(u)\n    except Exception:\n        return u\n\
        for l in open(sys.argv[1], encoding='utf-8'):\n    print(json.dumps(k(json.loads(l))))\n";
    let out = std::process::Command::new(&python)
        .args(["-c", script, list.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(keys.len(), urls.len());
    let wrong: Vec<String> = urls
        .iter()
        .zip(&keys)
        .filter(|(u, k)| crawlsift_cdxj::surt::surt(u) != **k)
        .map(|(u, k)| {
            format!(
                "{u:?}: python {k:?}, ours {:?}",
                crawlsift_cdxj::surt::surt(u)
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        urls.len(),
        wrong.join("\n")
    );
}
