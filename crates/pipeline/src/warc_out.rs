//! Writing WARC/1.1: one record as its own gzip member ([`OutRecord::gzip_member`]), and the
//! record a read record becomes ([`OutRecord::from_record`]): WARC records keep their fields in
//! order (the version line becomes `WARC/1.1`, `Content-Length` is the block's length, digests
//! are added where missing); ARC records become `response` (an HTTP block) or `resource` records,
//! the ARC file header a `warcinfo`; TREC documents become `resource` records carrying their
//! DOCNO as `WARC-TREC-ID` (as ClueWeb's WARC files do). A record made here gets a record id
//! derived from its place, so the same input gives the same bytes. A response whose payload was
//! written before becomes a `revisit` of the `identical-payload-digest` profile
//! ([`OutRecord::revisit_of`]).

use std::io::Write;

use bytes::Bytes;
use crawlsift_reader::digest::{sha1, sha1_value};
use crawlsift_reader::{Format, Record, RecordKind};
use flate2::write::GzEncoder;

/// The profile URI of a revisit whose payload is byte-identical to the one it refers to.
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// Fields a writer sets itself: never copied from the record read.
const OWN_FIELDS: [&str; 2] = ["Content-Length", "WARC-Block-Digest"];

/// A record to write: its fields in order (without `Content-Length` and `WARC-Block-Digest`,
/// which [`gzip_member`](Self::gzip_member) adds) and its block.
#[derive(Debug, Clone)]
pub struct OutRecord {
    /// Named fields, in order.
    pub fields: Vec<(String, String)>,
    /// The block.
    pub block: Bytes,
    /// The payload digest (`sha1:BASE32` of the HTTP body as stored) of a response, for revisits.
    pub payload_digest: Option<String>,
    /// Bytes of the block that are the HTTP head (status line and headers, with the blank line),
    /// when the block is an HTTP message: what a revisit keeps.
    pub http_head_len: Option<usize>,
    /// Whether a digest header of the record read did not match its bytes (it is kept).
    pub digest_mismatch: bool,
    /// Payload digests this writer added where the record had none.
    pub digests_added: u32,
}

impl OutRecord {
    /// The record `rec` (read from the input named `input`, made at `made`: the date a record
    /// without one gets, WARC 1.1 requiring one) becomes (see the module doc).
    pub fn from_record(rec: &Record, input: &str, made: Option<&str>) -> OutRecord {
        let block = rec.block.clone();
        let http_head_len = http_head_len(&block);
        let mut fields: Vec<(String, String)> = Vec::new();
        let mut put = |k: &str, v: &str| fields.push((k.to_string(), v.to_string()));
        match rec.format {
            Format::Warc => {
                for (k, v) in rec.headers.iter() {
                    if !OWN_FIELDS.iter().any(|o| o.eq_ignore_ascii_case(k)) {
                        put(k, v);
                    }
                }
            }
            _ => {
                let kind = match (&rec.kind, http_head_len) {
                    (RecordKind::ArcHeader, _) => "warcinfo",
                    (RecordKind::Arc, Some(_)) => "response",
                    _ => "resource",
                };
                put("WARC-Type", kind);
                put("WARC-Record-ID", &record_id(input, rec));
                if let Some(d) = rec
                    .date
                    .as_deref()
                    .and_then(crawlsift_reader::date::iso_utc)
                {
                    put("WARC-Date", &d);
                }
                if let Some(u) = rec.url.as_deref().filter(|_| kind != "warcinfo") {
                    put("WARC-Target-URI", u);
                }
                if matches!(rec.kind, RecordKind::TrecWeb | RecordKind::TrecText) {
                    put("WARC-TREC-ID", &rec.id);
                }
                if let Some(ip) = rec.header("IP-address").filter(|_| kind == "response") {
                    put("WARC-IP-Address", ip);
                }
                let ct = match (kind, rec.content_type.as_deref()) {
                    ("response", _) => "application/http; msgtype=response",
                    (_, Some(t)) if !t.is_empty() => t,
                    _ => "application/octet-stream",
                };
                put("Content-Type", ct);
            }
        }
        let is_response = fields
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("WARC-Type") && v == "response");
        let mut out = OutRecord {
            fields,
            block,
            payload_digest: None,
            http_head_len,
            digest_mismatch: rec.digests.block
                == Some(crawlsift_reader::digest::DigestCheck::Mismatch)
                || rec.digests.payload == Some(crawlsift_reader::digest::DigestCheck::Mismatch),
            digests_added: 0,
        };
        if let (true, Some(head)) = (is_response, http_head_len) {
            // Written as Heritrix writes it (sha1, base32) whatever the record wrote (hex,
            // another algorithm, a value that does not match): revisits are decided on it.
            let computed = sha1_value(&out.block[head..]);
            let before = out.fields.len();
            out.fields
                .retain(|(k, _)| !k.eq_ignore_ascii_case("WARC-Payload-Digest"));
            out.digests_added += u32::from(out.fields.len() == before);
            out.fields
                .push(("WARC-Payload-Digest".into(), computed.clone()));
            out.payload_digest = Some(computed);
        }
        if !out
            .fields
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("WARC-Date"))
        {
            if let Some(d) = made {
                out.fields.push(("WARC-Date".into(), d.to_string()));
            }
        }
        out
    }

    /// The first value of field `name` (ASCII case-insensitive).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// This response as a `revisit` of `original` (its record id, target URI and date): the
    /// HTTP head only, profile `identical-payload-digest`, the `WARC-Refers-To*` fields as
    /// Heritrix and warcprox write them. The payload digest stays the response's.
    pub fn revisit_of(&self, original: &Original) -> OutRecord {
        let mut fields: Vec<(String, String)> = Vec::with_capacity(self.fields.len() + 4);
        for (k, v) in &self.fields {
            if k.eq_ignore_ascii_case("WARC-Type") {
                fields.push((k.clone(), "revisit".into()));
            } else if !k.eq_ignore_ascii_case("WARC-Truncated") {
                fields.push((k.clone(), v.clone()));
            }
        }
        fields.push(("WARC-Profile".into(), IDENTICAL_PAYLOAD.into()));
        fields.push(("WARC-Refers-To".into(), original.id.clone()));
        if let Some(u) = &original.uri {
            fields.push(("WARC-Refers-To-Target-URI".into(), u.clone()));
        }
        if let Some(d) = &original.date {
            fields.push(("WARC-Refers-To-Date".into(), d.clone()));
        }
        let head = self.http_head_len.unwrap_or(0).min(self.block.len());
        OutRecord {
            fields,
            block: self.block.slice(..head),
            payload_digest: self.payload_digest.clone(),
            http_head_len: self.http_head_len,
            digest_mismatch: false,
            digests_added: 0,
        }
    }

    /// The record as WARC/1.1 bytes: version line, fields, `Content-Length`, the block's
    /// `WARC-Block-Digest` (sha1, base32), a blank line, the block and the two line ends.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut h = String::with_capacity(512);
        h.push_str("WARC/1.1\r\n");
        for (k, v) in &self.fields {
            // A value never spans lines in the output (folded input lines were joined).
            let v = v.replace(['\r', '\n'], " ");
            h.push_str(k);
            h.push_str(": ");
            h.push_str(&v);
            h.push_str("\r\n");
        }
        h.push_str(&format!(
            "WARC-Block-Digest: {}\r\n",
            sha1_value(&self.block)
        ));
        h.push_str(&format!("Content-Length: {}\r\n\r\n", self.block.len()));
        let mut out = Vec::with_capacity(h.len() + self.block.len() + 4);
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(&self.block);
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    /// The record as one gzip member (see [`to_bytes`](Self::to_bytes)).
    pub fn gzip_member(&self) -> std::io::Result<Vec<u8>> {
        let bytes = self.to_bytes();
        let mut gz = GzEncoder::new(
            Vec::with_capacity(bytes.len() / 3),
            flate2::Compression::new(6),
        );
        gz.write_all(&bytes)?;
        gz.finish()
    }
}

/// The original a revisit refers to.
#[derive(Debug, Clone)]
pub struct Original {
    /// Its `WARC-Record-ID`.
    pub id: String,
    /// Its `WARC-Target-URI`.
    pub uri: Option<String>,
    /// Its `WARC-Date`.
    pub date: Option<String>,
}

/// Bytes of `block` that are an HTTP response's head (to the blank line included), if it is one.
fn http_head_len(block: &[u8]) -> Option<usize> {
    if !block.starts_with(b"HTTP/") {
        return None;
    }
    // The head ends within the bound the reader parses HTTP heads in: a body is never scanned.
    let head = &block[..block
        .len()
        .min(crawlsift_common::limits::MAX_HTTP_HEADER_BYTES)];
    let find = |pat: &[u8]| head.windows(pat.len()).position(|w| w == pat);
    let crlf = find(b"\r\n\r\n").map(|i| i + 4);
    let lf = find(b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A record id for a record that had none (ARC, TREC): a name-based UUID (version 5 layout) from
/// the SHA-1 of its input's name and place, so the same input always gives the same id.
fn record_id(input: &str, rec: &Record) -> String {
    let key = format!(
        "crawlsift:{input}:{}:{}:{}",
        rec.pos.offset, rec.uoffset, rec.pos.index
    );
    let mut b = sha1(key.as_bytes());
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b[..16].iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}
