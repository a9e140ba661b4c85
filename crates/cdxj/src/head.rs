//! The HTTP status line and headers of a record as warcio reads them for the index (its
//! `StatusAndHeadersParser` with `verify_http=False`): lines up to the first empty one, the status
//! code the first word after the protocol, folded header lines joined; the payload is what
//! follows. Deliberately not the reader's HTTP parser: the index must say what warcio says, even
//! of a block that is no HTTP at all.

use std::borrow::Cow;

/// What warcio's parser makes of a block's HTTP head.
#[derive(Debug, Default)]
pub struct Head {
    /// The status code as written (`200`), or empty when the status line has none.
    pub status: String,
    /// Whether warcio's headers object is true: a status after the protocol, or some header.
    pub present: bool,
    /// The first `Content-Type` header's value.
    pub content_type: Option<String>,
    /// Where the payload starts in the block.
    pub payload_start: usize,
}

/// A header line decoded as warcio does: UTF-8 (borrowed), else ISO-8859-1.
fn decode(line: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(line) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(line.iter().map(|&b| char::from(b)).collect()),
    }
}

/// A header line decoded, without its trailing whitespace (its newline among it).
fn trimmed(line: &[u8]) -> Cow<'_, str> {
    match decode(line) {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_end()),
        Cow::Owned(s) => Cow::Owned(s.trim_end().to_string()),
    }
}

/// One line of `b` from `at` (with its newline), and where the next starts.
fn line(b: &[u8], at: usize) -> (&[u8], usize) {
    let end = memchr(b, at).map_or(b.len(), |i| i + 1);
    (&b[at..end], end)
}

fn memchr(b: &[u8], at: usize) -> Option<usize> {
    b[at..].iter().position(|&c| c == b'\n').map(|i| i + at)
}

/// Parses the head at the start of `block`; `None` for an empty block (warcio's `EOFError`).
/// Lines are borrowed from the block where they are UTF-8: only the status and the
/// `Content-Type` value are copied out.
pub fn parse(block: &[u8]) -> Option<Head> {
    if block.is_empty() {
        return None;
    }
    let (first, mut at) = line(block, 0);
    let statusline = trimmed(first);
    let mut head = Head::default();
    if statusline.is_empty() {
        head.payload_start = at;
        return Some(head);
    }
    let rest = statusline
        .split_once(' ')
        .map_or("", |(_, rest)| rest.trim());
    head.status = rest.split(' ').next().unwrap_or("").to_string();
    head.present = !rest.is_empty();
    let (l, next) = line(block, at);
    let mut cur = trimmed(l);
    at = next;
    while !cur.is_empty() {
        let (name, mut value) = match cur.split_once(':') {
            Some((n, v)) => (
                n.trim_end_matches([' ', '\t']),
                Some(Cow::Borrowed(v.trim_start())),
            ),
            None => (&*cur, None),
        };
        let (l, next) = line(block, at);
        let mut next_line = trimmed(l);
        at = next;
        while next_line.starts_with([' ', '\t']) {
            if let Some(v) = &mut value {
                v.to_mut().push_str(&next_line);
            }
            let (l, next) = line(block, at);
            next_line = trimmed(l);
            at = next;
        }
        if let Some(v) = value {
            head.present = true;
            if head.content_type.is_none() && name.eq_ignore_ascii_case("content-type") {
                head.content_type = Some(v.into_owned());
            }
        }
        cur = next_line;
    }
    head.payload_start = at.min(block.len());
    Some(head)
}

#[cfg(test)]
mod tests {
    #[test]
    fn status_type_and_payload() {
        let b = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html;\r\n charset=x\r\n\r\nbody";
        let h = super::parse(b).unwrap();
        assert_eq!(h.status, "404");
        assert_eq!(h.content_type.as_deref(), Some("text/html; charset=x"));
        assert_eq!(&b[h.payload_start..], b"body");
        assert!(super::parse(b"").is_none());
        assert_eq!(super::parse(b"<html>\n").unwrap().status, "");
    }

    #[test]
    fn latin1_and_folded_heads_read_as_warcio_reads_them() {
        let b = b"HTTP/1.0 200 OK\xa0\r\nX: 1\r\nContent-Type: text/h\xe9\r\n\tx\r\ncontent-type: b\r\n\r\nz";
        let h = super::parse(b).unwrap();
        assert_eq!(h.status, "200");
        assert_eq!(h.content_type.as_deref(), Some("text/h\u{e9}\tx"));
        assert_eq!(&b[h.payload_start..], b"z");
        let h = super::parse(b"HTTP/1.1\r\nbad line\r\n").unwrap();
        assert!(!h.present && h.status.is_empty() && h.content_type.is_none());
    }
}
