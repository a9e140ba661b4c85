//! `crawlsift wacz` (issue #38): a WACZ package of archives: a stored ZIP (Python's `zipfile`
//! tests every entry's CRC) holding the archives rewritten, the CDXJ index, the pages with their
//! text and datapackage.json with every file's size and SHA-256; the same bytes from the same
//! inputs; an index past the plain limit (forced here with the hidden `--plain-index-max-lines`)
//! packed as ZipNum, its summary locating gzip blocks that hold every line of the plain index in
//! order. `scripts/ci-gates/wacz.sh` has py-wacz validate both, and `pywb.sh` serves them.

mod util;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use util::inputs::warc_head;
use util::*;

#[test]
fn a_package_is_a_stored_zip_of_what_a_replayer_needs_and_the_same_bytes_again() {
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("data/sample.warc.gz");
    let (a, b) = (dir.path().join("a.wacz"), dir.path().join("b.wacz"));
    for (out, threads) in [(&a, "1"), (&b, "3")] {
        let o = out.to_str().unwrap();
        crawlsift_ok(
            &[
                "wacz",
                sample.to_str().unwrap(),
                "--out",
                o,
                "-q",
                "-j",
                threads,
            ],
            0,
        );
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let py = r#"
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
dp = json.loads(z.read("datapackage.json"))
assert dp["wacz_version"] == "1.1.1" and dp["profile"] == "data-package"
for r in dp["resources"]:
    data = z.read(r["path"])
    assert r["hash"] == "sha256:" + hashlib.sha256(data).hexdigest() and r["bytes"] == len(data)
pages = [json.loads(l) for l in z.read("pages/pages.jsonl").decode().splitlines()]
assert pages[0]["format"] == "json-pages-1.0"
print(json.dumps({"names": z.namelist(), "pages": pages[1:]}))
"#;
    let out = python(py, &[a.as_path()]);
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = got["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "archive/sample.warc.gz",
            "indexes/index.cdx",
            "pages/pages.jsonl",
            "datapackage.json",
            "datapackage-digest.json"
        ]
    );
    // Every page of the sample with its main text (the apples page among them), as extract
    // gives the text of the same records.
    let pages = got["pages"].as_array().unwrap();
    assert!(pages.len() >= 5, "{pages:?}");
    assert!(pages
        .iter()
        .all(|p| p["text"].as_str().is_some_and(|t| !t.trim().is_empty())));
    assert!(pages
        .iter()
        .any(|p| p["text"].as_str().unwrap().contains("apple")));
    // An existing package is not overwritten without --force.
    let again = [
        "wacz",
        sample.to_str().unwrap(),
        "--out",
        a.to_str().unwrap(),
    ];
    crawlsift_ok(&again, 1);
}

/// Unpacks the package `wacz` into `dir` with Python's `zipfile` (which checks every CRC).
fn unpack(wacz: &Path, dir: &Path) {
    let py = "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; z.extractall(sys.argv[2])";
    python(py, &[wacz, dir]);
}

/// Runs the Python program `py` with `args` (it must succeed, and python3 must be there) and
/// gives its output.
fn python(py: &str, args: &[&Path]) -> std::process::Output {
    let out = Command::new("python3")
        .args(["-c", py])
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The files of an unpacked package's `indexes/`, sorted.
fn index_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("indexes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_large_index_is_packed_as_zipnum_blocks_holding_every_line_in_order() {
    let dir = tempfile::tempdir().unwrap();
    // 7,000 small responses at distinct URLs: 7,000 index lines, three blocks of 3,000 at most.
    let warc = dir.path().join("many.warc");
    let mut data = Vec::new();
    for i in 0..7_000 {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody {i}");
        data.extend(warc_head(&format!("p{i:05}"), &http.len().to_string()));
        data.extend(http.as_bytes());
        data.extend(b"\r\n\r\n");
    }
    std::fs::write(&warc, data).unwrap();
    let pack = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec![
            "wacz",
            warc.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        args.extend(extra);
        crawlsift_ok(&args, 0);
        let unpacked = dir.path().join(format!("{name}.d"));
        unpack(&out, &unpacked);
        (out, unpacked)
    };
    // Below the default limit the index is plain.
    let (_, plain) = pack("plain.wacz", &[]);
    assert_eq!(index_files(&plain), ["index.cdx"]);
    let index = std::fs::read_to_string(plain.join("indexes/index.cdx")).unwrap();
    let lines = index.lines().count();
    assert_eq!(lines, 7_000);
    // At the limit it stays plain; one line past it, ZipNum, the same for any thread count.
    let (_, at) = pack("at.wacz", &["--plain-index-max-lines", "7000"]);
    assert_eq!(index_files(&at), ["index.cdx"]);
    let (z1, zipnum) = pack("z1.wacz", &["--plain-index-max-lines", "6999", "-j", "1"]);
    let (z3, _) = pack("z3.wacz", &["--plain-index-max-lines", "6999", "-j", "3"]);
    assert_eq!(std::fs::read(&z1).unwrap(), std::fs::read(&z3).unwrap());
    assert_eq!(index_files(&zipnum), ["index.cdx.gz", "index.idx"]);
    let summary = std::fs::read_to_string(zipnum.join("indexes/index.idx")).unwrap();
    let blocks = std::fs::read(zipnum.join("indexes/index.cdx.gz")).unwrap();
    let mut summary = summary.lines();
    assert_eq!(
        summary.next(),
        Some(r#"!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}"#)
    );
    let (mut at, mut n, mut found) = (0usize, 0, String::new());
    for line in summary {
        let (prefix, json) = line.split_at(line.find(" {").unwrap());
        let place: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(place["offset"].as_u64(), Some(at as u64), "{line}");
        let len = place["length"].as_u64().unwrap() as usize;
        let mut block = String::new();
        flate2::read::GzDecoder::new(&blocks[at..at + len])
            .read_to_string(&mut block)
            .unwrap();
        assert!(block.starts_with(&format!("{prefix} {{")), "{prefix}");
        assert!(block.lines().count() <= 3_000);
        found.push_str(&block);
        at += len;
        n += 1;
    }
    assert_eq!((n, at), (3, blocks.len()));
    // Every line of the plain index, in order, and nothing else.
    assert_eq!(found, index);
    // datapackage.json lists the two index files with their sizes and SHA-256 (the first test
    // checks the hashes of every listed file with Python).
    let dp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(zipnum.join("datapackage.json")).unwrap()).unwrap();
    let paths: Vec<(&str, u64)> = dp["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap(), r["bytes"].as_u64().unwrap()))
        .filter(|(p, _)| p.starts_with("indexes/"))
        .collect();
    let idx_len = std::fs::metadata(zipnum.join("indexes/index.idx"))
        .unwrap()
        .len();
    assert_eq!(
        paths,
        [
            ("indexes/index.cdx.gz", blocks.len() as u64),
            ("indexes/index.idx", idx_len)
        ]
    );
    // The option is wacz's: rewrite refuses it as a usage error.
    let rw = dir.path().join("rw");
    let args = [
        "rewrite",
        warc.to_str().unwrap(),
        "--out",
        rw.to_str().unwrap(),
        "--plain-index-max-lines",
        "1",
    ];
    crawlsift_ok(&args, 2);
}
