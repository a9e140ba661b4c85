//! `get` ([`find`]): one capture of a URL from an index directory, read from its archive at its
//! offset ([`crawlsift_cdxj::fetch`]), revisits resolved, and its [`metadata`] as JSON (with the
//! anchor texts the index's pages give its URL, when the index keeps them).

use std::path::Path;

use crawlsift_cdxj::fetch::{closest, Fetched, IndexDir};
use crawlsift_cdxj::Capture;

use crate::error::{fail, Result};

/// The method `get --format text` extracts with: `extract`'s default, so both give one text.
pub const TEXT_METHOD: crawlsift_extractor::Method = crawlsift_extractor::Method::Learned;

/// A capture found.
pub struct Found {
    /// The capture asked for (a revisit, when it is one).
    pub asked: Capture,
    /// The capture whose record holds the payload.
    pub capture: Capture,
    /// Its record.
    pub fetched: Fetched,
    /// The revisits that led to it.
    pub via: Vec<Capture>,
    /// The anchor texts the index's pages give the capture's URL, most given first, when the
    /// index keeps them (`index --anchors`).
    pub anchors: Option<Vec<crawlsift_links::anchor_file::Anchor>>,
}

/// The capture of `url` in the index folder `dir` with record id `id`, or the one closest to
/// `at` (4 to 14 digits), or the latest.
pub fn find(dir: &Path, url: &str, at: Option<&str>, id: Option<&str>) -> Result<Found> {
    let index = IndexDir::open(dir)?;
    let captures = index.captures(url)?;
    if captures.is_empty() {
        fail!("{url}: not in {}", dir.display());
    }
    let (capture, fetched) = match id {
        Some(id) => by_id(&index, &captures, id)?,
        None => {
            let c = closest(&captures, at).expect("captures is not empty");
            (c.clone(), index.read(c)?)
        }
    };
    let asked = capture.clone();
    let (capture, fetched, via) = index.resolve_revisit(&capture, fetched)?;
    let anchors = anchors_of(dir, asked.url.as_deref().unwrap_or(url))?;
    Ok(Found {
        asked,
        capture,
        fetched,
        via,
        anchors,
    })
}

/// The anchor texts the index in `dir` keeps for `url`; `None` when it keeps none.
fn anchors_of(dir: &Path, url: &str) -> Result<Option<Vec<crawlsift_links::anchor_file::Anchor>>> {
    use crawlsift_links::anchor_file::{anchor_files, anchors_in, ANCHORS_DIR};
    let folder = dir.join(ANCHORS_DIR);
    let failed = |e: crawlsift_links::LinksError| crate::error::Error::failed(e.to_string());
    if anchor_files(&folder).map_err(failed)?.is_empty() {
        return Ok(None);
    }
    let Some(url) = crawlsift_links::normalise(url) else {
        return Ok(Some(Vec::new()));
    };
    Ok(Some(anchors_in(&folder, &url).map_err(failed)?))
}

/// The capture among `captures` whose record has id `id`.
fn by_id(index: &IndexDir, captures: &[Capture], id: &str) -> Result<(Capture, Fetched)> {
    let bare = id.trim().trim_start_matches('<').trim_end_matches('>');
    for c in captures {
        let f = index.read(c)?;
        if f.record.id.trim_start_matches('<').trim_end_matches('>') == bare {
            return Ok((c.clone(), f));
        }
    }
    fail!("no capture of this URL has record id {id}")
}

/// The JSON metadata of a capture (and of the revisits that led to it).
pub fn metadata(found: &Found) -> serde_json::Value {
    let (asked, c, f, via) = (&found.asked, &found.capture, &found.fetched, &found.via);
    let line = |c: &Capture| {
        serde_json::json!({
            "key": c.key, "timestamp": c.timestamp, "url": c.url, "mime": c.mime,
            "status": c.status, "digest": c.digest, "length": c.length, "offset": c.offset,
            "filename": c.filename,
        })
    };
    let r = &f.record;
    let mut v = line(c);
    v["path"] = f.path.to_string_lossy().into();
    v["record_id"] = r.id.clone().into();
    v["record_type"] = r.kind.as_str().into();
    let date = crate::lines::DateFields::of(r.date.as_deref());
    v["date"] = date.date.as_deref().into();
    if let Some(raw) = date.date_raw {
        v["date_raw"] = raw.into();
    }
    v["content_type"] = r.content_type.clone().into();
    if !via.is_empty() {
        v["revisit"] = line(asked);
    }
    if let Some(a) = &found.anchors {
        let max = crawlsift_common::limits::LINKS_TEXT_MAX_ANCHORS;
        v["anchor_texts"] = a.len().into();
        v["anchors"] = serde_json::to_value(&a[..a.len().min(max)]).unwrap_or_default();
    }
    v
}

/// The bytes `get` prints of a capture: with `raw`, the record as stored, decompressed; else its
/// payload (the HTTP body, de-chunked and decoded, or the block of a record without HTTP). With
/// them, what they are (`record` or `payload`) and the content type the record gives them.
pub fn capture_bytes(
    fetched: &Fetched,
    raw: bool,
) -> Result<(bytes::Bytes, &'static str, Option<String>)> {
    let rec = &fetched.record;
    let http = rec.http().and_then(std::result::Result::ok);
    let (bytes, what) = match (raw, &http) {
        (true, _) => (
            crawlsift_cdxj::fetch::stored_record(fetched)?.into(),
            "record",
        ),
        (false, Some(resp)) => (resp.body.clone(), "payload"),
        (false, None) => (rec.payload(), "payload"),
    };
    let kind = match &http {
        Some(resp) => resp.header("Content-Type").map(str::to_string),
        None => rec.content_type.clone(),
    };
    Ok((bytes, what, kind))
}

/// The main text of a capture as `extract` gives it by default ([`TEXT_METHOD`]), or why the
/// record has none.
pub fn main_text(fetched: &Fetched) -> Result<std::result::Result<String, &'static str>> {
    let mut ex = crawlsift_extractor::ExtractorBuilder::new()
        .method(TEXT_METHOD)
        .build()?;
    Ok(
        match crate::page::extract_record(&fetched.record, &mut ex) {
            crate::page::Outcome::Page(doc, _) => Ok(doc.text),
            crate::page::Outcome::Skipped(why) => Err(why),
        },
    )
}

/// Bytes a terminal would show as garbage: a NUL, or what is not UTF-8 text, in the first 8 KiB
/// (a character cut at that end is not counted).
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    head.contains(&0) || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
}
