//! `crawlsift wacz` (issue #38): a WACZ package of archives: a stored ZIP (Python's `zipfile`
//! tests every entry's CRC) holding the archives rewritten, the CDXJ index, the pages with their
//! text and datapackage.json with every file's size and SHA-256; the same bytes from the same
//! inputs. `scripts/ci-gates/wacz.sh` has py-wacz validate it, and `pywb.sh` serves it.

mod util;

use std::process::Command;

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
    let out = Command::new("python3")
        .args(["-c", py, a.to_str().unwrap()])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
