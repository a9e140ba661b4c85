//! `get` ([`find`]): one capture of a URL from an index directory, read from its archive at its
//! offset ([`crawlsift_cdxj::fetch`]), revisits resolved, and its [`metadata`] as JSON.

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
    Ok(Found {
        asked,
        capture,
        fetched,
        via,
    })
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
    v
}
