//! `crawlsift dedup --against IDX`: which documents of this run duplicate documents already in
//! an index, found by searching the index's segments ([`crawlsift_store::search`]) with each new
//! document's fingerprint; the old archives are never read. Each new document with a match gets
//! one line of `against.jsonl`: its best match (most similar, then first in index order).

use crate::error::{Because, Error, Result};
use std::io::Write;
use std::path::Path;

use crawlsift_common::parallel::in_parallel;
use crawlsift_dedup::{Clusterer, DedupConfig};
use crawlsift_store::{search, Hit, HitKind, Index, Located};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::flow::inputs::InputSet;
use crate::output::AtomicFile;

/// The file `--against` writes in the output folder.
pub const AGAINST_FILE: &str = "against.jsonl";

/// The counts `report.json` shows under `against`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgainstCounts {
    /// The index searched.
    pub index: String,
    /// Documents in it.
    pub indexed_documents: u64,
    /// Documents of this run searched for.
    pub documents_checked: u64,
    /// Documents of this run found in the index (exact or near).
    pub duplicates: u64,
    /// ... as exact copies.
    pub exact: u64,
    /// ... as near-duplicates only.
    pub near: u64,
}

impl AgainstCounts {
    /// One line for the closing summary of a run writing into `out`.
    pub fn summary(&self, out: &Path) -> String {
        format!(
            "{} of {} documents duplicate documents of {} ({} exact, {} near): {}",
            self.duplicates,
            self.documents_checked,
            self.index,
            self.exact,
            self.near,
            out.join(AGAINST_FILE).display()
        )
    }
}

/// Opens the index of `--against` (before anything is read), refusing one made with other
/// fingerprint settings than `cfg`.
pub fn open_index(idx: &Path, cfg: &DedupConfig) -> Result<Index> {
    let index = Index::open(idx).because(|| "--against".into())?;
    index.check_config(cfg).because(|| "--against".into())?;
    Ok(index)
}

/// Searches `index` for every document `clusterer` holds (at the run's threshold, on `threads`
/// threads) and writes `out/against.jsonl`; returns the counts for the report.
pub fn search_against(
    index: &Index,
    clusterer: &Clusterer,
    catalog: &Catalog,
    inputs: &InputSet,
    (threshold, threads): (f64, usize),
    out: &Path,
) -> Result<AgainstCounts> {
    let matches = match_against(index, clusterer, threshold, threads)?;
    write_against(out, index, &matches, catalog, inputs)
}

/// The best match in the index of each document of this run that has one: (document, match).
pub fn match_against(
    index: &Index,
    clusterer: &Clusterer,
    threshold: f64,
    threads: usize,
) -> Result<Vec<(u32, Hit)>> {
    let docs: Vec<u32> = (0..clusterer.len() as u32).collect();
    let parts = in_parallel(threads, &docs, |chunk| -> Result<Vec<(u32, Hit)>> {
        let mut out = Vec::new();
        for &d in chunk {
            let fp = clusterer
                .fingerprint(d)
                .ok_or_else(|| Error::failed("a document without fingerprint"))?;
            if let Some(best) = search(index, &fp, threshold, None)?.first() {
                out.push((d, *best));
            }
        }
        Ok(out)
    });
    let mut all = Vec::new();
    for p in parts {
        all.extend(p?);
    }
    Ok(all)
}

#[derive(Serialize)]
struct AgainstLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    file: &'a str,
    offset: u64,
    indexed: &'a Located,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// Writes `out/against.jsonl` (one line per matched document, in document order) and returns
/// the counts for the report.
pub fn write_against(
    out: &Path,
    index: &Index,
    matches: &[(u32, Hit)],
    catalog: &Catalog,
    inputs: &InputSet,
) -> Result<AgainstCounts> {
    let mut f = std::io::BufWriter::new(AtomicFile::create(&out.join(AGAINST_FILE))?);
    let mut counts = AgainstCounts {
        index: index.dir().display().to_string(),
        indexed_documents: index.documents(),
        documents_checked: catalog.documents() as u64,
        ..AgainstCounts::default()
    };
    for (d, hit) in matches {
        let meta = catalog.doc(*d);
        let indexed = index.locate(hit.doc)?;
        let line = AgainstLine {
            id: &meta.origin.id,
            url: meta.origin.url.as_deref(),
            file: inputs.name(meta.origin.pos.file),
            offset: meta.origin.pos.offset,
            indexed: &indexed,
            similarity: (f64::from(hit.similarity) * 1e4).round() / 1e4,
            kind: hit.kind.name(),
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
        counts.duplicates += 1;
        match hit.kind {
            HitKind::Exact => counts.exact += 1,
            HitKind::Near => counts.near += 1,
        }
    }
    f.into_inner().map_err(|e| e.into_error())?.commit()?;
    Ok(counts)
}
