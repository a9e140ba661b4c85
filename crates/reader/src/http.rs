//! HTTP messages inside records: the status line, header fields (CRLF or bare LF), and the body
//! with chunked transfer coding removed and `Content-Encoding` gzip / deflate / br decoded.
//!
//! Real archives lie: ClueWeb09 labels already-decoded bodies `gzip`, some crawlers store a
//! de-chunked body under `Transfer-Encoding: chunked`. A body that does not decode as its headers
//! claim falls back to the raw body with a flag set in [`HttpFlags`] (as warcio does), so the
//! record is never lost. Decoded output is bounded by `MAX_HTTP_DECODED_BYTES` and by
//! `MAX_INFLATE_RATIO` (decompression bombs are stopped after that much output, not
//! allocated whole).

use crate::fields::{field_text, Fields};
use std::io::Read;

use bytes::Bytes;
use crawlsift_common::limits::{
    INFLATE_RATIO_GRACE_BYTES, MAX_HTTP_DECODED_BYTES, MAX_HTTP_HEADER_BYTES, MAX_INFLATE_RATIO,
};

use crate::error::HttpError;

/// Flags raised while decoding a body. All false for an honest message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HttpFlags {
    /// `Transfer-Encoding: chunked` but the body is not chunked: the raw body was kept.
    pub chunked_lie: bool,
    /// `Content-Encoding` says gzip/deflate/br but the body does not decode: raw body kept.
    pub encoding_lie: bool,
    /// A `Content-Encoding` the reader does not know (body kept as is).
    pub unknown_encoding: bool,
    /// Decoding would exceed the size bound (bomb or huge body): the raw body was kept.
    pub too_large: bool,
    /// The chunked body ended before its last chunk (record truncated): the chunks read are kept.
    pub truncated: bool,
}

impl HttpFlags {
    /// Whether any header lied about the body (the count warcio-style readers report).
    pub fn lied(&self) -> bool {
        self.chunked_lie || self.encoding_lie
    }
}

/// A parsed HTTP response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Protocol from the status line (`HTTP/1.1`), empty when a TREC header has no status line.
    pub version: String,
    /// Status code (0 when a TREC `<DOCHDR>` carries no status line).
    pub status: u16,
    /// Reason phrase (may be empty).
    pub reason: String,
    /// Header fields in order, folded lines joined.
    pub headers: Fields,
    /// The decoded body (a slice of the record when nothing had to be decoded).
    pub body: Bytes,
    /// What went wrong while decoding; the body is then the raw body as stored.
    pub flags: HttpFlags,
}

impl HttpResponse {
    /// The first header value named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)
    }

    /// The media type of `Content-Type` without parameters, lowercased (`text/html`).
    pub fn mime(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
    }
}

/// Whether `b` starts with an `HTTP/` status line.
pub fn starts_with_status_line(b: &[u8]) -> bool {
    b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"HTTP/")
}

/// Offset just past the blank line ending the HTTP header block (CRLF CRLF, LF LF or mixed),
/// if it comes within `MAX_HTTP_HEADER_BYTES`.
pub fn header_end(b: &[u8]) -> Option<usize> {
    let lim = b.len().min(MAX_HTTP_HEADER_BYTES);
    let mut i = 0;
    while i < lim {
        let nl = memchr::memchr(b'\n', &b[i..lim])? + i;
        // the line after this newline is empty?
        let next = nl + 1;
        if b.get(next) == Some(&b'\n') {
            return Some(next + 1);
        }
        if b.get(next) == Some(&b'\r') && b.get(next + 1) == Some(&b'\n') {
            return Some(next + 2);
        }
        i = next;
    }
    None
}

/// Parses a whole HTTP response (header block + body) from a record block.
pub fn parse_response(block: &Bytes) -> Result<HttpResponse, HttpError> {
    let (head, body) = match header_end(block) {
        Some(e) => (&block[..e], block.slice(e..)),
        None if block.len() <= MAX_HTTP_HEADER_BYTES => (&block[..], Bytes::new()),
        None => return Err(HttpError::HeaderTooLarge(MAX_HTTP_HEADER_BYTES)),
    };
    let mut resp = parse_head(head, true)?;
    decode_body(&mut resp, body);
    Ok(resp)
}

/// Parses a header block stored apart from its body (TREC Web `<DOCHDR>`); the status line is
/// optional there.
pub fn parse_split(head: &[u8], body: &Bytes) -> Result<HttpResponse, HttpError> {
    if head.len() > MAX_HTTP_HEADER_BYTES {
        return Err(HttpError::HeaderTooLarge(MAX_HTTP_HEADER_BYTES));
    }
    let mut resp = parse_head(head, false)?;
    decode_body(&mut resp, body.clone());
    Ok(resp)
}

fn trim_line(l: &[u8]) -> &[u8] {
    let mut l = l;
    while let Some((&last, rest)) = l.split_last() {
        if last == b'\r' || last == b'\n' {
            l = rest;
        } else {
            break;
        }
    }
    l
}

fn parse_head(head: &[u8], need_status: bool) -> Result<HttpResponse, HttpError> {
    let mut lines = head.split(|&c| c == b'\n').map(trim_line);
    let mut resp = HttpResponse {
        version: String::new(),
        status: 0,
        reason: String::new(),
        headers: Fields::with_capacity(head.len(), 16),
        body: Bytes::new(),
        flags: HttpFlags::default(),
    };
    let mut first = lines.next().unwrap_or(b"");
    // Skip blank lines a TREC header may start with.
    if !need_status {
        while first.is_empty() {
            match lines.next() {
                Some(l) => first = l,
                None => return Ok(resp),
            }
        }
    }
    let mut pending = None;
    if starts_with_status_line(first) {
        let s = String::from_utf8_lossy(first);
        let mut parts = s.splitn(3, [' ', '\t']);
        resp.version = parts.next().unwrap_or("").to_string();
        let code = parts.next().unwrap_or("").trim();
        if code.len() != 3 || !code.bytes().all(|c| c.is_ascii_digit()) {
            return Err(HttpError::BadStatusLine);
        }
        resp.status = code.parse().map_err(|_| HttpError::BadStatusLine)?;
        resp.reason = parts.next().unwrap_or("").trim().to_string();
    } else if need_status {
        return Err(HttpError::BadStatusLine);
    } else {
        pending = Some(first);
    }
    for line in pending.into_iter().chain(lines) {
        if line.is_empty() {
            continue;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if resp.headers.last_value().is_some() {
                let cont = field_text(line);
                resp.headers.append_to_last(" ");
                resp.headers.append_to_last(cont.trim());
            }
            continue;
        }
        if let Some(colon) = memchr::memchr(b':', line) {
            let name = field_text(&line[..colon]);
            let value = field_text(&line[colon + 1..]);
            resp.headers.push(name.trim(), value.trim());
        }
    }
    Ok(resp)
}

/// Largest decoded size allowed for a body of `raw_len` stored bytes.
fn decode_limit(raw_len: usize) -> usize {
    let by_ratio = (raw_len as u64)
        .saturating_mul(MAX_INFLATE_RATIO)
        .saturating_add(INFLATE_RATIO_GRACE_BYTES);
    usize::try_from(by_ratio)
        .unwrap_or(usize::MAX)
        .min(MAX_HTTP_DECODED_BYTES)
}

fn decode_body(resp: &mut HttpResponse, raw: Bytes) {
    if raw.is_empty() {
        // Nothing to decode (revisit records, HEAD-like captures keep the headers only): the
        // headers describe a body that is not stored, which is no lie.
        resp.body = raw;
        return;
    }
    let mut body = raw;
    let te = resp
        .header("transfer-encoding")
        .map(|v| v.to_ascii_lowercase())
        .unwrap_or_default();
    if te.contains("chunked") {
        match dechunk(&body) {
            Dechunked::Ok(v) => body = Bytes::from(v),
            Dechunked::Truncated(v) => {
                resp.flags.truncated = true;
                body = Bytes::from(v);
            }
            Dechunked::NotChunked => resp.flags.chunked_lie = true,
        }
    }
    let ce = resp
        .header("content-encoding")
        .map(|v| v.to_ascii_lowercase())
        .unwrap_or_default();
    // Codings are listed in the order applied; undo them last first.
    let codings: Vec<&str> = ce
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    for coding in codings.iter().rev() {
        let limit = decode_limit(body.len());
        let out = match *coding {
            "identity" | "none" => continue,
            "gzip" | "x-gzip" => {
                match crate::compress::inflate::inflate_single_member(&body, limit) {
                    Some(v) => Decoded::Ok(v),
                    None => read_bounded(flate2::read::MultiGzDecoder::new(&body[..]), limit),
                }
            }
            "deflate" => {
                let z = read_bounded(flate2::read::ZlibDecoder::new(&body[..]), limit);
                if matches!(z, Decoded::Failed) {
                    read_bounded(flate2::read::DeflateDecoder::new(&body[..]), limit)
                } else {
                    z
                }
            }
            "br" => read_bounded(brotli::Decompressor::new(&body[..], 4096), limit),
            _ => {
                resp.flags.unknown_encoding = true;
                break;
            }
        };
        match out {
            Decoded::Ok(v) => body = Bytes::from(v),
            Decoded::Failed => {
                resp.flags.encoding_lie = true;
                break;
            }
            Decoded::TooLarge => {
                resp.flags.too_large = true;
                break;
            }
        }
    }
    resp.body = body;
}

enum Decoded {
    Ok(Vec<u8>),
    Failed,
    TooLarge,
}

fn read_bounded<R: Read>(r: R, limit: usize) -> Decoded {
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    match r.take(cap).read_to_end(&mut out) {
        Ok(_) if out.len() > limit => Decoded::TooLarge,
        Ok(_) => Decoded::Ok(out),
        Err(_) => Decoded::Failed,
    }
}

enum Dechunked {
    Ok(Vec<u8>),
    Truncated(Vec<u8>),
    NotChunked,
}

/// Removes chunked transfer coding. A body whose first size line is not hex is not chunked; a
/// body that ends inside a chunk is truncated (chunks read so far are kept).
fn dechunk(b: &[u8]) -> Dechunked {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut chunks = 0usize;
    loop {
        // size line
        let Some(nl) = memchr::memchr(b'\n', &b[i..]) else {
            return if chunks > 0 || i >= b.len() {
                Dechunked::Truncated(out)
            } else {
                Dechunked::NotChunked
            };
        };
        let line = trim_line(&b[i..i + nl]);
        let hex_part = line.split(|&c| c == b';').next().unwrap_or(b"");
        let hex_part = trim_ascii(hex_part);
        if hex_part.is_empty()
            || hex_part.len() > 15
            || !hex_part.iter().all(|c| c.is_ascii_hexdigit())
        {
            return if chunks > 0 {
                // Garbage after valid chunks: keep what decoded.
                Dechunked::Truncated(out)
            } else {
                Dechunked::NotChunked
            };
        }
        let size = hex_part.iter().fold(0usize, |acc, &c| {
            acc * 16 + (c as char).to_digit(16).unwrap_or(0) as usize
        });
        i += nl + 1;
        if size == 0 {
            return Dechunked::Ok(out);
        }
        let Some(end) = i.checked_add(size) else {
            return Dechunked::NotChunked;
        };
        if end > b.len() {
            out.extend_from_slice(&b[i..]);
            return Dechunked::Truncated(out);
        }
        out.extend_from_slice(&b[i..end]);
        chunks += 1;
        i = end;
        // CRLF after the data
        if b.get(i) == Some(&b'\r') {
            i += 1;
        }
        if b.get(i) == Some(&b'\n') {
            i += 1;
        }
        if i >= b.len() {
            return Dechunked::Truncated(out);
        }
    }
}

fn trim_ascii(mut s: &[u8]) -> &[u8] {
    while let Some((&f, rest)) = s.split_first() {
        if f.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let Some((&l, rest)) = s.split_last() {
        if l.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn header_bytes_that_are_not_utf8_read_as_latin1() {
        let b = Bytes::from_static(
            b"HTTP/1.1 200 OK\r\nX-Name: caf\xe9\r\nX-Ok: caf\xc3\xa9\r\n\r\nbody",
        );
        let r = parse_response(&b).unwrap();
        assert_eq!(r.header("x-name"), Some("caf\u{e9}"));
        assert_eq!(r.header("x-ok"), Some("caf\u{e9}"));
    }

    #[test]
    fn parses_status_headers_and_plain_body() {
        let b = Bytes::from_static(
            b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n X-Folded\r\n\r\nbody",
        );
        let r = parse_response(&b).unwrap();
        assert_eq!(r.status, 404);
        assert_eq!(r.reason, "Not Found");
        assert_eq!(r.header("content-type"), Some("text/html X-Folded"));
        assert_eq!(&r.body[..], b"body");
        assert!(!r.flags.lied());
    }

    #[test]
    fn lf_only_and_missing_reason() {
        let b = Bytes::from_static(b"HTTP/1.1 200 \nA: b\n\nxyz");
        let r = parse_response(&b).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.reason, "");
        assert_eq!(&r.body[..], b"xyz");
    }

    #[test]
    fn dechunks_and_gunzips() {
        let z = gz(b"hello world");
        let mut m =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
                .to_vec();
        let (a, c) = z.split_at(5);
        m.extend_from_slice(format!("{:x}\r\n", a.len()).as_bytes());
        m.extend_from_slice(a);
        m.extend_from_slice(format!("\r\n{:X};ext=1\r\n", c.len()).as_bytes());
        m.extend_from_slice(c);
        m.extend_from_slice(b"\r\n0\r\n\r\n");
        let r = parse_response(&Bytes::from(m)).unwrap();
        assert_eq!(&r.body[..], b"hello world");
        assert_eq!(r.flags, HttpFlags::default());
    }

    #[test]
    fn gzip_bodies_of_one_or_several_members_decode_whole() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        let one = [head.clone(), gz(b"one member")].concat();
        assert_eq!(
            &parse_response(&Bytes::from(one)).unwrap().body[..],
            b"one member"
        );
        let two = [head.clone(), gz(b"first, "), gz(b"second")].concat();
        let r = parse_response(&Bytes::from(two)).unwrap();
        assert_eq!(&r.body[..], b"first, second");
        assert_eq!(r.flags, HttpFlags::default());
        // A trailer whose size is wrong is caught (libdeflate checks it) and the streaming decoder
        // decides: the data inflates, but its size check fails, so the header lied.
        let mut bad = gz(b"wrong size trailer");
        let n = bad.len();
        bad[n - 4] ^= 1;
        let r = parse_response(&Bytes::from([head, bad].concat())).unwrap();
        assert!(r.flags.encoding_lie);
    }

    #[test]
    fn lying_headers_fall_back_to_raw_body() {
        let b = Bytes::from_static(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n<html>not chunked</html>",
        );
        let r = parse_response(&b).unwrap();
        assert_eq!(&r.body[..], b"<html>not chunked</html>");
        assert!(r.flags.chunked_lie && r.flags.encoding_lie && r.flags.lied());
    }

    #[test]
    fn brotli_and_deflate() {
        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
            w.write_all(b"brotli body").unwrap();
        }
        let mut m = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n".to_vec();
        m.extend_from_slice(&br);
        assert_eq!(
            &parse_response(&Bytes::from(m)).unwrap().body[..],
            b"brotli body"
        );
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"raw deflate").unwrap();
        let mut m = b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n".to_vec();
        m.extend_from_slice(&e.finish().unwrap());
        assert_eq!(
            &parse_response(&Bytes::from(m)).unwrap().body[..],
            b"raw deflate"
        );
    }

    #[test]
    fn bomb_is_stopped() {
        let zeros = vec![0u8; 4 << 20];
        let z = gz(&zeros);
        // A bound below the inflated size stops the decoder at the bound.
        assert!(matches!(
            read_bounded(flate2::read::GzDecoder::new(&z[..]), 1 << 20),
            Decoded::TooLarge
        ));
        assert!(matches!(
            read_bounded(flate2::read::GzDecoder::new(&z[..]), 4 << 20),
            Decoded::Ok(v) if v.len() == 4 << 20
        ));
        // The bound follows the ratio for small bodies and never exceeds MAX_HTTP_DECODED_BYTES.
        assert_eq!(
            decode_limit(10),
            10 * MAX_INFLATE_RATIO as usize + (1 << 20)
        );
        assert_eq!(decode_limit(usize::MAX / 2), MAX_HTTP_DECODED_BYTES);
    }

    #[test]
    fn truncated_chunked_keeps_chunks() {
        let b = Bytes::from_static(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nabc",
        );
        let r = parse_response(&b).unwrap();
        assert_eq!(&r.body[..], b"helloabc");
        assert!(r.flags.truncated && !r.flags.lied());
    }

    #[test]
    fn bad_status_line_is_an_error() {
        assert_eq!(
            parse_response(&Bytes::from_static(b"HTTP/1.1 abc\r\n\r\n")).unwrap_err(),
            HttpError::BadStatusLine
        );
    }

    #[test]
    fn trec_header_without_status_line() {
        let r = parse_split(b"Content-Type: text/html\n", &Bytes::from_static(b"<p>x")).unwrap();
        assert_eq!(r.status, 0);
        assert_eq!(r.header("content-type"), Some("text/html"));
        assert_eq!(&r.body[..], b"<p>x");
    }
}
