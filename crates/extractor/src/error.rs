//! Why a document gives no text ([`Skip`]) and why a configuration is refused ([`ConfigError`]).

/// A document the extractor does not turn into text, with a stable name for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Skip {
    /// A PDF document.
    #[error("PDF document")]
    Pdf,
    /// An image.
    #[error("image")]
    Image,
    /// Audio or video.
    #[error("audio or video")]
    Media,
    /// Other binary content (archives, executables, fonts, octet streams, NUL-heavy bytes).
    #[error("binary content")]
    Binary,
    /// A body with no bytes, or a page with no visible text.
    #[error("no text")]
    Empty,
    /// A body larger than the configured bound.
    #[error("body larger than {0} bytes")]
    TooLarge(usize),
    /// A type that is not a document (CSS, JavaScript, JSON...).
    #[error("not a text document")]
    Unsupported,
    /// A feed (RSS/Atom/RDF) that did not parse and held no item.
    #[error("feed without readable items")]
    BadFeed,
}

impl Skip {
    /// A stable, lowercase name for counting skipped documents.
    pub fn as_str(&self) -> &'static str {
        match self {
            Skip::Pdf => "pdf",
            Skip::Image => "image",
            Skip::Media => "media",
            Skip::Binary => "binary",
            Skip::Empty => "empty",
            Skip::TooLarge(_) => "too_large",
            Skip::BadFeed => "bad_feed",
            Skip::Unsupported => "unsupported",
        }
    }
}

/// A configuration [`crate::ExtractorBuilder::build`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `max_bytes` of 0.
    #[error("max_bytes must be positive")]
    ZeroMaxBytes,
    /// An unknown `--method` name.
    #[error("unknown method {0:?} (expected blocks, plateau, full or learned)")]
    UnknownMethod(String),
    /// A `--tune` setting that is not `NAME=VALUE` with a known name and a share in [0, 1].
    #[error("bad tuning {0:?} (expected NAME=VALUE, NAME one of article_share, sibling_share, alt_share, min_clean_share, VALUE in [0, 1])")]
    BadTuning(String),
}
