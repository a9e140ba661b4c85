//! The anchor texts an index keeps (`crawlsift index --anchors`, in `IDX/anchors/`): one file a
//! build and one more for each `--append`, none ever rewritten, each looked up by URL in place.
//! A document indexed earlier gets the anchor texts of archives appended later (the seed's store
//! "updated with new anchor text") by the files added beside its own, summed at lookup
//! ([`anchors_in`]).
//!
//! A file is UTF-8 text, one line a linked URL (normalised, [`crate::resolve`]), in byte order of
//! the URLs: `URL<TAB>JSON<LF>`, where JSON is the URL's anchor texts as `anchors.jsonl.gz` gives
//! them ([`AnchorGiven`]: `text`, `other_hosts`, `same_host`; most given first, then by text). A
//! normalised URL holds no tab or line feed (they are percent-encoded). A lookup is a binary
//! search over the mapped bytes: about log2(lines) line reads, no load step. A file that breaks
//! the layout gives [`LinksError::Damaged`] with its byte offset, never a panic.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

use crawlsift_common::fs::{map_or_read, AtomicFile};
use serde::{Deserialize, Serialize};

use crate::graph::{AnchorRow, Graph};
use crate::LinksError;

/// The folder of an index that holds its anchor files.
pub const ANCHORS_DIR: &str = "anchors";

/// The extension of an anchor file.
pub const ANCHOR_FILE_EXT: &str = "anchors";

/// One anchor text a URL is given, summed over an index's anchor files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    /// The anchor text.
    pub text: String,
    /// Links from pages of other hosts.
    pub other_hosts: u64,
    /// Links from pages of the URL's own host.
    pub same_host: u64,
}

impl Graph {
    /// Writes the anchor texts of every linked URL to the anchor file `path` (whole or not at
    /// all); returns the URLs written.
    pub fn write_anchor_file(&self, path: &Path) -> Result<u64, LinksError> {
        let io = |e| LinksError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let mut groups: Vec<(&str, &[AnchorRow])> = self.anchor_groups().collect();
        groups.sort_unstable_by(|a, b| a.0.cmp(b.0));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = AtomicFile::create(path).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 18, file);
        let mut buf = Vec::new();
        for (url, group) in &groups {
            buf.clear();
            buf.extend_from_slice(url.as_bytes());
            buf.push(b'\t');
            let given: Vec<_> = group.iter().map(|r| self.given(r)).collect();
            serde_json::to_writer(&mut buf, &given).expect("strings and numbers serialise");
            buf.push(b'\n');
            out.write_all(&buf).map_err(io)?;
        }
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.commit().map_err(io)?;
        Ok(groups.len() as u64)
    }
}

/// The anchor texts `url` (normalised) is given in the anchor file at `path`, as written.
pub fn anchors_in_file(path: &Path, url: &str) -> Result<Vec<Anchor>, LinksError> {
    let bytes = map_or_read(path).map_err(|e| LinksError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let damaged = |offset: usize, what: String| LinksError::Damaged {
        path: path.to_path_buf(),
        offset: offset as u64,
        what,
    };
    let Some(start) = find_line(&bytes, url.as_bytes()) else {
        return Ok(Vec::new());
    };
    let line = line_at(&bytes, start);
    let Some(tab) = line.iter().position(|&b| b == b'\t') else {
        return Err(damaged(start, "a line without a tab".into()));
    };
    if &line[..tab] != url.as_bytes() {
        return Ok(Vec::new());
    }
    serde_json::from_slice(&line[tab + 1..])
        .map_err(|e| damaged(start + tab + 1, format!("anchor texts: {e}")))
}

/// The anchor texts `url` (normalised) is given by every anchor file in `dir` (none when there
/// is no such folder), summed text by text, most given first, then by text.
pub fn anchors_in(dir: &Path, url: &str) -> Result<Vec<Anchor>, LinksError> {
    let mut sum: HashMap<String, [u64; 2]> = HashMap::new();
    for path in anchor_files(dir)? {
        for a in anchors_in_file(&path, url)? {
            let n = sum.entry(a.text).or_default();
            n[0] += a.other_hosts;
            n[1] += a.same_host;
        }
    }
    let mut all: Vec<Anchor> = sum
        .into_iter()
        .map(|(text, n)| Anchor {
            text,
            other_hosts: n[0],
            same_host: n[1],
        })
        .collect();
    all.sort_by(|a, b| {
        let given = |a: &Anchor| std::cmp::Reverse(a.other_hosts + a.same_host);
        (given(a), &a.text).cmp(&(given(b), &b.text))
    });
    Ok(all)
}

/// The anchor files in `dir`, in name order; none when `dir` does not exist.
pub fn anchor_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, LinksError> {
    let io = |e| LinksError::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(e)),
    };
    let mut files = Vec::new();
    for e in entries {
        let path = e.map_err(io)?.path();
        if path.extension().is_some_and(|x| x == ANCHOR_FILE_EXT) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Where the first line starting at or after `pos` starts (`bytes.len()` past the last).
fn line_start(bytes: &[u8], pos: usize) -> usize {
    if pos == 0 {
        return 0;
    }
    match bytes.get(pos - 1..).and_then(|b| memchr::memchr(b'\n', b)) {
        Some(i) => pos + i,
        None => bytes.len(),
    }
}

/// The line starting at `start`, without its line feed.
fn line_at(bytes: &[u8], start: usize) -> &[u8] {
    let rest = bytes.get(start..).unwrap_or_default();
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    &rest[..end]
}

/// The start of the first line whose URL is not below `key`, if any.
fn find_line(bytes: &[u8], key: &[u8]) -> Option<usize> {
    // Lines starting before `lo` hold URLs below the key; the first line starting at or after
    // `hi` holds one not below it (or there is none).
    let (mut lo, mut hi) = (0, bytes.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let s = line_start(bytes, mid);
        if s >= hi {
            hi = mid;
            continue;
        }
        let line = line_at(bytes, s);
        let url = line.split(|&b| b == b'\t').next().unwrap_or_default();
        if url < key {
            lo = s + line.len() + 1;
        } else {
            hi = mid;
        }
    }
    let s = line_start(bytes, lo);
    (s < bytes.len()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, Link};

    fn graph(pages: &[(&str, &[(&str, &str)])]) -> Graph {
        let mut b = GraphBuilder::new();
        for (page, links) in pages {
            let links = links.iter().map(|(url, text)| Link {
                url,
                text,
                nofollow: false,
            });
            b.add_page(page, links).unwrap();
        }
        b.finish(2)
    }

    #[test]
    fn every_linked_url_is_found_and_files_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let targets: Vec<String> = (0..500)
            .map(|i| format!("http://t{i:03}.example/p"))
            .collect();
        let links: Vec<(&str, &str)> = targets.iter().map(|t| (t.as_str(), "go")).collect();
        let first = graph(&[
            ("http://a.example/", &links),
            ("http://b.example/", &[("http://t007.example/p", "seven")]),
        ]);
        let f1 = dir.path().join("seg-000000.anchors");
        assert_eq!(first.write_anchor_file(&f1).unwrap(), 500);
        for t in &targets {
            let got = anchors_in_file(&f1, t).unwrap();
            assert_eq!(
                got.iter().map(|a| a.other_hosts).sum::<u64>(),
                1 + u64::from(t.contains("t007")),
                "{t}"
            );
        }
        for absent in [
            "",
            "http://a.example/",
            "http://t999.example/p",
            "zzz",
            "http://t000.example/",
        ] {
            assert!(anchors_in_file(&f1, absent).unwrap().is_empty(), "{absent}");
        }
        // An appended archive's links add to what the first file gives.
        let later = graph(&[("http://c.example/", &[("http://t007.example/p", "seven")])]);
        later
            .write_anchor_file(&dir.path().join("seg-000001.anchors"))
            .unwrap();
        let got = anchors_in(dir.path(), "http://t007.example/p").unwrap();
        let texts: Vec<(&str, u64)> = got
            .iter()
            .map(|a| (a.text.as_str(), a.other_hosts))
            .collect();
        assert_eq!(texts, [("seven", 2), ("go", 1)]);
        assert!(anchors_in(&dir.path().join("none"), "x")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_damaged_file_names_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.anchors");
        std::fs::write(&f, "http://a/\t[{\"text\":\"a\",\"other_hosts\":1,\"same_host\":0}]\nhttp://b/\tnot json\nhttp://c/\n").unwrap();
        assert_eq!(anchors_in_file(&f, "http://a/").unwrap().len(), 1);
        let e = anchors_in_file(&f, "http://b/").unwrap_err();
        assert!(matches!(e, LinksError::Damaged { offset: 65, .. }), "{e}");
        assert!(matches!(
            anchors_in_file(&f, "http://c/"),
            Err(LinksError::Damaged { .. })
        ));
        std::fs::write(&f, "").unwrap();
        assert!(anchors_in_file(&f, "http://a/").unwrap().is_empty());
    }
}
