//! `query` ([`run`]): the near-duplicates of one document (an indexed page by its URL, an HTML
//! page, a main text) among an index's documents, most similar first. The document is
//! fingerprinted with the index's own settings; the search is [`crawlsift_store::search`]'s and
//! reads the few pieces of the index it needs (never the whole index).

use std::path::Path;

use crawlsift_dedup::{Fingerprint, Fingerprinter};
use crawlsift_extractor::{charset, CharsetMode, ExtractorBuilder};
use crawlsift_store::file::Access;
use crawlsift_store::{search, DocRef, HitKind, Index, Located};

use crate::error::{fail, Error, Result};

/// The document searched for.
#[derive(Debug, Clone)]
pub enum Document {
    /// An indexed page, by its URL: its own fingerprint is searched for, and it is left out of
    /// the results.
    Url(String),
    /// An HTML page: its main text is extracted as a dedup run extracts it.
    Html(Vec<u8>),
    /// A main text (UTF-8, lossily).
    Text(Vec<u8>),
}

/// One result.
#[derive(Debug)]
pub struct Found {
    /// Where the indexed document is.
    pub at: Located,
    /// Share of words in common (1 for an exact match).
    pub similarity: f32,
    /// How it matches.
    pub kind: HitKind,
}

/// The documents of the index in `dir` that `doc` is a near-duplicate of at `threshold` (the
/// index's when `None`), most similar first, at most `limit`.
pub fn run(dir: &Path, doc: &Document, threshold: Option<f64>, limit: usize) -> Result<Vec<Found>> {
    let manifest = dir
        .join(crawlsift_store::index::FP_DIR)
        .join(crawlsift_store::manifest::MANIFEST_FILE);
    if !manifest.exists() && dir.join(crawlsift_cdxj::INDEX).exists() {
        fail!(
            "{} holds only a CDXJ index (built with --cdxj-only): `crawlsift get` reads captures \
             from it, and pywb replays it; `query` needs the fingerprint index, which `crawlsift \
             index` builds without --cdxj-only",
            dir.display()
        );
    }
    // One search reads a few pieces of the index: read them, not mapped (see `Access::Read`).
    let index = Index::open_as(dir, Access::Read)?;
    let threshold = threshold.unwrap_or(index.config().threshold);
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(Error::Usage(format!(
            "--threshold {threshold} not in (0, 1]"
        )));
    }
    let (fp, exclude) = fingerprint(dir, doc, &index)?;
    let hits = search(&index, &fp, threshold, exclude)?;
    let mut found = Vec::new();
    for hit in hits.iter().take(limit) {
        found.push(Found {
            at: index.locate(hit.doc)?,
            similarity: hit.similarity,
            kind: hit.kind,
        });
    }
    Ok(found)
}

/// The fingerprint searched for, and the indexed document to leave out (for a URL).
fn fingerprint(dir: &Path, doc: &Document, index: &Index) -> Result<(Fingerprint, Option<DocRef>)> {
    let text = match doc {
        Document::Url(url) => {
            let Some(d) = index.find_url(url)? else {
                fail!("{url} is not in the index {}", dir.display());
            };
            let fp = index.segments()[d.segment].fingerprint(d.row)?;
            return Ok((fp, Some(d)));
        }
        Document::Text(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Document::Html(bytes) => {
            let mut ex = ExtractorBuilder::new().charset(CharsetMode::Auto).build()?;
            let decoded = charset::decode(bytes, None, CharsetMode::Auto);
            ex.html_text(&decoded.text).1
        }
    };
    let fp = Fingerprinter::new(index.config()).fingerprint(&text);
    let min = index.config().min_words;
    if (fp.words as usize) < min {
        let what = if matches!(doc, Document::Html(_)) {
            "the page's main text"
        } else {
            "the text"
        };
        fail!(
            "{what} has {} words, fewer than the {min} the index was built with (--min-words): \
             too short to judge, so it is never anyone's near-duplicate",
            fp.words
        );
    }
    Ok((fp, None))
}
