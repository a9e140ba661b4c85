//! The JSON line types of the outputs: `crawlsift dedup`'s `clusters.jsonl` ([`ClusterLine`],
//! [`MemberLine`]), `documents.jsonl.gz` ([`DocumentLine`], [`SkippedLine`]) and clean corpus of
//! `--text` ([`TextLine`]); `crawlsift records` ([`RecordLine`]) and `crawlsift extract`
//! ([`PageLine`], [`FeedItemLine`]). Field order is output order: these structs are the formats.

use crawlsift_dedup::MatchKind;
use crawlsift_extractor::TextMethod;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Whether a `uoffset` is 0 (and so left out of a line).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One line of `crawlsift records`: a record's position, identity and HTTP status.
#[derive(Debug, Serialize)]
pub struct RecordLine<'a> {
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// Ordinal of the record in its input.
    pub index: u64,
    /// Record type name.
    #[serde(rename = "type")]
    pub kind: &'a str,
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Capture date (ISO 8601, UTC) and, where it differs, as the record gives it.
    #[serde(flatten)]
    pub date: DateFields<'a>,
    /// The record's content type.
    pub content_type: Option<&'a str>,
    /// The HTTP status, when the record holds an HTTP response.
    pub http_status: Option<u16>,
    /// Bytes of the payload (the HTTP body, or the whole block).
    pub payload_length: u64,
    /// With `--verify-digests`: `ok`, `mismatch` or `unsupported` for the record's
    /// `WARC-Block-Digest`; absent without the flag or the header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_digest: Option<&'static str>,
    /// The same for `WARC-Payload-Digest` (never checked on a revisit, whose digest names the
    /// original's payload).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_digest: Option<&'static str>,
}

/// One line of `crawlsift extract` for a page. `file`, `offset` and `date` are those of
/// [`RecordLine`], so every text leads back to its record.
#[derive(Debug, Serialize)]
pub struct PageLine<'a> {
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// Record id.
    pub id: &'a str,
    /// Capture date (ISO 8601, UTC) and, where it differs, as the record gives it.
    #[serde(flatten)]
    pub date: DateFields<'a>,
    /// Target URL.
    pub url: Option<&'a str>,
    /// The page's title (with `--with-metadata`, the headline without the site's name).
    pub title: &'a str,
    /// With `--with-metadata`: the author(s), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<&'a str>,
    /// With `--with-metadata`: the publication date (ISO 8601), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<&'a str>,
    /// With `--with-metadata`: the site's name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sitename: Option<&'a str>,
    /// With `--with-metadata`: the main text's language (ISO 639-1), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<&'a str>,
    /// With `--with-metadata`: the page's description, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// With `--with-metadata`: the canonical URL the page names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical: Option<&'a str>,
    /// The page's main text.
    pub text: &'a str,
    /// The declared media type, without parameters.
    pub content_type: Option<String>,
    /// The encoding the page was decoded with.
    pub charset: &'a str,
    /// What produced the text.
    pub method: TextMethod,
}

/// One line of `crawlsift extract --feeds` for an item of a feed; `file`, `offset` and `date`
/// are the feed record's, as in [`PageLine`].
#[derive(Debug, Serialize)]
pub struct FeedItemLine<'a> {
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the feed's record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// The feed's record id.
    pub id: &'a str,
    /// Capture date of the feed (ISO 8601, UTC) and, where it differs, as the record gives it.
    #[serde(flatten)]
    pub date: DateFields<'a>,
    /// The item's number in the feed, from 0.
    pub item: usize,
    /// The item's link.
    pub url: &'a str,
    /// The item's title.
    pub title: &'a str,
    /// The item's own date (RFC 3339), when known.
    pub published: Option<&'a str>,
    /// The item's text.
    pub text: &'a str,
    /// The feed's declared media type, without parameters.
    pub content_type: Option<String>,
    /// The encoding the feed was decoded with.
    pub charset: &'a str,
    /// Always [`TextMethod::Feed`].
    pub method: TextMethod,
}

/// One member of a `clusters.jsonl` line.
#[derive(Debug, Serialize)]
pub struct MemberLine<'a> {
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// Share of words in common with the representative, rounded to 4 decimals ([`rounded`]).
    pub similarity: f64,
    /// How the member joined: `representative`, `exact` or `near` ([`match_name`]).
    #[serde(rename = "match")]
    pub kind: &'static str,
}

/// One line of `clusters.jsonl`.
#[derive(Debug, Serialize)]
pub struct ClusterLine<'a> {
    /// Cluster number, from 0 in representative order.
    pub cluster: usize,
    /// Members, the representative included.
    pub size: usize,
    /// The representative's record id.
    pub representative: &'a str,
    /// The lowest similarity of a member to the representative ([`rounded`]).
    pub lowest_similarity: f64,
    /// Members, the representative first.
    pub members: Vec<MemberLine<'a>>,
}

/// One line of `documents.jsonl.gz` for a page.
#[derive(Debug, Serialize)]
pub struct DocumentLine<'a> {
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// The page's title.
    pub title: &'a str,
    /// Normalized words.
    pub words: Option<u32>,
    /// The exact hash, 32 hex digits.
    pub exact_hash: Option<String>,
    /// The SimHash, 16 hex digits.
    pub simhash: Option<String>,
    /// The cluster the page is in, if any.
    pub cluster: Option<u32>,
    /// The record id of its cluster's representative, when the page is a duplicate.
    pub duplicate_of: Option<&'a str>,
    /// Too short to judge.
    pub too_short: bool,
    /// Mostly template text.
    pub boilerplate: bool,
    /// Share of its words in its site's template lines, left out when it is compared
    /// ([`rounded`]).
    pub template_share: f64,
    /// Always `None` for a page (the field keeps both line kinds alike).
    pub skipped: Option<&'a str>,
}

/// One line of `documents.jsonl.gz` for a record that gave no page.
#[derive(Debug, Serialize)]
pub struct SkippedLine<'a> {
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// Always `None`.
    pub cluster: Option<u32>,
    /// Always `None`.
    pub duplicate_of: Option<&'a str>,
    /// Why the record gave no page (a stable reason name).
    pub skipped: Option<&'a str>,
}

/// One line of the clean corpus (`--text`).
#[derive(Debug, Serialize)]
pub struct TextLine<'a> {
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// The input the record is in, as named on the command line (or found in a directory).
    pub file: &'a str,
    /// Byte offset of the record in its input (as `records` gives it).
    pub offset: u64,
    /// For a file compressed whole (one gzip member, LZ4 or zstd frame holding many records):
    /// where the record starts in the decompressed bytes of the member or frame at `offset`.
    /// Absent when 0 (the record starts its member, or the input is not compressed), so
    /// `offset` alone leads back to it. `crawlsift_reader::record_at` reads either kind.
    #[serde(skip_serializing_if = "is_zero")]
    pub uoffset: u64,
    /// Capture date as `records` and `extract` give it.
    #[serde(flatten)]
    pub date: DateFields<'a>,
    /// The page's title.
    pub title: &'a str,
    /// The page's main text.
    pub text: &'a str,
}

/// A record's capture date in a row: `date`, ISO 8601 in UTC (`YYYY-MM-DDThh:mm:ssZ`, `null` when
/// the record has none or an invalid one), then `date_raw`, the date as the record writes it, only
/// where that differs (an ARC or TREC 14-digit date, an offset, a fraction) or names no date. The
/// parsing is `crawlsift_reader::date`'s.
#[derive(Debug, Default, Serialize)]
pub struct DateFields<'a> {
    /// The date in UTC.
    pub date: Option<Cow<'a, str>>,
    /// The date as written, where it differs from `date`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_raw: Option<&'a str>,
}

impl<'a> DateFields<'a> {
    /// The fields of a record dated `raw` (as written).
    pub fn of(raw: Option<&'a str>) -> Self {
        let (date, date_raw) = crawlsift_reader::date::split(raw);
        DateFields { date, date_raw }
    }
}

/// The name a member's [`MatchKind`] has in `clusters.jsonl`.
pub fn match_name(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Representative => "representative",
        MatchKind::Exact => "exact",
        MatchKind::Near => "near",
    }
}

/// A similarity as written: rounded to 4 decimals.
pub fn rounded(similarity: f32) -> f64 {
    (similarity as f64 * 10_000.0).round() / 10_000.0
}

/// An exact hash as written: 32 hex digits.
pub fn exact_hex(exact: u128) -> String {
    format!("{exact:032x}")
}

/// A SimHash as written: 16 hex digits.
pub fn simhash_hex(simhash: u64) -> String {
    format!("{simhash:016x}")
}

/// A line of `clusters.jsonl` read back (by `rewrite --clusters` and `rank --clusters`): the
/// representative's record id and the members, the representative first.
#[derive(Debug, Clone, Deserialize)]
pub struct ClusterRead {
    /// The representative's record id.
    pub representative: String,
    /// Members, the representative first.
    pub members: Vec<MemberRead>,
}

/// A member of a [`ClusterRead`].
#[derive(Debug, Clone, Deserialize)]
pub struct MemberRead {
    /// Record id.
    pub id: String,
    /// Target URL.
    pub url: Option<String>,
    /// Share of words in common with the representative.
    pub similarity: f64,
    /// How it joined: `representative`, `exact` or `near`.
    #[serde(rename = "match")]
    pub kind: String,
}

/// Reads a `clusters.jsonl`; a line that is not one is a usage error naming the file and line.
pub fn read_clusters(path: &std::path::Path) -> crate::Result<Vec<ClusterRead>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| crate::Error::io("reading the clusters", path, e))?;
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| {
                crate::Error::Usage(format!(
                    "{} line {}: not a line of clusters.jsonl ({e})",
                    path.display(),
                    n + 1
                ))
            })
        })
        .collect()
}
