//! The HTTP status line and headers of a record as warcio reads them for the index (its
//! `StatusAndHeadersParser` with `verify_http=False`): lines up to the first empty one, the status
//! code the first word after the protocol, folded header lines joined; the payload is what
//! follows. Deliberately not the reader's HTTP parser: the index must say what warcio says, even
//! of a block that is no HTTP at all.

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

/// A header line decoded as warcio does: UTF-8, else ISO-8859-1.
fn decode(line: &[u8]) -> String {
    match std::str::from_utf8(line) {
        Ok(s) => s.to_string(),
        Err(_) => line.iter().map(|&b| char::from(b)).collect(),
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
pub fn parse(block: &[u8]) -> Option<Head> {
    if block.is_empty() {
        return None;
    }
    let (first, mut at) = line(block, 0);
    let statusline = decode(first);
    let statusline = statusline.trim_end();
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
    let mut cur = decode(l).trim_end().to_string();
    at = next;
    while !cur.is_empty() {
        let (name, mut value) = match cur.split_once(':') {
            Some((n, v)) => (
                n.trim_end_matches([' ', '\t']).to_string(),
                Some(v.trim_start().to_string()),
            ),
            None => (cur.clone(), None),
        };
        let (l, next) = line(block, at);
        let mut next_line = decode(l).trim_end().to_string();
        at = next;
        while next_line.starts_with([' ', '\t']) {
            if let Some(v) = &mut value {
                v.push_str(&next_line);
            }
            let (l, next) = line(block, at);
            next_line = decode(l).trim_end().to_string();
            at = next;
        }
        if let Some(v) = value {
            head.present = true;
            if head.content_type.is_none() && name.eq_ignore_ascii_case("content-type") {
                head.content_type = Some(v);
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
}
