//! Error types of the reader: file-level [`ReadError`] (the input could not be read at all),
//! record-level [`ErrorKind`] + [`RecordError`] (counted, reported with a byte offset, and skipped),
//! [`HttpError`] (an HTTP message inside a record could not be parsed) and [`RemoteError`] (a
//! remote input's server or URL failed; it travels inside the `std::io::Error` of a
//! [`ReadError`], which names the URL and the byte offset reached).

use std::fmt;
use std::path::PathBuf;

/// A failure that stops reading one input. Record-level problems never produce this: they are
/// counted in the [`crate::FileReport`] and the reader goes on with the next record.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The input could not be opened (or a directory could not be listed).
    #[error("{path}: cannot open: {source}")]
    Open {
        /// The input path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Reading failed at a byte offset of the input (for example a broken pipe on stdin).
    #[error("{path}: read error at byte {offset}: {source}")]
    Io {
        /// The input path (`-` for stdin).
        path: PathBuf,
        /// Bytes of the input consumed before the failure.
        offset: u64,
        /// The underlying error.
        source: std::io::Error,
    },
    /// No record could be read back at a place ([`crate::record_at`]): the file changed, or the
    /// place is not one a run gave.
    #[error("{path}: byte {offset}, decoded byte {uoffset}: cannot read a record there: {why}")]
    NoRecord {
        /// The input path.
        path: PathBuf,
        /// The byte offset asked for (the record, or its gzip member / LZ4 or zstd frame).
        offset: u64,
        /// The decoded position asked for within that member or frame.
        uoffset: u64,
        /// Why.
        why: String,
    },
    /// A worker thread panicked (a bug: input can never cause this).
    #[error("{path}: internal error: {message}")]
    Internal {
        /// The input path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// The kinds of record-level errors, counted per file. Names are stable (`as_str`) because they
/// appear in summaries and JSON (with the `serde` feature it is (de)serialized as that name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ErrorKind {
    /// A record header that does not parse (no `WARC/` line, bad ARC header line, header too long).
    BadHeader,
    /// Input ended inside a record; the record is kept with the bytes that exist.
    Truncated,
    /// A gzip member that is corrupt, truncated, fails its CRC, or bytes that are not gzip where a
    /// member should start.
    BadGzip,
    /// A WARC/ARC length that does not match where the next record starts (record kept, resynced).
    BadLength,
    /// A WARC record without a usable `Content-Length`, or an ARC record whose length field is not a
    /// byte count (`-1`, `abc`, absent): the record is kept up to the next `WARC/` or header line.
    MissingLength,
    /// A record or member larger than the configured bound, or an inflate bomb: skipped.
    TooLarge,
    /// Bytes between records that belong to no record (trailing garbage, stray text).
    Garbage,
    /// A TREC `<DOC>` without a `<DOCNO>` (or `id` attribute): skipped.
    MissingDocno,
    /// A TREC `</DOC>` with no open `<DOC>`.
    StrayEnd,
    /// A TREC `<DOC>` whose `</DOC>` never comes before the next `<DOC>` or the end of input.
    MissingEnd,
    /// An LZ4/zstd stream that fails to decode.
    BadCompression,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::BadHeader,
        ErrorKind::Truncated,
        ErrorKind::BadGzip,
        ErrorKind::BadLength,
        ErrorKind::MissingLength,
        ErrorKind::TooLarge,
        ErrorKind::Garbage,
        ErrorKind::MissingDocno,
        ErrorKind::StrayEnd,
        ErrorKind::MissingEnd,
        ErrorKind::BadCompression,
    ];

    /// The kind named `name` (the inverse of [`as_str`](ErrorKind::as_str)).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Stable snake_case name, as used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadHeader => "bad_header",
            ErrorKind::Truncated => "truncated",
            ErrorKind::BadGzip => "bad_gzip",
            ErrorKind::BadLength => "bad_length",
            ErrorKind::MissingLength => "missing_length",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Garbage => "garbage",
            ErrorKind::MissingDocno => "missing_docno",
            ErrorKind::StrayEnd => "stray_end",
            ErrorKind::MissingEnd => "missing_end",
            ErrorKind::BadCompression => "bad_compression",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One record-level error: its kind, the byte offset in the input file (of the gzip member for
/// compressed input) and a message. With the `serde` feature it is (de)serialized as its
/// `Display` line, `byte 123: bad_gzip: message`, as the binary's summaries print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset in the input file (for compressed input: of the member holding the problem).
    pub offset: u64,
    /// Human-readable detail.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}: {}", self.offset, self.kind, self.message)
    }
}

impl std::str::FromStr for RecordError {
    type Err = String;

    /// Parses the `Display` form, `byte <offset>: <kind>: <message>`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("not a record error line: {s:?}");
        let rest = s.strip_prefix("byte ").ok_or_else(bad)?;
        let (offset, rest) = rest.split_once(": ").ok_or_else(bad)?;
        let (kind, message) = rest.split_once(": ").ok_or_else(bad)?;
        Ok(RecordError {
            kind: ErrorKind::from_name(kind).ok_or_else(bad)?,
            offset: offset.parse().map_err(|_| bad())?,
            message: message.to_string(),
        })
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for RecordError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for RecordError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Why an HTTP message inside a record could not be parsed. A body that does not decode as its
/// headers claim is *not* an error: it falls back to the raw body (see [`crate::HttpResponse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The first line is not an `HTTP/x.y NNN` status line.
    #[error("bad HTTP status line")]
    BadStatusLine,
    /// The header block does not end within the bound.
    #[error("HTTP header block larger than {0} bytes")]
    HeaderTooLarge(usize),
}

/// Why a remote input (`http(s)://`, `s3://`) could not be opened or read on. The
/// [`ReadError`] carrying it names the URL and, once reading started, the byte offset reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// A URL the reader cannot use (no bucket, an unknown scheme) or S3 settings it refuses.
    #[error("{0}")]
    Config(String),
    /// The server answered with a status that retrying does not change (403, 404, ...).
    #[error("the server answered HTTP {status}{detail}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body (an S3 error's code and message), or nothing.
        detail: String,
    },
    /// Every attempt failed (connections refused or dropped, timeouts, 5xx and 429 answers).
    #[error("gave up after {attempts} attempts at byte {offset}: {last}")]
    GaveUp {
        /// Attempts made from this position.
        attempts: u32,
        /// The byte the attempts were made from.
        offset: u64,
        /// What the last attempt met.
        last: String,
    },
    /// A resumed request was answered with other bytes than those asked for: another range,
    /// or an object whose ETag changed since reading began.
    #[error("resuming at byte {offset}: {why}")]
    Resume {
        /// The byte asked for.
        offset: u64,
        /// What came instead.
        why: String,
    },
    /// An answer meant to be read whole (a listing, an input list) is larger than the bound.
    #[error("an answer larger than {0} bytes")]
    TooLarge(u64),
}
