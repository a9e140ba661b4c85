//! Building an index directory: every input read once, in parallel (one archive per worker, the
//! reader's own threads for a single large one), its lines made as records arrive, all lines
//! sorted byte-wise and de-duplicated as `cdxj-indexer -s` sorts them, `index.cdxj` and
//! `archives.jsonl` written atomically; with `--compress` the ZipNum files beside them.
//! [`append`] adds archives to an existing index by merging the new sorted lines into it,
//! without reading the archives already indexed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use bytes::Bytes;
use crawlsift_reader::{detect::detect_compression, Compression, FileReport, ReaderConfig};

use crate::error::CdxjError;
use crate::extent::{block_end, member_end};
use crate::line::{capture, Capture};
use crate::manifest::{Archive, Manifest};
use crate::merge;
use crate::sort::Sorter;
use crate::write::Atomic;
use crate::zipnum;

pub use crate::layout::INDEX;

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Also write the ZipNum files (`index.cdxj.gz`, `index.idx`, `index.loc`).
    pub compress: bool,
}

/// What indexing one archive gave.
#[derive(Debug, Default)]
pub struct InputSummary {
    /// The archive as given.
    pub path: PathBuf,
    /// Records read.
    pub records: u64,
    /// Lines made.
    pub lines: u64,
    /// Records without a line, by reason ([`crate::line::skip`]).
    pub skipped: BTreeMap<&'static str, u64>,
    /// The reader's report (record errors with their offsets).
    pub report: FileReport,
    /// Set when the input was not indexed: why (`not_archive`, `already_indexed`, an I/O error).
    pub not_indexed: Option<String>,
}

/// What a build or append did.
#[derive(Debug, Default)]
pub struct BuildSummary {
    /// One per input given.
    pub inputs: Vec<InputSummary>,
    /// Lines added to the index (after removing duplicates).
    pub new_lines: u64,
    /// Lines in the index now.
    pub total_lines: u64,
}

impl BuildSummary {
    /// Record errors the reader counted, over all inputs.
    pub fn record_errors(&self) -> u64 {
        self.inputs.iter().map(|i| i.report.error_count()).sum()
    }
}

/// Builds a new index of `inputs` in `dir` (which must exist), replacing what is there.
pub fn build(
    inputs: &[PathBuf],
    dir: &Path,
    opts: &BuildOptions,
) -> Result<BuildSummary, CdxjError> {
    let sorter = Mutex::new(Sorter::new(dir));
    let (mut summary, manifest) = index_inputs(inputs, &Manifest::default(), opts, &sorter)?;
    let sorted = sorter
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .finish()?;
    let mut f = Atomic::create(&dir.join(INDEX))?;
    let mut n = 0u64;
    for l in sorted {
        f.write(l?.as_bytes())?;
        f.write(b"\n")?;
        n += 1;
    }
    f.commit()?;
    manifest.save(dir)?;
    summary.new_lines = n;
    summary.total_lines = n;
    if opts.compress {
        zipnum::write(dir)?;
    }
    Ok(summary)
}

/// Adds `inputs` to the index in `dir`: archives already listed are not read again, the new lines
/// are merged into `index.cdxj` (the old archives are not read).
pub fn append(
    inputs: &[PathBuf],
    dir: &Path,
    opts: &BuildOptions,
) -> Result<BuildSummary, CdxjError> {
    let old = Manifest::load(dir)?;
    let sorter = Mutex::new(Sorter::new(dir));
    let (mut summary, manifest) = index_inputs(inputs, &old, opts, &sorter)?;
    let sorted = sorter
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .finish()?;
    let (added, total) = merge::merge_into(&dir.join(INDEX), sorted)?;
    manifest.save(dir)?;
    summary.new_lines = added;
    summary.total_lines = total;
    if opts.compress {
        zipnum::write(dir)?;
    }
    Ok(summary)
}

/// Lines a worker gathers before handing them to the shared sorter.
const HAND_OVER_LINES: usize = 4096;

/// Indexes the inputs not already in `known`, handing their lines to `sorter`: their summaries,
/// and the manifest with them added. An input that cannot be read is noted in its summary; only
/// the sorter's own I/O is an error.
fn index_inputs(
    inputs: &[PathBuf],
    known: &Manifest,
    opts: &BuildOptions,
    sorter: &Mutex<Sorter>,
) -> Result<(BuildSummary, Manifest), CdxjError> {
    let mut manifest = known.clone();
    let mut todo: Vec<(usize, PathBuf, String)> = Vec::new();
    let mut summary = BuildSummary::default();
    for (i, p) in inputs.iter().enumerate() {
        summary.inputs.push(InputSummary {
            path: p.clone(),
            ..InputSummary::default()
        });
        let abs = std::fs::canonicalize(p).map_err(|e| CdxjError::io(p, e))?;
        let name = abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match manifest.find(&name) {
            Some(a) if a.path == abs => {
                summary.inputs[i].not_indexed = Some("already_indexed".into());
                continue;
            }
            Some(a) => {
                return Err(CdxjError::Invalid(format!(
                    "{} and {} have the same name {name}: CDXJ lines name archives by base name, \
                     so one index cannot hold both",
                    a.path.display(),
                    abs.display()
                )))
            }
            None => {}
        }
        let size = std::fs::metadata(&abs)
            .map_err(|e| CdxjError::io(p, e))?
            .len();
        manifest.archives.push(Archive {
            name: name.clone(),
            size,
            path: abs.clone(),
        });
        todo.push((i, abs, name));
    }
    let threads = opts.threads.max(1);
    let workers = threads.min(todo.len()).max(1);
    let reader_threads = (threads / workers).max(1);
    let next = AtomicUsize::new(0);
    type Done = (usize, Result<Result<InputSummary, String>, CdxjError>);
    let mut done: Vec<Done> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out: Vec<Done> = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some((i, abs, name)) = todo.get(k) else {
                            break;
                        };
                        out.push((*i, index_file(abs, *i as u32, name, reader_threads, sorter)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|d| d.0);
    for (i, r) in done {
        match r? {
            Ok(mut s) => {
                s.path = summary.inputs[i].path.clone();
                summary.inputs[i] = s;
            }
            Err(e) => summary.inputs[i].not_indexed = Some(e),
        }
    }
    Ok((summary, manifest))
}

/// Captures waiting for their member's end: all records of one gzip member (one, except in a
/// file gzipped whole), the member's offset.
struct Pending {
    offset: u64,
    captures: Vec<Capture>,
}

/// Reads one archive and makes its lines.
fn index_file(
    path: &Path,
    file_idx: u32,
    name: &str,
    reader_threads: usize,
    sorter: &Mutex<Sorter>,
) -> Result<Result<InputSummary, String>, CdxjError> {
    let data = match map(path) {
        Ok(d) => d,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let compression = detect_compression(&data);
    let cfg = ReaderConfig {
        threads: reader_threads,
        ..ReaderConfig::default()
    };
    let mut lines: Vec<String> = Vec::new();
    let mut summary = InputSummary::default();
    let mut pending: Option<Pending> = None;
    let mut sort_err: Option<CdxjError> = None;
    let hand_over = |lines: &mut Vec<String>, err: &mut Option<CdxjError>| {
        let mut s = sorter.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = s.extend(lines.drain(..)) {
            err.get_or_insert(e);
        }
    };
    let flush = |p: Pending, end: u64, lines: &mut Vec<String>| {
        for mut c in p.captures {
            c.length = end.saturating_sub(p.offset);
            lines.push(c.to_line());
        }
    };
    let report = crawlsift_reader::read_bytes(data.clone(), file_idx, &cfg, &mut |batch| {
        for rec in batch {
            let offset = rec.pos.offset;
            if let Some(p) = pending.take() {
                if p.offset == offset {
                    pending = Some(p);
                } else {
                    flush(p, offset, &mut lines);
                }
            }
            // Uncompressed WARC and ARC records end with their block; the rest end where the next
            // member (or TREC document) starts.
            let own_end = (compression == Compression::None
                && !matches!(
                    rec.kind,
                    crawlsift_reader::RecordKind::TrecWeb | crawlsift_reader::RecordKind::TrecText
                ))
            .then(|| block_end(&data, &rec.block))
            .flatten();
            match capture(&rec, offset, 0, name) {
                Ok(mut c) => {
                    summary.lines += 1;
                    match own_end {
                        Some(end) => {
                            c.length = end.saturating_sub(offset);
                            lines.push(c.to_line());
                        }
                        None => pending
                            .get_or_insert_with(|| Pending {
                                offset,
                                captures: Vec::new(),
                            })
                            .captures
                            .push(c),
                    }
                }
                Err(why) => *summary.skipped.entry(why).or_default() += 1,
            }
        }
        if lines.len() >= HAND_OVER_LINES {
            hand_over(&mut lines, &mut sort_err);
        }
        sort_err.is_none()
    });
    if let Some(p) = pending.take().filter(|p| !p.captures.is_empty()) {
        let end = if compression == Compression::None {
            data.len() as u64
        } else {
            member_end(&data, p.offset, compression)
        };
        flush(p, end, &mut lines);
    }
    hand_over(&mut lines, &mut sort_err);
    if let Some(e) = sort_err {
        return Err(e);
    }
    summary.records = report.records;
    if report.records == 0 && report.error_count() > 0 {
        summary.not_indexed = Some("not_archive".into());
    }
    summary.report = report;
    Ok(Ok(summary))
}

/// Maps `path` read-only (read into memory where mapping fails).
fn map(path: &Path) -> Result<Bytes, CdxjError> {
    let file = std::fs::File::open(path).map_err(|e| CdxjError::io(path, e))?;
    // SAFETY: the archive is opened read-only and only read; like every mapped reader we rely on
    // the file not being truncated while it is indexed.
    match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => Ok(Bytes::from_owner(m)),
        Err(_) => std::fs::read(path)
            .map(Bytes::from)
            .map_err(|e| CdxjError::io(path, e)),
    }
}
