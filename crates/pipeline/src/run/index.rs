//! An index build ([`run`]): builds, or with `append` extends, an index folder in two halves,
//! each the work of a library: the CDXJ index for random access by URL (`index.cdxj`,
//! `archives.jsonl`, with `compress` the ZipNum files: [`crawlsift_cdxj::Build`]) and the
//! fingerprint index `IDX/fp/` (segments, state, clusters: reading archives as a dedup run does,
//! [`super::segment::build_index`]). The archives are read once: the CDXJ half taps the
//! fingerprint half's reading ([`CdxjTap`]) and then reads itself only what that did not
//! (archives the fingerprint half had already, by content, or replayed from its checkpoints).
//! With `anchors`, the anchor texts the pages give are kept too (`IDX/anchors/`,
//! [`crawlsift_links::anchor_file`]): one file a build and one more each `append`.

use std::path::{Path, PathBuf};

use crawlsift_cdxj::{Build, BuildOptions, BuildSummary, Reading, INDEX};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_links::anchor_file::{anchor_files, ANCHORS_DIR};
use crawlsift_reader::{expand_inputs, FileReport, Input, ReaderConfig, Record};

use super::read::{DedupHooks, StageTimes};
use super::segment::{build_index, IndexRequest, IndexSummary};
use super::{Hooks, Judging};
use crate::error::{Error, IoContext, Result};
use crate::flow::inputs::{RecordTap, TapFile};

/// What an index build is asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// Archive files or directories (recursed in sorted order).
    pub inputs: Vec<PathBuf>,
    /// The index folder (created if missing).
    pub out: PathBuf,
    /// Add the inputs not yet in the index (by content) as a new segment, and cluster again.
    pub append: bool,
    /// Also write a ZipNum index as pywb reads it.
    pub compress: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Replace an existing index.
    pub force: bool,
    /// Build only the CDXJ half, not `IDX/fp/`.
    pub cdxj_only: bool,
    /// What makes two documents near-duplicates.
    pub judging: Judging,
    /// No notes on stderr.
    pub quiet: bool,
    /// Also keep the anchor texts the pages give (`IDX/anchors/`); an index that keeps them
    /// goes on doing so with `append` whether asked or not.
    pub anchors: bool,
}

/// What an index build did.
#[derive(Debug)]
pub struct Outcome {
    /// The CDXJ half's summary; `None` when the run was stopped before it was written.
    pub cdxj: Option<BuildSummary>,
    /// The fingerprint half's summary; `None` with `cdxj_only`.
    pub fingerprints: Option<IndexSummary>,
}

/// Builds or extends both halves of the index.
pub fn run(req: &Request, hooks: &Hooks<'_>) -> Result<Outcome> {
    let dedup = req.judging.config()?;
    if req.anchors && req.cdxj_only {
        let why = "--anchors reads the pages as the fingerprint half does: drop --cdxj-only";
        return Err(Error::Usage(why.into()));
    }
    let cdxj = start_cdxj(req)?;
    if req.cdxj_only {
        return Ok(Outcome {
            cdxj: Some(cdxj.finish()?),
            fingerprints: None,
        });
    }
    let method = Method::default();
    let extractor = ExtractorBuilder::new().method(method);
    hooks.progress.start(0);
    let times = StageTimes::default();
    let read_hooks = DedupHooks {
        cancelled: hooks.cancelled,
        progress: &|bytes, docs| hooks.progress.update(bytes, docs),
        times: &times,
    };
    let anchors_dir = req.out.join(ANCHORS_DIR);
    let keeps_anchors = !anchor_files(&anchors_dir)
        .map_err(|e| Error::failed(e.to_string()))?
        .is_empty();
    if !req.append && keeps_anchors {
        // A new index: the anchors of the one it replaces are not its own.
        if !req.force {
            let why = format!(
                "{} holds anchor texts of another index",
                anchors_dir.display()
            );
            return Err(Error::Exists {
                what: format!("{why} (--force replaces it, --append adds to it)"),
                path: anchors_dir,
            });
        }
        std::fs::remove_dir_all(&anchors_dir).at(&anchors_dir, || {
            format!("removing {}", anchors_dir.display())
        })?;
    }
    let anchors = req.anchors || (req.append && keeps_anchors);
    let fp = IndexRequest {
        inputs: &req.inputs,
        out: &req.out,
        append: req.append,
        force: req.force,
        threads: req.threads,
        dedup: &dedup,
        extractor: &extractor,
        method: method.as_str(),
        quiet: req.quiet,
        tap: Some(&CdxjTap(&cdxj)),
        anchors: anchors.then_some(anchors_dir.as_path()),
    };
    let summary = build_index(&fp, &read_hooks);
    hooks.progress.finish();
    let summary = summary?;
    // Stopped: nothing of the CDXJ half is written, and the same request reads what it misses.
    let cdxj = (!summary.interrupted).then(|| cdxj.finish()).transpose()?;
    Ok(Outcome {
        cdxj,
        fingerprints: Some(summary),
    })
}

/// The CDXJ half as a tap on the fingerprint half's reading: the archives it must index are read
/// through it, so each is read and inflated once.
struct CdxjTap<'a>(&'a Build);

impl RecordTap for CdxjTap<'_> {
    fn open(&self, _file: u32, path: &Path) -> Option<Box<dyn TapFile + '_>> {
        self.0
            .archive(path)
            .map(|r| Box::new(Tapped(r)) as Box<dyn TapFile>)
    }
}

/// One archive read for both halves.
struct Tapped<'a>(Reading<'a>);

impl TapFile for Tapped<'_> {
    fn read(
        &mut self,
        file: u32,
        cfg: &ReaderConfig,
        sink: &mut dyn FnMut(Vec<Record>) -> bool,
    ) -> FileReport {
        self.0.read(file, cfg, sink)
    }

    fn done(self: Box<Self>, report: FileReport) {
        self.0.done(report)
    }
}

/// The CDXJ half's start: checks the inputs and the index folder and plans which archives to
/// read ([`Build::start`]).
fn start_cdxj(req: &Request) -> Result<Build> {
    let mut inputs = Vec::new();
    for input in expand_inputs(&req.inputs)? {
        match input {
            Input::Path(p) => inputs.push(p),
            Input::Stdin | Input::Remote(_) => {
                let why = format!(
                    "{} cannot be indexed: an index points into local files by offset",
                    input.path().display()
                );
                return Err(Error::Usage(why));
            }
        }
    }
    // The rule of every command: no archive among the inputs, no index folder made.
    let names = req.inputs.iter().map(|a| a.display().to_string()).collect();
    let found: Vec<Input> = inputs.iter().cloned().map(Input::Path).collect();
    crate::flow::inputs::require_archive(&found, names)?;
    let index = req.out.join(INDEX);
    if !req.append && index.exists() && !req.force {
        return Err(Error::Exists {
            what: format!(
                "{} already exists (--force replaces it, --append adds to it)",
                index.display()
            ),
            path: index,
        });
    }
    std::fs::create_dir_all(&req.out)
        .at(&req.out, || format!("cannot create {}", req.out.display()))?;
    let opts = BuildOptions {
        threads: req.threads,
        compress: req.compress,
    };
    Ok(Build::start(&inputs, &req.out, &opts, req.append)?)
}

/// How the CDXJ half of an index run ended, from the mildest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ending {
    /// Every input indexed without a record error.
    Clean,
    /// Finished, but an input was not an archive or records had errors.
    Problems,
    /// An input could not be indexed.
    Failed,
}

/// The CDXJ half's status: fatal when an input could not be indexed, problems when one was no
/// archive or had record errors.
pub fn cdxj_ending(summary: &BuildSummary) -> Ending {
    let failed = summary.inputs.iter().any(|i| {
        i.not_indexed
            .as_deref()
            .is_some_and(|w| !matches!(w, "not_archive" | "already_indexed"))
    });
    let skipped = summary
        .inputs
        .iter()
        .any(|i| i.not_indexed.as_deref() == Some("not_archive"));
    if failed {
        Ending::Failed
    } else if skipped || summary.record_errors() > 0 {
        Ending::Problems
    } else {
        Ending::Clean
    }
}

/// The CDXJ half's report, a line each: inputs not indexed and why, the first record errors of
/// each input, then the totals. `fp_said`: the fingerprint half read the inputs too and has named those it skipped (already
/// indexed, no archive), so they are not named again.
pub fn cdxj_lines(s: &BuildSummary, index: &Path, fp_said: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut records = 0;
    for i in &s.inputs {
        records += i.records;
        let why = i.not_indexed.as_deref();
        if fp_said && matches!(why, Some("not_archive" | "already_indexed")) {
            continue;
        }
        if let Some(why) = why {
            lines.push(format!("{}: not indexed: {why}", i.path.display()));
        }
        for e in i.report.error_examples.iter().take(5) {
            lines.push(format!(
                "{}: byte {}: {}: {}",
                i.path.display(),
                e.offset,
                e.kind.as_str(),
                e.message
            ));
        }
    }
    let skipped: std::collections::BTreeMap<&str, u64> = s
        .inputs
        .iter()
        .flat_map(|i| i.skipped.iter())
        .fold(std::collections::BTreeMap::new(), |mut m, (k, v)| {
            *m.entry(*k).or_default() += v;
            m
        });
    let skipped: Vec<String> = skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
    lines.push(format!(
        "{} inputs, {records} records, {} lines added, {} in {} (records without a \
         line: {}; record errors: {})",
        s.inputs.len(),
        s.new_lines,
        s.total_lines,
        index.display(),
        if skipped.is_empty() {
            "none".into()
        } else {
            skipped.join(", ")
        },
        s.record_errors()
    ));
    lines
}
