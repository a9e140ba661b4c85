//! Every row of a dedup run over a file compressed whole (one gzip member, one zstd or LZ4 frame)
//! leads back to its record: `documents.jsonl.gz`, `clusters.jsonl` and `--text` rows give
//! `offset` and `uoffset`, and `crawlsift_reader::record_at` reads the record with that id there.

mod util;

use std::io::Read;
use std::path::Path;

use crawlsift_reader::RecordReader;
use util::inputs::{gzip, lz4_parts, zstd_parts};
use util::*;

/// The sample crawl's records, decompressed (it is gzipped a member per record).
fn sample_plain() -> Vec<u8> {
    let gz = std::fs::read(root().join("data/sample.warc.gz")).unwrap();
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Runs dedup with `--text` over `input` and reads every row's record back.
fn rows_lead_back(input: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let text = dir.path().join("clean.jsonl.gz");
    let o = crawlsift(&[
        "dedup",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--text",
        text.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut rows = json_lines(&out.join("documents.jsonl.gz"));
    rows.extend(json_lines(&text));
    for c in json_lines(&out.join("clusters.jsonl")) {
        rows.extend(c["members"].as_array().unwrap().iter().cloned());
    }
    assert!(rows.len() > 10, "{}", rows.len());
    let mut reader = RecordReader::new();
    let mut inside = 0;
    for row in &rows {
        let file = Path::new(row["file"].as_str().unwrap());
        let offset = row["offset"].as_u64().unwrap();
        let uoffset = row.get("uoffset").map_or(0, |u| u.as_u64().unwrap());
        assert_ne!(
            row.get("uoffset"),
            Some(&serde_json::json!(0)),
            "0 is left out"
        );
        inside += usize::from(uoffset > 0);
        let rec = reader
            .record_at(file, offset, uoffset)
            .unwrap_or_else(|e| panic!("{row}: {e}"));
        assert_eq!(rec.id, row["id"].as_str().unwrap(), "{row}");
    }
    assert!(inside > 10, "rows inside the one member or frame: {inside}");
}

#[test]
fn whole_file_gzip_rows_lead_back_to_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, gzip(&sample_plain())).unwrap();
    rows_lead_back(&path);
}

#[test]
fn one_frame_zstd_and_lz4_rows_lead_back_to_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let plain = sample_plain();
    let zst = dir.path().join("whole.warc.zst");
    std::fs::write(&zst, zstd_parts(&plain, 0, b"")).unwrap();
    rows_lead_back(&zst);
    let lz4 = dir.path().join("whole.warc.lz4");
    std::fs::write(&lz4, lz4_parts(&plain, 0, b"")).unwrap();
    rows_lead_back(&lz4);
}

/// An index over a file gzipped whole keeps a seek table for its one member (`IDX/seek/`), and
/// `get` reads each capture there: the record of its line, and with `--format raw` that record's
/// own bytes (not the whole member inflated). Without the table, or with a damaged one, `get`
/// gives the same answers the slow way.
#[test]
fn get_reads_a_capture_of_a_file_gzipped_whole_by_its_seek_table() {
    let dir = tempfile::tempdir().unwrap();
    let plain = sample_plain();
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, gzip(&plain)).unwrap();
    let idx = dir.path().join("idx");
    let o = crawlsift(&[
        "index",
        path.to_str().unwrap(),
        "--out",
        idx.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let table = idx.join("seek").join("whole.warc.gz@0");
    assert!(table.exists());
    let lines = std::fs::read_to_string(idx.join("index.cdxj")).unwrap();
    let urls: std::collections::BTreeSet<String> = lines
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(&l[l.find('{').unwrap()..]).unwrap();
            j["url"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(urls.len() > 5, "{}", urls.len());
    let answers = || -> Vec<(String, Vec<u8>)> {
        urls.iter()
            .map(|u| {
                let i = idx.to_str().unwrap();
                let json = crawlsift_ok(&["get", i, u, "--format", "json"], 0).stdout;
                let raw = crawlsift_ok(&["get", i, u, "--format", "raw"], 0).stdout;
                (String::from_utf8(json).unwrap(), raw)
            })
            .collect()
    };
    let by_table = answers();
    for (json, raw) in &by_table {
        let j: serde_json::Value = serde_json::from_str(json).unwrap();
        let id = j["record_id"].as_str().unwrap();
        // The raw bytes are the record's own: one header block, with its id, inside the file.
        assert!(raw.starts_with(b"WARC/1."), "{json}");
        assert_eq!(
            raw.windows(id.len())
                .filter(|w| *w == id.as_bytes())
                .count(),
            1,
            "{json}"
        );
        assert!(raw.len() < plain.len() / 2, "{json}: {} bytes", raw.len());
        assert!(plain.windows(raw.len()).any(|w| w == &raw[..]), "{json}");
    }
    let whole = std::fs::read(&table).unwrap();
    std::fs::write(&table, &whole[..whole.len() / 2]).unwrap();
    let damaged = answers();
    std::fs::remove_file(&table).unwrap();
    let without = answers();
    for ((a, b), c) in by_table.iter().zip(&damaged).zip(&without) {
        assert_eq!(a.0, b.0);
        assert_eq!(a.0, c.0);
        assert_eq!(b.1, c.1, "the slow way gives what it gave before");
    }
}
