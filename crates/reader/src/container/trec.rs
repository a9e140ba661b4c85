//! TREC collections: `<DOC>` ... `</DOC>` documents with a `<DOCNO>` (or the NTCIR
//! `<DOC id="...">` form). TREC Web documents (WT10g, GOV2) carry `<DOCHDR>` with the URL line and
//! HTTP header lines before the page; TREC text documents (AP, FT, ...) carry `<TEXT>`. Stray
//! `</DOC>`s, documents without an id and unterminated documents are counted and skipped or cut.

use crate::fields::Fields;
use crawlsift_common::limits::{MAX_RECORD_BYTES, MAX_TREC_HEAD_BYTES};
use memchr::memmem;

use super::parse::{need_more, Parsed, Step};
use crate::error::ErrorKind;
use crate::record::RecordKind;

/// Position of the next `<DOC>` or `<DOC ` open tag at or after `from`.
fn find_open(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buf.len() {
        let p = i + memmem::find(&buf[i..], b"<DOC")?;
        match buf.get(p + 4) {
            Some(b'>' | b' ' | b'\t' | b'\r' | b'\n') => return Some(p),
            _ => i = p + 4,
        }
    }
    None
}

fn find(buf: &[u8], from: usize, to: usize, pat: &[u8]) -> Option<usize> {
    if from >= to {
        return None;
    }
    memmem::find(&buf[from..to], pat).map(|x| x + from)
}

/// Whether skipped bytes between documents are harmless (whitespace and `<!-- -->` comments).
pub(crate) fn skipped_is_benign(b: &[u8]) -> bool {
    benign(b)
}

fn benign(b: &[u8]) -> bool {
    let mut s = b;
    loop {
        let t = s.trim_ascii_start();
        if t.is_empty() {
            return true;
        }
        if let Some(rest) = t.strip_prefix(b"<!--") {
            match memmem::find(rest, b"-->") {
                Some(e) => s = &rest[e + 3..],
                None => return false,
            }
        } else {
            return false;
        }
    }
}

/// Error for skipped bytes `[p, q)`, if they are not harmless.
fn skipped_error(buf: &[u8], p: usize, q: usize) -> Option<(ErrorKind, usize, String)> {
    let region = &buf[p..q];
    if benign(region) {
        return None;
    }
    if let Some(s) = memmem::find(region, b"</DOC>") {
        return Some((
            ErrorKind::StrayEnd,
            p + s,
            "</DOC> without an open <DOC>".into(),
        ));
    }
    let off = p + (region.len() - region.trim_ascii_start().len());
    Some((ErrorKind::Garbage, off, "bytes outside any <DOC>".into()))
}

/// Value of `id="..."` (or `id='...'`) in an open tag.
fn id_attr(tag: &[u8]) -> Option<String> {
    let p = memmem::find(tag, b"id=")?;
    let rest = &tag[p + 3..];
    let (q, rest) = match rest.first() {
        Some(&c @ (b'"' | b'\'')) => (c, &rest[1..]),
        _ => (b' ', rest),
    };
    let end = rest
        .iter()
        .position(|&c| c == q || c == b'>')
        .unwrap_or(rest.len());
    let v = String::from_utf8_lossy(&rest[..end]).trim().to_string();
    (!v.is_empty()).then_some(v)
}

fn strip_one_newline_front(buf: &[u8], mut a: usize, b: usize) -> usize {
    if a < b && buf[a] == b'\r' {
        a += 1;
    }
    if a < b && buf[a] == b'\n' {
        a += 1;
    }
    a
}

fn strip_one_newline_back(buf: &[u8], a: usize, mut b: usize) -> usize {
    if b > a && buf[b - 1] == b'\n' {
        b -= 1;
        if b > a && buf[b - 1] == b'\r' {
            b -= 1;
        }
    }
    b
}

/// Finds the TREC document at or after `at`.
pub(crate) fn step(buf: &[u8], at: usize, eof: bool) -> Step {
    let len = buf.len();
    let Some(o) = find_open(buf, at) else {
        if eof {
            return match skipped_error(buf, at, len) {
                Some(err) => Step::Skip {
                    to: len,
                    err: Some(err),
                },
                None => Step::End,
            };
        }
        // Keep a few bytes in case "<DOC" is cut; drop the rest.
        let keep_from = len.saturating_sub(5).max(at);
        if keep_from == at {
            return Step::Need(len - at + 1);
        }
        let err = skipped_error(buf, at, keep_from);
        return Step::Skip { to: keep_from, err };
    };
    if o > at {
        if let Some(err) = skipped_error(buf, at, o) {
            return Step::Skip {
                to: o,
                err: Some(err),
            };
        }
    }
    let Some(tag_len) = memchr::memchr(b'>', &buf[o..len.min(o + MAX_TREC_HEAD_BYTES)]) else {
        if !eof && len - o < MAX_TREC_HEAD_BYTES {
            return Step::Need(len - at + 1);
        }
        return Step::Skip {
            to: len.min(o + 4),
            err: Some((ErrorKind::BadHeader, o, "<DOC tag never closes".into())),
        };
    };
    let content = o + tag_len + 1;
    let close = find(buf, content, len, b"</DOC>");
    let next_open = find_open(buf, content);
    let (end, next, missing_end) = match (close, next_open) {
        (Some(c), None) => (c, c + 6, false),
        (Some(c), Some(n)) if c < n => (c, c + 6, false),
        (_, Some(n)) => (n, n, true),
        (None, None) => {
            if !eof && len - o <= MAX_RECORD_BYTES {
                return need_more(len, at, o);
            }
            (len, len, true)
        }
    };
    let head_lim = end.min(content + MAX_TREC_HEAD_BYTES);
    let docno = find(buf, content, head_lim, b"<DOCNO>").and_then(|a| {
        let a = a + 7;
        let b = find(buf, a, end, b"</DOCNO>")?;
        let v = String::from_utf8_lossy(&buf[a..b]).trim().to_string();
        (!v.is_empty()).then_some((v, b + 8))
    });
    let (id, after_id) = match docno {
        Some((v, e)) => (v, e),
        None => match id_attr(&buf[o..content]) {
            Some(v) => (v, content),
            None => {
                return Step::Skip {
                    to: next,
                    err: Some((
                        ErrorKind::MissingDocno,
                        o,
                        "<DOC> without <DOCNO> or id".into(),
                    )),
                };
            }
        },
    };
    let error = missing_end.then(|| (ErrorKind::MissingEnd, "<DOC> without </DOC>".to_string()));
    // TREC Web: <DOCHDR> with the URL line and HTTP header lines.
    if let Some(h) = find(buf, after_id, head_lim, b"<DOCHDR>") {
        let ha = h + 8;
        if let Some(hb) = find(buf, ha, end, b"</DOCHDR>") {
            let hdr = &buf[ha..hb];
            let first_start = hdr
                .iter()
                .position(|c| !c.is_ascii_whitespace())
                .unwrap_or(hdr.len());
            let first_end =
                memchr::memchr(b'\n', &hdr[first_start..]).map_or(hdr.len(), |n| first_start + n);
            let first = String::from_utf8_lossy(&hdr[first_start..first_end]);
            let toks: Vec<&str> = first.split_ascii_whitespace().collect();
            let url = toks
                .first()
                .filter(|u| u.contains(':'))
                .map(|u| u.to_string());
            let date = if url.is_some() {
                toks.get(2)
                    .filter(|d| d.bytes().all(|c| c.is_ascii_digit()))
                    .map(|d| d.to_string())
            } else {
                None
            };
            let head_start = if url.is_some() {
                (ha + first_end + 1).min(hb)
            } else {
                ha
            };
            let head = head_start..hb;
            let content_type = crate::http::parse_split(&buf[head.clone()], &bytes::Bytes::new())
                .ok()
                .and_then(|r| r.header("content-type").map(str::to_string));
            let body_start = strip_one_newline_front(buf, hb + 9, end);
            let body_end = strip_one_newline_back(buf, body_start, end);
            let mut headers = Fields::default();
            headers.push("DOCNO", &id);
            if let Some(u) = &url {
                headers.push("URL", u);
            }
            return Step::Rec(Parsed {
                start: o,
                next,
                kind: RecordKind::TrecWeb,
                id,
                url,
                date,
                content_type,
                headers,
                block: body_start..body_end,
                http_head: Some(head),
                error,
                quirk: None,
            });
        }
    }
    // TREC text: the <TEXT> sections (from the first to the last), or everything after the id.
    let (a, b) = match find(buf, after_id, end, b"<TEXT>") {
        Some(t) => {
            let a = t + 6;
            let b = memmem::rfind(&buf[a..end], b"</TEXT>").map_or(end, |x| a + x);
            (a, b)
        }
        None => (after_id, end),
    };
    let a = strip_one_newline_front(buf, a, b);
    let b = strip_one_newline_back(buf, a, b);
    Step::Rec(Parsed {
        start: o,
        next,
        kind: RecordKind::TrecText,
        headers: [("DOCNO", id.as_str())].into_iter().collect(),
        id,
        url: None,
        date: None,
        content_type: Some("text/plain".to_string()),
        block: a..b,
        http_head: None,
        error,
        quirk: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(buf: &[u8]) -> (Vec<String>, Vec<ErrorKind>) {
        let mut at = 0;
        let mut ids = vec![];
        let mut errs = vec![];
        loop {
            match step(buf, at, true) {
                Step::Rec(p) => {
                    ids.push(p.id);
                    if let Some(e) = p.error {
                        errs.push(e.0);
                    }
                    at = p.next;
                }
                Step::Skip { to, err } => {
                    if let Some(e) = err {
                        errs.push(e.0);
                    }
                    at = to;
                }
                Step::End => break,
                Step::Need(_) => panic!("need at eof"),
            }
        }
        (ids, errs)
    }

    #[test]
    fn web_and_text_docs() {
        let d = b"<DOC>\n<DOCNO> A-1 </DOCNO>\n<DOCHDR>\nhttp://x.org/ 1.2.3.4 20040101000000 text/html 5\nHTTP/1.1 200 OK\nContent-Type: text/html\n</DOCHDR>\n<p>hi\n</DOC>\n<!-- c -->\n<DOC id=\"b2\">\n<TEXT>\nsome text\n</TEXT>\n</DOC>\n";
        let Step::Rec(p) = step(d, 0, true) else {
            panic!()
        };
        assert_eq!(p.id, "A-1");
        assert_eq!(p.url.as_deref(), Some("http://x.org/"));
        assert_eq!(p.date.as_deref(), Some("20040101000000"));
        assert_eq!(p.content_type.as_deref(), Some("text/html"));
        assert_eq!(&d[p.block.clone()], b"<p>hi");
        assert!(d[p.http_head.clone().unwrap()].starts_with(b"HTTP/1.1 200 OK\n"));
        let (ids, errs) = all(d);
        assert_eq!(ids, vec!["A-1", "b2"]);
        assert!(errs.is_empty());
    }

    #[test]
    fn malformed_docs_counted() {
        let d = b"</DOC>\n<DOC>\nno id here\n</DOC>\n<DOC>\n<DOCNO>ok</DOCNO>\n<DOC>\n<DOCNO>last</DOCNO>\n</DOC>\ntrailing";
        let (ids, errs) = all(d);
        assert_eq!(ids, vec!["ok", "last"]);
        assert_eq!(
            errs,
            vec![
                ErrorKind::StrayEnd,
                ErrorKind::MissingDocno,
                ErrorKind::MissingEnd,
                ErrorKind::Garbage
            ]
        );
    }
}
