//! The run's input list ([`InputSet`]): expanded arguments with their sizes and the names outputs
//! use for them, the loop that reads them in order, and the tally of how reading went
//! ([`ReadTally`]).
//!
//! Inputs are checked before anything is read: a path that does not exist stops the run at once,
//! naming every such path; the same file given twice (by two names, a symbolic link, or a
//! directory and a file in it) is read once, with a warning. An input that holds no archive (a
//! README, an image) is a *skipped input*, counted by kind, not a record error.

use crate::error::{fail, Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crawlsift_reader::{ErrorKind, FileReport, Input, ReaderConfig, Record};
use crossbeam_channel::Receiver;
use serde::{Deserialize, Serialize};

use crate::flow::stages::Numbered;

/// What makes two paths the same file: device and inode where there are such, else the
/// canonical path; standard input is one file however often it is named.
#[derive(Debug, PartialEq, Eq, Hash)]
enum FileKey {
    Stdin,
    Url(String),
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

/// The identity of `input`, or None when it cannot be found out (it is then never a duplicate).
fn file_key(input: &Input) -> Option<FileKey> {
    match input {
        Input::Stdin => Some(FileKey::Stdin),
        Input::Remote(url) => Some(FileKey::Url(url.clone())),
        #[cfg(unix)]
        Input::Path(p) => {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(p).ok()?;
            Some(FileKey::Inode(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        Input::Path(p) => std::fs::canonicalize(p).ok().map(FileKey::Path),
    }
}

/// Adds input `o`'s counts (records, bytes, errors, digests) to `total`, the totals of a run.
pub fn add_counts(total: &mut FileReport, o: &FileReport) {
    total.merge(o);
    total.bytes_in += o.bytes_in;
}

/// Record errors of `r` by kind name, in name order, as summaries and `report.json` show them.
pub fn errors_by_name(r: &FileReport) -> BTreeMap<String, u64> {
    r.errors
        .iter()
        .map(|(k, n)| (k.as_str().to_string(), *n))
        .collect()
}

/// The kind name of an input that holds no archive (counted under it in summaries and reports).
pub const SKIP_NOT_ARCHIVE: &str = "not_archive";

/// The kind name of an input given again (by another name): read once, skipped the second time.
pub const SKIP_DUPLICATE: &str = "duplicate";

/// The kind name of an input whose compression cannot be undone (bz2, xz, or a damaged stream
/// from its first byte): skipped like one that holds no archive, but named for what it is.
pub const SKIP_BAD_COMPRESSION: &str = "bad_compression";

/// Why an input that holds no archive ([`not_an_archive`]) was skipped: its compression could not
/// be undone ([`SKIP_BAD_COMPRESSION`]), or what it holds is no archive ([`SKIP_NOT_ARCHIVE`]).
pub fn skip_kind(r: &FileReport) -> &'static str {
    if r.errors.contains_key(&ErrorKind::BadCompression) {
        SKIP_BAD_COMPRESSION
    } else {
        SKIP_NOT_ARCHIVE
    }
}

/// Whether reading `r` found no archive at all (no record and no format: a README, an image,
/// plain text, an empty file). Such an input is skipped, not counted in the totals.
pub fn not_an_archive(r: &FileReport) -> bool {
    r.records == 0 && r.format.is_none()
}

/// Fails with [`Error::NoArchive`] when no input holds an archive, before any output is made
/// (every command expands its inputs here, so the rule is the same for all). Files are peeked at
/// in order until one holds an archive; standard input, pipes and files that cannot be read are
/// left to the run (which reads and reports them).
pub(crate) fn require_archive(inputs: &[Input], names: Vec<String>) -> Result<()> {
    if inputs.is_empty() {
        return Ok(()); // said as "no input files found" where the inputs are expanded
    }
    let mut html = 0;
    for input in inputs {
        let Input::Path(p) = input else { return Ok(()) };
        if !p.metadata().is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        match crawlsift_reader::holds_archive(p) {
            Ok(false) => html += usize::from(looks_like_html(p)),
            _ => return Ok(()),
        }
    }
    let hint = if html == inputs.len() {
        "; they look like HTML pages: extract them with `extract --html FILE` or `extract --html-dir DIR --out-dir OUT`".to_string()
    } else {
        String::new()
    };
    Err(Error::NoArchive {
        names,
        inputs: inputs.len(),
        hint,
    })
}

/// Whether the file at `p` starts (after blanks) with `<`: markup, most likely an HTML page.
fn looks_like_html(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(p)
        .and_then(|f| f.take(512).read(&mut head))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&head[..n]).to_ascii_lowercase();
    let t = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    t.starts_with("<!doctype html")
        || t.starts_with("<html")
        || (t.starts_with('<') && text.contains("<body"))
}

/// Whether the run was asked to stop (Ctrl-C): the reading loop checks it between batches.
pub type Cancelled<'a> = &'a (dyn Fn() -> bool + Sync);

/// Inputs in the order they are read; `file` indices in every `SourcePos` point into this list.
pub struct InputSet {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// Size in bytes of each input (0 for stdin, URLs and files that cannot be measured).
    sizes: Vec<u64>,
    /// Running total of sizes before each input, for progress.
    before: Vec<u64>,
    names: Vec<String>,
    /// Whether each input was found by walking a directory (rather than named on the command line).
    from_dir: Vec<bool>,
    /// Inputs given again and so not read a second time: (this name, the name read).
    pub duplicates: Vec<(String, String)>,
}

/// An [`InputSet`] as data: see [`InputSet::list`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputList {
    /// Names, in order, as given or found in a directory.
    pub names: Vec<String>,
    /// Sizes in bytes.
    pub sizes: Vec<u64>,
    /// Whether each was found by walking a directory.
    pub from_dir: Vec<bool>,
    /// Inputs given again: (this name, the name read).
    pub duplicates: Vec<(String, String)>,
}

/// The channel of numbered record batches a record reader fills.
pub type RecordBatches = Receiver<Numbered<Vec<Record>>>;

/// What the reading loop hands on, in order.
pub enum ReadEvent {
    /// A batch of records of the current input.
    Records(Vec<Record>),
    /// Input `file` was read to its end (or failed to open): its summary.
    FileDone(u32, Result<FileReport, String>),
    /// Input `file` was not read because `skip` said so (its results are checkpointed).
    Skipped(u32),
}

/// Another use of the records the reading loop reads (the CDXJ half of `crawlsift index`), so
/// that an input wanted by both is read and inflated once: before each regular file is read the
/// tap may take it, and it is then read by the tap ([`TapFile::read`]), which sees each batch
/// before the loop hands it on.
pub trait RecordTap: Sync {
    /// Called before input `file` (a regular file at `path`) is read: Some when the tap wants
    /// its records.
    fn open(&self, file: u32, path: &Path) -> Option<Box<dyn TapFile + '_>>;
}

/// One input as a [`RecordTap`] reads it.
pub trait TapFile {
    /// Reads the input as [`crawlsift_reader::read_input`] would (the same records, batches and
    /// report), seeing each batch before `sink` gets it.
    fn read(
        &mut self,
        file: u32,
        cfg: &ReaderConfig,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> FileReport;

    /// The input was read to its end, as `report` says. A tapped input whose reading stopped
    /// midway (Ctrl-C, a consumer gone) is dropped without this call.
    fn done(self: Box<Self>, report: FileReport);
}

/// How the reading loop ended.
pub struct ReadOutcome {
    /// Per input, its summary if it was read to its end.
    pub reports: Vec<Option<Result<FileReport, String>>>,
    /// Time spent reading (not waiting on a full channel).
    pub busy: Duration,
}

/// How the reading of all inputs went, for the exit status and the summaries.
#[derive(Debug, Default)]
pub struct ReadTally {
    /// Inputs that could not be opened or read.
    pub failed_inputs: usize,
    /// Record-level errors over all inputs.
    pub record_errors: u64,
    /// Inputs that hold no archive (a README, a checksum list, an image): skipped.
    pub not_archives: Vec<String>,
    /// Skipped inputs by kind ([`SKIP_NOT_ARCHIVE`], [`SKIP_BAD_COMPRESSION`], [`SKIP_DUPLICATE`]).
    pub skipped_inputs: BTreeMap<&'static str, u64>,
    /// `WARC-Block-Digest`/`WARC-Payload-Digest` values that did not match (with
    /// `verify_digests`).
    pub digest_mismatches: u64,
    /// Records read.
    pub records: u64,
}

impl ReadTally {
    /// Whether the run finished but something was wrong with its input: records with errors, an
    /// input that is no archive, or digests that did not match (exit status 3).
    pub fn has_problems(&self) -> bool {
        self.record_errors > 0 || !self.not_archives.is_empty() || self.digest_mismatches > 0
    }
}

impl InputSet {
    /// Expands command-line arguments (files, directories, `-`). A path that cannot be found or
    /// listed is an error naming every such path; an input met again (by another name, a link,
    /// or inside a directory also given) is kept once and named in `duplicates`, with a warning
    /// on stderr.
    pub fn expand(args: &[PathBuf]) -> Result<Self> {
        let mut inputs = Vec::new();
        let mut from_dir = Vec::new();
        let mut missing = Vec::new();
        for arg in args {
            match crawlsift_reader::expand_inputs(std::slice::from_ref(arg)) {
                Ok(found) => {
                    // An `s3://BUCKET/PREFIX/` is listed as a folder is walked.
                    let listed = arg
                        .to_str()
                        .is_some_and(|a| a.starts_with("s3://") && a.ends_with('/'));
                    from_dir.extend(std::iter::repeat_n(arg.is_dir() || listed, found.len()));
                    inputs.extend(found);
                }
                Err(e) => missing.push(e.to_string()),
            }
        }
        if !missing.is_empty() {
            fail!("{}", missing.join("; "));
        }
        let mut duplicates = Vec::new();
        let mut seen: HashMap<FileKey, String> = HashMap::new();
        let mut kept = Vec::with_capacity(inputs.len());
        let mut kept_from_dir = Vec::with_capacity(inputs.len());
        for (input, dir) in inputs.into_iter().zip(from_dir) {
            let name = input.path().display().to_string();
            if let Some(key) = file_key(&input) {
                if let Some(first) = seen.get(&key) {
                    if name == *first {
                        eprintln!("crawlsift: warning: {name} is given twice: read once");
                    } else {
                        eprintln!(
                            "crawlsift: warning: {name} is the same file as {first}: read once"
                        );
                    }
                    duplicates.push((name, first.clone()));
                    continue;
                }
                seen.insert(key, name);
            }
            kept.push(input);
            kept_from_dir.push(dir);
        }
        let (inputs, from_dir) = (kept, kept_from_dir);
        let names: Vec<String> = args.iter().map(|a| a.display().to_string()).collect();
        if inputs.is_empty() {
            fail!("no input files found in {}", names.join(", "));
        }
        require_archive(&inputs, names)?;
        let sizes: Vec<u64> = inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
                Input::Stdin | Input::Remote(_) => 0,
            })
            .collect();
        let before = sizes
            .iter()
            .scan(0u64, |acc, s| {
                let b = *acc;
                *acc += s;
                Some(b)
            })
            .collect();
        let names = inputs
            .iter()
            .map(|i| i.path().display().to_string())
            .collect();
        Ok(InputSet {
            inputs,
            sizes,
            before,
            names,
            from_dir,
            duplicates,
        })
    }

    /// Reads every input in order (those `skip` names are announced, not read), handing events to
    /// `send`, and the regular files `tap` takes through it; stops when `send` returns false or
    /// `cancelled` says so (Ctrl-C). Run it on its own thread: `send` blocks on a full channel.
    pub fn read_all(
        &self,
        cfg: &ReaderConfig,
        skip: &dyn Fn(u32) -> bool,
        tap: Option<&dyn RecordTap>,
        cancelled: Cancelled<'_>,
        send: &mut dyn FnMut(ReadEvent) -> bool,
    ) -> ReadOutcome {
        let started = Instant::now();
        let mut waited = Duration::ZERO;
        let mut reports = vec![None; self.inputs.len()];
        let mut listening = true;
        for (fi, input) in self.inputs.iter().enumerate() {
            let fi = fi as u32;
            if !listening || cancelled() {
                break;
            }
            if skip(fi) {
                listening = send(ReadEvent::Skipped(fi));
                continue;
            }
            let mut tapped = match (tap, input) {
                (Some(tap), Input::Path(p)) if p.metadata().is_ok_and(|m| m.is_file()) => {
                    tap.open(fi, p)
                }
                _ => None,
            };
            let mut sink = |batch| {
                let w = Instant::now();
                listening = !cancelled() && send(ReadEvent::Records(batch));
                waited += w.elapsed();
                listening
            };
            let r = match tapped.as_mut() {
                Some(t) => Ok(t.read(fi, cfg, &mut sink)),
                None => crawlsift_reader::read_input(input, fi, cfg, &mut sink),
            };
            if !listening {
                break; // this input was not read to its end: it has no summary
            }
            if let (Some(t), Ok(report)) = (tapped, &r) {
                t.done(report.clone());
            }
            let summary = r.as_ref().cloned().map_err(|e| e.to_string());
            reports[fi as usize] = Some(summary.clone());
            listening = send(ReadEvent::FileDone(fi, summary));
        }
        ReadOutcome {
            reports,
            busy: started.elapsed().saturating_sub(waited),
        }
    }

    /// Tallies per-input results (in input order), printing each failure and record error
    /// example to stderr with the file's name unless `quiet`. An input that holds no archive at
    /// all is skipped with a notice (always said when it was named on the command line, unless
    /// `quiet` when it was met in a directory), not counted as a record error.
    pub fn tally(&self, reports: &[Option<Result<FileReport, String>>], quiet: bool) -> ReadTally {
        let mut t = ReadTally::default();
        if !self.duplicates.is_empty() {
            t.skipped_inputs
                .insert(SKIP_DUPLICATE, self.duplicates.len() as u64);
        }
        for (fi, r) in reports.iter().enumerate() {
            let name = self.name(fi as u32);
            match r {
                None => {}
                Some(Ok(r)) if not_an_archive(r) => {
                    t.not_archives.push(name.to_string());
                    let kind = skip_kind(r);
                    *t.skipped_inputs.entry(kind).or_default() += 1;
                    let from_dir = self.from_dir.get(fi).copied().unwrap_or(false);
                    if !quiet || !from_dir {
                        let why = r
                            .error_examples
                            .first()
                            .map_or("empty input".to_string(), |e| e.to_string());
                        if kind == SKIP_BAD_COMPRESSION {
                            eprintln!("crawlsift: {name}: cannot be decompressed: {why}; skipped");
                        } else {
                            eprintln!("crawlsift: {name}: not an archive (no WARC, ARC or TREC record): {why}; skipped");
                        }
                    }
                }
                Some(Ok(r)) => {
                    t.records += r.records;
                    t.record_errors += r.error_count();
                    t.digest_mismatches += r.digests.mismatch;
                    if !quiet {
                        for e in &r.error_examples {
                            eprintln!("crawlsift: {name}: {e}");
                        }
                        let shown = r.error_examples.len() as u64;
                        if r.error_count() > shown {
                            eprintln!(
                                "crawlsift: {name}: {} more record errors",
                                r.error_count() - shown
                            );
                        }
                    }
                    if r.digests.mismatch > 0 {
                        eprintln!(
                            "crawlsift: {name}: {} of {} digests do not match their block or payload",
                            r.digests.mismatch,
                            r.digests.ok + r.digests.mismatch
                        );
                    }
                }
                Some(Err(e)) => {
                    t.failed_inputs += 1;
                    eprintln!("crawlsift: {e}");
                }
            }
        }
        t
    }

    /// What the outputs need to know of the inputs (names, sizes, which came from a directory,
    /// which were given twice), without the files: a shard records it so that a merge can name
    /// the inputs exactly as a single run does without opening them.
    pub fn list(&self) -> InputList {
        InputList {
            names: self.names.clone(),
            sizes: self.sizes.clone(),
            from_dir: self.from_dir.clone(),
            duplicates: self.duplicates.clone(),
        }
    }

    /// The input set a [`list`](Self::list) describes (the files are not opened).
    pub fn from_list(list: InputList) -> Self {
        let before = list
            .sizes
            .iter()
            .scan(0u64, |acc, s| {
                let b = *acc;
                *acc += s;
                Some(b)
            })
            .collect();
        InputSet {
            inputs: list.names.iter().map(|n| Input::named(n)).collect(),
            sizes: list.sizes,
            before,
            names: list.names,
            from_dir: list.from_dir,
            duplicates: list.duplicates,
        }
    }

    /// Total input bytes (stdin counts 0).
    pub fn total_bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }

    /// Bytes of all inputs before input `file`.
    pub fn bytes_before(&self, file: u32) -> u64 {
        self.before.get(file as usize).copied().unwrap_or(0)
    }

    /// The name of input `file`, as given on the command line (or found in a directory).
    pub fn name(&self, file: u32) -> &str {
        self.names
            .get(file as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Size and modification time of input `file` (None for stdin and URLs), to tell whether a file
    /// changed between a run and its resumption.
    pub fn identity(&self, file: u32) -> Option<(u64, u128)> {
        match self.inputs.get(file as usize)? {
            Input::Stdin | Input::Remote(_) => None,
            Input::Path(p) => {
                let m = std::fs::metadata(p).ok()?;
                let mtime = m
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_nanos();
                Some((m.len(), mtime))
            }
        }
    }
}
