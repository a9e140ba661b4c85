//! `wacz` ([`run`]): a WACZ 1.1.1 package of archives, as ReplayWeb.page and pywb load it: the
//! archives rewritten a gzip member per record ([`super::rewrite`], revisits included) under
//! `archive/`, their CDXJ index as `cdxj-indexer` writes it, under `indexes/index.cdx` or, past
//! [`WaczRequest::plain_index_max_lines`] lines, as ZipNum the way py-wacz packs it
//! (`indexes/index.cdx.gz` in gzip blocks, `indexes/index.idx` their summary in the
//! `cdxj-gzip-1.0` format, see [`crawlsift_cdxj::zipnum::write_wacz`]), every page
//! (a response whose main text the page policy keeps) with its title and main text in
//! `pages/pages.jsonl` for full-text search, `datapackage.json` listing each file with its size
//! and SHA-256, and `datapackage-digest.json` with the SHA-256 of that. The ZIP stores its entries
//! uncompressed ([`crate::zip_store`], ZIP64 past 4 GiB or 65,535 entries), as the format asks. `created` is the newest capture date
//! of the archives, so the same inputs give the same bytes.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crawlsift_cdxj::BuildOptions;
use crawlsift_extractor::{Extractor, ExtractorBuilder};
use crawlsift_reader::digest::{sha1, sha256_of};
use crawlsift_reader::{ReaderConfig, Record, RecordKind};
use serde::Serialize;

use super::rewrite::{self, RewriteRequest};
use super::Hooks;
use crate::error::{Error, IoContext, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::output::AtomicFile;
use crate::page::clustered_page;
use crate::zip_store::ZipStore;

/// What a packing is asked to do.
#[derive(Debug, Clone)]
pub struct WaczRequest {
    /// Archive files or directories.
    pub inputs: Vec<PathBuf>,
    /// The package to write (`.wacz`).
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Overwrite an existing package.
    pub force: bool,
    /// Index lines packed plain at most; more are packed as ZipNum
    /// ([`crawlsift_common::limits::WACZ_PLAIN_INDEX_MAX_LINES`] by default; 0 packs any index
    /// as ZipNum).
    pub plain_index_max_lines: u64,
}

/// What a packing did.
#[derive(Debug, Default)]
pub struct Packed {
    /// Records in the package's archives.
    pub records: u64,
    /// Revisits made of identical payloads.
    pub revisits: u64,
    /// Pages listed in `pages/pages.jsonl`.
    pub pages: u64,
    /// Files in the package.
    pub files: usize,
    /// The package's size in bytes.
    pub bytes: u64,
    /// How reading the inputs went.
    pub tally: ReadTally,
}

impl Packed {
    /// The summary line.
    pub fn summary(&self, out: &Path) -> String {
        format!(
            "{}: {} records ({} revisits) in {} files, {} pages with their text, {} bytes",
            out.display(),
            self.records,
            self.revisits,
            self.files,
            self.pages,
            self.bytes
        )
    }
}

/// One line of `pages/pages.jsonl`.
#[derive(Serialize)]
struct PageLine {
    id: String,
    url: String,
    ts: String,
    title: String,
    text: String,
}

/// One file listed in `datapackage.json`.
#[derive(Serialize)]
struct Resource {
    name: String,
    path: String,
    hash: String,
    bytes: u64,
}

/// Packs the inputs into `req.out` (see the module doc).
pub fn run(req: &WaczRequest, hooks: &Hooks<'_>) -> Result<Packed> {
    crate::output::refuse_existing([&req.out], req.force)?;
    let parent = match req.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let work = tempfile::tempdir_in(&parent).at(&parent, || {
        format!("cannot make a working folder in {}", parent.display())
    })?;
    let archive = work.path().join("archive");
    let rewrite_req = RewriteRequest {
        inputs: req.inputs.clone(),
        out: archive.clone(),
        threads: req.threads,
        force: true,
        compression: rewrite::OutCompression::Gzip,
        memory: crawlsift_common::limits::REWRITE_MEMORY_DEFAULT,
        clusters: None,
        report: false,
    };
    let rewritten = rewrite::run(&rewrite_req, hooks)?;
    let mut packed = Packed {
        records: rewritten.records,
        revisits: rewritten.revisits,
        tally: rewritten.tally,
        ..Packed::default()
    };
    if (hooks.cancelled)() {
        return Ok(packed);
    }
    let mut archives: Vec<PathBuf> = std::fs::read_dir(&archive)
        .at(&archive, || format!("listing {}", archive.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    archives.sort();
    if archives.is_empty() {
        return Err(Error::failed("no record to pack"));
    }
    let idx = work.path().join("idx");
    std::fs::create_dir_all(&idx).at(&idx, || format!("creating {}", idx.display()))?;
    let opts = BuildOptions {
        threads: req.threads,
        compress: false,
    };
    crawlsift_cdxj::build(&archives, &idx, &opts)?;
    let (pages, newest) = pages_of(&archives, work.path(), req.threads, hooks)?;
    packed.pages = pages;
    // The package: archives, index, pages, then what lists them.
    let mut files: Vec<(String, PathBuf)> = archives
        .iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (format!("archive/{}", name.unwrap_or_default()), p.clone())
        })
        .collect();
    let index = idx.join(crawlsift_cdxj::INDEX);
    if lines_of(&index)? > req.plain_index_max_lines {
        let (blocks, summary) = (idx.join("index.cdx.gz"), idx.join("index.idx"));
        crawlsift_cdxj::zipnum::write_wacz(&index, &blocks, &summary)?;
        files.push(("indexes/index.cdx.gz".into(), blocks));
        files.push(("indexes/index.idx".into(), summary));
    } else {
        files.push(("indexes/index.cdx".into(), index));
    }
    files.push(("pages/pages.jsonl".into(), work.path().join("pages.jsonl")));
    let mut resources = Vec::new();
    for (path, file) in &files {
        let mut f = std::fs::File::open(file).at(file, || format!("opening {}", file.display()))?;
        let (bytes, hash) = sha256_of(&mut f).at(file, || format!("reading {}", file.display()))?;
        let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
        resources.push(Resource {
            name,
            path: path.clone(),
            hash,
            bytes,
        });
    }
    let datapackage = serde_json::to_vec_pretty(&serde_json::json!({
        "profile": "data-package",
        "resources": resources,
        "created": newest,
        "wacz_version": "1.1.1",
        "software": format!("crawlsift {}", env!("CARGO_PKG_VERSION")),
    }))?;
    let (_, dp_hash) = sha256_of(&mut &datapackage[..]).map_err(Error::Stream)?;
    let digest = serde_json::to_vec_pretty(&serde_json::json!({
        "path": "datapackage.json",
        "hash": dp_hash,
    }))?;
    let mut zip = ZipStore::new(AtomicFile::create_raw(&req.out)?);
    let zipped = (|| -> std::io::Result<()> {
        for (path, file) in &files {
            zip.add(path, || Ok(Box::new(std::fs::File::open(file)?)))?;
        }
        zip.add("datapackage.json", || {
            Ok(Box::new(std::io::Cursor::new(datapackage.clone())))
        })?;
        zip.add("datapackage-digest.json", || {
            Ok(Box::new(std::io::Cursor::new(digest.clone())))
        })?;
        Ok(())
    })();
    zipped.at(&req.out, || format!("writing {}", req.out.display()))?;
    packed.files = files.len() + 2;
    let out = zip
        .finish()
        .at(&req.out, || format!("writing {}", req.out.display()))?;
    out.commit()?;
    packed.bytes = std::fs::metadata(&req.out).map_or(0, |m| m.len());
    Ok(packed)
}

/// The lines of the file at `path` (its newlines).
fn lines_of(path: &Path) -> Result<u64> {
    let mut f = std::fs::File::open(path).at(path, || format!("opening {}", path.display()))?;
    let (mut buf, mut lines) = (vec![0u8; 1 << 16], 0u64);
    loop {
        let n = f
            .read(&mut buf)
            .at(path, || format!("reading {}", path.display()))?;
        if n == 0 {
            return Ok(lines);
        }
        lines += buf[..n].iter().filter(|&&c| c == b'\n').count() as u64;
    }
}

/// Writes `pages.jsonl` into `dir` from the rewritten `archives`: the header, then each response
/// whose main text the page policy keeps (HTML, status 200, not empty), in archive order. Gives
/// the pages listed and the newest capture date met (the package's `created`).
fn pages_of(
    archives: &[PathBuf],
    dir: &Path,
    threads: usize,
    hooks: &Hooks<'_>,
) -> Result<(u64, String)> {
    let path = dir.join("pages.jsonl");
    let file = std::fs::File::create(&path).at(&path, || format!("creating {}", path.display()))?;
    let mut out = BufWriter::new(file);
    let header =
        r#"{"format": "json-pages-1.0", "id": "pages", "title": "All Pages", "hasText": true}"#;
    writeln!(out, "{header}").at(&path, || format!("writing {}", path.display()))?;
    let inputs = InputSet::expand(archives)?;
    let cfg = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    let init = || {
        ExtractorBuilder::new()
            .build()
            .expect("the default extractor builds")
    };
    let map = |ex: &mut Extractor, batch: Vec<Record>| -> Vec<(Option<PageLine>, Option<String>)> {
        batch
            .iter()
            .map(|rec| {
                let date = rec
                    .date
                    .as_deref()
                    .and_then(crawlsift_reader::date::iso_utc);
                let page = (rec.kind == RecordKind::Response)
                    .then(|| clustered_page(rec, ex).ok())
                    .flatten()
                    .filter(|p| !p.text.trim().is_empty());
                let line = match (page, rec.url.as_deref(), &date) {
                    (Some(p), Some(url), Some(ts)) => {
                        let h = sha1(rec.id.as_bytes());
                        Some(PageLine {
                            id: h[..16].iter().map(|b| format!("{b:02x}")).collect(),
                            url: url.to_string(),
                            ts: ts.clone(),
                            title: p.title,
                            text: p.text,
                        })
                    }
                    _ => None,
                };
                (line, date)
            })
            .collect()
    };
    let mut pages = 0u64;
    let mut newest = String::new();
    let drain = |batch: Vec<(Option<PageLine>, Option<String>)>| -> Result<()> {
        for (line, date) in batch {
            if let Some(d) = date.filter(|d| *d > newest) {
                newest = d;
            }
            if let Some(l) = line {
                serde_json::to_writer(&mut out, &l)?;
                out.write_all(b"\n").map_err(Error::Stream)?;
                pages += 1;
            }
        }
        Ok(())
    };
    map_inputs(&inputs, &cfg, hooks.cancelled, "pages", init, map, drain)?;
    out.flush()
        .at(&path, || format!("writing {}", path.display()))?;
    Ok((pages, newest))
}
