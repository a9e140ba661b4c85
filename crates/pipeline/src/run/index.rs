//! An index build ([`run`]): builds, or with `append` extends, an index folder in two halves,
//! each the work of a library: the CDXJ index for random access by URL (`index.cdxj`,
//! `archives.jsonl`, with `compress` the ZipNum files: [`crawlsift_cdxj::Build`]) and the
//! fingerprint index `IDX/fp/` (segments, state, clusters: reading archives as a dedup run does,
//! [`super::segment::build_index`]). The archives are read once: the CDXJ half taps the
//! fingerprint half's reading ([`CdxjTap`]) and then reads itself only what that did not
//! (archives the fingerprint half had already, by content, or replayed from its checkpoints).

use std::path::{Path, PathBuf};

use crawlsift_cdxj::{Build, BuildOptions, BuildSummary, Reading, INDEX};
use crawlsift_extractor::{ExtractorBuilder, Method};
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
            Input::Stdin => {
                let why = "`-` cannot be indexed: an index points into files by offset";
                return Err(Error::Usage(why.into()));
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
