//! From a record to a document: which records are pages, and their extracted text. This is the
//! one place that decides it; `crawlsift extract`, `crawlsift dedup` and the
//! `record_to_fingerprint` fuzz target all go through [`extract_record`] (and, for what is
//! clustered, [`clustered_page`]).
//!
//! A *document* is a capture of a page: a WARC `response`/`resource`/`conversion` record, an ARC
//! record or a TREC document, whose HTTP status (when it carries HTTP) is 200 and whose payload
//! the extractor turns into text. Everything else is counted under a stable reason name: other
//! record types (`record_type`), other HTTP statuses (`http_status`), unparsable HTTP
//! (`bad_http`), and the extractor's own reasons (`pdf`, `image`, `binary`, `empty`, ...).
//!
//! Two kinds of records that hold text are not pages, for `extract` and `dedup` alike: a site's
//! `robots.txt` (`robots_txt`) and the crawler's own files stored as `resource` records (a
//! `wget.log` under a `metadata://` URI, a crawl log under `file:`): `crawler_log`. A feed is
//! read as one (`TextMethod::Feed`); `dedup` never clusters it ([`FEED_SKIP`]) and `extract`
//! skips it under the same name unless it is asked to split feeds into their items.

use crawlsift_common::SourcePos;
use crawlsift_extractor::{Extracted, Extractor, Skip, TextMethod};
use crawlsift_reader::{Record, RecordKind};

/// The HTTP status of a page capture. Redirects, errors and partial content are not pages.
const PAGE_STATUS: u16 = 200;

/// A record's identity, kept whatever became of it.
#[derive(Debug, Clone)]
pub struct Origin {
    /// File index, byte offset, record ordinal.
    pub pos: SourcePos,
    /// Where the record starts in the decoded bytes of the member or frame at `pos.offset`
    /// ([`crawlsift_reader::Record::uoffset`]).
    pub uoffset: u64,
    /// WARC-Record-ID, ARC `url date`, or DOCNO.
    pub id: String,
    /// Target URL.
    pub url: Option<String>,
}

/// What one record became.
#[derive(Debug)]
pub enum Outcome {
    /// A page with text, and the media type it was declared as.
    Page(Extracted, Option<String>),
    /// Not a page, or a page without text; the reason's stable name.
    Skipped(&'static str),
}

/// Whether a record type can hold a page at all.
fn may_be_page(kind: &RecordKind) -> bool {
    matches!(
        kind,
        RecordKind::Response
            | RecordKind::Resource
            | RecordKind::Conversion
            | RecordKind::Arc
            | RecordKind::TrecWeb
            | RecordKind::TrecText
    )
}

/// Extracts the document a record holds, or says why it holds none.
pub fn extract_record(rec: &Record, ex: &mut Extractor) -> Outcome {
    if !may_be_page(&rec.kind) {
        return Outcome::Skipped("record_type");
    }
    if is_robots_txt(rec.url.as_deref()) {
        return Outcome::Skipped(ROBOTS_SKIP);
    }
    if rec.kind == RecordKind::Resource && is_crawler_file(rec.url.as_deref()) {
        return Outcome::Skipped(CRAWLER_LOG_SKIP);
    }
    let ctype;
    let result = match rec.http() {
        Some(Ok(resp)) => {
            // TREC `<DOCHDR>`s may carry no status line (status 0): the page is all there is.
            if resp.status != PAGE_STATUS && resp.status != 0 {
                return Outcome::Skipped("http_status");
            }
            if resp.flags.too_large {
                // The coded body expands past the bound (a bomb): what is left is not the page.
                return Outcome::Skipped("too_large");
            }
            ctype = resp.header("content-type").map(str::to_string);
            ex.extract_at(&resp.body, ctype.as_deref(), None, rec.url.as_deref())
        }
        Some(Err(_)) => return Outcome::Skipped("bad_http"),
        None => {
            if matches!(rec.kind, RecordKind::Response | RecordKind::TrecWeb)
                && !rec.block.is_empty()
            {
                // A response that should carry HTTP but does not parse as it (dns:, ftp:, ...).
                if rec.url.as_deref().is_some_and(|u| u.starts_with("dns:")) {
                    return Outcome::Skipped("record_type");
                }
            }
            ctype = rec.content_type.clone();
            ex.extract_at(&rec.block, ctype.as_deref(), None, rec.url.as_deref())
        }
    };
    match result {
        Ok(doc) => Outcome::Page(doc, ctype),
        Err(skip) => Outcome::Skipped(skip_name(skip)),
    }
}

fn skip_name(skip: Skip) -> &'static str {
    skip.as_str()
}

/// The reason name of a feed in `crawlsift dedup`: a feed is a list of other pages' items, not a
/// page, so it is not clustered.
pub const FEED_SKIP: &str = "feed";

/// The reason name of a `robots.txt` in `crawlsift dedup`: a crawler's instructions, not a page
/// (sites share them word for word, and a recrawl repeats them).
pub const ROBOTS_SKIP: &str = "robots_txt";

/// The reason name of a crawler's own file kept as a `resource` record (its log, its manifest):
/// written by the crawler about the crawl, not captured from the web.
pub const CRAWLER_LOG_SKIP: &str = "crawler_log";

/// True when a `resource` record's URI is not one a web page is captured from: crawlers store
/// their logs and manifests under `metadata://`, `file:` or no URI at all, pages under
/// `http(s)://` (or `ftp://`).
fn is_crawler_file(url: Option<&str>) -> bool {
    let Some(url) = url else { return true };
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    !["http", "https", "ftp"]
        .iter()
        .any(|w| scheme.eq_ignore_ascii_case(w))
}

/// True when a URL names a site's `robots.txt`.
fn is_robots_txt(url: Option<&str>) -> bool {
    url.and_then(|u| u.split(['?', '#']).next())
        .and_then(|u| u.split("://").nth(1))
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, path)| path.eq_ignore_ascii_case("robots.txt"))
}

/// The document `crawlsift dedup` clusters from a record: a page that is not a feed, or the
/// stable name of why there is none (see [`extract_record`] and [`FEED_SKIP`]).
pub fn clustered_page(rec: &Record, ex: &mut Extractor) -> Result<Extracted, &'static str> {
    match extract_record(rec, ex) {
        Outcome::Page(p, _) if p.method == TextMethod::Feed => Err(FEED_SKIP),
        Outcome::Page(p, _) => Ok(p),
        Outcome::Skipped(why) => Err(why),
    }
}

/// The media type of a `Content-Type` value, without parameters, lowercased.
pub fn mime(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crawlsift_extractor::ExtractorBuilder;
    use crawlsift_reader::{read_bytes, ReaderConfig};

    /// A WARC record of `kind` whose block is `block`.
    fn warc(kind: &str, uri: &str, block: &str) -> String {
        format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:{uri}>\r\nWARC-Target-URI: {uri}\r\n\
             Content-Type: application/http; msgtype={kind}\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    }

    fn http(status: &str, ctype: &str, body: &str) -> String {
        format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n\r\n{body}")
    }

    #[test]
    fn the_page_policy_keeps_pages_and_names_every_other_outcome() {
        let page = "<html><body><p>A page with a few words of text in it.</p></body></html>";
        let feed = "<?xml version='1.0'?><rss><channel><title>C</title><item><title>T</title>\
                    <description>Item text of the feed</description></item></channel></rss>";
        let data = [
            warc("request", "http://a/", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
            warc("response", "http://a/", &http("200 OK", "text/html", page)),
            warc(
                "response",
                "http://b/",
                &http("404 Not Found", "text/html", page),
            ),
            warc(
                "response",
                "http://c/",
                &http("200 OK", "application/rss+xml", feed),
            ),
            warc(
                "response",
                "http://d/",
                &http("200 OK", "application/pdf", "%PDF-1.7"),
            ),
            warc(
                "response",
                "http://e/robots.txt",
                &http("200 OK", "text/plain", "User-agent: *\nDisallow: /admin/"),
            ),
            (
                "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:log>\r\n\
                 WARC-Target-URI: metadata://gnu.org/software/wget/warc/wget.log\r\n\
                 Content-Type: text/plain\r\nContent-Length: 20\r\n\r\nConnecting to a.com\n\r\n\r\n"
            )
            .to_string(),
            format!(
                "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:res>\r\n\
                 WARC-Target-URI: https://f/page.html\r\n\
                 Content-Type: text/html\r\nContent-Length: {}\r\n\r\n{page}\r\n\r\n",
                page.len()
            ),
        ]
        .concat();
        let mut ex = ExtractorBuilder::new().build().unwrap();
        let (mut outcomes, mut clustered) = (Vec::new(), Vec::new());
        let cfg = ReaderConfig::default();
        read_bytes(bytes::Bytes::from(data), 0, &cfg, &mut |batch| {
            for rec in &batch {
                outcomes.push(match extract_record(rec, &mut ex) {
                    Outcome::Page(p, ctype) => {
                        format!("{}:{}", p.method, ctype.unwrap_or_default())
                    }
                    Outcome::Skipped(why) => why.to_string(),
                });
                clustered.push(clustered_page(rec, &mut ex).map(|p| p.text));
            }
            true
        });
        assert_eq!(
            outcomes,
            [
                "record_type",
                "blocks:text/html",
                "http_status",
                "feed:application/rss+xml",
                "pdf",
                ROBOTS_SKIP,
                CRAWLER_LOG_SKIP,
                "blocks:text/html",
            ]
        );
        assert_eq!(
            clustered,
            [
                Err("record_type"),
                Ok("A page with a few words of text in it.".to_string()),
                Err("http_status"),
                Err(FEED_SKIP),
                Err("pdf"),
                Err(ROBOTS_SKIP),
                Err(CRAWLER_LOG_SKIP),
                Ok("A page with a few words of text in it.".to_string()),
            ]
        );
    }
}
