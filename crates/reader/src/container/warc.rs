//! WARC records (1.0, 1.1, 0.17 with folded header lines, 0.18 of ClueWeb09, WET/WAT): header
//! parsing and the splitting step that finds one record in a decoded buffer, tolerating wrong or
//! missing `Content-Length` by resynchronising on the next `WARC/` line.

use crate::fields::Fields;
use std::ops::Range;

use crawlsift_common::limits::{MAX_HEADER_BYTES, MAX_RECORD_BYTES, RESYNC_WINDOW_BYTES};

use super::parse::{
    blank_tail, need_more, record_start, skip_blank, trim_trailing_newlines, Parsed, Step,
};
use crate::error::ErrorKind;
use crate::record::RecordKind;

/// A parsed WARC header block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcHeader {
    /// Version from the first line (`1.0`, `0.17`, ...).
    pub version: String,
    /// Named fields in order; folded continuation lines joined with one space.
    pub fields: Fields,
}

impl WarcHeader {
    /// First value of field `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields.get(name)
    }
}

/// Whether `b` starts a WARC record (`WARC/` followed by a digit).
pub(crate) fn is_warc_start(b: &[u8]) -> bool {
    b.len() >= 6 && b.starts_with(b"WARC/") && b[5].is_ascii_digit()
}

/// First position `>= from` where a line starts with `WARC/<digit>`.
pub(crate) fn find_warc_line(buf: &[u8], from: usize) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(b"WARC/");
    let mut i = from;
    while i < buf.len() {
        let p = i + finder.find(&buf[i..])?;
        if (p == 0 || matches!(buf[p - 1], b'\n' | b'\r' | 0))
            && buf.get(p + 5).is_some_and(u8::is_ascii_digit)
        {
            return Some(p);
        }
        i = p + 1;
    }
    None
}

/// Parses a WARC header block (the `WARC/x.y` line and the field lines, without the blank line).
/// Returns `None` when the first line is not a WARC version line.
pub fn parse_header(h: &[u8]) -> Option<WarcHeader> {
    // One UTF-8 check for the whole block (borrowed when valid, as nearly always). Otherwise each
    // line is UTF-8 where it is valid and ISO-8859-1 where not, as warcio decodes header lines:
    // no byte becomes U+FFFD. Line breaks and colons are ASCII, which never falls inside a
    // multi-byte sequence, so lines and fields cut the same as on bytes.
    let text = match std::str::from_utf8(h) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(
            h.split(|&b| b == b'\n')
                .map(crate::fields::field_text)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let first = lines.next()?;
    if !is_warc_start(first.as_bytes()) {
        return None;
    }
    let version = first[5..].trim().to_string();
    let mut fields = Fields::with_capacity(h.len(), 16);
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            let cont = line.trim();
            if !cont.is_empty() {
                if fields.last_value().is_some_and(|v| !v.is_empty()) {
                    fields.append_to_last(" ");
                }
                fields.append_to_last(cont);
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            fields.push(name.trim(), value.trim());
        }
    }
    Some(WarcHeader { version, fields })
}

/// End of the header block starting at `p`: (end of field lines, start of block), within
/// `MAX_HEADER_BYTES`. `Err(true)` when the bound was hit, `Err(false)` when the buffer ended.
fn header_end(buf: &[u8], p: usize) -> Result<(usize, usize), bool> {
    let lim = buf.len().min(p.saturating_add(MAX_HEADER_BYTES));
    let mut i = p;
    loop {
        let Some(nl) = memchr::memchr(b'\n', &buf[i..lim]) else {
            return Err(lim - p >= MAX_HEADER_BYTES);
        };
        let next = i + nl + 1;
        match buf.get(next) {
            Some(b'\n') => return Ok((next, next + 1)),
            Some(b'\r') if buf.get(next + 1) == Some(&b'\n') => return Ok((next, next + 2)),
            Some(_) => i = next,
            None => return Err(false),
        }
        if next >= lim {
            return Err(lim - p >= MAX_HEADER_BYTES);
        }
    }
}

/// Resync target after a problem at `from`: next `WARC/` line, else (at end of input) the end;
/// while more input may come, keep the last few bytes in case a `WARC/` line is cut.
fn resync(buf: &[u8], from: usize, eof: bool) -> usize {
    match find_warc_line(buf, from) {
        Some(q) => q,
        None if eof => buf.len(),
        None => buf.len().saturating_sub(8).max(from.min(buf.len())),
    }
}

fn strip_brackets(s: &str) -> String {
    let t = s.trim();
    t.strip_prefix('<')
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or(t)
        .to_string()
}

/// Builds the parsed record from a header and a block range.
fn make(
    start: usize,
    next: usize,
    head: WarcHeader,
    block: Range<usize>,
    error: Option<(ErrorKind, String)>,
) -> Parsed {
    let kind = RecordKind::from_warc_type(head.get("WARC-Type").unwrap_or(""));
    let id = head.get("WARC-Record-ID").unwrap_or("").to_string();
    let url = head.get("WARC-Target-URI").map(strip_brackets);
    let date = head.get("WARC-Date").map(str::to_string);
    let content_type = head.get("Content-Type").map(str::to_string);
    Parsed {
        start,
        next,
        kind,
        id,
        url,
        date,
        content_type,
        headers: head.fields,
        block,
        http_head: None,
        error,
        quirk: None,
    }
}

/// What follows a WARC record's block up to the next record or the end (`after`), when it is
/// not the two line ends the format puts there.
fn trailer_quirk(after: &[u8]) -> Option<&'static str> {
    if after == b"\r\n\r\n" {
        None
    } else if after.contains(&0) {
        Some("the record is followed by NUL padding")
    } else if after.starts_with(b"\r\n\r\n") {
        Some("the record is followed by more than two line ends")
    } else {
        Some("the record is not followed by two line ends (\\r\\n\\r\\n)")
    }
}

/// Finds the WARC record at or after `at` in `buf`.
pub(crate) fn step(buf: &[u8], at: usize, eof: bool) -> Step {
    let len = buf.len();
    let Some(p) = record_start(buf, at) else {
        return blank_tail(buf, at, eof);
    };
    if !is_warc_start(&buf[p..]) {
        if !eof && len - p < 6 && b"WARC/".starts_with(&buf[p..len.min(p + 5)]) {
            return Step::Need(len - at + 1);
        }
        let to = resync(buf, p + 1, eof);
        if to <= p {
            return Step::Need(len - at + 1);
        }
        return Step::Skip {
            to,
            err: Some((
                ErrorKind::Garbage,
                p,
                "bytes that are not a WARC record".into(),
            )),
        };
    }
    let (fields_end, body) = match header_end(buf, p) {
        Ok(x) => x,
        Err(false) if !eof => return Step::Need(len - at + 1),
        Err(too_long) => {
            let to = resync(buf, p + 1, eof);
            if to <= p {
                return Step::Need(len - at + 1);
            }
            let (kind, msg) = if too_long {
                (ErrorKind::BadHeader, "WARC header longer than the bound")
            } else {
                (ErrorKind::Truncated, "input ends inside a WARC header")
            };
            return Step::Skip {
                to,
                err: Some((kind, p, msg.into())),
            };
        }
    };
    let Some(head) = parse_header(&buf[p..fields_end]) else {
        // is_warc_start held, so the first line is a version line; unreachable in practice.
        return Step::Skip {
            to: resync(buf, p + 1, true),
            err: Some((ErrorKind::BadHeader, p, "bad WARC header".into())),
        };
    };
    let declared = head
        .get("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let Some(cl) = declared else {
        // No usable length: the block runs to the next WARC/ line.
        return match find_warc_line(buf, body) {
            Some(q) => {
                let end = trim_trailing_newlines(buf, body, q);
                Step::Rec(make(
                    p,
                    q,
                    head,
                    body..end,
                    Some((ErrorKind::MissingLength, "no usable Content-Length".into())),
                ))
            }
            None if !eof && len - p < MAX_RECORD_BYTES => need_more(len, at, p),
            None => {
                let end = trim_trailing_newlines(buf, body, len);
                Step::Rec(make(
                    p,
                    len,
                    head,
                    body..end,
                    Some((ErrorKind::MissingLength, "no usable Content-Length".into())),
                ))
            }
        };
    };
    if cl > MAX_RECORD_BYTES as u64 {
        let to = resync(buf, body, eof);
        return Step::Skip {
            to: to.max(body),
            err: Some((
                ErrorKind::TooLarge,
                p,
                format!("Content-Length {cl} exceeds the record bound"),
            )),
        };
    }
    let block_end = body + cl as usize;
    if block_end > len {
        if !eof {
            return Step::Need(block_end - at + 8);
        }
        // Truncated input: keep what exists (both peers count such records), unless another
        // record starts inside, which means the length is wrong instead.
        if let Some(q) = find_warc_line(buf, body) {
            let end = trim_trailing_newlines(buf, body, q);
            return Step::Rec(make(
                p,
                q,
                head,
                body..end,
                Some((
                    ErrorKind::BadLength,
                    "Content-Length runs past the next record".into(),
                )),
            ));
        }
        return Step::Rec(make(
            p,
            len,
            head,
            body..len,
            Some((
                ErrorKind::Truncated,
                format!("input ends {} bytes into a {cl}-byte block", len - body),
            )),
        ));
    }
    // Check the block is followed by blank lines and the next record (or the end).
    let r = skip_blank(buf, block_end);
    let well_ended = |mut parsed: Parsed| {
        parsed.quirk = trailer_quirk(&buf[block_end..r]);
        Step::Rec(parsed)
    };
    if r >= len {
        return if eof {
            well_ended(make(p, block_end, head, body..block_end, None))
        } else {
            Step::Need(r - at + 8)
        };
    }
    if len - r < 6 && !eof {
        return Step::Need(r - at + 8);
    }
    if is_warc_start(&buf[r..]) {
        return well_ended(make(p, block_end, head, body..block_end, None));
    }
    // The length is wrong, or garbage follows: find where the next record starts, within a
    // bounded window past the block (see RESYNC_WINDOW_BYTES).
    let window_end = block_end.saturating_add(RESYNC_WINDOW_BYTES);
    // A start found in a part of the window is the first in all of it.
    match find_warc_line(&buf[..len.min(window_end)], body) {
        Some(q) if q < block_end => {
            let end = trim_trailing_newlines(buf, body, q);
            Step::Rec(make(
                p,
                q,
                head,
                body..end,
                Some((
                    ErrorKind::BadLength,
                    format!("Content-Length {cl} runs into the next record"),
                )),
            ))
        }
        Some(q) => Step::Rec(make(
            p,
            q,
            head,
            body..block_end,
            Some((
                ErrorKind::BadLength,
                format!(
                    "{} bytes after the {cl}-byte block before the next record",
                    q - block_end
                ),
            )),
        )),
        None if !eof && len < window_end => Step::Need(window_end - at),
        // Garbage follows beyond the window: the record is good; the next step counts it.
        None => Step::Rec(make(p, block_end, head, body..block_end, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_017_header() {
        let h = b"WARC/0.17\r\nWARC-Type:\r\n  response\r\nWARC-Target-URI: <http://a/>\r\n\tmore\r\nContent-Length: 3";
        let w = parse_header(h).unwrap();
        assert_eq!(w.version, "0.17");
        assert_eq!(w.get("warc-type"), Some("response"));
        assert_eq!(w.get("WARC-Target-URI"), Some("<http://a/> more"));
        assert_eq!(w.get("content-length"), Some("3"));
        assert!(parse_header(b"HTTP/1.1 200 OK").is_none());
    }

    #[test]
    fn lines_that_are_not_utf8_read_as_latin1_and_spread_no_further() {
        // As warcio decodes header lines: UTF-8 where a line is valid UTF-8, ISO-8859-1 where
        // not, so every byte is kept (`encode("latin-1")` gives it back) and no U+FFFD appears.
        let h = "WARC/1.0\r\nWARC-Target-URI: http://a/\u{ff}\u{e2}\r\nX-\u{f0}\u{9f}: v\u{c3}\r\n\
                 WARC-Filename: caf\u{e9}.warc\r\nWARC-Type: response";
        let mut bytes: Vec<u8> = h.chars().map(|c| c as u8).collect();
        // The filename line alone is valid UTF-8 ("café"): it stays UTF-8.
        let at = bytes.windows(4).position(|w| w == b"caf\xe9").unwrap() + 3;
        bytes.splice(at..at + 1, "\u{e9}".bytes());
        let w = parse_header(&bytes).unwrap();
        assert_eq!(w.get("WARC-Target-URI"), Some("http://a/\u{ff}\u{e2}"));
        assert_eq!(w.get("X-\u{f0}\u{9f}"), Some("v\u{c3}"));
        assert_eq!(w.get("WARC-Filename"), Some("caf\u{e9}.warc"));
        assert_eq!(w.get("warc-type"), Some("response"));
    }

    #[test]
    fn finds_warc_lines_only_at_line_starts() {
        let b = b"xxWARC/1.0\nWARC/x\nWARC/1.1\n";
        assert_eq!(find_warc_line(b, 0), Some(18));
    }

    #[test]
    fn garbage_after_a_record_is_searched_only_within_the_window() {
        let rec = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n";
        let mut buf = rec.to_vec();
        buf.resize(buf.len() + 100, b'x');
        // Before the window is whole, more is asked for; once it is, the record is decided on
        // without waiting for the record bound, and is good: the garbage is the next step's.
        assert!(matches!(step(&buf, 0, false), Step::Need(_)));
        buf.resize(buf.len() + RESYNC_WINDOW_BYTES, b'x');
        let Step::Rec(r) = step(&buf, 0, false) else {
            panic!("no record once the window is read")
        };
        assert!(r.error.is_none());
        assert!(matches!(step(&buf, r.next, true), Step::Skip { .. }));
        // A next record inside the window, even a partial one: the gap is the record's.
        let mut near = rec.to_vec();
        near.extend_from_slice(b"gap\r\nWARC/1.0\r\n");
        let Step::Rec(r) = step(&near, 0, false) else {
            panic!("no record")
        };
        assert_eq!(r.error.unwrap().0, ErrorKind::BadLength);
    }

    #[test]
    fn a_record_not_ended_by_two_line_ends_is_read_and_its_quirk_noted() {
        let head = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc".to_vec();
        let next = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        for (trailer, quirk) in [
            (&b"\r\n\r\n"[..], None),
            (b"\n\n", Some("not followed by two")),
            (b"\r\n", Some("not followed by two")),
            (b"", Some("not followed by two")),
            (b"\r\n\r\n\0\0\0\0", Some("NUL padding")),
            (b"\r\n\r\n\r\n", Some("more than two")),
        ] {
            for tail in [&next[..], b""] {
                let buf = [&head[..], trailer, tail].concat();
                let Step::Rec(r) = step(&buf, 0, true) else {
                    panic!("no record")
                };
                assert!(r.error.is_none(), "lenient reading counts no error");
                assert_eq!(&buf[r.block], b"abc");
                match quirk {
                    None => assert!(r.quirk.is_none(), "{trailer:?}"),
                    Some(q) => assert!(r.quirk.is_some_and(|x| x.contains(q)), "{trailer:?}"),
                }
            }
        }
    }

    #[test]
    fn step_needs_more_then_reads() {
        let rec = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n";
        for cut in 1..rec.len() {
            assert!(
                matches!(step(&rec[..cut], 0, false), Step::Need(_)),
                "cut {cut}"
            );
        }
        match step(rec, 0, true) {
            Step::Rec(p) => {
                assert_eq!(p.block, 52..55);
                assert_eq!(p.kind, RecordKind::Resource);
                assert!(p.error.is_none());
            }
            _ => panic!("no record"),
        }
    }
}
