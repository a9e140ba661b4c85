//! ARC v1 records (Internet Archive `.arc` / `.arc.gz`): the header line
//! `URL IP DATE CONTENT-TYPE LENGTH` (also the 4-field form with an empty content type and the
//! longer v2 line, whose length is likewise last), the `filedesc://` file header record, and the
//! splitting step with resync on the next header line.

use crate::fields::Fields;
use crawlsift_common::limits::{MAX_HEADER_BYTES, MAX_RECORD_BYTES};

use super::parse::{blank_tail, record_start, skip_blank, Parsed, Step};
use crate::error::ErrorKind;
use crate::record::RecordKind;

/// One parsed ARC header line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArcLine {
    /// The URL (first field).
    pub url: String,
    /// IP address field.
    pub ip: String,
    /// 14-digit (or shorter) archive date.
    pub date: String,
    /// Content type, when the line has one.
    pub content_type: Option<String>,
    /// Length of the record body after the header line.
    pub length: u64,
}

/// Parses an ARC header line (without its newline). `None` if it is not one.
pub fn parse_line(line: &[u8]) -> Option<ArcLine> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > MAX_HEADER_BYTES || line.is_empty() || line[0].is_ascii_whitespace() {
        return None;
    }
    let s = std::str::from_utf8(line).ok()?;
    let f: Vec<&str> = s.split([' ', '\t']).filter(|x| !x.is_empty()).collect();
    if f.len() < 4 {
        return None;
    }
    let url = f[0];
    let scheme = url.split(':').next()?;
    if scheme.is_empty()
        || scheme.len() == url.len()
        || !scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
    {
        return None;
    }
    let date = f[2];
    if !(8..=17).contains(&date.len()) || !date.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let last = f[f.len() - 1];
    if last.is_empty() || last.len() > 19 || !last.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let length = last.parse().ok()?;
    let content_type = if f.len() >= 5 {
        Some(f[3].to_string())
    } else {
        None
    };
    Some(ArcLine {
        url: url.to_string(),
        ip: f[1].to_string(),
        date: date.to_string(),
        content_type,
        length,
    })
}

/// Whether the line starting at `p` is an ARC header line: `Some(bool)`, or `None` when the buffer
/// ends before the line does.
fn line_at(buf: &[u8], p: usize) -> Option<bool> {
    let lim = buf.len().min(p + MAX_HEADER_BYTES);
    match memchr::memchr(b'\n', &buf[p..lim]) {
        Some(n) => Some(parse_line(&buf[p..p + n]).is_some()),
        None if lim - p >= MAX_HEADER_BYTES => Some(false),
        None => None,
    }
}

/// First line start `>= from` holding an ARC header line.
fn find_arc_line(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buf.len() {
        let start = if i == 0 || buf[i - 1] == b'\n' {
            i
        } else {
            i + memchr::memchr(b'\n', &buf[i..])? + 1
        };
        if start >= buf.len() {
            return None;
        }
        if line_at(buf, start) == Some(true) {
            return Some(start);
        }
        i = start + 1;
    }
    None
}

fn resync(buf: &[u8], from: usize, eof: bool) -> usize {
    match find_arc_line(buf, from) {
        Some(q) => q,
        None if eof => buf.len(),
        // Keep the last (possibly partial) line for the next buffer.
        None => match memchr::memrchr(b'\n', &buf[from.min(buf.len())..]) {
            Some(n) => from + n + 1,
            None => from,
        },
    }
}

fn make(
    start: usize,
    next: usize,
    h: ArcLine,
    block: std::ops::Range<usize>,
    error: Option<(ErrorKind, String)>,
) -> Parsed {
    let kind = if h.url.starts_with("filedesc:") {
        RecordKind::ArcHeader
    } else {
        RecordKind::Arc
    };
    let mut headers = Fields::default();
    headers.push("URL", &h.url);
    headers.push("IP-address", &h.ip);
    headers.push("Archive-date", &h.date);
    if let Some(ct) = &h.content_type {
        headers.push("Content-type", ct);
    }
    headers.push("Archive-length", &h.length.to_string());
    Parsed {
        start,
        next,
        kind,
        id: format!("{} {}", h.url, h.date),
        url: Some(h.url),
        date: Some(h.date),
        content_type: h.content_type,
        headers,
        block,
        http_head: None,
        error,
    }
}

/// Finds the ARC record at or after `at`.
pub(crate) fn step(buf: &[u8], at: usize, eof: bool) -> Step {
    let len = buf.len();
    let Some(p) = record_start(buf, at) else {
        return blank_tail(buf, at, eof);
    };
    let lim = len.min(p + MAX_HEADER_BYTES);
    let Some(n) = memchr::memchr(b'\n', &buf[p..lim]) else {
        if !eof && lim - p < MAX_HEADER_BYTES {
            return Step::Need(len - at + 1);
        }
        return Step::Skip {
            to: len,
            err: Some((
                ErrorKind::Truncated,
                p,
                "input ends inside an ARC header line".into(),
            )),
        };
    };
    let Some(h) = parse_line(&buf[p..p + n]) else {
        let to = resync(buf, p + 1, eof);
        if to <= p {
            return Step::Need(len - at + 1);
        }
        return Step::Skip {
            to,
            err: Some((
                ErrorKind::Garbage,
                p,
                "bytes that are not an ARC record".into(),
            )),
        };
    };
    let body = p + n + 1;
    if h.length > MAX_RECORD_BYTES as u64 {
        let to = resync(buf, body, eof).max(body);
        return Step::Skip {
            to,
            err: Some((
                ErrorKind::TooLarge,
                p,
                format!("ARC length {} exceeds the record bound", h.length),
            )),
        };
    }
    let end = body + h.length as usize;
    if end > len {
        if !eof {
            return Step::Need(end - at + 2);
        }
        if let Some(q) = find_arc_line(buf, body) {
            let e = super::parse::trim_trailing_newlines(buf, body, q);
            return Step::Rec(make(
                p,
                q,
                h,
                body..e,
                Some((
                    ErrorKind::BadLength,
                    "ARC length runs past the next record".into(),
                )),
            ));
        }
        let msg = format!(
            "input ends {} bytes into a {}-byte record",
            len - body,
            h.length
        );
        return Step::Rec(make(
            p,
            len,
            h,
            body..len,
            Some((ErrorKind::Truncated, msg)),
        ));
    }
    let r = skip_blank(buf, end);
    if r >= len {
        return if eof {
            Step::Rec(make(p, end, h, body..end, None))
        } else {
            Step::Need(r - at + 2)
        };
    }
    match line_at(buf, r) {
        Some(true) => return Step::Rec(make(p, end, h, body..end, None)),
        None if !eof => return Step::Need(len - at + 1),
        _ => {}
    }
    // Length does not lead to another header line: resync.
    match find_arc_line(buf, body) {
        Some(q) if q < end => {
            let e = super::parse::trim_trailing_newlines(buf, body, q);
            Step::Rec(make(
                p,
                q,
                h,
                body..e,
                Some((
                    ErrorKind::BadLength,
                    "ARC length runs into the next record".into(),
                )),
            ))
        }
        Some(q) => Step::Rec(make(
            p,
            q,
            h,
            body..end,
            Some((
                ErrorKind::BadLength,
                "bytes after the ARC record before the next one".into(),
            )),
        )),
        None if !eof && len - p < MAX_RECORD_BYTES => Step::Need(len - at + 1),
        None => Step::Rec(make(p, end, h, body..end, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines() {
        let l = parse_line(b"http://a.b/c 1.2.3.4 20080430204826 text/html 123").unwrap();
        assert_eq!(l.length, 123);
        assert_eq!(l.content_type.as_deref(), Some("text/html"));
        // 4-field form with empty content type
        let l = parse_line(b"http://a.b/ 1.2.3.4 20110101000000  42").unwrap();
        assert_eq!((l.content_type, l.length), (None, 42));
        assert!(parse_line(b"<html> hello world 1").is_none());
        assert!(parse_line(b"HTTP/1.1 200 OK").is_none());
        assert!(parse_line(b"dns:example.com 1.2.3.4 20080430204826 text/dns 56").is_some());
    }

    #[test]
    fn resync_on_bad_length() {
        let data = b"http://a/ 1.1.1.1 20010101000000 text/plain 100\nshort\nhttp://b/ 1.1.1.1 20010101000000 text/plain 2\nok\n";
        let Step::Rec(r) = step(data, 0, true) else {
            panic!()
        };
        assert_eq!(r.error.as_ref().unwrap().0, ErrorKind::BadLength);
        assert_eq!(&data[r.block.clone()], b"short");
        let Step::Rec(r2) = step(data, r.next, true) else {
            panic!()
        };
        assert_eq!(r2.url.as_deref(), Some("http://b/"));
        assert!(r2.error.is_none());
    }
}
