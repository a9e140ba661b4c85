//! ARC v1 records (Internet Archive `.arc` / `.arc.gz`): the header line
//! `URL IP DATE CONTENT-TYPE LENGTH` (also the 4-field form with an empty content type and the
//! longer v2 line, whose length is likewise last), the `filedesc://` file header record, and the
//! splitting step with resync on the next header line.
//!
//! Header lines are recognised by their shape, not by every field being valid (warcio reads any
//! line it can split into five fields): a URL with a scheme, an IP address and a date of digits
//! (see `is_date` for the separators allowed). The URL may hold spaces (the IP and date after it
//! tell where it ends), the IP or the content type may be missing, the date may have any number
//! of digits from [`ARC_DATE_MIN_DIGITS`] to [`ARC_DATE_MAX_DIGITS`], and a length that is not a
//! byte count (`-1`, `abc`, absent) makes the record run to the next header line instead of
//! ending the file.

use crate::fields::Fields;
use crawlsift_common::limits::{
    ARC_DATE_MAX_DIGITS, ARC_DATE_MIN_DIGITS, MAX_HEADER_BYTES, MAX_RECORD_BYTES,
    RESYNC_WINDOW_BYTES,
};

use super::parse::{
    blank_tail, need_more, record_start, skip_blank, trim_trailing_newlines, Parsed, Step,
};
use crate::error::ErrorKind;
use crate::record::RecordKind;

/// One parsed ARC header line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArcLine {
    /// The URL (everything before the IP address; spaces kept as written).
    pub url: String,
    /// IP address field (empty when the line has none).
    pub ip: String,
    /// Archive date as written: 14 digits by the format, 8 to 24 in the wild, sometimes with `-`
    /// and `:` (empty only on a `filedesc://` line too short to carry one).
    pub date: String,
    /// Content type, when the line has one.
    pub content_type: Option<String>,
    /// The length field as written (empty when the line has none).
    pub length_field: String,
    /// Length of the record body after the header line; `None` when the length field is not a
    /// byte count (`-1`, `abc`, absent): the record then runs to the next header line.
    pub length: Option<u64>,
}

/// The text of a header field: as is when UTF-8, otherwise with the bytes of invalid sequences
/// percent-encoded (ARC lines of the 1990s carry Latin-1 URLs), so nothing is lost or replaced.
fn field_text(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(b.len() + 16);
            for chunk in b.utf8_chunks() {
                out.push_str(chunk.valid());
                for &c in chunk.invalid() {
                    out.push_str(&format!("%{c:02X}"));
                }
            }
            out
        }
    }
}

/// Whether `t` has the shape of an ARC date: a plausible count of digits, starting with one, and
/// nothing else but the separators of written-out dates (`2008-04-30T20:48:26Z`).
fn is_date(t: &[u8]) -> bool {
    t.first().is_some_and(u8::is_ascii_digit)
        && t.len() <= 2 * ARC_DATE_MAX_DIGITS
        && (ARC_DATE_MIN_DIGITS..=ARC_DATE_MAX_DIGITS)
            .contains(&t.iter().filter(|c| c.is_ascii_digit()).count())
        && t.iter()
            .all(|&c| c.is_ascii_digit() || matches!(c, b'-' | b':' | b'T' | b'Z'))
}

/// Whether `t` has the shape of an IP address field: IPv4 or IPv6 (hex digits, dots and colons,
/// with at least one separator), or `-` for none.
fn is_ip(t: &[u8]) -> bool {
    t == b"-"
        || (t.len() <= 45
            && t.iter().any(|&c| c == b'.' || c == b':')
            && t.iter().any(u8::is_ascii_hexdigit)
            && t.iter()
                .all(|&c| c.is_ascii_hexdigit() || c == b'.' || c == b':'))
}

/// Whether `t` starts with a URL scheme (`letters+digits+.-:` then something).
fn has_scheme(t: &[u8]) -> bool {
    let Some(colon) = memchr::memchr(b':', t) else {
        return false;
    };
    colon > 0
        && colon + 1 < t.len()
        && t[0].is_ascii_alphabetic()
        && t[..colon]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
}

/// The length field parsed as a byte count: digits only (no sign), fitting in a `u64`.
fn byte_count(t: &[u8]) -> Option<u64> {
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse().ok()
}

/// Where the IP and date fields are among the tokens `t` (`t[0]` starts the URL): `(ip, date)`
/// token indices, `ip == date` when the line has no IP. The first IP-shaped token followed by a
/// date wins (so a URL with spaces ends before it); then a date third with anything second (an
/// IP written as a host name); then a date second (no IP).
fn anchor(t: &[&[u8]]) -> Option<(usize, usize)> {
    let n = t.len();
    if let Some(i) = (1..n.saturating_sub(1)).find(|&i| is_ip(t[i]) && is_date(t[i + 1])) {
        return Some((i, i + 1));
    }
    if n > 2 && is_date(t[2]) {
        return Some((1, 2));
    }
    (n > 1 && is_date(t[1])).then_some((1, 1))
}

/// Parses an ARC header line (without its newline). `None` if it does not have the shape of one.
pub fn parse_line(line: &[u8]) -> Option<ArcLine> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > MAX_HEADER_BYTES || line.is_empty() || line[0].is_ascii_whitespace() {
        return None;
    }
    // Cheap test first: resync runs this on every line of a damaged record.
    let first_end = memchr::memchr2(b' ', b'\t', line).unwrap_or(line.len());
    if !has_scheme(&line[..first_end]) {
        return None;
    }
    // Tokens with their offsets, so a URL holding spaces is kept as written.
    let mut toks: Vec<&[u8]> = Vec::with_capacity(6);
    let mut offs: Vec<usize> = Vec::with_capacity(6);
    let mut i = 0;
    while i < line.len() {
        if matches!(line[i], b' ' | b'\t') {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && !matches!(line[i], b' ' | b'\t') {
            i += 1;
        }
        toks.push(&line[s..i]);
        offs.push(s);
    }
    let filedesc = toks[0].starts_with(b"filedesc:");
    let (ip, date) = match anchor(&toks) {
        Some(a) => a,
        // The file header record is known by its URL alone; its fields are read as they come.
        None if filedesc => (1.min(toks.len()), 2.min(toks.len())),
        None => return None,
    };
    let url_end = offs[ip - 1] + toks[ip - 1].len();
    let tok = |k: usize| toks.get(k).map_or(String::new(), |t| field_text(t));
    let rest = toks.get(date + 1..).unwrap_or(&[]);
    // After the date: content type and length; the length is last (the v2 line has more fields
    // between them). A lone field is the length unless it reads as a media type.
    let (content_type, length_field): (Option<&[u8]>, &[u8]) = match rest {
        [] => (None, b""),
        [one] if memchr::memchr(b'/', one).is_some() => (Some(one), b""),
        [one] => (None, one),
        [ct, .., last] => (Some(ct), last),
    };
    Some(ArcLine {
        url: field_text(&line[..url_end]),
        ip: if ip == date { String::new() } else { tok(ip) },
        date: tok(date),
        content_type: content_type.map(field_text),
        length_field: field_text(length_field),
        length: byte_count(length_field),
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
pub(crate) fn find_arc_line(buf: &[u8], from: usize) -> Option<usize> {
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
    if !h.length_field.is_empty() {
        headers.push("Archive-length", &h.length_field);
    }
    Parsed {
        start,
        next,
        kind,
        id: format!("{} {}", h.url, h.date),
        url: Some(h.url),
        date: (!h.date.is_empty()).then_some(h.date),
        content_type: h.content_type,
        headers,
        block,
        http_head: None,
        error,
        quirk: None,
    }
}

/// The record of header line `h` (at `p`, body from `body`) whose length field is not a byte
/// count: its body runs to the next header line, or to the end of input.
fn unsized_record(buf: &[u8], at: usize, p: usize, body: usize, h: ArcLine, eof: bool) -> Step {
    let len = buf.len();
    let msg = if h.length_field.is_empty() {
        "ARC header line without a length: the record runs to the next header line".to_string()
    } else {
        format!(
            "ARC length `{}` is not a byte count: the record runs to the next header line",
            h.length_field.chars().take(40).collect::<String>()
        )
    };
    let end = match find_arc_line(buf, body) {
        Some(q) => q,
        None if !eof && len - p < MAX_RECORD_BYTES => return need_more(len, at, p),
        None => len,
    };
    // Each ARC record is followed by one newline: that one is not part of the body.
    let block_end = if end > body && buf[end - 1] == b'\n' {
        end - 1
    } else {
        end
    };
    Step::Rec(make(
        p,
        end,
        h,
        body..block_end,
        Some((ErrorKind::MissingLength, msg)),
    ))
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
    let Some(length) = h.length else {
        return unsized_record(buf, at, p, body, h, eof);
    };
    if length > MAX_RECORD_BYTES as u64 {
        let to = resync(buf, body, eof).max(body);
        return Step::Skip {
            to,
            err: Some((
                ErrorKind::TooLarge,
                p,
                format!("ARC length {length} exceeds the record bound"),
            )),
        };
    }
    let end = body + length as usize;
    if end > len {
        if !eof {
            return Step::Need(end - at + 2);
        }
        if let Some(q) = find_arc_line(buf, body) {
            let e = trim_trailing_newlines(buf, body, q);
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
            "input ends {} bytes into a {length}-byte record",
            len - body
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
    // Length does not lead to another header line: look for the next one, within a bounded
    // window past the record (see RESYNC_WINDOW_BYTES).
    let window_end = end.saturating_add(RESYNC_WINDOW_BYTES);
    // A start found in a part of the window is the first in all of it.
    match find_arc_line(&buf[..len.min(window_end)], body) {
        Some(q) if q < end => {
            let e = trim_trailing_newlines(buf, body, q);
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
        None if !eof && len < window_end => Step::Need(window_end - at),
        // Garbage follows beyond the window: the record is good; the next step counts it.
        None => Step::Rec(make(p, end, h, body..end, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines() {
        let l = parse_line(b"http://a.b/c 1.2.3.4 20080430204826 text/html 123").unwrap();
        assert_eq!(l.length, Some(123));
        assert_eq!(l.content_type.as_deref(), Some("text/html"));
        // 4-field form with empty content type
        let l = parse_line(b"http://a.b/ 1.2.3.4 20110101000000  42").unwrap();
        assert_eq!((l.content_type, l.length), (None, Some(42)));
        assert!(parse_line(b"<html> hello world 1").is_none());
        assert!(parse_line(b"HTTP/1.1 200 OK").is_none());
        assert!(parse_line(b"dns:example.com 1.2.3.4 20080430204826 text/dns 56").is_some());
    }

    fn fields(l: &ArcLine) -> (&str, &str, &str, Option<&str>, &str, Option<u64>) {
        (
            &l.url,
            &l.ip,
            &l.date,
            l.content_type.as_deref(),
            &l.length_field,
            l.length,
        )
    }

    #[test]
    fn lenient_header_lines_keep_their_fields() {
        let p = |l: &[u8]| parse_line(l).unwrap_or_else(|| panic!("{l:?}"));
        let u = "http://a.b/c";
        let d = "20080430204826";
        let l = p(b"http://a.b/c 1.2.3.4 20080430204826 text/html -1");
        assert_eq!(fields(&l), (u, "1.2.3.4", d, Some("text/html"), "-1", None));
        let l = p(b"http://a.b/c 1.2.3.4 20080430204826 text/html abc\r");
        assert_eq!(
            fields(&l),
            (u, "1.2.3.4", d, Some("text/html"), "abc", None)
        );
        let l = p(b"http://a.b/c 1.2.3.4 200804302048261234 text/html 7");
        assert_eq!(l.date, "200804302048261234");
        let l = p(b"http://a.b/c 1.2.3.4 2008-04-30T20:48:26Z text/html 7");
        assert_eq!(l.date, "2008-04-30T20:48:26Z");
        // The URL holds spaces: the IP and date after it say where it ends.
        let l = p(b"http://a.b/x y  z 1.2.3.4 20080430204826 text/html 7");
        assert_eq!(
            fields(&l),
            (
                "http://a.b/x y  z",
                "1.2.3.4",
                d,
                Some("text/html"),
                "7",
                Some(7)
            )
        );
        // No IP; no content type; no length; a host name for an IP; IPv6.
        let l = p(b"http://a.b/c 20080430204826 text/html 7");
        assert_eq!(fields(&l), (u, "", d, Some("text/html"), "7", Some(7)));
        let l = p(b"http://a.b/c 1.2.3.4 20080430204826 7");
        assert_eq!(fields(&l), (u, "1.2.3.4", d, None, "7", Some(7)));
        let l = p(b"http://a.b/c 1.2.3.4 20080430204826 text/html");
        assert_eq!(fields(&l), (u, "1.2.3.4", d, Some("text/html"), "", None));
        let l = p(b"http://a.b/c localhost 20080430204826 text/html 7");
        assert_eq!(l.ip, "localhost");
        assert_eq!(p(b"http://a.b/c ::1 20080430204826 text/html 7").ip, "::1");
        // The v2 line: more fields between the content type and the length, which is last.
        let l = p(b"http://a.b/c 1.2.3.4 20080430204826 text/html 200 abc - 0 f.arc 7");
        assert_eq!(
            fields(&l),
            (u, "1.2.3.4", d, Some("text/html"), "7", Some(7))
        );
        // Latin-1 in a URL is percent-encoded, not replaced.
        assert_eq!(
            p(b"http://a.b/\xe9 1.2.3.4 20080430204826 text/html 7").url,
            "http://a.b/%E9"
        );
        // A file header with fields missing is still one.
        let l = p(b"filedesc://x.arc");
        assert_eq!(fields(&l), ("filedesc://x.arc", "", "", None, "", None));
    }

    #[test]
    fn lines_of_other_shapes_are_not_headers() {
        for l in [
            &b"HTTP/1.1 200 OK"[..],
            b"Date: Mon, 01 Jan 2020 00:00:00 GMT",
            b"Content-Type: text/html 1.2.3.4 20080430204826",
            b"1 0 InternetArchive",
            b"URL IP-address Archive-date Content-type Archive-length",
            b"http://a.b/c 1.2.3.4 2008 text/html 7",
            b"http://a.b/c 1.2.3.4 2008.04.30 text/html 7",
            b"http://a.b/c 1.2.3.4 T20080430 text/html 7",
            b"http://a.b/c 1.2.3.4 200804302048261234567890123 text/html 7",
            b"http://a.b/c",
            b"http: 1.2.3.4 20080430204826 text/html 7",
            b" http://a.b/c 1.2.3.4 20080430204826 text/html 7",
            b"",
        ] {
            assert!(parse_line(l).is_none(), "{:?}", String::from_utf8_lossy(l));
        }
    }

    fn all(buf: &[u8]) -> Vec<(String, String, Option<ErrorKind>)> {
        let mut at = 0;
        let mut out = vec![];
        loop {
            match step(buf, at, true) {
                Step::Rec(r) => {
                    let block = String::from_utf8_lossy(&buf[r.block.clone()]).into_owned();
                    out.push((r.url.unwrap(), block, r.error.map(|e| e.0)));
                    at = r.next;
                }
                Step::Skip { to, .. } => at = to,
                Step::End => return out,
                Step::Need(_) => panic!("need at end of input"),
            }
        }
    }

    #[test]
    fn length_that_is_no_byte_count_runs_to_the_next_header_line() {
        let data = b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain -1\n1 0 IA\nURL IP-address Archive-date Content-type Archive-length\n\nhttp://a/ 1.1.1.1 20010101000000 text/plain abc\nbody a\nmore\n\nhttp://b/ 1.1.1.1 20010101000000 text/plain 2\nok\n";
        let got = all(data);
        let want = [
            (
                "filedesc://x.arc",
                "1 0 IA\nURL IP-address Archive-date Content-type Archive-length\n",
                Some(ErrorKind::MissingLength),
            ),
            (
                "http://a/",
                "body a\nmore\n",
                Some(ErrorKind::MissingLength),
            ),
            ("http://b/", "ok", None),
        ];
        let got: Vec<(&str, &str, Option<ErrorKind>)> = got
            .iter()
            .map(|(u, b, e)| (u.as_str(), b.as_str(), *e))
            .collect();
        assert_eq!(got, want);
        // The last record: to the end of input; before the end, more bytes are asked for.
        let last = b"http://a/ 1.1.1.1 20010101000000 text/plain -1\nall the rest\n";
        assert_eq!(all(last)[0].1, "all the rest");
        assert!(matches!(step(last, 0, false), Step::Need(_)));
    }

    #[test]
    fn garbage_after_a_record_is_searched_only_within_the_window() {
        let rec = b"http://a/ 1.1.1.1 20010101000000 text/plain 2\nok\n";
        let mut buf = rec.to_vec();
        buf.resize(buf.len() + 100, b'x');
        assert!(matches!(step(&buf, 0, false), Step::Need(_)));
        buf.resize(buf.len() + RESYNC_WINDOW_BYTES, b'x');
        let Step::Rec(r) = step(&buf, 0, false) else {
            panic!("no record once the window is read")
        };
        assert!(r.error.is_none());
        let mut near = rec.to_vec();
        near.extend_from_slice(b"gap\nhttp://b/ 1.1.1.1 20010101000000 text/plain 2\n");
        let Step::Rec(r) = step(&near, 0, false) else {
            panic!("no record")
        };
        assert_eq!(r.error.unwrap().0, ErrorKind::BadLength);
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

#[cfg(test)]
mod soup {
    //! Lines made of the pieces ARC header lines are made of, in any order and number: parsing
    //! and stepping never panic, always move on, and keep every range inside the buffer.
    use super::*;
    use proptest::prelude::*;

    const PIECES: [&[u8]; 16] = [
        b"http://a.b/c",
        b"filedesc://x.arc",
        b"dns:a.b",
        b"1.2.3.4",
        b"::1",
        b"-",
        b"20080430204826",
        b"200804302048261234",
        b"2008-04-30T20:48:26Z",
        b"text/html",
        b"-1",
        b"abc",
        b"7",
        b"99999999999999999999999",
        b"\xe9\xff",
        b"HTTP/1.0",
    ];

    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            (0..PIECES.len()).prop_map(|i| PIECES[i].to_vec()),
            prop::collection::vec(any::<u8>(), 0..4),
            Just(b"\n".to_vec()),
            Just(b" ".to_vec()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn token_soup_never_panics_and_always_moves_on(
            parts in prop::collection::vec(piece(), 0..60),
        ) {
            let mut buf = Vec::new();
            for p in &parts {
                buf.extend_from_slice(p);
                buf.push(if p.len() % 3 == 0 { b'\n' } else { b' ' });
            }
            for line in buf.split(|&c| c == b'\n') {
                let _ = parse_line(line);
            }
            for eof in [true, false] {
                let mut at = 0;
                while at < buf.len() {
                    match step(&buf, at, eof) {
                        Step::Rec(r) => {
                            prop_assert!(r.next > at && r.next <= buf.len());
                            prop_assert!(r.block.start <= r.block.end && r.block.end <= buf.len());
                            at = r.next;
                        }
                        Step::Skip { to, .. } => {
                            prop_assert!(to > at && to <= buf.len());
                            at = to;
                        }
                        Step::Need(n) => {
                            prop_assert!(!eof && n > 0);
                            break;
                        }
                        Step::End => {
                            prop_assert!(eof);
                            break;
                        }
                    }
                }
            }
        }
    }
}
