/*!
Main text of web documents: bytes + content type + optional HTTP charset in, clean UTF-8 out.

The pipeline per document: [`sniff`] decides what the body is (HTML, feed, plain text, or a
[`Skip`] reason such as PDF or image); [`charset`] decodes it (BOM, HTTP charset, `<meta>` prescan,
detector); [`html`] tokenizes HTML with html5gum into a flat [`dom::Doc`] of container nodes and
text blocks; a [`Method`] picks the main text: [`blocks`] (default), [`plateau`] (Finn's Body Text
Extraction) or `full` (all visible text). Feeds become one [`FeedItem`] per entry ([`feed`]).

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

pub mod blocks;
pub mod charset;
pub mod dom;
pub mod error;
pub mod feed;
pub mod html;
pub mod plateau;
pub mod sniff;

use crawlsift_common::limits::{MAX_HTML_BYTES, MAX_TEXT_BYTES};

pub use charset::CharsetMode;
pub use error::{ConfigError, Skip};
pub use feed::FeedItem;

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
}

impl Method {
    /// The method's name, as `--method` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Blocks => "blocks",
            Method::Plateau => "plateau",
            Method::Full => "full",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blocks" => Ok(Method::Blocks),
            "plateau" => Ok(Method::Plateau),
            "full" => Ok(Method::Full),
            _ => Err(ConfigError::UnknownMethod(s.to_string())),
        }
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
}

impl Default for ExtractorConfig {
    fn default() -> Self {
        ExtractorConfig {
            method: Method::default(),
            charset: CharsetMode::Auto,
            max_bytes: MAX_HTML_BYTES,
            max_text_bytes: MAX_TEXT_BYTES,
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
    /// What produced the text: `blocks`, `plateau`, `full`, `text` or `feed`.
    pub method: &'static str,
    /// Feed entries, for feeds.
    pub items: Vec<FeedItem>,
}

/// A reusable extractor: keep one per worker thread; it reuses its buffers across documents.
#[derive(Debug)]
pub struct Extractor {
    cfg: ExtractorConfig,
    doc: dom::Doc,
    scratch: blocks::Scratch,
    picked: Vec<usize>,
}

impl Extractor {
    /// An extractor with these settings (unchecked; prefer [`ExtractorBuilder`]).
    pub fn with_config(cfg: ExtractorConfig) -> Self {
        Extractor {
            cfg,
            doc: dom::Doc::default(),
            scratch: blocks::Scratch::default(),
            picked: Vec::new(),
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
                method: "text",
                items: Vec::new(),
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
                    method: "feed",
                    items: feed.items,
                }
            }
            sniff::Kind::Html => {
                let (title, text) = self.html_text(&decoded.text);
                Extracted {
                    title,
                    text,
                    charset,
                    method: self.cfg.method.as_str(),
                    items: Vec::new(),
                }
            }
        };
        if out.text.is_empty() && out.items.is_empty() {
            return Err(Skip::Empty);
        }
        truncate_at_char(&mut out.text, self.cfg.max_text_bytes);
        Ok(out)
    }

    /// Title and main text of an HTML string with the configured method.
    pub fn html_text(&mut self, html: &str) -> (String, String) {
        html::parse(html, &mut self.doc);
        let doc = &self.doc;
        let text = match self.cfg.method {
            Method::Full => doc.text.clone(),
            Method::Plateau => match plateau::select(doc) {
                Some((s, e)) => doc.text.get(s..e).unwrap_or("").to_string(),
                None => String::new(),
            },
            Method::Blocks => {
                blocks::select(doc, &mut self.scratch, &mut self.picked);
                let mut t = String::new();
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
