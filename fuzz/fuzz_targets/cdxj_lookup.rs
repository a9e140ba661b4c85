//! The lookup path over a user's `index.cdxj` (what `crawlsift get` and `query --url` read):
//! the input's first line is the URL (or key) asked for, the rest is the index file. Every line is
//! read back (`Capture::parse`; a line that parses gives the same capture once written again), the
//! lines are checked as `--append` checks them, and the mapped binary search
//! (`CdxjFile::captures`) finds only lines of the key asked for, in order, at most
//! `CDXJ_MAX_CAPTURES`; the capture closest to a time is one of them. When the index is sorted,
//! the ZipNum files written from it give the same captures, and a ZipNum summary that is the
//! input itself is an answer or an error.
#![no_main]
use std::path::PathBuf;

use crawlsift_cdxj::fetch::closest;
use crawlsift_cdxj::merge::checked_lines;
use crawlsift_cdxj::surt::surt;
use crawlsift_cdxj::{zipnum, Capture, CdxjFile, ZipNum, INDEX};
use crawlsift_common::limits::CDXJ_MAX_CAPTURES;
use libfuzzer_sys::fuzz_target;

/// Lines read back and keys looked up per input (the rest of a long input is only searched).
const LINES: usize = 64;
const KEYS: usize = 4;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("crawlsift-fuzz-cdxj-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("a temporary directory");
    d
}

fn lookup(f: &CdxjFile, key: &str) -> Option<Vec<Capture>> {
    let found = f.captures(key).ok()?;
    assert!(found.len() <= CDXJ_MAX_CAPTURES);
    for w in found.windows(2) {
        assert!(w[0].0 < w[1].0, "captures in file order");
    }
    for (_, c) in &found {
        assert_eq!(c.key, key, "a capture of another key");
    }
    Some(found.into_iter().map(|c| c.1).collect())
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let asked = String::from_utf8_lossy(&data[..split]).into_owned();
    let index = &data[(split + 1).min(data.len())..];
    let dir = dir();
    let path = dir.join(INDEX);
    std::fs::write(&path, index).expect("writing the index");

    let text = String::from_utf8_lossy(index);
    let mut keys = vec![asked.clone(), surt(&asked)];
    for line in text.split('\n').take(LINES) {
        if let Ok(c) = Capture::parse(line) {
            let again = Capture::parse(&c.to_line()).expect("a written line reads back");
            assert_eq!(again, c, "{line:?}");
            if keys.len() < KEYS + 2 {
                keys.push(c.key);
            }
        }
    }
    let sorted = checked_lines(&path, index).all(|l| l.is_ok());

    let f = CdxjFile::open(&path).expect("opening the index");
    let zip = sorted && zipnum::write(&dir).is_ok();
    for key in &keys {
        let Some(found) = lookup(&f, key) else {
            continue;
        };
        let ts = asked.rsplit(' ').next();
        if let Some(c) = closest(&found, ts) {
            assert!(found.contains(c));
        }
        if zip {
            let z = ZipNum::open(&dir).expect("the ZipNum files just written");
            if let Ok(zfound) = z.captures(key) {
                assert_eq!(zfound, found, "ZipNum and plain index differ on {key:?}");
            }
        }
    }
    // A hostile summary: the input as `index.idx`.
    std::fs::write(dir.join(zipnum::SUMMARY), index).expect("writing the summary");
    if let Ok(z) = ZipNum::open(&dir) {
        for key in &keys {
            let _ = z.captures(key);
        }
    }
    for name in [INDEX, zipnum::SUMMARY, zipnum::BLOCKS, zipnum::LOC] {
        let _ = std::fs::remove_file(dir.join(name));
    }
});
