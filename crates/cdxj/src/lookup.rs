//! Finding the captures of one SURT key with no load step: a binary search over the byte offsets
//! of the memory-mapped, sorted `index.cdxj` (each probe backs up to its line's start), then a
//! forward scan over the lines of that key. Damage met on the way (a line that does not parse,
//! lines out of order, a line longer than `CDXJ_MAX_LINE_BYTES`) is an error naming the file and
//! the byte offset, never a panic.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use crawlsift_common::limits::{CDXJ_MAX_CAPTURES, CDXJ_MAX_LINE_BYTES};

use crate::error::CdxjError;
use crate::line::Capture;
use crate::merge::line_cmp;

/// A sorted CDXJ file, mapped.
pub struct CdxjFile {
    path: PathBuf,
    data: Data,
}

enum Data {
    Map(crawlsift_common::fs::FileBytes),
    Empty,
}

impl CdxjFile {
    /// Maps `path`.
    pub fn open(path: &Path) -> Result<CdxjFile, CdxjError> {
        let file = std::fs::File::open(path).map_err(|e| CdxjError::io(path, e))?;
        let len = file.metadata().map_err(|e| CdxjError::io(path, e))?.len();
        let data = if len == 0 {
            Data::Empty
        } else {
            // An index rewritten meanwhile is replaced by rename, leaving this map on the old file.
            Data::Map(crawlsift_common::fs::map_open(&file).map_err(|e| CdxjError::io(path, e))?)
        };
        Ok(CdxjFile {
            path: path.to_path_buf(),
            data,
        })
    }

    fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Map(m) => m,
            Data::Empty => &[],
        }
    }

    /// The captures whose key is `key`, in index order, with their line offsets (at most
    /// `CDXJ_MAX_CAPTURES`).
    pub fn captures(&self, key: &str) -> Result<Vec<(u64, Capture)>, CdxjError> {
        let data = self.bytes();
        let prefix = format!("{key} ");
        let mut at = first_at_or_after(&self.path, data, prefix.as_bytes())?;
        let mut out = Vec::new();
        let mut prev: Option<&str> = None;
        while at < data.len() && out.len() < CDXJ_MAX_CAPTURES {
            let (line, next) = line_at(&self.path, data, at)?;
            if !line.as_bytes().starts_with(prefix.as_bytes()) {
                if cmp_prefix(line.as_bytes(), prefix.as_bytes()) == Ordering::Less {
                    return Err(unsorted(&self.path, at));
                }
                break;
            }
            if prev.is_some_and(|p| line_cmp(p, line) == Ordering::Greater) {
                return Err(unsorted(&self.path, at));
            }
            let c =
                Capture::parse(line).map_err(|m| CdxjError::damaged(&self.path, at as u64, m))?;
            out.push((at as u64, c));
            prev = Some(line);
            at = next;
        }
        Ok(out)
    }
}

fn unsorted(path: &Path, at: usize) -> CdxjError {
    CdxjError::damaged(
        path,
        at as u64,
        "line out of order (the index is not sorted)",
    )
}

/// Compares the start of `line` with `prefix` (a line starting with it is Equal).
pub(crate) fn cmp_prefix(line: &[u8], prefix: &[u8]) -> Ordering {
    let n = prefix.len().min(line.len());
    match line[..n].cmp(&prefix[..n]) {
        Ordering::Equal if line.len() < prefix.len() => Ordering::Less,
        o => o,
    }
}

/// Start of the line holding byte `pos` (a line starts after `\n`), looking back at most
/// `CDXJ_MAX_LINE_BYTES`.
fn line_start(path: &Path, data: &[u8], pos: usize) -> Result<usize, CdxjError> {
    let from = pos.saturating_sub(CDXJ_MAX_LINE_BYTES);
    match data[from..pos].iter().rposition(|&c| c == b'\n') {
        Some(i) => Ok(from + i + 1),
        None if from == 0 => Ok(0),
        None => Err(CdxjError::damaged(path, pos as u64, "line too long")),
    }
}

/// The line starting at `at` (without its newline) and where the next starts.
pub(crate) fn line_at<'a>(
    path: &Path,
    data: &'a [u8],
    at: usize,
) -> Result<(&'a str, usize), CdxjError> {
    let limit = data.len().min(at.saturating_add(CDXJ_MAX_LINE_BYTES + 1));
    let end = match data[at..limit].iter().position(|&c| c == b'\n') {
        Some(i) => at + i,
        None if limit == data.len() => data.len(),
        None => return Err(CdxjError::damaged(path, at as u64, "line too long")),
    };
    let line = std::str::from_utf8(&data[at..end])
        .map_err(|_| CdxjError::damaged(path, at as u64, "line is not UTF-8"))?;
    Ok((line, end + 1))
}

/// Byte offset of the first line that is not below `prefix` (`data.len()` if none).
pub(crate) fn first_at_or_after(
    path: &Path,
    data: &[u8],
    prefix: &[u8],
) -> Result<usize, CdxjError> {
    let (mut lo, mut hi) = (0usize, data.len());
    // Invariant: every line starting before `lo` is below `prefix`; the line at `hi` (if any)
    // is not. Each probe moves one of them past a whole line, so this ends.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = line_start(path, data, mid)?.max(lo);
        let (line, next) = line_at(path, data, start)?;
        if cmp_prefix(line.as_bytes(), prefix) == Ordering::Less {
            lo = next.min(data.len());
        } else {
            hi = start;
        }
    }
    Ok(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, CdxjFile) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.cdxj");
        std::fs::write(&p, text).unwrap();
        let f = CdxjFile::open(&p).unwrap();
        (dir, f)
    }

    fn line(key: &str, ts: &str, off: u64) -> String {
        format!("{key} {ts} {{\"url\": \"http://x/\", \"length\": \"1\", \"offset\": \"{off}\", \"filename\": \"a.warc\"}}\n")
    }

    #[test]
    fn hits_and_misses() {
        let mut text = String::new();
        for (i, k) in ["a,b)/", "a,b)/x", "a,b)/x", "c,d)/", "c,d)/e?q=1"]
            .iter()
            .enumerate()
        {
            text.push_str(&line(k, &format!("2020010100000{i}"), i as u64));
        }
        let (_d, f) = file(&text);
        assert_eq!(f.captures("a,b)/").unwrap().len(), 1);
        let x = f.captures("a,b)/x").unwrap();
        assert_eq!(x.iter().map(|c| c.1.offset).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(f.captures("c,d)/e?q=1").unwrap().len(), 1);
        for miss in ["", "a", "a,b)", "b", "c,d)/e", "zzz"] {
            assert!(f.captures(miss).unwrap().is_empty(), "{miss}");
        }
        let (_d, empty) = file("");
        assert!(empty.captures("a,b)/").unwrap().is_empty());
    }

    #[test]
    fn damage_is_an_error_with_an_offset() {
        let (_d, f) = file("a,b)/ 2020 {not json\n");
        let e = f.captures("a,b)/").unwrap_err().to_string();
        assert!(e.contains("byte 0"), "{e}");
        let text = format!("{}{}", line("c,d)/", "2020", 0), line("a,b)/", "2020", 1));
        let (_d, f) = file(&text);
        // Unsorted: whichever line the search lands on, no panic, and a hit is never wrong.
        for k in ["a,b)/", "c,d)/", "b"] {
            if let Ok(v) = f.captures(k) {
                assert!(v.iter().all(|c| c.1.key == k));
            }
        }
        let truncated = &line("a,b)/", "2020", 0)[..30];
        let (_d, f) = file(truncated);
        assert!(f.captures("a,b)/").is_err());
        let (_d, f) = file(&"x".repeat(CDXJ_MAX_LINE_BYTES * 3));
        assert!(f.captures("a").is_err());
    }
}
