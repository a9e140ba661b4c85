//! Sorted CDXJ lines: the order (byte-wise, as Python sorts lines with their newlines) and the
//! merge of new sorted lines into an existing `index.cdxj`, checking as it goes that the file is
//! sorted (a damaged index is refused, with the offset of the first line out of order).

use std::cmp::Ordering;
use std::path::Path;

use crawlsift_common::limits::CDXJ_MAX_LINE_BYTES;

use crate::error::CdxjError;
use crate::write::Atomic;

/// Compares two lines (without newlines) as Python compares them with their newlines.
pub fn line_cmp(a: &str, b: &str) -> Ordering {
    a.bytes().chain([b'\n']).cmp(b.bytes().chain([b'\n']))
}

/// The lines of an index file's bytes with their byte offsets; an error for a line that is not
/// UTF-8, longer than `CDXJ_MAX_LINE_BYTES`, or out of order.
pub fn checked_lines<'a>(
    path: &'a Path,
    data: &'a [u8],
) -> impl Iterator<Item = Result<(u64, &'a str), CdxjError>> + 'a {
    let mut at = 0usize;
    let mut prev: Option<&'a str> = None;
    std::iter::from_fn(move || {
        while at < data.len() {
            let start = at;
            let end = data[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(data.len(), |i| at + i);
            at = end + 1;
            let raw = &data[start..end];
            if raw.is_empty() {
                continue;
            }
            let off = start as u64;
            if raw.len() > CDXJ_MAX_LINE_BYTES {
                return Some(Err(CdxjError::damaged(path, off, "line too long")));
            }
            let Ok(line) = std::str::from_utf8(raw) else {
                return Some(Err(CdxjError::damaged(path, off, "line is not UTF-8")));
            };
            if prev.is_some_and(|p| line_cmp(p, line) == Ordering::Greater) {
                return Some(Err(CdxjError::damaged(
                    path,
                    off,
                    "line out of order (the index is not sorted)",
                )));
            }
            prev = Some(line);
            return Some(Ok((off, line)));
        }
        None
    })
}

/// Merges `new` (sorted, without repeats) into the index at `path` (created if missing); returns
/// the lines added and the lines now in it. The file is rewritten atomically.
pub fn merge_into(
    path: &Path,
    new: impl Iterator<Item = Result<String, CdxjError>>,
) -> Result<(u64, u64), CdxjError> {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(CdxjError::io(path, e)),
    };
    let mut out = Atomic::create(path)?;
    let (mut added, mut total) = (0u64, 0u64);
    let mut new = new.peekable();
    let mut last: Option<String> = None;
    let mut emit = |l: &str, out: &mut Atomic| -> Result<bool, CdxjError> {
        if last.as_deref() == Some(l) {
            return Ok(false);
        }
        out.write(l.as_bytes())?;
        out.write(b"\n")?;
        last = Some(l.to_string());
        Ok(true)
    };
    for old in checked_lines(path, &data) {
        let (_, old) = old?;
        while let Some(n) = new.peek() {
            let n = match n {
                Ok(n) => n,
                Err(_) => return Err(new.next().and_then(Result::err).expect("peeked an error")),
            };
            if line_cmp(n, old) == Ordering::Less {
                if emit(n, &mut out)? {
                    added += 1;
                    total += 1;
                }
                new.next();
            } else {
                break;
            }
        }
        if emit(old, &mut out)? {
            total += 1;
        }
    }
    for n in new {
        if emit(&n?, &mut out)? {
            added += 1;
            total += 1;
        }
    }
    out.commit()?;
    Ok((added, total))
}
