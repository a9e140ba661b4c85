//! Building the fingerprint index (`IDX/fp/`, `crawlsift index`) from a dedup-style run: the
//! documents [`read_documents_into`] gathers (the same fingerprints `crawlsift dedup` makes;
//! the records are also handed to the request's tap, the CDXJ half, so each archive is read
//! once) become a segment ([`crawlsift_store::segment`]), and the clustering over every segment of the index
//! (the same clustering, verification and templates as `crawlsift dedup`) becomes its state and
//! `clusters.jsonl`. `--append` writes a segment for the inputs not yet indexed and clusters
//! again from the segments, never from the archives.

use crate::error::{fail, Error, IoContext, Result};
use std::path::{Path, PathBuf};

use crawlsift_common::budget::MemoryBudget;
use crawlsift_common::limits::STORE_SEGMENT_MAX_DOCS;
use crawlsift_dedup::{Clusterer, Clustering, DedupConfig};
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_links::anchor_file::ANCHOR_FILE_EXT;
use crawlsift_reader::{Input, ReaderConfig};
use crawlsift_store::index::{write_clusters, FP_DIR};
use crawlsift_store::manifest::{content_identity, InputEntry, Manifest, SegmentEntry};
use crawlsift_store::segment::{write_segment, DocIn, Segment, SegmentSizes};
use crawlsift_store::state::write_state;
use crawlsift_store::Index;

use crate::checkpoint::{Checkpoints, RunKey};
use crate::collect::Collected;
use crate::flow::inputs::{InputSet, ReadTally, RecordTap};
use crate::run::read::{read_documents_into, DedupHooks, DedupSettings};
use crate::site::site_of;

/// What `crawlsift index` is asked to do.
pub struct IndexRequest<'a> {
    /// Archive files or directories.
    pub inputs: &'a [PathBuf],
    /// The index folder (`IDX`); the fingerprint half lives in `IDX/fp/`.
    pub out: &'a Path,
    /// Add the inputs not yet indexed to an existing index.
    pub append: bool,
    /// Replace an existing index.
    pub force: bool,
    /// Worker threads.
    pub threads: usize,
    /// Dedup settings (checked).
    pub dedup: &'a DedupConfig,
    /// Extractor settings (checked).
    pub extractor: &'a ExtractorBuilder,
    /// The extraction method's name (part of the resumable run's key).
    pub method: &'a str,
    /// No notes on stderr.
    pub quiet: bool,
    /// Another use of the records read (the CDXJ half of the index), so that each archive is
    /// read and inflated once for both halves.
    pub tap: Option<&'a dyn RecordTap>,
    /// Also gather the anchor texts the new inputs' pages give, into an anchor file in this
    /// folder (`IDX/anchors/`, [`crawlsift_links::anchor_file`]) named after the first segment
    /// the run adds (a run stopped before its commit writes the same file again).
    pub anchors: Option<&'a Path>,
}

/// What an index build did.
#[derive(Debug, Default)]
pub struct IndexSummary {
    /// Inputs given that were already indexed (append), by path.
    pub already_indexed: Vec<String>,
    /// Documents added by this run.
    pub added: u64,
    /// Documents in the index.
    pub documents: u64,
    /// Segments in the index.
    pub segments: usize,
    /// Clusters over the whole index.
    pub clusters: u64,
    /// Sizes of the index's parts.
    pub sizes: SegmentSizes,
    /// How reading went (None when nothing was read).
    pub tally: Option<ReadTally>,
    /// Whether the run was stopped by Ctrl-C before anything was written.
    pub interrupted: bool,
    /// With anchors: the URLs the new inputs give anchor text to, and the anchor file written.
    pub anchors: Option<(u64, PathBuf)>,
}

impl IndexSummary {
    /// What the fingerprint half did, a line each: documents, segments, clusters and the time
    /// (`took`), bytes per document by part, and where the index is (`fp`).
    pub fn lines(&self, fp: &Path, took: std::time::Duration) -> Vec<String> {
        let per_doc = |b: u64| b as f64 / self.documents.max(1) as f64;
        let mut lines = vec![
            format!(
                "crawlsift index: {} documents added, {} in {} segments, {} clusters, in {:.1} s",
                self.added,
                self.documents,
                self.segments,
                self.clusters,
                took.as_secs_f64()
            ),
            format!(
                "  bytes per document: {:.0} fingerprints and band tables, {:.0} document table, \
                 {:.0} word profiles",
                per_doc(self.sizes.fingerprints_and_tables),
                per_doc(self.sizes.documents),
                per_doc(self.sizes.profiles),
            ),
            format!("  index: {}", fp.display()),
        ];
        if let Some((urls, path)) = &self.anchors {
            lines.push(format!(
                "  anchor texts given to {urls} URLs by the pages added: {}",
                path.display()
            ));
        }
        lines
    }
}

/// Builds or extends the fingerprint index of `req.out`.
pub fn build_index(req: &IndexRequest<'_>, hooks: &DedupHooks<'_>) -> Result<IndexSummary> {
    let dir = req.out.join(FP_DIR);
    let mut manifest = open_manifest(req, &dir)?;
    let mut summary = IndexSummary::default();
    // Inputs already indexed (by content) are skipped; the others get a segment.
    let given = InputSet::expand(req.inputs)?;
    let mut fresh: Vec<PathBuf> = Vec::new();
    let mut entries: Vec<InputEntry> = Vec::new();
    for input in &given.inputs {
        let Input::Path(p) = input else {
            fail!(
                "an index needs local files it can find again: {} cannot be indexed",
                input.path().display()
            );
        };
        let abs = std::fs::canonicalize(p).at(p, || format!("{}", p.display()))?;
        let (size, identity) = content_identity(&abs)?;
        if manifest.covers(&identity) || entries.iter().any(|e| e.identity == identity) {
            summary.already_indexed.push(p.display().to_string());
            continue;
        }
        fresh.push(abs.clone());
        entries.push(InputEntry {
            path: abs.display().to_string(),
            size,
            identity,
        });
    }
    if !req.quiet {
        for p in &summary.already_indexed {
            eprintln!("crawlsift index: {p} is already indexed: skipped");
        }
    }
    let first_build = manifest.segments.is_empty();
    if !fresh.is_empty() {
        let inputs = InputSet::expand(&fresh)?;
        let collected = read_new(req, &dir, &inputs, hooks)?;
        let Some(mut collected) = collected else {
            summary.interrupted = true;
            return Ok(summary);
        };
        summary.tally = Some(inputs.tally(&collected.reports, req.quiet));
        summary.added = collected.clusterer.len() as u64;
        let read: Vec<InputEntry> = entries
            .iter()
            .zip(&collected.reports)
            .filter(|(_, r)| matches!(r, Some(Ok(_))))
            .map(|(e, _)| e.clone())
            .collect();
        if let (Some(folder), Some(links)) = (req.anchors, collected.links.take()) {
            let path = folder.join(format!("{}.{ANCHOR_FILE_EXT}", manifest.next_name()));
            let graph = links.finish(req.threads).graph;
            let urls = graph
                .write_anchor_file(&path)
                .map_err(|e| Error::failed(e.to_string()))?;
            summary.anchors = Some((urls, path));
        }
        let (clustering, templates) = if first_build {
            // The segments are written while the documents are clustered: the writing is mostly
            // one thread's work, and the clustering leaves a core idle at times.
            let (written, clustered) = std::thread::scope(|s| {
                let writer = s.spawn(|| {
                    write_new_segments(&dir, req.dedup, &entries, read, &collected, &mut manifest)
                });
                let clustered = collected
                    .clusterer
                    .cluster_with_templates(req.threads, &collected.budget);
                (writer.join(), clustered)
            });
            written.unwrap_or_else(|e| std::panic::resume_unwind(e))?;
            clustered?
        } else {
            write_new_segments(&dir, req.dedup, &entries, read, &collected, &mut manifest)?;
            drop(collected);
            recluster(&dir, &manifest, req.threads)?
        };
        commit(&dir, manifest, &clustering, &templates, &mut summary)?;
    } else {
        let index = Index::open_with(&dir, manifest)?;
        summary.documents = index.documents();
        summary.segments = index.segments().len();
        summary.sizes = index.sizes();
        summary.clusters = count_clusters(&dir)?;
    }
    Ok(summary)
}

/// The clusters of the index in `dir`: the lines of its `clusters.jsonl` (none when there is no
/// such file yet), counted as they stream by.
fn count_clusters(dir: &Path) -> Result<u64> {
    use std::io::BufRead;
    let path = dir.join(crawlsift_store::index::CLUSTERS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(crate::error::Error::io(
                format!("reading {}", path.display()),
                &path,
                e,
            ))
        }
    };
    let mut reader = std::io::BufReader::new(file);
    let mut lines = 0u64;
    loop {
        let buf = reader.fill_buf().map_err(|e| {
            crate::error::Error::io(format!("reading {}", path.display()), &path, e)
        })?;
        if buf.is_empty() {
            return Ok(lines);
        }
        lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        let n = buf.len();
        reader.consume(n);
    }
}

/// The manifest to extend: the existing one with `--append`, a new one otherwise (refusing to
/// replace an index without `--force`).
fn open_manifest(req: &IndexRequest<'_>, dir: &Path) -> Result<Manifest> {
    let exists = dir.join(crawlsift_store::manifest::MANIFEST_FILE).exists();
    if req.append {
        if !exists {
            fail!("{} holds no index to append to", req.out.display());
        }
        let m = Manifest::read(dir)?;
        if m.config != *req.dedup {
            fail!(
                "{} was made with other settings ({}); append with the settings it was made with",
                req.out.display(),
                serde_json::to_string(&m.config)?
            );
        }
        return Ok(m);
    }
    if exists {
        if !req.force {
            fail!(
                "{} already holds an index; pass --append to add inputs or --force to replace it",
                req.out.display()
            );
        }
        std::fs::remove_dir_all(dir).at(dir, || format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).at(dir, || format!("cannot create {}", dir.display()))?;
    Ok(Manifest::new(req.dedup.clone()))
}

/// Reads, extracts and fingerprints the new inputs (resumable: checkpoints in `IDX/fp/`); None
/// when stopped by Ctrl-C.
fn read_new(
    req: &IndexRequest<'_>,
    dir: &Path,
    inputs: &InputSet,
    hooks: &DedupHooks<'_>,
) -> Result<Option<Collected>> {
    let mut key = RunKey::new(inputs, req.method, req.dedup, false);
    key.links = req.anchors.is_some();
    let (mut checkpoints, _) = Checkpoints::open(dir, &key, true)?;
    let reader = ReaderConfig {
        threads: req.threads,
        ..ReaderConfig::default()
    };
    let settings = DedupSettings {
        inputs,
        reader: &reader,
        extractor: req.extractor,
        dedup: req.dedup,
        threads: req.threads,
        only: None,
        phrases: None,
        reuse: None,
        links: req.anchors.is_some(),
    };
    let collected = read_documents_into(
        &settings,
        hooks,
        &mut checkpoints,
        None,
        (Clusterer::new(settings.dedup)?, MemoryBudget::default()),
        req.tap,
    )?;
    if (hooks.cancelled)() {
        checkpoints.flush()?;
        return Ok(None);
    }
    checkpoints.finish()?;
    Ok(Some(collected))
}

/// Writes the collected documents as new segments (at most `STORE_SEGMENT_MAX_DOCS` each) and
/// lists them in `manifest`; `read` are the inputs read (the ones the segments cover).
fn write_new_segments(
    dir: &Path,
    cfg: &DedupConfig,
    inputs: &[InputEntry],
    read: Vec<InputEntry>,
    collected: &Collected,
    manifest: &mut Manifest,
) -> Result<()> {
    let n = collected.clusterer.len();
    let mut start = 0;
    loop {
        let end = (start + STORE_SEGMENT_MAX_DOCS).min(n);
        let metas: Vec<_> = (start..end)
            .map(|d| collected.catalog.doc(d as u32))
            .collect();
        let fps = (start..end)
            .map(|d| collected.clusterer.fingerprint(d as u32))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::failed("a document without its fingerprint"))?;
        let mut docs = Vec::with_capacity(end - start);
        for (fp, meta) in fps.iter().zip(&metas) {
            docs.push(DocIn {
                fp,
                id: &meta.origin.id,
                url: meta.origin.url.as_deref(),
                file: meta.origin.pos.file,
                offset: meta.origin.pos.offset,
                index: u32::try_from(meta.origin.pos.index).unwrap_or(u32::MAX),
            });
        }
        let name = manifest.next_name();
        write_segment(dir, &name, cfg, inputs, &docs)?;
        manifest.segments.push(SegmentEntry {
            name,
            documents: docs.len() as u64,
            inputs: read.clone(),
        });
        start = end;
        if start >= n {
            return Ok(());
        }
    }
}

/// Clusters every document of the segments `manifest` lists, in index order, as `crawlsift
/// dedup` would cluster them (each segment's checksums are checked first).
pub fn recluster(
    dir: &Path,
    manifest: &Manifest,
    threads: usize,
) -> Result<(Clustering, Vec<u64>)> {
    let mut clusterer = Clusterer::new(&manifest.config)?;
    for s in &manifest.segments {
        let seg = Segment::open(dir, &s.name)?;
        seg.verify()?;
        let sigs = seg.signatures()?;
        for r in 0..seg.docs() {
            let site = site_of(seg.row(r)?.url.as_deref());
            clusterer.add_on_site(seg.fingerprint_with(r, &sigs)?, &site);
        }
    }
    Ok(clusterer.cluster_with_templates(threads, &MemoryBudget::default())?)
}

/// Writes the state and `clusters.jsonl` of the clustering, then the manifest (the commit
/// point), and fills the summary's totals.
fn commit(
    dir: &Path,
    manifest: Manifest,
    clustering: &Clustering,
    templates: &[u64],
    summary: &mut IndexSummary,
) -> Result<()> {
    let docs = usize::try_from(manifest.documents())
        .map_err(|_| Error::failed("more documents than this machine can address"))?;
    write_state(dir, &manifest.config, docs, clustering, templates)?;
    let index = Index::open_with(dir, manifest.clone())?;
    write_clusters(&index, clustering)?;
    manifest.write(dir)?;
    summary.documents = index.documents();
    summary.segments = index.segments().len();
    summary.clusters = clustering.clusters.len() as u64;
    summary.sizes = index.sizes();
    Ok(())
}
