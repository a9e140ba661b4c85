//! End-to-end tests of `crawlsift records`: the JSON fields a user scripts against, the summary,
//! and the exit status that tells clean, damaged and unreadable input apart.

mod util;

use util::*;

#[test]
fn one_json_line_per_record_with_position_and_identity() {
    let o = crawlsift_ok(&["records", "data/sample.warc.gz"], 0);
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 23);
    let keys = [
        "file",
        "offset",
        "index",
        "type",
        "id",
        "url",
        "date",
        "content_type",
        "http_status",
        "payload_length",
    ];
    for (i, l) in lines.iter().enumerate() {
        for k in keys {
            assert!(l.get(k).is_some(), "line {i} lacks {k}: {l}");
        }
        assert_eq!(l["index"], i as u64);
    }
    assert_eq!(lines[0]["type"], "warcinfo");
    assert_eq!(lines[0]["offset"], 0);
    let resp = &lines[2];
    assert_eq!(resp["type"], "response");
    assert_eq!(resp["http_status"], 200);
    assert_eq!(resp["url"], "https://courier.example/harbour");
    // Offsets are strictly increasing member offsets.
    assert!(lines
        .windows(2)
        .all(|w| w[0]["offset"].as_u64() < w[1]["offset"].as_u64()));
}

#[test]
fn summary_counts_records_by_type_and_verifies_digests() {
    let o = crawlsift_ok(
        &[
            "records",
            "--summary",
            "--verify-digests",
            "data/sample.warc.gz",
        ],
        0,
    );
    let text = String::from_utf8(o.stdout).unwrap();
    let total = text
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .expect("a total line");
    assert!(total.contains("records=23"), "{total}");
    assert!(total.contains("response=11"), "{total}");
    assert!(total.contains("mismatch=0"), "{total}");
    assert!(
        total.contains("ok=23"),
        "every record of the sample has a correct block digest: {total}"
    );
}

#[test]
fn truncated_input_exits_3_and_names_the_offset_and_missing_input_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(root().join("data/sample.warc.gz")).unwrap();
    let cut = dir.path().join("cut.warc.gz");
    std::fs::write(&cut, &bytes[..bytes.len() - 500]).unwrap();
    // Finished, but with record errors: 3.
    let o = crawlsift_ok(&["records", cut.to_str().unwrap()], 3);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cut.warc.gz") && err.contains("byte "),
        "errors name file and offset: {err}"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).lines().count() >= 20,
        "records before the damage are kept"
    );

    let o = crawlsift_ok(&["records", "no/such/file.warc"], 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no/such/file.warc"), "{err}");
    assert_eq!(
        err.matches("os error 2").count(),
        1,
        "the cause is said once: {err}"
    );
}

#[test]
fn stdin_reads_like_a_file() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let bytes = std::fs::read(root().join("data/sample.warc.gz")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(["records", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    // The same records at the same offsets (their gzip members'), whatever the file is called.
    let lines = |b: &[u8]| -> Vec<serde_json::Value> {
        String::from_utf8_lossy(b)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["file"] = serde_json::Value::Null;
                v
            })
            .collect()
    };
    let mapped = crawlsift_ok(&["records", "data/sample.warc.gz"], 0);
    let piped = lines(&out.stdout);
    assert_eq!(piped.len(), 23);
    assert_eq!(piped, lines(&mapped.stdout));
    assert!(piped.iter().filter(|v| v["offset"] != 0).count() >= 22);
}

#[test]
fn extract_prints_one_document_per_page() {
    let o = crawlsift_ok(&["extract", "data/sample.warc.gz"], 0);
    let docs: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(docs.len(), 8);
    let harbour = docs
        .iter()
        .find(|d| d["url"] == "https://courier.example/harbour")
        .unwrap();
    let text = harbour["text"].as_str().unwrap();
    assert!(text.contains("The old harbour bridge reopened"));
    assert!(
        !text.contains("Most read"),
        "the sidebar is not main text: {text}"
    );
    assert!(
        !text.contains("Privacy"),
        "the footer is not main text: {text}"
    );
    assert_eq!(harbour["content_type"], "text/html");
    let apples = docs
        .iter()
        .find(|d| d["url"] == "https://growers-blog.example/posts/apples")
        .unwrap();
    assert_eq!(apples["charset"], "windows-1252");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("image=1") && err.contains("http_status="),
        "skips are counted by reason: {err}"
    );
}

/// One WARC resource record dated `date` (as written).
fn dated(date: &str, uri: &str) -> Vec<u8> {
    let body = b"hello";
    let mut v = format!(
        "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:{uri}>\r\nWARC-Date: {date}\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    v.extend_from_slice(body);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

#[test]
fn dates_are_iso_utc_with_the_raw_value_where_it_differs() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("dates.warc");
    let mut bytes = dated("2017-03-06T04:02:06Z", "http://a/");
    bytes.extend(dated("2009-03-28T08:13:42-0700", "http://b/"));
    bytes.extend(dated("2009-03-78T08:13:42-0700", "http://c/"));
    std::fs::write(&warc, bytes).unwrap();
    let arc = dir.path().join("one.arc");
    let page = b"HTTP/1.0 200 OK\nContent-Type: text/plain\n\nhi\n";
    let mut a = b"filedesc://one.arc 0.0.0.0 20080430204825 text/plain 76\n1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n\n".to_vec();
    a.extend(
        format!(
            "http://d/ 1.2.3.4 20080430204826 text/plain {}\n",
            page.len()
        )
        .bytes(),
    );
    a.extend_from_slice(page);
    a.push(b'\n');
    std::fs::write(&arc, a).unwrap();
    let o = crawlsift(&["records", warc.to_str().unwrap(), arc.to_str().unwrap()]);
    let rows: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_url = |u: &str| rows.iter().find(|r| r["url"] == u).unwrap().clone();
    let a = by_url("http://a/");
    assert_eq!(a["date"], "2017-03-06T04:02:06Z");
    assert!(a.get("date_raw").is_none(), "{a}");
    let b = by_url("http://b/");
    assert_eq!(b["date"], "2009-03-28T15:13:42Z");
    assert_eq!(b["date_raw"], "2009-03-28T08:13:42-0700");
    let c = by_url("http://c/");
    assert!(
        c["date"].is_null(),
        "an invalid date is never passed through: {c}"
    );
    assert_eq!(c["date_raw"], "2009-03-78T08:13:42-0700");
    let d = by_url("http://d/");
    assert_eq!(d["date"], "2008-04-30T20:48:26Z");
    assert_eq!(d["date_raw"], "20080430204826");
    let o = crawlsift(&["records", "--summary", warc.to_str().unwrap()]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains(" invalid_dates=1 "), "{text}");
    // A dedup run's report counts them too, whether the record gave a document or not.
    let out = dir.path().join("d");
    let inputs = [warc.to_str().unwrap(), arc.to_str().unwrap()];
    crawlsift(&[
        "dedup",
        inputs[0],
        inputs[1],
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["invalid_dates"], 1, "{report}");
}

/// `--verify-digests` says the outcome of each record's digests on its own line (`block_digest`,
/// `payload_digest`: ok, mismatch or unsupported), not only in the summary's counts; without
/// the flag, or without the header, the fields are absent.
#[test]
fn verify_digests_gives_each_records_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let block = "The harbour bridge reopened on Monday.\n";
    // sha1 of `block`, base32 (as WARC writers give it).
    let digest = "sha1:P5GLFH565X5UP4UEQNKOVPQF2ZEE54FE";
    let record = |id: &str, block: &str, digest: &str| {
        format!(
            "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{id}>\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{id}\r\n\
             Content-Type: text/plain\r\nWARC-Block-Digest: {digest}\r\n\
             Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    };
    let warc = dir.path().join("digests.warc");
    let text = [
        record("right", block, digest),
        record("wrong", &block.replace("Monday", "Sunday"), digest),
        record("odd", block, "crc32:0000"),
    ]
    .concat();
    std::fs::write(&warc, text).unwrap();
    let w = warc.to_str().unwrap();
    let o = crawlsift_ok(&["records", "--verify-digests", w], 3);
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let outcomes: Vec<&str> = lines
        .iter()
        .map(|l| l["block_digest"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ok", "mismatch", "unsupported"], "{lines:?}");
    assert!(lines.iter().all(|l| l.get("payload_digest").is_none()));
    let o = crawlsift_ok(&["records", w], 0);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("_digest"));
}
