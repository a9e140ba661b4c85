//! Character sets: which encoding a document's bytes are in, and decoding them to UTF-8.
//!
//! The order is the browsers' (WHATWG "encoding sniffing"): a byte-order mark wins, then the HTTP
//! `Content-Type` charset, then a `<meta charset>` / `<meta http-equiv>` prescan of the first
//! [`META_PRESCAN_BYTES`], then a detector (chardetng). Labels map through the WHATWG table
//! (`latin-1`/`iso-8859-1`/`ascii` mean windows-1252, `gb2312` means GBK, ...).
//!
//! Mislabelled pages are common: a page declares latin-1 (by header or meta) but its bytes are
//! UTF-8. Rule: when the declared encoding is not UTF-8 and the whole body is valid UTF-8 *and*
//! holds at least one non-ASCII byte, it is decoded as UTF-8. Legacy text almost never forms valid
//! multi-byte UTF-8 by chance (windows-1252 would need pairs like `Ã©`), while the reverse mistake
//! is what a browser's detector corrects; pure-ASCII bodies decode the same either way.

use std::borrow::Cow;

use crawlsift_common::limits::{CHARSET_DETECT_BYTES, META_PRESCAN_BYTES};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How the `--html` modes and callers choose the character set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CharsetMode {
    /// Sniff as a browser does: BOM, HTTP charset, meta prescan, detector.
    #[default]
    Auto,
    /// Always UTF-8 (invalid bytes become U+FFFD); a UTF-8 BOM is dropped.
    Utf8,
}

/// Where the chosen encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte-order mark.
    Bom,
    /// The HTTP `Content-Type` charset parameter.
    Http,
    /// A `<meta>` declaration in the first bytes.
    Meta,
    /// Declared as a legacy encoding, but the bytes are valid non-ASCII UTF-8.
    Mislabelled,
    /// Guessed by the detector (or valid UTF-8 without any declaration).
    Detected,
    /// Forced by [`CharsetMode::Utf8`].
    Forced,
}

/// A decoded document.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The text, borrowed when the input was already valid UTF-8.
    pub text: Cow<'a, str>,
    /// The encoding used.
    pub encoding: &'static Encoding,
    /// Why that encoding.
    pub source: CharsetSource,
}

/// Looks up a charset label with the WHATWG table. UTF-16 labels found in a `<meta>` mean UTF-8 (a
/// page that can be prescanned as ASCII is not UTF-16), and `x-user-defined` means windows-1252.
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(
        label
            .trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .as_bytes(),
    )?;
    Some(enc)
}

/// The `charset` parameter of a `Content-Type` value, if any.
pub fn charset_param(content_type: &str) -> Option<&str> {
    for part in content_type.split(';').skip(1) {
        let part = part.trim();
        if let Some((k, v)) = part.split_once('=') {
            if k.trim().eq_ignore_ascii_case("charset") {
                let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
                if !v.is_empty() {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// Decodes `body` following the module's rules. `http_charset` is the label from the HTTP header
/// (just the label, or a whole `Content-Type` value).
pub fn decode<'a>(body: &'a [u8], http_charset: Option<&str>, mode: CharsetMode) -> Decoded<'a> {
    if let Some((enc, bom_len)) = Encoding::for_bom(body) {
        let rest = body.get(bom_len..).unwrap_or_default();
        let (enc, source) = match mode {
            CharsetMode::Utf8 => (UTF_8, CharsetSource::Forced),
            CharsetMode::Auto => (enc, CharsetSource::Bom),
        };
        return finish(enc, rest, source);
    }
    if mode == CharsetMode::Utf8 {
        return finish(UTF_8, body, CharsetSource::Forced);
    }
    let http = http_charset
        .map(|h| {
            if h.contains(';') || h.contains('/') {
                charset_param(h).unwrap_or("")
            } else {
                h
            }
        })
        .and_then(encoding_for_label)
        .map(|e| (e, CharsetSource::Http));
    let declared = http.or_else(|| prescan_meta(body).map(|e| (e, CharsetSource::Meta)));
    if let Some((enc, source)) = declared {
        let enc = if enc == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            enc
        };
        if enc == UTF_8 {
            return finish(UTF_8, body, source);
        }
        if enc != UTF_16LE && enc != UTF_16BE && !body.is_ascii() {
            if let Ok(text) = std::str::from_utf8(body) {
                return valid_utf8(text, CharsetSource::Mislabelled);
            }
        }
        return finish(enc, body, source);
    }
    if let Ok(text) = std::str::from_utf8(body) {
        return valid_utf8(text, CharsetSource::Detected);
    }
    let sample = &body[..body.len().min(CHARSET_DETECT_BYTES)];
    let mut det = chardetng::EncodingDetector::new();
    det.feed(sample, sample.len() == body.len());
    let enc = det.guess(None, true);
    finish(enc, body, CharsetSource::Detected)
}

/// The text of a body already checked to be UTF-8, borrowed as decoding it would give it (without
/// checking it a second time).
fn valid_utf8(text: &str, source: CharsetSource) -> Decoded<'_> {
    Decoded {
        text: Cow::Borrowed(text),
        encoding: UTF_8,
        source,
    }
}

fn finish<'a>(enc: &'static Encoding, bytes: &'a [u8], source: CharsetSource) -> Decoded<'a> {
    let (text, _had_errors) = enc.decode_without_bom_handling(bytes);
    Decoded {
        text,
        encoding: enc,
        source,
    }
}

/// The WHATWG "prescan a byte stream to determine its encoding" over the first
/// [`META_PRESCAN_BYTES`]: skips comments and other tags, reads `<meta>` attributes.
pub fn prescan_meta(body: &[u8]) -> Option<&'static Encoding> {
    let b = &body[..body.len().min(META_PRESCAN_BYTES)];
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            match find(&rest[4..], b"-->") {
                Some(p) => i += 4 + p + 3,
                None => return None,
            }
            continue;
        }
        if rest.len() >= 6 && rest[1..5].eq_ignore_ascii_case(b"meta") && is_attr_sep(rest[5]) {
            i += 5;
            let mut got_pragma = false;
            let mut need_pragma: Option<bool> = None;
            let mut charset: Option<&'static Encoding> = None;
            let mut seen_charset_attr = false;
            while let Some((name, value, next)) = get_attribute(b, i) {
                i = next;
                if name.eq_ignore_ascii_case(b"http-equiv") {
                    if value.eq_ignore_ascii_case(b"content-type") {
                        got_pragma = true;
                    }
                } else if name.eq_ignore_ascii_case(b"content") {
                    if charset.is_none() && !seen_charset_attr {
                        if let Some(enc) = charset_from_content(value) {
                            charset = Some(enc);
                            need_pragma = Some(true);
                        }
                    }
                } else if name.eq_ignore_ascii_case(b"charset") && !seen_charset_attr {
                    seen_charset_attr = true;
                    if let Ok(s) = std::str::from_utf8(value) {
                        charset = encoding_for_label(s);
                    }
                    need_pragma = Some(false);
                }
                if i >= b.len() || b[i - 1] == b'>' {
                    break;
                }
            }
            match (need_pragma, charset) {
                (Some(true), Some(_)) if !got_pragma => continue,
                (Some(_), Some(enc)) => {
                    let enc = if enc == UTF_16LE || enc == UTF_16BE {
                        UTF_8
                    } else {
                        enc
                    };
                    let enc = if enc == X_USER_DEFINED {
                        WINDOWS_1252
                    } else {
                        enc
                    };
                    return Some(enc);
                }
                _ => continue,
            }
        }
        // Another tag, `</x`, `<!`, `<?`: skip to the next '>'.
        match memchr::memchr(b'>', &rest[1..]) {
            Some(p) => i += 1 + p + 1,
            None => return None,
        }
    }
    None
}

fn is_attr_sep(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/')
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// One attribute of a tag at `i` (a simplified WHATWG "get an attribute"): returns
/// `(name, value, next index)`, or `None` at the tag's end.
fn get_attribute(b: &[u8], mut i: usize) -> Option<(&[u8], &[u8], usize)> {
    while i < b.len() && (is_attr_sep(b[i])) {
        i += 1;
    }
    if i >= b.len() || b[i] == b'>' {
        return None;
    }
    let start = i;
    while i < b.len()
        && !matches!(
            b[i],
            b'=' | b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/'
        )
    {
        i += 1;
    }
    let name = &b[start..i];
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        i += 1;
    }
    if i >= b.len() || b[i] != b'=' {
        if i < b.len() && b[i] == b'>' {
            return Some((name, &[], i + 1));
        }
        return Some((name, &[], i.max(start + 1)));
    }
    i += 1;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        i += 1;
    }
    if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
        let q = b[i];
        let vs = i + 1;
        let ve = memchr::memchr(q, &b[vs..]).map(|p| vs + p)?;
        return Some((name, &b[vs..ve], ve + 1));
    }
    let vs = i;
    while i < b.len() && !matches!(b[i], b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        i += 1;
    }
    let next = if i < b.len() && b[i] == b'>' {
        i + 1
    } else {
        i
    };
    Some((name, &b[vs..i], next))
}

/// The WHATWG "extract a character encoding from a meta element" on a `content` value.
fn charset_from_content(v: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = v.to_ascii_lowercase();
    let p = find(&lower, b"charset")?;
    let mut i = p + 7;
    while i < v.len() && v[i].is_ascii_whitespace() {
        i += 1;
    }
    if i >= v.len() || v[i] != b'=' {
        return None;
    }
    i += 1;
    while i < v.len() && v[i].is_ascii_whitespace() {
        i += 1;
    }
    let rest = &v[i..];
    let label = if let Some(&q) = rest.first().filter(|&&c| c == b'"' || c == b'\'') {
        let end = memchr::memchr(q, &rest[1..])?;
        &rest[1..1 + end]
    } else {
        let end = rest
            .iter()
            .position(|&c| c.is_ascii_whitespace() || c == b';')
            .unwrap_or(rest.len());
        &rest[..end]
    };
    std::str::from_utf8(label).ok().and_then(encoding_for_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(body: &[u8], http: Option<&str>) -> (String, &'static str, CharsetSource) {
        let d = decode(body, http, CharsetMode::Auto);
        (d.text.into_owned(), d.encoding.name(), d.source)
    }

    #[test]
    fn http_charset_wins_over_meta() {
        let body = b"<meta charset=utf-8><p>caf\xe9</p>";
        let (t, e, s) = dec(body, Some("text/html; charset=ISO-8859-1"));
        assert_eq!(e, "windows-1252");
        assert_eq!(s, CharsetSource::Http);
        assert!(t.contains("café"));
    }

    #[test]
    fn meta_charset_and_http_equiv_are_found() {
        let (t, e, s) = dec(
            b"<html><head><meta charset=\"windows-1251\"></head>\xcf\xf0\xe8",
            None,
        );
        assert_eq!((e, s), ("windows-1251", CharsetSource::Meta));
        assert!(t.ends_with("При"));
        let body = b"<!-- <meta charset=koi8-r> --><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-2\">\xb1";
        let (t, e, _) = dec(body, None);
        assert_eq!(e, "ISO-8859-2");
        assert!(t.ends_with('ą'));
        // `content` without the pragma is ignored.
        assert_eq!(
            prescan_meta(b"<meta content=\"text/html; charset=koi8-r\">"),
            None
        );
    }

    #[test]
    fn bom_wins_over_everything() {
        let mut body = vec![0xef, 0xbb, 0xbf];
        body.extend_from_slice("<meta charset=latin1>é".as_bytes());
        let (t, e, s) = dec(&body, Some("iso-8859-1"));
        assert_eq!((e, s), ("UTF-8", CharsetSource::Bom));
        assert!(t.starts_with("<meta") && t.ends_with('é'));
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("hé".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(dec(&utf16, None).0, "hé");
    }

    #[test]
    fn mislabelled_latin1_that_is_utf8_decodes_as_utf8() {
        let body = "<meta charset=iso-8859-1><p>Zürich — naïve</p>".as_bytes();
        let (t, e, s) = dec(body, None);
        assert_eq!((e, s), ("UTF-8", CharsetSource::Mislabelled));
        assert!(t.contains("Zürich — naïve"));
        // Real latin-1 stays latin-1.
        let (t, e, _) = dec(b"<meta charset=latin1><p>Z\xfcrich</p>", None);
        assert_eq!(e, "windows-1252");
        assert!(t.contains("Zürich"));
    }

    #[test]
    fn undeclared_legacy_bytes_are_detected() {
        let body =
            "Der Bär läuft über die Straße und frißt Äpfel. Schöne Grüße aus München.".repeat(4);
        let (bytes, _, _) = WINDOWS_1252.encode(&body);
        let (t, _, s) = dec(&bytes, None);
        assert_eq!(s, CharsetSource::Detected);
        assert_eq!(t, body);
    }

    #[test]
    fn forced_utf8_ignores_declarations() {
        let d = decode(
            b"<meta charset=latin1>\xc3\xa9\xff",
            None,
            CharsetMode::Utf8,
        );
        assert_eq!(d.text, "<meta charset=latin1>é\u{fffd}");
        assert_eq!(d.source, CharsetSource::Forced);
    }

    /// Undeclared Cyrillic pages: the detector must not take windows-1251 or KOI8-R text for
    /// one of the DOS or Mac code pages (IBM866, x-mac-cyrillic), which turns it into mojibake.
    #[test]
    fn undeclared_cyrillic_is_not_read_as_a_dos_or_mac_code_page() {
        let texts = [
            "Москва - столица России, крупнейший по численности населения город страны.",
            "Привет, мир! Как дела?",
            "В чащах юга жил бы цитрус? Да, но фальшивый экземпляр!",
        ];
        for text in texts {
            for enc in [encoding_rs::WINDOWS_1251, encoding_rs::KOI8_R] {
                let page = format!("<html><body><p>{text}</p></body></html>");
                let (bytes, _, unmappable) = enc.encode(&page);
                assert!(!unmappable);
                let (out, name, source) = dec(&bytes, None);
                assert_eq!(source, CharsetSource::Detected);
                assert!(
                    !matches!(name, "IBM866" | "x-mac-cyrillic"),
                    "{} read as {name}",
                    enc.name()
                );
                assert_eq!(out, page, "{} read as {name}", enc.name());
            }
        }
    }

    #[test]
    fn undeclared_windows_1252_is_not_mojibake() {
        let page =
            "<p>Le café est très célèbre: crêpes, gâteaux et thé. L’été «c’est beau» — oui.</p>";
        let (bytes, _, _) = WINDOWS_1252.encode(page);
        let (out, name, _) = dec(&bytes, None);
        assert_eq!((out.as_str(), name), (page, "windows-1252"));
    }
}
