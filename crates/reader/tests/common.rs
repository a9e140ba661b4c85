//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

use bytes::Bytes;
use crawlsift_reader::{read_bytes, FileReport, ReaderConfig, Record};

/// `../shared` beside the repository (the evaluation harness), for a test marked
/// `#[ignore = "needs ../shared"]` (run with `--include-ignored`): panics when it is missing, so
/// such a test fails rather than passing without testing.
pub fn needs_shared() -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
    assert!(
        p.is_dir(),
        "this test needs {} (the evaluation harness)",
        p.display()
    );
    p
}

/// Reads bytes with a config, returning all records and the report.
pub fn read_all(data: &[u8], cfg: &ReaderConfig) -> (Vec<Record>, FileReport) {
    let mut recs = Vec::new();
    let rep = read_bytes(Bytes::copy_from_slice(data), 0, cfg, &mut |b| {
        recs.extend(b);
        true
    });
    (recs, rep)
}

/// A config with one thread and the given buffer size.
pub fn cfg(buffer: usize) -> ReaderConfig {
    ReaderConfig {
        threads: 1,
        buffer_bytes: buffer,
        ..ReaderConfig::default()
    }
}

/// What a record looks like, for comparing two reads.
pub fn key(r: &Record) -> (u64, u64, String, String, Option<String>, Vec<u8>) {
    (
        r.pos.offset,
        r.pos.index,
        r.kind.as_str().to_string(),
        r.id.clone(),
        r.url.clone(),
        r.block.to_vec(),
    )
}

pub fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A WARC record with a correct Content-Length.
pub fn warc_record(kind: &str, id: &str, url: &str, block: &[u8]) -> Vec<u8> {
    let mut v = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Target-URI: {url}\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    v.extend_from_slice(block);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

pub fn http_block(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
