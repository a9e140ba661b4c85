//! `crawlsift check` (issue #38): strict validation names every problem with its file, offset and
//! record id, finds the defects of the damaged real files and nothing on clean ones, and ends with
//! status 3 when it found any.

mod util;

use std::path::Path;

use util::*;

/// The problems `check` prints for `path`, and its status.
fn check(path: &Path) -> (Vec<serde_json::Value>, Option<i32>) {
    let o = crawlsift(&["check", path.to_str().unwrap(), "-q"]);
    let lines = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, o.status.code())
}

fn kinds(lines: &[serde_json::Value]) -> Vec<&str> {
    let mut k: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    k.sort_unstable();
    k.dedup();
    k
}

fn record(id: &str, extra: &str, block: &str, length: usize) -> String {
    format!(
        "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{id}>\r\n{extra}\
         WARC-Target-URI: http://example.com/{id}\r\nContent-Type: text/plain\r\n\
         Content-Length: {length}\r\n\r\n{block}\r\n\r\n"
    )
}

#[test]
fn every_problem_is_named_with_its_place_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let date = "WARC-Date: 2024-05-01T10:00:00Z\r\n";
    let mut w = String::new();
    w += &record("good", date, "fine text", 9);
    // No WARC-Date: a field WARC 1.1 requires.
    w += &record("nodate", "", "no date here", 12);
    // An invalid date.
    w += &record(
        "baddate",
        "WARC-Date: 2009-03-78T08:13:42Z\r\n",
        "odd date",
        8,
    );
    // A block digest that does not match (sha1 of something else).
    w += &record(
        "digest",
        &format!("{date}WARC-Block-Digest: sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\r\n"),
        "not the digested bytes",
        22,
    );
    // A Content-Length that runs into the next record.
    w += &record("long", date, "short", 40);
    w += &record("after", date, "the record after", 16);
    // Twenty stretches of stray bytes between records.
    for i in 0..20 {
        w += &format!("garbage line {i}\r\n\r\n");
        w += &record(&format!("g{i}"), date, "ok", 2);
    }
    let path = dir.path().join("mixed.warc");
    std::fs::write(&path, &w).unwrap();
    let (lines, status) = check(&path);
    assert_eq!(status, Some(3));
    let named = |kind: &str| -> Vec<&str> {
        lines
            .iter()
            .filter(|l| l["kind"] == kind)
            .map(|l| l["id"].as_str().unwrap_or("-"))
            .collect()
    };
    assert_eq!(named("missing_field"), ["<urn:uuid:nodate>"]);
    assert_eq!(named("invalid_date"), ["<urn:uuid:baddate>"]);
    assert_eq!(named("block_digest"), ["<urn:uuid:digest>"]);
    // The Content-Length that runs into the next record, then each record that stray bytes
    // follow before the next one: twenty-one, every one listed, not only the first few.
    let mut expected = vec![
        "<urn:uuid:long>".to_string(),
        "<urn:uuid:after>".to_string(),
    ];
    expected.extend((0..19).map(|i| format!("<urn:uuid:g{i}>")));
    assert_eq!(named("bad_length"), expected);
    for l in lines.iter().filter(|l| l["kind"] == "bad_length").skip(1) {
        assert!(
            l["message"].as_str().unwrap().contains("bytes after the"),
            "{l}"
        );
    }
    let offsets: Vec<u64> = lines
        .iter()
        .map(|l| l["offset"].as_u64().unwrap())
        .collect();
    assert!(
        offsets.windows(2).all(|p| p[0] <= p[1]),
        "by offset: {offsets:?}"
    );
    let long = lines.iter().find(|l| l["kind"] == "bad_length").unwrap();
    assert_eq!(
        long["offset"].as_u64().unwrap() as usize,
        w.find("WARC-Record-ID: <urn:uuid:long>").unwrap()
            - "WARC/1.1\r\nWARC-Type: resource\r\n".len()
    );
    assert!(long["message"]
        .as_str()
        .unwrap()
        .contains("Content-Length 40"));
    // The clean records alone: nothing, status 0.
    let clean = dir.path().join("clean.warc");
    std::fs::write(&clean, record("good", date, "fine text", 9)).unwrap();
    assert_eq!(check(&clean), (Vec::new(), Some(0)));
}

#[test]
fn the_damaged_real_files_are_found_and_the_clean_ones_pass() {
    let real = needs_shared().join("corpus").join("real");
    // Each damaged file with the kinds of problem it must show (its known defect).
    for (file, must) in [
        ("resiliparse_clipped.warc.gz", vec!["bad_gzip", "truncated"]),
        ("jwat_record_then_garbage.warc", vec!["garbage"]),
        ("gowarc_corrupted_mid_record.warc.gz", vec!["garbage"]),
        (
            "warcio_trunc.warc",
            vec!["block_digest", "payload_digest", "record_trailer"],
        ),
        (
            "warciojs_bad_length.warc",
            vec!["block_digest", "record_trailer"],
        ),
        (
            "anserini_cw09_sample.warc.gz",
            vec!["invalid_date", "record_trailer"],
        ),
    ] {
        let (lines, status) = check(&real.join(file));
        assert_eq!(status, Some(3), "{file}");
        let found = kinds(&lines);
        for k in must {
            assert!(found.contains(&k), "{file}: {k} not in {found:?}");
        }
        assert!(lines
            .iter()
            .all(|l| l["file"].as_str().unwrap().ends_with(file)));
    }
    for file in [
        "warcio_example.warc.gz",
        "pywb_dupes.warc.gz",
        "gowarc_test.warc.gz",
        "jwarc_cc.warc.gz",
        "ukwa_wget_gzip_encoding.warc",
        "aut_heritrix_warc017.warc.gz",
        "aut_heritrix_example.arc.gz",
        "resiliparse_warcfile.warc.gz",
    ] {
        assert_eq!(check(&real.join(file)), (Vec::new(), Some(0)), "{file}");
    }
}
