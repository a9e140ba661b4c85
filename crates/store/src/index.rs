//! An index's fingerprint folder (`IDX/fp/`) opened for search: its manifest, segments and
//! state, and the writing of `clusters.jsonl`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crawlsift_common::fs::AtomicFile;
use crawlsift_dedup::{Clustering, DedupConfig, MatchKind};
use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::file::Access;
use crate::manifest::{fingerprint_settings_differ, Manifest};
use crate::segment::{Segment, SegmentSizes};
use crate::state::State;

/// The fingerprint folder inside an index folder.
pub const FP_DIR: &str = "fp";
/// The clusters of an index, one JSON line per cluster.
pub const CLUSTERS_FILE: &str = "clusters.jsonl";

/// An index opened for search.
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Segment>,
    bases: Vec<u64>,
    state: State,
}

/// Where a document of an index is: segment number and row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocRef {
    /// Segment (order of the manifest).
    pub segment: usize,
    /// Row in it.
    pub row: u32,
}

impl Index {
    /// Opens the index folder `idx` (its `fp/` part), checking every file's header.
    /// The files are mapped: for many searches (`dedup --against`).
    pub fn open(idx: &Path) -> Result<Self> {
        Self::open_as(idx, Access::Map)
    }

    /// [`open`](Self::open) with the given access to the files: [`Access::Read`] for one search,
    /// whose memory then stays the same whatever the index's size.
    pub fn open_as(idx: &Path, access: Access) -> Result<Self> {
        let dir = idx.join(FP_DIR);
        let manifest = Manifest::read(&dir)?;
        Self::open_dir(&dir, manifest, access)
    }

    /// Opens the fingerprint folder `dir` as `manifest` describes it (before that manifest is
    /// written, when building), its files mapped.
    pub fn open_with(dir: &Path, manifest: Manifest) -> Result<Self> {
        Self::open_dir(dir, manifest, Access::Map)
    }

    fn open_dir(dir: &Path, manifest: Manifest, access: Access) -> Result<Self> {
        let dir = dir.to_path_buf();
        let mut segments = Vec::with_capacity(manifest.segments.len());
        let mut bases = Vec::with_capacity(manifest.segments.len());
        let mut base = 0u64;
        for s in &manifest.segments {
            let seg = Segment::open_as(&dir, &s.name, access)?;
            if u64::from(seg.docs()) != s.documents {
                return Err(StoreError::damaged(
                    dir.join(crate::manifest::MANIFEST_FILE),
                    0,
                    format!(
                        "segment {} has {} rows, the manifest says {}",
                        s.name,
                        seg.docs(),
                        s.documents
                    ),
                ));
            }
            if let Some(what) = fingerprint_settings_differ(seg.config(), &manifest.config) {
                return Err(StoreError::OtherConfig {
                    path: dir.join(&s.name),
                    what,
                });
            }
            bases.push(base);
            base += s.documents;
            segments.push(seg);
        }
        let state = State::open(&dir, base, access)?;
        Ok(Index {
            dir,
            manifest,
            segments,
            bases,
            state,
        })
    }

    /// The fingerprint folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The settings the index was made with.
    pub fn config(&self) -> &DedupConfig {
        &self.manifest.config
    }

    /// Refuses a search made with other fingerprint settings.
    pub fn check_config(&self, cfg: &DedupConfig) -> Result<()> {
        match fingerprint_settings_differ(self.config(), cfg) {
            Some(what) => Err(StoreError::OtherConfig {
                path: self.dir.clone(),
                what,
            }),
            None => Ok(()),
        }
    }

    /// The segments, in document order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The clustering's state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Documents in all segments.
    pub fn documents(&self) -> u64 {
        self.bases.last().copied().unwrap_or(0)
            + self.segments.last().map_or(0, |s| u64::from(s.docs()))
    }

    /// The index-order number of a document.
    pub fn number(&self, d: DocRef) -> u64 {
        self.bases.get(d.segment).copied().unwrap_or(0) + u64::from(d.row)
    }

    /// The document of index-order number `n`.
    pub fn doc_ref(&self, n: u64) -> Option<DocRef> {
        let s = self.bases.partition_point(|&b| b <= n).checked_sub(1)?;
        let row = u32::try_from(n - self.bases[s]).ok()?;
        (row < self.segments[s].docs()).then_some(DocRef { segment: s, row })
    }

    /// The first document with this URL.
    pub fn find_url(&self, url: &str) -> Result<Option<DocRef>> {
        for (segment, s) in self.segments.iter().enumerate() {
            if let Some(row) = s.find_url(url)? {
                return Ok(Some(DocRef { segment, row }));
            }
        }
        Ok(None)
    }

    /// Where a document came from: id, URL, input path and byte offset.
    pub fn locate(&self, d: DocRef) -> Result<Located> {
        let seg = &self.segments[d.segment];
        let row = seg.row(d.row)?;
        let file = seg
            .inputs()
            .get(row.file as usize)
            .map(|i| i.path.clone())
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "{}: row {} names input {} of {}",
                    seg.name(),
                    d.row,
                    row.file,
                    seg.inputs().len()
                ))
            })?;
        Ok(Located {
            id: row.id.to_string(),
            url: row.url.map(|u| u.into_owned()),
            file,
            offset: row.offset,
        })
    }

    /// Sizes of all segments' parts.
    pub fn sizes(&self) -> SegmentSizes {
        self.segments.iter().fold(SegmentSizes::default(), |a, s| {
            let b = s.sizes();
            SegmentSizes {
                fingerprints_and_tables: a.fingerprints_and_tables + b.fingerprints_and_tables,
                documents: a.documents + b.documents,
                profiles: a.profiles + b.profiles,
            }
        })
    }

    /// Checks every file's body checksum (reads the whole index).
    pub fn verify(&self) -> Result<()> {
        for s in &self.segments {
            s.verify()?;
        }
        self.state.file().verify()
    }
}

/// A document's identity and place, as results print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    /// Record id.
    pub id: String,
    /// Target URL.
    pub url: Option<String>,
    /// Input path.
    pub file: String,
    /// Byte offset of the record in it.
    pub offset: u64,
}

/// One member in `clusters.jsonl`.
#[derive(Serialize)]
struct MemberLine<'a> {
    #[serde(flatten)]
    at: &'a Located,
    similarity: f32,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// The name of a match kind in outputs.
pub fn kind_name(k: MatchKind) -> &'static str {
    match k {
        MatchKind::Representative => "representative",
        MatchKind::Exact => "exact",
        MatchKind::Near => "near",
    }
}

/// Writes `clusters.jsonl` of `index`'s folder from clustering `c` over its documents in index
/// order ([`AtomicFile`]: temporary name, fsync, rename, folder fsync).
pub fn write_clusters(index: &Index, c: &Clustering) -> Result<()> {
    let path = index.dir().join(CLUSTERS_FILE);
    let io = |e| StoreError::io(&path, e);
    let mut out = std::io::BufWriter::new(AtomicFile::create(&path).map_err(io)?);
    for (i, cl) in c.clusters.iter().enumerate() {
        let mut members = Vec::with_capacity(cl.members.len());
        for m in &cl.members {
            let d = index.doc_ref(u64::from(m.doc)).ok_or_else(|| {
                StoreError::Invalid(format!("cluster member {} past the index", m.doc))
            })?;
            members.push((index.locate(d)?, m.similarity, kind_name(m.kind)));
        }
        let line = serde_json::json!({
            "cluster": i,
            "size": members.len(),
            "members": members.iter().map(|(at, s, k)| MemberLine { at, similarity: *s, kind: k }).collect::<Vec<_>>(),
        });
        serde_json::to_writer(&mut out, &line).map_err(|e| io(e.into()))?;
        out.write_all(b"\n").map_err(io)?;
    }
    let f = out.into_inner().map_err(|e| io(e.into_error()))?;
    f.commit().map_err(io)
}
