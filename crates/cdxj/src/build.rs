//! Building an index directory ([`Build`]): every input read once, by another pass that reads it
//! anyway ([`Build::archive`]) or in parallel here (one archive per worker, the reader's own
//! threads for a single large one), its lines made as records arrive ([`crate::archive`]), all
//! lines sorted byte-wise and de-duplicated as `cdxj-indexer -s` sorts them, `index.cdxj` and
//! `archives.jsonl` written atomically; with `--compress` the ZipNum files beside them.
//! [`append`] adds archives to an existing index by merging the new sorted lines into it,
//! without reading the archives already indexed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use bytes::Bytes;
use crawlsift_reader::{FileReport, ReaderConfig, Record};

use crate::archive::ArchiveLines;
use crate::error::CdxjError;
use crate::manifest::{Archive, Manifest};
use crate::merge;
use crate::seek;
use crate::sort::Sorter;
use crate::write::Atomic;
use crate::zipnum;
use crawlsift_common::parallel::in_parallel;

pub use crate::archive::InputSummary;
pub use crate::layout::INDEX;

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Also write the ZipNum files (`index.cdxj.gz`, `index.idx`, `index.loc`).
    pub compress: bool,
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
    Build::start(inputs, dir, opts, false)?.finish()
}

/// Adds `inputs` to the index in `dir`: archives already listed are not read again, the new lines
/// are merged into `index.cdxj` (the old archives are not read).
pub fn append(
    inputs: &[PathBuf],
    dir: &Path,
    opts: &BuildOptions,
) -> Result<BuildSummary, CdxjError> {
    Build::start(inputs, dir, opts, true)?.finish()
}

/// An archive the build must read, and input `input` of those given.
struct Todo {
    input: usize,
    abs: PathBuf,
    name: String,
}

/// What reading an archive gave: its summary, or why it could not be read; or the sorter's
/// error (fatal).
type Done = Result<Result<InputSummary, String>, CdxjError>;

/// Where the reading of a [`Todo`] stands.
enum Slot {
    Unread,
    Reading,
    Done(Box<Done>),
}

/// A build (or append) under way: [`Build::start`] decides which archives must be read; whoever
/// reads one anyway (the fingerprint pipeline of `crawlsift index`, so that each archive is read
/// and inflated once) asks [`Build::archive`] for its lines; [`Build::finish`] reads the archives
/// nobody read, in parallel, and writes the index. The lines, and so the index, are the same
/// bytes whoever read which archive.
pub struct Build {
    dir: PathBuf,
    opts: BuildOptions,
    append: bool,
    manifest: Manifest,
    summary: BuildSummary,
    todo: Vec<Todo>,
    slots: Mutex<Vec<Slot>>,
    sorter: Mutex<Sorter>,
}

impl Build {
    /// Plans a build of `inputs` in `dir` (which must exist), or with `append` their addition to
    /// the index there: archives already listed are not read again. Fails when an input cannot
    /// be found, when two archives share a base name, or when the manifest is damaged.
    pub fn start(
        inputs: &[PathBuf],
        dir: &Path,
        opts: &BuildOptions,
        append: bool,
    ) -> Result<Build, CdxjError> {
        let mut manifest = if append {
            Manifest::load(dir)?
        } else {
            Manifest::default()
        };
        let mut todo: Vec<Todo> = Vec::new();
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
                // A same-named file that holds no archive (each crawl folder's `peers.jsonl`) is
                // skipped, as any non-archive is: only two archives cannot share a name.
                Some(_) if !holds_archive(&abs) => {
                    summary.inputs[i].not_indexed = Some("not_archive".into());
                    continue;
                }
                Some(a) if !holds_archive(&a.path) && todo.iter().any(|t| t.abs == a.path) => {
                    let earlier = a.path.clone();
                    if let Some(t) = todo.iter().position(|t| t.abs == earlier) {
                        summary.inputs[todo.remove(t).input].not_indexed =
                            Some("not_archive".into());
                    }
                    manifest.archives.retain(|x| x.path != earlier);
                }
                Some(a) => {
                    return Err(CdxjError::Invalid(format!(
                        "{} and {} have the same name {name}: CDXJ lines name archives by base \
                         name, so one index cannot hold both",
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
            todo.push(Todo {
                input: i,
                abs,
                name,
            });
        }
        let slots = Mutex::new(todo.iter().map(|_| Slot::Unread).collect());
        Ok(Build {
            dir: dir.to_path_buf(),
            opts: opts.clone(),
            append,
            manifest,
            summary,
            todo,
            slots,
            sorter: Mutex::new(Sorter::new(dir)),
        })
    }

    /// The lines of the archive at `path`, to be made from its records by whoever reads it (from
    /// [`Reading::read`]), when the build must read it and nobody has yet: None otherwise, and
    /// when it cannot be opened ([`finish`](Self::finish) then tries, and says why).
    pub fn archive(&self, path: &Path) -> Option<Reading<'_>> {
        let abs = std::fs::canonicalize(path).ok()?;
        let slot = self.todo.iter().position(|t| t.abs == abs)?;
        {
            let mut slots = self.slots();
            if !matches!(slots[slot], Slot::Unread) {
                return None;
            }
            slots[slot] = Slot::Reading;
        }
        let mut reading = Reading {
            build: self,
            slot,
            lines: None,
        };
        // On failure the reading is dropped, which makes the archive unread again.
        let data = map(&abs).ok()?;
        reading.lines = Some(ArchiveLines::new(data, &self.todo[slot].name, &self.sorter));
        Some(reading)
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the archives nobody read, then writes `index.cdxj` (merged into the existing one
    /// when appending), `archives.jsonl` and the ZipNum files if asked for.
    pub fn finish(self) -> Result<BuildSummary, CdxjError> {
        let Build {
            dir,
            opts,
            append,
            manifest,
            mut summary,
            todo,
            slots,
            sorter,
        } = self;
        let mut slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
        let unread: Vec<usize> = (0..todo.len())
            .filter(|&k| !matches!(slots[k], Slot::Done(_)))
            .collect();
        for (k, done) in read_unread(&todo, &unread, opts.threads, &sorter) {
            slots[k] = Slot::Done(Box::new(done));
        }
        if !append {
            seek::clear(&dir)?;
        }
        let mut tables = Vec::new();
        for (t, slot) in todo.iter().zip(slots) {
            let Slot::Done(done) = slot else {
                unreachable!("every unread archive was read above");
            };
            match (*done)? {
                Ok(mut s) => {
                    if !s.tables.is_empty() {
                        tables.push((t, std::mem::take(&mut s.tables)));
                    }
                    s.path = summary.inputs[t.input].path.clone();
                    summary.inputs[t.input] = s;
                }
                Err(e) => summary.inputs[t.input].not_indexed = Some(e),
            }
        }
        // Each archive compressed whole is inflated once more, for its checkpoints: archives on
        // the threads, in parallel.
        let written = in_parallel(opts.threads, &tables, |part| {
            part.iter()
                .try_for_each(|(t, m)| seek::write_tables(&dir, &t.abs, &t.name, m))
        });
        written.into_iter().collect::<Result<(), CdxjError>>()?;
        let sorted = sorter
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .finish()?;
        if append {
            let (added, total) = merge::merge_into(&dir.join(INDEX), sorted)?;
            summary.new_lines = added;
            summary.total_lines = total;
        } else {
            let mut f = Atomic::create(&dir.join(INDEX))?;
            let mut n = 0u64;
            for l in sorted {
                f.write(l?.as_bytes())?;
                f.write(b"\n")?;
                n += 1;
            }
            f.commit()?;
            summary.new_lines = n;
            summary.total_lines = n;
        }
        manifest.save(&dir)?;
        if opts.compress {
            zipnum::write(&dir)?;
        }
        Ok(summary)
    }
}

/// An archive being read for a [`Build`] by someone else ([`Build::archive`]): read it with
/// [`read`](Self::read), then hand over the reader's report. Dropped before [`done`](Self::done)
/// (a run stopped midway), the archive counts as unread.
pub struct Reading<'a> {
    build: &'a Build,
    slot: usize,
    lines: Option<ArchiveLines<'a>>,
}

impl Reading<'_> {
    /// Reads the archive as [`crawlsift_reader::read_input`] reads a regular file (input
    /// `file_idx`, with `cfg`), making the lines of each batch of records before `sink` gets
    /// it: the reader's report.
    pub fn read(
        &mut self,
        file_idx: u32,
        cfg: &ReaderConfig,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> FileReport {
        let lines = self
            .lines
            .as_mut()
            .expect("a reading has its lines until done");
        let data = lines.data().clone();
        crawlsift_reader::read_bytes(data, file_idx, cfg, &mut |batch| {
            lines.records(&batch);
            sink(batch)
        })
    }

    /// The archive was read to its end, as `report` says.
    pub fn done(mut self, report: FileReport) {
        let lines = self
            .lines
            .take()
            .expect("a reading has its lines until done");
        self.build.slots()[self.slot] = Slot::Done(Box::new(lines.done(report).map(Ok)));
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        if self.lines.is_some() {
            self.build.slots()[self.slot] = Slot::Unread;
        }
    }
}

/// Reads the archives `unread` (indices into `todo`) in parallel (one archive per worker, the
/// reader's own threads for a single large one), handing their lines to `sorter`.
fn read_unread(
    todo: &[Todo],
    unread: &[usize],
    threads: usize,
    sorter: &Mutex<Sorter>,
) -> Vec<(usize, Done)> {
    let threads = threads.max(1);
    let workers = threads.min(unread.len()).max(1);
    let reader_threads = (threads / workers).max(1);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    while let Some(&k) = unread.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let t = &todo[k];
                        let file_idx = t.input as u32;
                        out.push((
                            k,
                            index_file(&t.abs, file_idx, &t.name, reader_threads, sorter),
                        ));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Reads one archive and makes its lines.
fn index_file(
    path: &Path,
    file_idx: u32,
    name: &str,
    reader_threads: usize,
    sorter: &Mutex<Sorter>,
) -> Done {
    let data = match map(path) {
        Ok(d) => d,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let cfg = ReaderConfig {
        threads: reader_threads,
        ..ReaderConfig::default()
    };
    let mut lines = ArchiveLines::new(data.clone(), name, sorter);
    let report =
        crawlsift_reader::read_bytes(data, file_idx, &cfg, &mut |batch| lines.records(&batch));
    lines.done(report).map(Ok)
}

/// Maps `path` read-only (read into memory where mapping fails).
fn map(path: &Path) -> Result<Bytes, CdxjError> {
    crawlsift_common::fs::map_or_read(path)
        .map(Bytes::from_owner)
        .map_err(|e| CdxjError::io(path, e))
}

/// Whether `path` holds an archive; a file that cannot be read counts as one (its reading fails
/// later, and says why).
fn holds_archive(path: &Path) -> bool {
    crawlsift_reader::holds_archive(path).unwrap_or(true)
}
