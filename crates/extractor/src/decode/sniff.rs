//! What a body is: HTML, a feed, plain text, or something skipped (PDF, image, binary), from its
//! content type and its first bytes (magic numbers win over a wrong or missing type).

use crate::error::Skip;

/// The kind of document a body holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML or XHTML.
    Html,
    /// RSS 2.0, Atom or RDF.
    Feed,
    /// Plain text, passed through.
    Text,
}

/// Classifies a body. `content_type` is the media type, with or without parameters.
pub fn sniff(body: &[u8], content_type: Option<&str>) -> Result<Kind, Skip> {
    let head = &body[..body.len().min(1024)];
    if head.starts_with(b"%PDF-") {
        return Err(Skip::Pdf);
    }
    if is_image(head) {
        return Err(Skip::Image);
    }
    if head.starts_with(b"\x1f\x8b")
        || head.starts_with(b"PK\x03\x04")
        || head.starts_with(b"\x7fELF")
        || head.starts_with(b"\x28\xb5\x2f\xfd")
        || head.starts_with(b"BZh")
        || head.starts_with(b"7z\xbc\xaf")
    {
        return Err(Skip::Binary);
    }
    let mime = content_type
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|m| !m.is_empty());
    let looks_xml_feed = looks_like_feed(head);
    match mime.as_deref() {
        Some("text/html" | "application/xhtml+xml" | "text/xhtml") => Ok(if looks_xml_feed {
            Kind::Feed
        } else {
            Kind::Html
        }),
        Some(
            "application/rss+xml"
            | "application/atom+xml"
            | "application/rdf+xml"
            | "application/feed+json",
        ) => Ok(if looks_xml_feed {
            Kind::Feed
        } else {
            Kind::Html
        }),
        Some("text/xml" | "application/xml") => Ok(if looks_xml_feed {
            Kind::Feed
        } else {
            Kind::Html
        }),
        Some("text/plain") => Ok(if has_nul(head) {
            return Err(Skip::Binary);
        } else {
            Kind::Text
        }),
        Some("application/pdf" | "application/x-pdf") => Err(Skip::Pdf),
        Some(m) if m.starts_with("image/") => Err(Skip::Image),
        Some(m) if m.starts_with("audio/") || m.starts_with("video/") => Err(Skip::Media),
        Some(m)
            if m.starts_with("font/") || m == "application/octet-stream" || m.contains("zip") =>
        {
            sniff_unknown(head, looks_xml_feed, true)
        }
        Some(
            "text/css"
            | "text/javascript"
            | "application/javascript"
            | "application/json"
            | "text/csv",
        ) => Err(Skip::Unsupported),
        Some(m) if m.starts_with("text/") => sniff_unknown(head, looks_xml_feed, false),
        Some(_) => sniff_unknown(head, looks_xml_feed, true),
        None => sniff_unknown(head, looks_xml_feed, false),
    }
}

fn sniff_unknown(head: &[u8], feed: bool, binary_type: bool) -> Result<Kind, Skip> {
    if has_nul(head) && !(head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff")) {
        return Err(Skip::Binary);
    }
    if feed {
        return Ok(Kind::Feed);
    }
    let lower: Vec<u8> = head.iter().take(512).map(u8::to_ascii_lowercase).collect();
    let html = [
        "<!doctype html",
        "<html",
        "<head",
        "<body",
        "<p",
        "<div",
        "<title",
        "<table",
        "<br",
        "<a ",
    ]
    .iter()
    .any(|t| memchr::memmem::find(&lower, t.as_bytes()).is_some());
    if html {
        Ok(Kind::Html)
    } else if binary_type {
        Err(Skip::Binary)
    } else {
        Ok(Kind::Text)
    }
}

fn has_nul(head: &[u8]) -> bool {
    memchr::memchr(0, head).is_some()
}

fn is_image(h: &[u8]) -> bool {
    h.starts_with(b"\x89PNG\r\n\x1a\n")
        || h.starts_with(b"\xff\xd8\xff")
        || h.starts_with(b"GIF87a")
        || h.starts_with(b"GIF89a")
        || (h.len() >= 12 && h.starts_with(b"RIFF") && &h[8..12] == b"WEBP")
        || h.starts_with(b"\x00\x00\x01\x00")
        || h.starts_with(b"BM") && h.len() > 14 && h[6..10] == [0, 0, 0, 0]
}

/// Whether the first bytes open an RSS, Atom or RDF document.
fn looks_like_feed(head: &[u8]) -> bool {
    let mut i = 0;
    // Skip BOM, XML declaration, comments, processing instructions and doctype.
    if head.starts_with(b"\xef\xbb\xbf") {
        i = 3;
    }
    while i < head.len() {
        match head[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'<' => {
                let rest = &head[i + 1..];
                if rest.starts_with(b"?") || rest.starts_with(b"!") {
                    match memchr::memchr(b'>', rest) {
                        Some(p) => i += p + 2,
                        None => return false,
                    }
                    continue;
                }
                return rest.starts_with(b"rss")
                    || rest.starts_with(b"feed")
                    || rest.starts_with(b"rdf:RDF")
                    || rest.starts_with(b"RDF");
            }
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_beat_the_content_type() {
        assert_eq!(sniff(b"%PDF-1.4 ...", Some("text/html")), Err(Skip::Pdf));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n....", Some("text/html")),
            Err(Skip::Image)
        );
        assert_eq!(sniff(b"\x1f\x8b\x08\x00", None), Err(Skip::Binary));
    }

    #[test]
    fn types_and_feeds() {
        assert_eq!(
            sniff(b"<p>x", Some("text/html; charset=utf-8")),
            Ok(Kind::Html)
        );
        assert_eq!(sniff(b"hello", Some("text/plain")), Ok(Kind::Text));
        assert_eq!(
            sniff(
                b"<?xml version='1.0'?>\n<rss version='2.0'>",
                Some("text/xml")
            ),
            Ok(Kind::Feed)
        );
        assert_eq!(
            sniff(b"<feed xmlns='http://www.w3.org/2005/Atom'>", None),
            Ok(Kind::Feed)
        );
        assert_eq!(sniff(b"x", Some("image/jpeg")), Err(Skip::Image));
        assert_eq!(
            sniff(b"a\0b\0", Some("application/octet-stream")),
            Err(Skip::Binary)
        );
        assert_eq!(sniff(b"<!DOCTYPE html><html>", None), Ok(Kind::Html));
        assert_eq!(sniff(b"body{}", Some("text/css")), Err(Skip::Unsupported));
    }
}
