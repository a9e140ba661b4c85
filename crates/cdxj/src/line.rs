//! One CDXJ line per capture, `SURT-key timestamp {json}`, with the fields, order and values
//! `cdxj-indexer` 1.5.0 writes by default, and the same line read back.
//!
//! What `cdxj-indexer` does, and so what [`capture`] does:
//! * records `response`, `revisit`, `resource`, `metadata` (ARC records are `response`s);
//!   `resource`/`metadata` whose `Content-Type` is exactly `application/warc-fields` are left out,
//!   as are `request`, `warcinfo` and the rest;
//! * `url`: WARC-Target-URI (`<>` removed, spaces as `%20`), or the ARC URL; absent without one
//!   (the key is then `-`);
//! * `mime`: `warc/revisit` for revisits; for responses the HTTP `Content-Type` (when warcio parses
//!   HTTP: an `http:`/`https:` URL and a non-empty block); otherwise the record's `Content-Type`;
//!   cut at the first `;` or space;
//! * `status`: the HTTP status code of responses and revisits that carry HTTP;
//! * `digest`: WARC-Payload-Digest, else (not for revisits) `sha1:` base32 of the payload as stored
//!   (after the HTTP head when there is one, else the whole block), as warcio computes it;
//! * `length`, `offset`: the record's bytes in the file: its gzip member, or for an uncompressed
//!   file the header and block without the blank lines after it; `filename`: the base name.
//!
//! TREC documents (which `cdxj-indexer` does not read) get the key of the `<DOCHDR>` URL, else of
//! `trec:DOCNO`; their timestamp is the `<DOCHDR>` date when it reads as one, else
//! [`NO_DATE`]; `mime` and `status` from `<DOCHDR>`, `digest` of the document's body.

use crawlsift_common::limits::CDXJ_MAX_LINE_BYTES;
use crawlsift_reader::{Record, RecordKind};
use sha1::{Digest, Sha1};

use crate::{head, json, surt, timestamp};

/// The timestamp of a TREC document without a date: the earliest warcio's ARC dates clamp to.
pub const NO_DATE: &str = "19000101000000";

/// The URL scheme a TREC document without a `<DOCHDR>` URL is keyed by: `trec:DOCNO`.
pub const TREC_SCHEME: &str = "trec:";

/// One capture: the values of a CDXJ line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// SURT key.
    pub key: String,
    /// 14-digit timestamp.
    pub timestamp: String,
    /// The captured URL.
    pub url: Option<String>,
    /// Media type.
    pub mime: Option<String>,
    /// HTTP status code as written.
    pub status: Option<String>,
    /// `sha1:BASE32` payload digest.
    pub digest: Option<String>,
    /// Bytes of the record (its gzip member) in the archive.
    pub length: u64,
    /// Where the record (its gzip member) starts in the archive.
    pub offset: u64,
    /// The archive's base name.
    pub filename: String,
}

impl Capture {
    /// The CDXJ line, without its newline.
    pub fn to_line(&self) -> String {
        let mut s = String::with_capacity(256);
        s.push_str(&self.key);
        s.push(' ');
        s.push_str(&self.timestamp);
        s.push(' ');
        let (length, offset) = (self.length.to_string(), self.offset.to_string());
        let mut fields: Vec<(&str, &str)> = Vec::with_capacity(7);
        let opt = [
            ("url", &self.url),
            ("mime", &self.mime),
            ("status", &self.status),
            ("digest", &self.digest),
        ];
        for (k, v) in &opt {
            if let Some(v) = v {
                fields.push((k, v));
            }
        }
        fields.push(("length", &length));
        fields.push(("offset", &offset));
        fields.push(("filename", &self.filename));
        json::push_object(&mut s, &fields);
        s
    }

    /// Reads a line back; the reason when it is not `KEY TIMESTAMP {json}` with `length`,
    /// `offset` and `filename`.
    pub fn parse(line: &str) -> Result<Capture, String> {
        let (key, rest) = line.split_once(' ').ok_or("no space after the key")?;
        let (ts, json) = rest.split_once(' ').ok_or("no space after the timestamp")?;
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("bad JSON: {e}"))?;
        let obj = v.as_object().ok_or("JSON is not an object")?;
        let text = |k: &str| obj.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let num = |k: &str| -> Result<u64, String> {
            let v = obj.get(k).ok_or(format!("no {k}"))?;
            match v {
                serde_json::Value::String(s) => s.parse().map_err(|_| format!("bad {k}")),
                serde_json::Value::Number(n) => n.as_u64().ok_or(format!("bad {k}")),
                _ => Err(format!("bad {k}")),
            }
        };
        Ok(Capture {
            key: key.to_string(),
            timestamp: ts.to_string(),
            url: text("url"),
            mime: text("mime"),
            status: text("status"),
            digest: text("digest"),
            length: num("length")?,
            offset: num("offset")?,
            filename: text("filename").ok_or("no filename")?,
        })
    }
}

/// Why a record has no line: the stable names counted in the build summary.
pub mod skip {
    /// Not a record type `cdxj-indexer` indexes (request, warcinfo, ...).
    pub const RECORD_TYPE: &str = "record_type";
    /// A `resource`/`metadata` record of `application/warc-fields`.
    pub const WARC_FIELDS: &str = "warc_fields";
    /// A line longer than `CDXJ_MAX_LINE_BYTES` (a URL of tens of KB): lookups refuse such lines.
    pub const TOO_LONG: &str = "line_too_long";
    /// No WARC-Date, or one that names no time (`cdxj-indexer` stops at any date it cannot read;
    /// we read what names a time, see [`crate::timestamp::from_iso_lenient`]).
    pub const BAD_DATE: &str = "bad_date";
}

/// The capture of `rec`, whose bytes in the archive are `offset..offset + length`, or why it has
/// none.
pub fn capture(
    rec: &Record,
    offset: u64,
    length: u64,
    filename: &str,
) -> Result<Capture, &'static str> {
    let mut c = Capture {
        key: String::new(),
        timestamp: String::new(),
        url: None,
        mime: None,
        status: None,
        digest: None,
        length,
        offset,
        filename: filename.to_string(),
    };
    match rec.kind {
        RecordKind::Response | RecordKind::Revisit | RecordKind::Arc => web(rec, &mut c)?,
        RecordKind::Resource | RecordKind::Metadata => {
            if rec.content_type.as_deref() == Some("application/warc-fields") {
                return Err(skip::WARC_FIELDS);
            }
            web(rec, &mut c)?
        }
        RecordKind::TrecWeb | RecordKind::TrecText => trec(rec, &mut c),
        _ => return Err(skip::RECORD_TYPE),
    }
    c.key = surt::surt(c.url.as_deref().unwrap_or(""));
    c.mime = c.mime.map(|m| {
        m.split([';', ' ', '\t', '\r', '\n', '\u{b}', '\u{c}'])
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    });
    // A line is at most a few hundred bytes more than key + 6 x URL (JSON escapes); only a line
    // that may be long is written out to measure it, with room for the length's digits.
    let url_len = c.url.as_ref().map_or(0, String::len);
    if c.key.len() + 6 * url_len > CDXJ_MAX_LINE_BYTES / 2
        && c.to_line().len() + 20 > CDXJ_MAX_LINE_BYTES
    {
        return Err(skip::TOO_LONG);
    }
    Ok(c)
}

/// WARC and ARC records.
fn web(rec: &Record, c: &mut Capture) -> Result<(), &'static str> {
    c.url = rec.url.as_ref().map(|u| u.replace(' ', "%20"));
    c.timestamp = match rec.kind {
        RecordKind::Arc => timestamp::from_arc(rec.date.as_deref().unwrap_or("")),
        _ => {
            let date = rec.date.as_deref().unwrap_or("");
            timestamp::from_iso(date)
                .or_else(|| timestamp::from_iso_lenient(date))
                .ok_or(skip::BAD_DATE)?
        }
    };
    let http_type = matches!(
        rec.kind,
        RecordKind::Response | RecordKind::Revisit | RecordKind::Arc
    );
    let http_url = c
        .url
        .as_deref()
        .is_some_and(|u| u.starts_with("http:") || u.starts_with("https:"));
    let head = if http_type && http_url {
        head::parse(&rec.block)
    } else {
        None
    };
    let present = head.as_ref().filter(|h| h.present);
    c.mime = match rec.kind {
        RecordKind::Revisit => Some("warc/revisit".into()),
        RecordKind::Response | RecordKind::Arc => present.and_then(|h| h.content_type.clone()),
        _ => rec.content_type.clone(),
    };
    c.status = present.map(|h| h.status.clone());
    c.digest = rec.header("WARC-Payload-Digest").map(str::to_string);
    if c.digest.is_none() && rec.kind != RecordKind::Revisit {
        let start = head.as_ref().map_or(0, |h| h.payload_start);
        c.digest = Some(sha1_base32(&rec.block[start.min(rec.block.len())..]));
    }
    Ok(())
}

/// TREC documents (see the module documentation).
fn trec(rec: &Record, c: &mut Capture) {
    c.url = Some(match &rec.url {
        Some(u) => u.replace(' ', "%20"),
        None => format!("{TREC_SCHEME}{}", rec.id),
    });
    let date = rec.date.as_deref().unwrap_or("");
    c.timestamp = timestamp::from_iso(date).unwrap_or_else(|| {
        if date.len() >= 8 && date.bytes().all(|b| b.is_ascii_digit()) {
            timestamp::from_arc(date)
        } else {
            NO_DATE.to_string()
        }
    });
    let head = rec.http_head.as_deref().and_then(head::parse);
    c.mime = head
        .as_ref()
        .and_then(|h| h.content_type.clone())
        .or_else(|| rec.content_type.clone());
    c.status = head
        .as_ref()
        .filter(|h| h.present && !h.status.is_empty())
        .map(|h| h.status.clone());
    c.digest = Some(sha1_base32(&rec.block));
}

/// `sha1:` and the RFC 4648 base32 of the SHA-1 of `data`, as warcio writes digests.
pub fn sha1_base32(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let hash = Sha1::digest(data);
    let mut out = String::with_capacity(37);
    out.push_str("sha1:");
    // 20 bytes are 160 bits: 32 base32 digits, no padding.
    for chunk in hash.chunks(5) {
        let v = chunk.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        for i in (0..8).rev() {
            out.push(char::from(ALPHABET[((v >> (5 * i)) & 31) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_warcios() {
        // sha1("abc"), base32 as the reader's digest tests have it.
        assert_eq!(sha1_base32(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
    }

    #[test]
    fn line_round_trip() {
        let c = Capture {
            key: "com,example)/".into(),
            timestamp: "20200101000000".into(),
            url: Some("http://example.com/".into()),
            mime: Some("text/html".into()),
            status: Some("200".into()),
            digest: None,
            length: 10,
            offset: 0,
            filename: "a.warc.gz".into(),
        };
        let line = c.to_line();
        assert_eq!(
            line,
            r#"com,example)/ 20200101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200", "length": "10", "offset": "0", "filename": "a.warc.gz"}"#
        );
        assert_eq!(Capture::parse(&line).unwrap(), c);
        assert!(Capture::parse("garbage").is_err());
        assert!(Capture::parse("a b {\"offset\": \"1\"}").is_err());
    }
}
