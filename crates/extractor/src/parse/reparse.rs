//! The page as it is parsed a second time, where the first parse read less than a reader sees
//! ([`super::html::parse_with`]): a `<title>` never closed, which swallows the rest of the page
//! in a browser's tokenizer, is closed at the next tag (as libxml2's recovering parser does), and
//! `<noscript>` content is shown, as a browser without scripts shows it.

/// `html` with every `<noscript` and `</noscript` tag opening renamed to `div`, or `None` when
/// there is none.
pub(crate) fn show_noscript(html: &str) -> Option<String> {
    const OPEN: &[u8] = b"<noscript";
    const CLOSE: &[u8] = b"</noscript";
    let bytes = html.as_bytes();
    let mut out = String::new();
    let (mut at, mut copied) = (0, 0);
    while let Some(k) = memchr::memchr(b'<', bytes.get(at..)?) {
        let i = at + k;
        let len = [OPEN, CLOSE].into_iter().find_map(|t| {
            let tail = bytes.get(i..i + t.len())?;
            let next = bytes.get(i + t.len()).copied().unwrap_or(b'>');
            (tail.eq_ignore_ascii_case(t) && !next.is_ascii_alphanumeric()).then_some(t.len())
        });
        if let Some(len) = len {
            out.push_str(html.get(copied..i)?);
            out.push_str(if len == CLOSE.len() { "</div" } else { "<div" });
            copied = i + len;
        }
        at = i + 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(html.get(copied..)?);
    Some(out)
}

/// `html` with `</title>` inserted before the first `<` after the first `<title...>` tag, or
/// `None` when there is no such tag.
pub(crate) fn close_title(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let mut at = 0;
    let open = loop {
        let i = at + memchr::memchr(b'<', bytes.get(at..)?)?;
        if bytes
            .get(i + 1..i + 6)
            .is_some_and(|n| n.eq_ignore_ascii_case(b"title"))
            && bytes
                .get(i + 6)
                .is_some_and(|&c| c == b'>' || c.is_ascii_whitespace() || c == b'/')
        {
            break i;
        }
        at = i + 1;
    };
    let gt = open + memchr::memchr(b'>', &bytes[open..])?;
    let lt = memchr::memchr(b'<', &bytes[gt..]).map_or(bytes.len(), |k| gt + k);
    let mut out = String::with_capacity(html.len() + 8);
    out.push_str(html.get(..lt)?);
    out.push_str("</title>");
    out.push_str(html.get(lt..)?);
    Some(out)
}
