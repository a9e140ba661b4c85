//! The links of an HTML page as it writes them, read by the same tokenizer the main text is
//! read with ([`crate::parse`]'s lexer, html5gum where it hands over): every `<a href>` with its
//! anchor text (the text inside the element, or the `alt` of an image it holds when it has no
//! text) and whether its `rel` says `nofollow`; `<link rel=canonical href>`; the target of a
//! `<meta http-equiv=refresh content="N; url=...">`; and the first `<base href>`. Hrefs are
//! given as written: resolving them against the page's URL and `<base>` is the caller's
//! (`crawlsift-links`). Text inside `script`, `style` and `template` is no anchor text.
//!
//! Bounded: at most [`LINKS_MAX_PER_PAGE`] links a page and [`LINKS_MAX_ANCHOR_CHARS`] characters
//! of anchor text a link (both in `crawlsift_common::limits`).

use crawlsift_common::limits::{LINKS_MAX_ANCHOR_CHARS, LINKS_MAX_PER_PAGE};

use crate::emit::{Sink, TextMode};

/// What kind of link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `<a href>`.
    Anchor,
    /// `<link rel=canonical>`.
    Canonical,
    /// `<meta http-equiv=refresh>`.
    Refresh,
}

/// One link as the page writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLink {
    /// The href as written (attribute value, character references decoded).
    pub href: String,
    /// Anchor text, whitespace collapsed (empty for canonical and refresh links).
    pub text: String,
    /// `rel` holds `nofollow`.
    pub nofollow: bool,
    /// The kind.
    pub kind: LinkKind,
}

/// The links of a page and its `<base href>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageLinks {
    /// The first `<base href>`, as written.
    pub base: Option<String>,
    /// The links, in page order.
    pub links: Vec<RawLink>,
}

/// The links of `html`.
pub fn links_of(html: &str) -> PageLinks {
    let mut c = Collector::default();
    crate::parse::lexer::run(html, &mut c);
    c.finish()
}

/// The sink that reads the links, alone ([`links_of`]) or beside the extractor's tree builder
/// in one parse ([`crate::Extractor::take_links`]).
#[derive(Default)]
pub(crate) struct Collector {
    out: PageLinks,
    tag: Vec<u8>,
    attr: Vec<u8>,
    href: Option<String>,
    rel: String,
    alt: String,
    http_equiv: String,
    content: String,
    /// The `<a>` whose text is being read (an index into `out.links`).
    open: Option<usize>,
    /// The open link's text so far, and an image's `alt` to use if it gets none.
    text: String,
    image_alt: String,
    /// Inside `script`, `style` or `template`.
    raw: u32,
}

impl Collector {
    /// The links read, the last one's text ended.
    pub(crate) fn finish(mut self) -> PageLinks {
        self.close_link();
        self.out
    }

    fn close_link(&mut self) {
        if let Some(i) = self.open.take() {
            let text = if self.text.trim().is_empty() {
                &self.image_alt
            } else {
                &self.text
            };
            // Whitespace collapsed, at most LINKS_MAX_ANCHOR_CHARS characters, written in place.
            let t = &mut self.out.links[i].text;
            t.clear();
            t.reserve(text.len().min(4 * LINKS_MAX_ANCHOR_CHARS));
            for word in text.split_whitespace() {
                if !t.is_empty() {
                    t.push(' ');
                }
                t.push_str(word);
                // Past 4 bytes a character, the text holds enough characters to be cut below.
                if t.len() >= 4 * LINKS_MAX_ANCHOR_CHARS {
                    break;
                }
            }
            if let Some((cut, _)) = t.char_indices().nth(LINKS_MAX_ANCHOR_CHARS) {
                t.truncate(cut);
            }
        }
        self.text.clear();
        self.image_alt.clear();
    }

    fn push(&mut self, href: String, kind: LinkKind) -> bool {
        if self.out.links.len() >= LINKS_MAX_PER_PAGE {
            return false;
        }
        let nofollow = self
            .rel
            .split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case("nofollow"));
        self.out.links.push(RawLink {
            href,
            text: String::new(),
            nofollow,
            kind,
        });
        true
    }
}

/// The URL of a refresh `content` value: `N; url=TARGET` (quotes and case as browsers allow).
fn refresh_target(content: &str) -> Option<String> {
    let after = content.split_once([';', ','])?.1.trim_start();
    let rest = after
        .strip_prefix("url")
        .or_else(|| after.strip_prefix("URL"))
        .or_else(|| after.strip_prefix("Url"))?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    let url = rest.trim_matches(|c| c == '\'' || c == '"').trim();
    (!url.is_empty()).then(|| url.to_string())
}

/// Attributes whose values may be read (a superset of what [`Collector::wants`] takes on a tag).
const WANTED: [&[u8]; 5] = [b"href", b"rel", b"alt", b"http-equiv", b"content"];

impl Collector {
    /// Whether the current tag's attribute `name` is read: only where it makes a link, so that
    /// no value of the page's other tags is copied.
    fn wants(&self, name: &[u8]) -> bool {
        match (&self.tag[..], name) {
            (b"a" | b"link" | b"base", b"href") | (b"a" | b"link", b"rel") => true,
            (b"img", b"alt") => self.open.is_some() && self.image_alt.is_empty(),
            (b"meta", b"http-equiv" | b"content") => true,
            _ => false,
        }
    }
}

impl Sink for Collector {
    fn start_tag(&mut self, name: &[u8]) {
        self.tag.clear();
        self.tag.extend_from_slice(name);
        self.href = None;
        self.rel.clear();
        self.alt.clear();
        self.http_equiv.clear();
        self.content.clear();
    }

    fn attribute(&mut self, name: &[u8]) -> bool {
        self.attr.clear();
        self.attr.extend_from_slice(name);
        self.wants(name)
    }

    fn reads_value(&self, name: &[u8]) -> bool {
        WANTED.contains(&name)
    }

    fn attribute_value(&mut self, value: &[u8]) {
        // One allocation a link (its href); the other values are copied into kept buffers.
        let v = String::from_utf8_lossy(value);
        let keep = |buf: &mut String| {
            buf.clear();
            buf.push_str(&v);
        };
        match &self.attr[..] {
            b"href" if self.href.is_none() => self.href = Some(v.trim().to_string()),
            b"rel" => keep(&mut self.rel),
            b"alt" => keep(&mut self.alt),
            b"http-equiv" => keep(&mut self.http_equiv),
            b"content" => keep(&mut self.content),
            _ => {}
        }
    }

    fn start_tag_end(&mut self, self_closing: bool) {
        match &self.tag[..] {
            b"a" => {
                self.close_link();
                if let Some(href) = self.href.take().filter(|h| !h.is_empty()) {
                    if self.push(href, LinkKind::Anchor) && !self_closing {
                        self.open = Some(self.out.links.len() - 1);
                    }
                }
            }
            b"img" if self.open.is_some() && self.image_alt.is_empty() => {
                std::mem::swap(&mut self.image_alt, &mut self.alt);
            }
            b"base" if self.out.base.is_none() => self.out.base = self.href.take(),
            b"link"
                if self
                    .rel
                    .split_ascii_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("canonical")) =>
            {
                if let Some(href) = self.href.take().filter(|h| !h.is_empty()) {
                    self.rel.clear();
                    self.push(href, LinkKind::Canonical);
                }
            }
            b"meta" if self.http_equiv.trim().eq_ignore_ascii_case("refresh") => {
                if let Some(url) = refresh_target(&self.content) {
                    self.rel.clear();
                    self.push(url, LinkKind::Refresh);
                }
            }
            b"script" | b"style" | b"template" if !self_closing => self.raw += 1,
            _ => {}
        }
    }

    fn end_tag(&mut self, name: &[u8]) {
        match name {
            b"a" => self.close_link(),
            b"script" | b"style" | b"template" => self.raw = self.raw.saturating_sub(1),
            _ => {}
        }
    }

    fn doctype(&mut self) {}

    fn text_mode(&self) -> TextMode {
        if self.open.is_some() && self.raw == 0 {
            TextMode::Pieces
        } else {
            TextMode::Drop
        }
    }

    fn text(&mut self, text: &str) {
        if self.text.len() < LINKS_MAX_ANCHOR_CHARS * 4 {
            self.text.push_str(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_canonical_refresh_and_base_are_read_as_written() {
        let html = r#"<html><head><base href="/root/"><link rel="canonical" href="https://e.example/a">
            <meta http-equiv="Refresh" content="5; URL='next.html'">
            <script>var s = "<a href='no'>no</a>";</script></head>
            <body><a href="one.html">First   link
            text</a> <a href="two.html" rel="nofollow ugc"><img src="x.png" alt="A picture"></a>
            <a name="anchor-only">x</a><a href="">empty</a>
            <a href="t?a=1&amp;b=2">amp &amp; more</a><A HREF="caps">Caps</A></body></html>"#;
        let p = links_of(html);
        assert_eq!(p.base.as_deref(), Some("/root/"));
        let got: Vec<(&str, &str, bool, LinkKind)> = p
            .links
            .iter()
            .map(|l| (l.href.as_str(), l.text.as_str(), l.nofollow, l.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("https://e.example/a", "", false, LinkKind::Canonical),
                ("next.html", "", false, LinkKind::Refresh),
                ("one.html", "First link text", false, LinkKind::Anchor),
                ("two.html", "A picture", true, LinkKind::Anchor),
                ("t?a=1&b=2", "amp & more", false, LinkKind::Anchor),
                ("caps", "Caps", false, LinkKind::Anchor),
            ]
        );
    }

    #[test]
    fn links_read_in_the_extractors_parse_are_those_read_alone() {
        let pages = [
            // Links inside text the extractor drops (script, hidden, nav), and in the title.
            r#"<html><head><title>T <a href=t>x</a></title><base href="/b/"></head><body>
               <nav><a href="/n1">Home</a> <a href=n2><img alt="Logo"></a></nav>
               <div hidden><a href="h">hidden text</a></div><script>"<a href=s>"</script>
               <p>Main text with <a href="m?a=1&amp;b=2" rel=nofollow>a <b>bold</b> link</a>.</p>
               <link rel=canonical href="https://c.example/"><meta http-equiv=refresh content="0;url=r">
               </body></html>"#,
            // A title never closed: the extractor parses again with it closed; the links are
            // those of the page as written.
            "<html><head><title>Broken <a href=one>one</a><p>body <a href=two>two</a>",
            // Little visible text and a <noscript>: the extractor parses again with it shown.
            "<body><noscript><p>Enable scripts <a href=ns>here</a></p></noscript><a href=v>v</a></body>",
            // A link's text split across a character reference and raw-text elements.
            "<a href=x>caf&eacute; <style>a{}</style>cr&egrave;me</a><a href='y'>",
        ];
        for m in [
            crate::Method::Learned,
            crate::Method::Plateau,
            crate::Method::Full,
        ] {
            let mut ex = crate::ExtractorBuilder::new()
                .method(m)
                .links(true)
                .build()
                .unwrap();
            for page in pages {
                let _ = ex.extract(page.as_bytes(), Some("text/html"), None);
                assert_eq!(ex.take_links(), Some(links_of(page)), "{m:?} {page}");
                assert_eq!(ex.take_links(), None);
            }
            // No HTML parsed: no links, and none left over from the page before.
            let _ = ex.extract(pages[0].as_bytes(), Some("text/html"), None);
            let _ = ex.extract(b"plain words", Some("text/plain"), None);
            assert_eq!(ex.take_links(), None);
        }
        let mut off = crate::ExtractorBuilder::new().build().unwrap();
        let _ = off.extract(pages[0].as_bytes(), Some("text/html"), None);
        assert_eq!(off.take_links(), None);
    }

    #[test]
    fn an_unclosed_link_ends_at_the_next_one_and_hostile_pages_stay_bounded() {
        let p = links_of("<a href=a>one<a href=b>two");
        assert_eq!(p.links[0].text, "one");
        assert_eq!(p.links[1].text, "two");
        let many = "<a href=x>y</a>".repeat(LINKS_MAX_PER_PAGE + 10);
        assert_eq!(links_of(&many).links.len(), LINKS_MAX_PER_PAGE);
        let long = format!("<a href=x>{}</a>", "w ".repeat(10 * LINKS_MAX_ANCHOR_CHARS));
        assert!(links_of(&long).links[0].text.chars().count() <= LINKS_MAX_ANCHOR_CHARS);
        assert_eq!(refresh_target("0;url="), None);
        assert_eq!(refresh_target("3"), None);
    }
}
