//! The [`Record`] handed to callers: position, identity, metadata, header fields and block bytes,
//! plus lazy access to the HTTP message it carries ([`Record::http`], [`Record::payload`]).

use crate::fields::Fields;
use bytes::Bytes;
use crawlsift_common::SourcePos;

use crate::error::{ErrorKind, HttpError};
use crate::http::{self, HttpResponse};

/// Archive formats the reader recognises (from the bytes, never the file name). With the `serde`
/// feature it is (de)serialized as its [`as_str`](Format::as_str) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Format {
    /// WARC 0.17, 0.18, 1.0, 1.1 (also Common Crawl WET/WAT, which are WARC).
    Warc,
    /// Internet Archive ARC v1 (and v2 header lines).
    Arc,
    /// TREC `<DOC>` collections, both TREC Web (`<DOCHDR>`) and TREC text (`<TEXT>`).
    Trec,
}

impl Format {
    /// Stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Warc => "warc",
            Format::Arc => "arc",
            Format::Trec => "trec",
        }
    }
}

/// What a record is. WARC types map one to one; ARC and TREC records get their own kinds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordKind {
    /// WARC `warcinfo`.
    Warcinfo,
    /// WARC `response`.
    Response,
    /// WARC `resource`.
    Resource,
    /// WARC `request`.
    Request,
    /// WARC `metadata`.
    Metadata,
    /// WARC `revisit`.
    Revisit,
    /// WARC `conversion` (Common Crawl WET text).
    Conversion,
    /// WARC `continuation`.
    Continuation,
    /// The ARC file header record (`filedesc://`).
    ArcHeader,
    /// An ARC content record.
    Arc,
    /// A TREC Web document (`<DOCHDR>` with URL and HTTP header lines, then the page).
    TrecWeb,
    /// A TREC text document (`<TEXT>`).
    TrecText,
    /// Any other WARC-Type value, as written.
    Other(String),
}

impl RecordKind {
    /// Parses a `WARC-Type` value (case-insensitive).
    pub fn from_warc_type(t: &str) -> RecordKind {
        match t.trim().to_ascii_lowercase().as_str() {
            "warcinfo" => RecordKind::Warcinfo,
            "response" => RecordKind::Response,
            "resource" => RecordKind::Resource,
            "request" => RecordKind::Request,
            "metadata" => RecordKind::Metadata,
            "revisit" => RecordKind::Revisit,
            "conversion" => RecordKind::Conversion,
            "continuation" => RecordKind::Continuation,
            _ => RecordKind::Other(t.trim().to_string()),
        }
    }

    /// The name used in reports (`response`, `arc`, `trec_web`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            RecordKind::Warcinfo => "warcinfo",
            RecordKind::Response => "response",
            RecordKind::Resource => "resource",
            RecordKind::Request => "request",
            RecordKind::Metadata => "metadata",
            RecordKind::Revisit => "revisit",
            RecordKind::Conversion => "conversion",
            RecordKind::Continuation => "continuation",
            RecordKind::ArcHeader => "arc_header",
            RecordKind::Arc => "arc",
            RecordKind::TrecWeb => "trec_web",
            RecordKind::TrecText => "trec_text",
            RecordKind::Other(s) => s,
        }
    }
}

/// One record of an archive.
///
/// `block` is the record body: for WARC the Content-Length bytes after the header, for ARC the
/// bytes after the header line, for TREC Web the page after `</DOCHDR>`, for TREC text the
/// contents of `<TEXT>`. For uncompressed memory-mapped input it is a slice of the map; for
/// compressed input a slice of a shared decoded buffer. Cloning a record does not copy bytes.
#[derive(Debug, Clone)]
pub struct Record {
    /// File index, byte offset (of the record, or of the gzip member holding its start), ordinal.
    pub pos: SourcePos,
    /// Where the record starts in the decoded bytes of the gzip member, LZ4 or zstd frame that
    /// starts at `pos.offset`: 0 for a record that starts its member (per-record compression)
    /// and for uncompressed input, the offset in the decompressed stream for a file compressed
    /// whole. `(pos.offset, uoffset)` leads back to the record: see [`crate::record_at`].
    pub uoffset: u64,
    /// The format the record was read as.
    pub format: Format,
    /// Record type.
    pub kind: RecordKind,
    /// WARC-Record-ID as written (with `<>`), ARC `url date`, or the TREC DOCNO.
    pub id: String,
    /// Target URL (`WARC-Target-URI` without `<>`, ARC URL, TREC `<DOCHDR>` URL).
    pub url: Option<String>,
    /// `WARC-Date`, ARC 14-digit date, or the date in a TREC `<DOCHDR>` first line; as written.
    pub date: Option<String>,
    /// Content type of the block (WARC `Content-Type`, ARC field 4, `text/plain` for TREC text,
    /// the `<DOCHDR>` Content-Type for TREC Web).
    pub content_type: Option<String>,
    /// Header fields in order (WARC named fields with folded lines joined; ARC fields by name).
    pub headers: Fields,
    /// The record body (see the type's documentation).
    pub block: Bytes,
    /// TREC Web only: the HTTP status and header lines from `<DOCHDR>` (after the URL line).
    pub http_head: Option<Bytes>,
    /// An error the record was kept despite (`truncated`, `bad_length`, `missing_length`); it is
    /// also counted in the file report.
    pub error: Option<ErrorKind>,
    /// A departure from the format that reading passes over without counting it an error,
    /// which strict validation (`crawlsift check`) reports: a WARC record whose block is not
    /// followed by exactly two line ends (`\r\n\r\n`), or is followed by NUL padding.
    pub quirk: Option<&'static str>,
    /// How far the input had been read (a file offset) when the batch holding the record was
    /// decoded: at least its offset, and further on in a file compressed whole (one gzip member,
    /// LZ4 or zstd frame), whose records all have the offset of that member. For progress, never
    /// to find the record (that is `pos.offset` with `uoffset`).
    pub read_to: u64,
    /// What its digest headers gave, when the reader verifies them
    /// ([`ReaderConfig::verify_digests`](crate::ReaderConfig)); empty otherwise.
    pub digests: Digests,
}

impl Record {
    /// The first header value named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)
    }

    /// Whether the block (or TREC `<DOCHDR>`) holds an HTTP response that [`Record::http`] parses.
    pub fn is_http_response(&self) -> bool {
        match self.kind {
            RecordKind::TrecWeb => self
                .http_head
                .as_ref()
                .is_some_and(|h| http::starts_with_status_line(h)),
            RecordKind::TrecText
            | RecordKind::Request
            | RecordKind::Warcinfo
            | RecordKind::Metadata
            | RecordKind::ArcHeader => false,
            _ => http::starts_with_status_line(&self.block),
        }
    }

    /// Parses the HTTP response in this record and decodes its body (chunked transfer coding
    /// removed, `Content-Encoding` gzip/deflate/br undone, falling back to the raw body when a
    /// header lies). `None` when the record holds no HTTP response (warcinfo, request, DNS
    /// records, TREC text, ...). Work is done on each call, so callers run it on worker threads.
    pub fn http(&self) -> Option<Result<HttpResponse, HttpError>> {
        if !self.is_http_response() {
            return None;
        }
        Some(match (&self.kind, &self.http_head) {
            (RecordKind::TrecWeb, Some(head)) => http::parse_split(head, &self.block),
            _ => http::parse_response(&self.block),
        })
    }

    /// The payload as stored: for HTTP records the body after the HTTP header block (still chunked
    /// / compressed as on the wire, which is what `WARC-Payload-Digest` covers); otherwise the
    /// whole block.
    pub fn payload(&self) -> Bytes {
        if self.kind == RecordKind::TrecWeb {
            return self.block.clone();
        }
        if self.is_http_response() || self.kind == RecordKind::Request {
            if let Some(end) = http::header_end(&self.block) {
                return self.block.slice(end..);
            }
        }
        self.block.clone()
    }
}

/// Outcome of checking one digest header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestCheck {
    /// The digest matches.
    Ok,
    /// The digest does not match.
    Mismatch,
    /// Unknown algorithm or undecodable value.
    Unsupported,
}

impl DigestCheck {
    /// `ok`, `mismatch` or `unsupported`, as `records --verify-digests` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            DigestCheck::Ok => "ok",
            DigestCheck::Mismatch => "mismatch",
            DigestCheck::Unsupported => "unsupported",
        }
    }
}

/// What checking one record's digest headers gave (with `verify_digests`): `None` where the
/// record has no such header, or where it is not checked (a revisit's payload digest names the
/// original's payload).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digests {
    /// `WARC-Block-Digest` against the block.
    pub block: Option<DigestCheck>,
    /// `WARC-Payload-Digest` against the payload as stored.
    pub payload: Option<DigestCheck>,
}
