/*!
Main text of web documents: bytes + content type + optional HTTP charset in, clean UTF-8 out.

The pipeline per document: [`sniff`] decides what the body is (HTML, feed, plain text, or a
[`Skip`] reason such as PDF or image); [`charset`] decodes it (BOM, HTTP charset, `<meta>` prescan,
detector); [`html`] tokenizes HTML (a fast lexer backed by html5gum) into a flat [`dom::Doc`]
of container nodes and text blocks; a [`Method`] picks the main text: [`blocks`] (default), [`plateau`] (Finn's Body Text
Extraction) or `full` (all visible text). Feeds become one [`FeedItem`] per entry ([`feed`]).

The folders show what each part owns: [`decode`] (bytes to text), [`parse`] (text to the flat
document), the methods ([`blocks`], [`learned`], [`plateau`]) and [`metadata`] (title, dates,
language). Their modules are re-exported at the crate's root, where they were before.

```
use crawlsift_extractor::{ExtractorBuilder, Method};
let mut ex = ExtractorBuilder::new().method(Method::Full).build().unwrap();
let page = b"<html><head><title>Hi</title></head><body><p>Hello &amp; welcome</p></body></html>";
let out = ex.extract(page, Some("text/html"), None).unwrap();
assert_eq!(out.title, "Hi");
assert_eq!(out.text, "Hello & welcome");
assert_eq!(crawlsift_extractor::extract(b"%PDF-1.7", None, None, &Default::default()).unwrap_err().as_str(), "pdf");
```
*/

#![deny(missing_docs)]

pub mod blocks;
pub mod decode;
mod emit;
pub mod error;
pub mod format;
pub mod learned;
pub mod links;
pub mod metadata;
pub mod parse;
pub mod plateau;

pub(crate) use decode::input;
pub use decode::{charset, sniff};
pub(crate) use metadata::calendar;
pub use metadata::{dates, language};
pub(crate) use parse::{chars, lexer};
pub use parse::{dom, feed, html, structure};

use crawlsift_common::limits::{MAX_HTML_BYTES, MAX_TEXT_BYTES};

pub use charset::CharsetMode;
pub use error::{ConfigError, Skip};
pub use feed::FeedItem;
pub use format::Format;
pub use metadata::Metadata;
pub use structure::{Part, PartKind};

/// Which main-text method runs on HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Container scoring and block filtering ([`blocks`]).
    #[default]
    Blocks,
    /// Finn's Body Text Extraction ([`plateau`]).
    Plateau,
    /// All visible text.
    Full,
    /// A block classifier trained on labelled pages over features that include the `blocks`
    /// method's decisions ([`learned`]).
    Learned,
}

impl Method {
    /// The method's name, as `--method` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Blocks => "blocks",
            Method::Plateau => "plateau",
            Method::Full => "full",
            Method::Learned => "learned",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Method {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blocks" => Ok(Method::Blocks),
            "plateau" => Ok(Method::Plateau),
            "full" => Ok(Method::Full),
            "learned" => Ok(Method::Learned),
            _ => Err(ConfigError::UnknownMethod(s.to_string())),
        }
    }
}

/// What produced an [`Extracted`] text: an HTML [`Method`], the plain-text path or the feed reader.
/// Serialised and displayed as `blocks`, `plateau`, `full`, `learned`, `text` or `feed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TextMethod {
    /// HTML, by [`Method::Blocks`].
    #[default]
    Blocks,
    /// HTML, by [`Method::Plateau`].
    Plateau,
    /// HTML, by [`Method::Full`].
    Full,
    /// HTML, by [`Method::Learned`].
    Learned,
    /// A plain-text body, whitespace normalised.
    Text,
    /// A feed (RSS, Atom, RDF): the items' texts.
    Feed,
}

impl TextMethod {
    /// The name outputs use: `blocks`, `plateau`, `full`, `learned`, `text` or `feed`.
    pub fn as_str(self) -> &'static str {
        match self {
            TextMethod::Blocks => "blocks",
            TextMethod::Plateau => "plateau",
            TextMethod::Full => "full",
            TextMethod::Learned => "learned",
            TextMethod::Text => "text",
            TextMethod::Feed => "feed",
        }
    }
}

impl From<Method> for TextMethod {
    fn from(m: Method) -> Self {
        match m {
            Method::Blocks => TextMethod::Blocks,
            Method::Plateau => TextMethod::Plateau,
            Method::Full => TextMethod::Full,
            Method::Learned => TextMethod::Learned,
        }
    }
}

impl std::fmt::Display for TextMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Settings of an [`Extractor`].
#[derive(Debug, Clone)]
pub struct ExtractorConfig {
    /// The HTML method.
    pub method: Method,
    /// How the character set is chosen.
    pub charset: CharsetMode,
    /// Bodies larger than this are skipped as `too_large`.
    pub max_bytes: usize,
    /// Longest text returned; longer text is cut at a char boundary.
    pub max_text_bytes: usize,
    /// Also keep what each kept block is ([`Extracted::parts`]), for the structured formats.
    pub structure: bool,
    /// Also read the page's metadata ([`Extracted::metadata`]).
    pub metadata: bool,
    /// The shares of the `blocks` method.
    pub tuning: blocks::Tuning,
    /// Also read each HTML page's links in the same parse ([`Extractor::take_links`]).
    pub links: bool,
}

impl Default for ExtractorConfig {
    fn default() -> Self {
        ExtractorConfig {
            method: Method::default(),
            charset: CharsetMode::Auto,
            max_bytes: MAX_HTML_BYTES,
            max_text_bytes: MAX_TEXT_BYTES,
            structure: false,
            metadata: false,
            tuning: blocks::Tuning::default(),
            links: false,
        }
    }
}

/// Builds an [`Extractor`], checking the configuration.
#[derive(Debug, Clone, Default)]
pub struct ExtractorBuilder {
    cfg: ExtractorConfig,
}

impl ExtractorBuilder {
    /// Defaults: `blocks`, charset sniffing, [`MAX_HTML_BYTES`].
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the HTML method.
    pub fn method(mut self, m: Method) -> Self {
        self.cfg.method = m;
        self
    }
    /// Sets the charset mode.
    pub fn charset(mut self, c: CharsetMode) -> Self {
        self.cfg.charset = c;
        self
    }
    /// Sets the largest body parsed.
    pub fn max_bytes(mut self, n: usize) -> Self {
        self.cfg.max_bytes = n;
        self
    }
    /// Keeps the structure of the kept blocks ([`Extracted::parts`]) for Markdown and XML.
    pub fn structure(mut self, on: bool) -> Self {
        self.cfg.structure = on;
        self
    }
    /// Sets the shares of the `blocks` method.
    pub fn tuning(mut self, t: blocks::Tuning) -> Self {
        self.cfg.tuning = t;
        self
    }
    /// Reads each page's metadata ([`Extracted::metadata`]).
    pub fn metadata(mut self, on: bool) -> Self {
        self.cfg.metadata = on;
        self
    }
    /// Reads each HTML page's links in the same parse as its text ([`Extractor::take_links`]).
    pub fn links(mut self, on: bool) -> Self {
        self.cfg.links = on;
        self
    }
    /// Checks the settings and makes the extractor.
    pub fn build(self) -> Result<Extractor, ConfigError> {
        if self.cfg.max_bytes == 0 || self.cfg.max_text_bytes == 0 {
            return Err(ConfigError::ZeroMaxBytes);
        }
        Ok(Extractor::with_config(self.cfg))
    }
}

/// What the extractor produced for one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// The `<title>` (or the feed's title), whitespace collapsed.
    pub title: String,
    /// The main text: one block per line. For feeds, the items' texts joined.
    pub text: String,
    /// The encoding the bytes were decoded with (WHATWG name).
    pub charset: &'static str,
    /// What produced the text (shown as `blocks`, `plateau`, `full`, `text` or `feed`).
    pub method: TextMethod,
    /// Feed entries, for feeds.
    pub items: Vec<FeedItem>,
    /// The kept blocks with what each is (HTML, with [`ExtractorConfig::structure`] only).
    pub parts: Vec<Part>,
    /// What the page says about itself (HTML, with [`ExtractorConfig::metadata`] only).
    pub metadata: Option<Box<Metadata>>,
}

/// A reusable extractor: keep one per worker thread; it reuses its buffers across documents.
#[derive(Debug)]
pub struct Extractor {
    cfg: ExtractorConfig,
    doc: dom::Doc,
    scratch: blocks::Scratch,
    learned: learned::Scratch,
    picked: Vec<usize>,
    links: Option<links::PageLinks>,
}

impl Extractor {
    /// An extractor with these settings (unchecked; prefer [`ExtractorBuilder`]).
    pub fn with_config(cfg: ExtractorConfig) -> Self {
        let mut scratch = blocks::Scratch::default();
        scratch.tuning = cfg.tuning;
        Extractor {
            cfg,
            doc: dom::Doc::default(),
            scratch,
            learned: learned::Scratch::default(),
            picked: Vec::new(),
            links: None,
        }
    }

    /// The settings.
    pub fn config(&self) -> &ExtractorConfig {
        &self.cfg
    }

    /// Extracts one document. `content_type` is the HTTP/record media type if known;
    /// `http_charset` the header's charset label (or the whole `Content-Type`).
    pub fn extract(
        &mut self,
        body: &[u8],
        content_type: Option<&str>,
        http_charset: Option<&str>,
    ) -> Result<Extracted, Skip> {
        self.extract_at(body, content_type, http_charset, None)
    }

    /// [`Extractor::extract`] of a document captured from `url` (which the metadata may use).
    pub fn extract_at(
        &mut self,
        body: &[u8],
        content_type: Option<&str>,
        http_charset: Option<&str>,
        url: Option<&str>,
    ) -> Result<Extracted, Skip> {
        self.links = None;
        if body.is_empty() {
            return Err(Skip::Empty);
        }
        if body.len() > self.cfg.max_bytes {
            return Err(Skip::TooLarge(self.cfg.max_bytes));
        }
        let kind = sniff::sniff(body, content_type)?;
        let http_charset = http_charset.or_else(|| content_type.and_then(charset::charset_param));
        let decoded = charset::decode(body, http_charset, self.cfg.charset);
        let charset = decoded.encoding.name();
        let mut out = match kind {
            sniff::Kind::Text => Extracted {
                title: String::new(),
                text: normalize_text(&decoded.text),
                charset,
                method: TextMethod::Text,
                items: Vec::new(),
                parts: Vec::new(),
                metadata: None,
            },
            sniff::Kind::Feed => {
                let feed = feed::read(&decoded.text).ok_or(Skip::BadFeed)?;
                let text = feed
                    .items
                    .iter()
                    .map(|i| i.text.as_str())
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n");
                Extracted {
                    title: feed.title,
                    text,
                    charset,
                    method: TextMethod::Feed,
                    items: feed.items,
                    parts: Vec::new(),
                    metadata: None,
                }
            }
            sniff::Kind::Html => {
                let mut page = self.html_page(&decoded.text, url);
                page.charset = charset;
                page
            }
        };
        if out.text.is_empty() && out.items.is_empty() {
            return Err(Skip::Empty);
        }
        truncate_at_char(&mut out.text, self.cfg.max_text_bytes);
        Ok(out)
    }

    /// Everything the configuration asks for of an HTML string: title, main text, and (when
    /// configured) its parts and metadata; `charset` is left for the caller to fill in.
    pub fn html_page(&mut self, html: &str, url: Option<&str>) -> Extracted {
        let (title, mut text) = self.html_text(html);
        truncate_at_char(&mut text, self.cfg.max_text_bytes);
        let parts = if self.cfg.structure {
            self.parts()
        } else {
            Vec::new()
        };
        let metadata = self.cfg.metadata.then(|| {
            let visible = if text.is_empty() {
                &self.doc.text
            } else {
                &text
            };
            Box::new(metadata::read(html, url, visible, &self.doc.text))
        });
        Extracted {
            title,
            text,
            charset: "UTF-8",
            method: self.cfg.method.into(),
            items: Vec::new(),
            parts,
            metadata,
        }
    }

    /// Title and main text of an HTML string with the configured method.
    pub fn html_text(&mut self, html: &str) -> (String, String) {
        let wants = html::Wants {
            chunks: self.cfg.method == Method::Plateau,
            marks: self.cfg.structure,
        };
        if self.cfg.links {
            let mut c = links::Collector::default();
            html::parse_reading_links(html, &mut self.doc, wants, Some(&mut c));
            self.links = Some(c.finish());
        } else {
            html::parse_with(html, &mut self.doc, wants);
        }
        let doc = &self.doc;
        let text = match self.cfg.method {
            Method::Full => doc.text.clone(),
            Method::Plateau => match plateau::select(doc) {
                Some((s, e)) => doc.text.get(s..e).unwrap_or("").to_string(),
                None => String::new(),
            },
            Method::Blocks | Method::Learned => {
                if self.cfg.method == Method::Learned {
                    learned::select(doc, &mut self.scratch, &mut self.learned, &mut self.picked);
                } else {
                    blocks::select(doc, &mut self.scratch, &mut self.picked);
                }
                let len: usize = (self.picked.iter())
                    .filter_map(|&bi| doc.blocks.get(bi))
                    .map(|b| b.end.saturating_sub(b.start) as usize + 1)
                    .sum();
                let mut t = String::with_capacity(len);
                for &bi in &self.picked {
                    if let Some(b) = doc.blocks.get(bi) {
                        if !t.is_empty() {
                            t.push('\n');
                        }
                        t.push_str(doc.block_text(b));
                    }
                }
                t
            }
        };
        (doc.title.clone(), text)
    }

    /// The links of the HTML page the last extraction parsed, as [`links::links_of`] reads them
    /// from the same text, when [`ExtractorConfig::links`] is on; `None` when that extraction
    /// parsed no HTML (a feed, plain text, a body skipped before parsing) or was already taken.
    pub fn take_links(&mut self) -> Option<links::PageLinks> {
        self.links.take()
    }

    /// Every text block of an HTML string with the `learned` method's features, score and
    /// decision (whatever the configured method): what `crawlsift extract --explain` prints.
    pub fn explain(&mut self, html: &str) -> Vec<learned::BlockReport> {
        let wants = html::Wants {
            chunks: false,
            marks: false,
        };
        html::parse_with(html, &mut self.doc, wants);
        learned::explain(&self.doc, &mut self.scratch, &mut self.learned)
    }

    /// What each block of the text of the last [`Extractor::html_text`] is.
    pub fn parts(&self) -> Vec<Part> {
        let doc = &self.doc;
        let whole = |(i, b): (usize, &dom::Block)| (i, b.start as usize, b.end as usize);
        match self.cfg.method {
            Method::Full => structure::parts(doc, doc.blocks.iter().enumerate().map(whole)),
            Method::Blocks | Method::Learned => structure::parts(
                doc,
                self.picked
                    .iter()
                    .filter_map(|&i| doc.blocks.get(i).map(|b| whole((i, b)))),
            ),
            Method::Plateau => {
                let Some((s, e)) = plateau::select(doc) else {
                    return Vec::new();
                };
                let first = doc.blocks.partition_point(|b| (b.end as usize) <= s);
                let inside = doc.blocks.iter().enumerate().skip(first);
                structure::parts(
                    doc,
                    inside
                        .take_while(|(_, b)| (b.start as usize) < e)
                        .map(|(i, b)| (i, (b.start as usize).max(s), (b.end as usize).min(e))),
                )
            }
        }
    }
}

/// Extracts one document with a fresh [`Extractor`] (prefer a reused one in loops).
pub fn extract(
    body: &[u8],
    content_type: Option<&str>,
    http_charset: Option<&str>,
    cfg: &ExtractorConfig,
) -> Result<Extracted, Skip> {
    Extractor::with_config(cfg.clone()).extract(body, content_type, http_charset)
}

/// Plain text: NUL/control characters dropped, spaces collapsed per line, blank lines removed.
pub fn normalize_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let mut first = true;
        for w in line.split(|c: char| c.is_whitespace() || c.is_control()) {
            if w.is_empty() {
                continue;
            }
            if first {
                if !out.is_empty() {
                    out.push('\n');
                }
                first = false;
            } else {
                out.push(' ');
            }
            out.push_str(w);
        }
    }
    out
}

fn truncate_at_char(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while cut > 0 && !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_kinds_route_to_the_right_reader() {
        let cfg = ExtractorConfig::default();
        let t = extract(
            b"line  one\n\n\tline two\x07",
            Some("text/plain"),
            None,
            &cfg,
        )
        .unwrap();
        assert_eq!(
            (t.text.as_str(), t.method),
            ("line one\nline two", TextMethod::Text)
        );
        assert_eq!(t.method.to_string(), "text");
        let rss = b"<?xml version='1.0'?><rss><channel><title>C</title><item><title>T</title><description>Body</description><pubDate>Sat, 01 Jan 2000 00:00:00 +0000</pubDate></item></channel></rss>";
        let f = extract(rss, Some("application/rss+xml"), None, &cfg).unwrap();
        assert_eq!(f.method, TextMethod::Feed);
        assert_eq!(f.method.to_string(), "feed");
        assert_eq!(f.items[0].date.as_deref(), Some("2000-01-01T00:00:00Z"));
        assert_eq!(
            extract(b"%PDF-1.5", Some("application/pdf"), None, &cfg),
            Err(Skip::Pdf)
        );
        assert_eq!(
            extract(b"", None, None, &cfg).unwrap_err().as_str(),
            "empty"
        );
        let small = ExtractorConfig {
            max_bytes: 4,
            ..ExtractorConfig::default()
        };
        assert_eq!(
            extract(b"<p>hello</p>", None, None, &small)
                .unwrap_err()
                .as_str(),
            "too_large"
        );
        assert_eq!(
            extract(
                b"<html><body><script>x</script></body></html>",
                None,
                None,
                &cfg
            ),
            Err(Skip::Empty)
        );
    }

    #[test]
    fn html_charset_is_reported() {
        let cfg = ExtractorConfig {
            method: Method::Full,
            ..ExtractorConfig::default()
        };
        let page = b"<html><head><meta charset=windows-1251></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2</p></body></html>";
        let out = extract(page, Some("text/html"), None, &cfg).unwrap();
        assert_eq!((out.text.as_str(), out.charset), ("Привет", "windows-1251"));
        let mislabelled =
            "<html><head><meta charset=iso-8859-1></head><body><p>Grüße</p></body></html>";
        let out = extract(
            mislabelled.as_bytes(),
            Some("text/html; charset=iso-8859-1"),
            None,
            &cfg,
        )
        .unwrap();
        assert_eq!((out.text.as_str(), out.charset), ("Grüße", "UTF-8"));
    }

    #[test]
    fn hostile_pages_finish_with_every_method() {
        let deep = format!("{}<p>deep</p>", "<div><table><tr><td>".repeat(250_000));
        let big = format!(
            "<html><body>{}</body></html>",
            "<p>some words here and there</p>".repeat(1_600_000)
        );
        let line = format!("<pre>{}</pre>", "x".repeat(10 << 20));
        let nul = "<p>a\0<b\0>c</p>\0".repeat(1000);
        let unclosed = "<div><p><a href='x'><span>text".repeat(50_000);
        for m in [
            Method::Blocks,
            Method::Plateau,
            Method::Full,
            Method::Learned,
        ] {
            let mut ex = ExtractorBuilder::new().method(m).build().unwrap();
            // The 50 MB page once (debug builds are slow), the others with every method.
            let pages: &[&String] = if m == Method::Blocks {
                &[&deep, &big, &line, &nul, &unclosed]
            } else {
                &[&deep, &line, &nul, &unclosed]
            };
            for page in pages {
                let out = ex.extract(page.as_bytes(), Some("text/html"), None);
                assert!(out.is_ok(), "{m:?}: {out:?}");
            }
        }
    }
}
