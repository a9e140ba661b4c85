//! Remote inputs end to end: `records` and `dedup` over `http://127.0.0.1:PORT/...` from a small
//! HTTP server the test starts (honouring `Range` or not, dropping the connection at a byte once
//! or always) give the bytes they give over the local file, the `file` field aside; a dropped
//! connection is resumed, one that always drops fails naming the URL and the byte reached.

mod util;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use util::*;

/// How the test server answers.
#[derive(Clone, Copy)]
struct Mode {
    /// Honour `Range: bytes=N-` with a 206 (else always a 200 with the whole file).
    ranges: bool,
    /// Close the connection once this file offset is reached...
    drop_at: Option<u64>,
    /// ... this many times (usize::MAX: always).
    drops: usize,
    /// Answer this many requests first with `503 Service Unavailable`.
    busy: usize,
    /// Answer a range request with the wrong range (from byte 0, marked 206).
    wrong_range: bool,
}

impl Mode {
    fn plain(ranges: bool) -> Mode {
        Mode {
            ranges,
            drop_at: None,
            drops: 0,
            busy: 0,
            wrong_range: false,
        }
    }

    fn dropping(ranges: bool, at: u64, drops: usize) -> Mode {
        Mode {
            drop_at: Some(at),
            drops,
            ..Mode::plain(ranges)
        }
    }
}

struct Server {
    port: u16,
    /// The `Range` header of every request, in order ("" for none).
    ranges_asked: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(files: HashMap<String, Vec<u8>>, mode: Mode) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let ranges_asked = Arc::new(Mutex::new(Vec::new()));
        let files = Arc::new(files);
        let drops_left = Arc::new(AtomicUsize::new(mode.drops));
        let asked = ranges_asked.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (files, asked, drops_left) = (files.clone(), asked.clone(), drops_left.clone());
                std::thread::spawn(move || serve(conn, &files, mode, &asked, &drops_left));
            }
        });
        Server { port, ranges_asked }
    }

    fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }
}

/// Answers one request (then closes the connection).
fn serve(
    mut conn: TcpStream,
    files: &HashMap<String, Vec<u8>>,
    mode: Mode,
    asked: &Mutex<Vec<String>>,
    drops_left: &AtomicUsize,
) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut range = String::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("range") {
                range = v.trim().to_string();
            }
        }
    }
    let nth = {
        let mut asked = asked.lock().unwrap();
        asked.push(range.clone());
        asked.len()
    };
    if nth <= mode.busy {
        let _ = conn.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy");
        return;
    }
    let Some(data) = files.get(path.trim_start_matches('/')) else {
        let _ = conn.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
        );
        return;
    };
    let from: u64 = match range
        .strip_prefix("bytes=")
        .and_then(|r| r.strip_suffix('-'))
    {
        Some(n) if mode.ranges => n.parse().unwrap(),
        _ => 0,
    };
    let len = data.len() as u64;
    let from = if mode.wrong_range { 0 } else { from };
    let head = if from > 0 || (mode.wrong_range && !range.is_empty()) {
        format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{len}\r\nConnection: close\r\n\r\n",
            len - from,
            len - 1
        )
    } else {
        format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n")
    };
    let mut end = len;
    if let Some(at) = mode.drop_at {
        let take =
            drops_left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if at >= from && at < len && take.is_ok() {
            end = at;
        }
    }
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(&data[from as usize..end as usize]);
    let _ = conn.flush();
    let _ = conn.shutdown(Shutdown::Both);
}

fn sample() -> Vec<u8> {
    std::fs::read(root().join("data/sample.warc.gz")).unwrap()
}

/// The sample decompressed: the same real archive, uncompressed.
fn sample_plain() -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&sample()[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn files() -> HashMap<String, Vec<u8>> {
    HashMap::from([
        ("a/sample.warc.gz".to_string(), sample()),
        ("a/sample.warc".to_string(), sample_plain()),
    ])
}

/// `records` over `local` and over `url`: the same bytes once the `file` field names the URL.
fn assert_records_match(local: &str, url: &str) {
    let want = crawlsift_ok(&["records", local], 0).stdout;
    let want = String::from_utf8(want).unwrap().replace(
        &format!("\"file\":\"{local}\""),
        &format!("\"file\":\"{url}\""),
    );
    assert!(
        want.contains(url),
        "the local run names its file as expected"
    );
    let got = crawlsift_ok(&["records", url], 0).stdout;
    assert_eq!(String::from_utf8(got).unwrap(), want, "records over {url}");
}

/// The sample, plain and gzipped, on a local disk (for the local runs).
fn local_copies() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("a")).unwrap();
    for (name, data) in files() {
        std::fs::write(d.path().join(name), data).unwrap();
    }
    d
}

#[test]
fn records_over_http_match_the_local_files_with_and_without_ranges() {
    let d = local_copies();
    for ranges in [true, false] {
        let s = Server::start(files(), Mode::plain(ranges));
        for name in ["a/sample.warc.gz", "a/sample.warc"] {
            assert_records_match(d.path().join(name).to_str().unwrap(), &s.url(name));
        }
    }
}

#[test]
fn a_connection_dropped_once_is_resumed() {
    let d = local_copies();
    for ranges in [true, false] {
        for name in ["a/sample.warc.gz", "a/sample.warc"] {
            let at = 5_000;
            let mode = Mode::dropping(ranges, at, 1);
            let s = Server::start(files(), mode);
            assert_records_match(d.path().join(name).to_str().unwrap(), &s.url(name));
            let asked = s.ranges_asked.lock().unwrap().clone();
            // The first request is plain; the second asks from where the first was cut.
            assert_eq!(asked, vec![String::new(), format!("bytes={at}-")], "{name}");
        }
    }
}

#[test]
fn a_connection_that_always_drops_fails_naming_the_url_and_offset() {
    let at = 4_321;
    for ranges in [true, false] {
        let mode = Mode::dropping(ranges, at, usize::MAX);
        let s = Server::start(files(), mode);
        let url = s.url("a/sample.warc.gz");
        let o = crawlsift_ok(&["records", &url], 1);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&url), "{err}");
        assert!(err.contains(&format!("byte {at}")), "{err}");
        assert!(err.contains("gave up after 5 attempts"), "{err}");
        // Bounded: the first request and four retries, then no more.
        assert_eq!(s.ranges_asked.lock().unwrap().len(), 5);
    }
}

#[test]
fn a_missing_object_is_an_error_naming_the_url_at_once() {
    let s = Server::start(files(), Mode::plain(true));
    let url = s.url("a/missing.warc.gz");
    let o = crawlsift_ok(&["records", &url], 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&url) && err.contains("HTTP 404"), "{err}");
    assert_eq!(
        s.ranges_asked.lock().unwrap().len(),
        1,
        "a 404 is not retried"
    );
}

#[test]
fn an_input_list_under_an_http_prefix_reads_like_the_urls() {
    let d = local_copies();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"# two files\na/sample.warc.gz\n\na/sample.warc\n")
        .unwrap();
    let list_gz = enc.finish().unwrap();
    let mut served = files();
    served.insert("lists/paths.gz".into(), list_gz.clone());
    let s = Server::start(served, Mode::plain(true));
    let list = d.path().join("paths.txt.gz");
    std::fs::write(&list, list_gz).unwrap();
    let prefix = format!("http://127.0.0.1:{}/", s.port);
    let (u1, u2) = (s.url("a/sample.warc.gz"), s.url("a/sample.warc"));
    let want = crawlsift_ok(&["records", &u1, &u2], 0).stdout;
    assert!(!want.is_empty());
    // The list as a local file, and as a URL itself.
    for list in [list.to_str().unwrap().to_string(), s.url("lists/paths.gz")] {
        let args = ["records", "--input-list", &list, "--prefix", &prefix];
        assert_eq!(crawlsift_ok(&args, 0).stdout, want, "{list}");
    }
}

#[test]
fn dedup_over_http_matches_the_local_run() {
    let d = local_copies();
    let s = Server::start(files(), Mode::dropping(true, 3_000, 1));
    let local = d.path().join("a/sample.warc.gz");
    let url = s.url("a/sample.warc.gz");
    let (out_local, out_url) = (d.path().join("local"), d.path().join("url"));
    let local_s = local.to_str().unwrap();
    crawlsift_ok(&["dedup", local_s, "--out", out_local.to_str().unwrap()], 0);
    crawlsift_ok(&["dedup", &url, "--out", out_url.to_str().unwrap()], 0);
    let text = |p: std::path::PathBuf| String::from_utf8(contents(&p)).unwrap();
    for f in ["clusters.jsonl", "documents.jsonl.gz"] {
        let want = text(out_local.join(f)).replace(local_s, &url);
        assert_eq!(text(out_url.join(f)), want, "{f}");
    }
    assert!(text(out_url.join("clusters.jsonl")).contains(&url));
}

#[test]
fn a_busy_server_is_retried_and_a_wrong_range_refused() {
    let d = local_copies();
    let busy = Mode {
        busy: 2,
        ..Mode::plain(true)
    };
    let s = Server::start(files(), busy);
    let name = "a/sample.warc.gz";
    assert_records_match(d.path().join(name).to_str().unwrap(), &s.url(name));
    assert_eq!(
        s.ranges_asked.lock().unwrap().len(),
        3,
        "two 503s, then the file"
    );
    // A server that answers a resumption with other bytes than asked for is not believed.
    let liar = Mode {
        wrong_range: true,
        ..Mode::dropping(true, 2_000, 1)
    };
    let s = Server::start(files(), liar);
    let url = s.url(name);
    let o = crawlsift_ok(&["records", &url], 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&url) && err.contains("resuming at byte 2000"),
        "{err}"
    );
}
