//! The two steps of a distributed dedup, as library calls (`crawlsift_pipeline::run`), with the
//! GIL released: [`shard`] (`crawlsift dedup ... --shard I/N`) and [`merge`] (`crawlsift
//! merge`). A run that cannot finish raises one of the exceptions defined here, once, for the
//! whole package: [`CrawlsiftError`] and its subclasses, each for one kind of
//! `crawlsift_pipeline::Error`; a run that finishes returns a dict of what it did.

use std::path::PathBuf;

use crawlsift_pipeline::run::dedup::{DedupOutcome, DedupRequest};
use crawlsift_pipeline::run::merge::MergeRequest;
use crawlsift_pipeline::run::{Hooks, Judging};
use crawlsift_pipeline::shard::ShardSpec;
use crawlsift_pipeline::{Error, ReadTally};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _crawlsift,
    CrawlsiftError,
    PyException,
    "A crawlsift run could not finish; the message names the file (and byte offset) at fault."
);
create_exception!(
    _crawlsift,
    UsageError,
    CrawlsiftError,
    "An argument or setting the run refuses, found before anything was read."
);
create_exception!(
    _crawlsift,
    OutputExistsError,
    CrawlsiftError,
    "The output folder holds an earlier run's outputs: pass force=True to replace them."
);
create_exception!(
    _crawlsift,
    ShardsError,
    CrawlsiftError,
    "The shards given to merge() are not the complete shards of one run."
);
create_exception!(
    _crawlsift,
    DamagedError,
    CrawlsiftError,
    "A file the run reads back (a checkpoint, a shard's manifest, an index) is damaged."
);
create_exception!(
    _crawlsift,
    InputOutputError,
    CrawlsiftError,
    "A file or folder cannot be found, opened, read, written or made."
);
create_exception!(
    _crawlsift,
    RunInterrupted,
    CrawlsiftError,
    "The run was stopped before its outputs were written."
);

/// The message of an error and its causes on one line, each said once (as the CLI prints it).
fn message(err: &Error) -> String {
    crawlsift_pipeline::error_line(err)
}

/// The Python exception of a library error.
fn raise(err: Error) -> PyErr {
    let text = message(&err);
    match err {
        Error::Usage(_) | Error::Extractor(_) | Error::Dedup(_) => UsageError::new_err(text),
        Error::OutputsExist { .. } | Error::Exists { .. } => OutputExistsError::new_err(text),
        Error::Shards(_) => ShardsError::new_err(text),
        Error::Damaged { .. } => DamagedError::new_err(text),
        Error::Io { .. } | Error::Stream(_) | Error::Read(_) => InputOutputError::new_err(text),
        _ => CrawlsiftError::new_err(text),
    }
}

/// The reading's counts as Python sees them.
fn tally<'py>(py: Python<'py>, t: &ReadTally) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("records", t.records)?;
    d.set_item("record_errors", t.record_errors)?;
    d.set_item("failed_inputs", t.failed_inputs)?;
    d.set_item("skipped_inputs", t.skipped_inputs.clone())?;
    d.set_item("problems", t.has_problems())?;
    Ok(d)
}

/// Runs shard `index` of `count` of a dedup run over `inputs`, keeping its documents and
/// fingerprints in `out` for [`merge`]. Returns a dict: `documents`, `inputs` (read by this
/// shard), and the reading's counts.
#[pyfunction]
#[pyo3(signature = (inputs, index, count, out, *, text=false, threads=None, method=None, threshold=None, min_words=None, force=false, quiet=true))]
#[allow(clippy::too_many_arguments)]
pub fn shard<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    index: u32,
    count: u32,
    out: PathBuf,
    text: bool,
    threads: Option<usize>,
    method: Option<String>,
    threshold: Option<f64>,
    min_words: Option<usize>,
    force: bool,
    quiet: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let spec: ShardSpec = format!("{index}/{count}")
        .parse()
        .map_err(|e: String| UsageError::new_err(e))?;
    let mut req = DedupRequest::new(inputs, out);
    req.shard = Some(spec);
    // A shard keeps the texts in its checkpoints; the merge writes the file.
    req.text = text.then(|| PathBuf::from("/dev/null"));
    req.threads = crawlsift_pipeline::run::threads(threads);
    if let Some(m) = method {
        req.method = m
            .parse()
            .map_err(|e: crawlsift_extractor::ConfigError| UsageError::new_err(e.to_string()))?;
    }
    let defaults = Judging::default();
    req.judging = Judging {
        threshold: threshold.unwrap_or(defaults.threshold),
        min_words: min_words.unwrap_or(defaults.min_words),
    };
    req.force = force;
    req.quiet = quiet;
    let outcome = py.detach(|| crawlsift_pipeline::run::dedup::run(&req, &Hooks::silent()));
    match outcome.map_err(raise)? {
        DedupOutcome::Shard(done) => {
            let d = tally(py, &done.tally)?;
            d.set_item("documents", done.documents)?;
            d.set_item("inputs", done.inputs)?;
            Ok(d)
        }
        DedupOutcome::Interrupted { .. } => Err(RunInterrupted::new_err("the shard was stopped")),
        DedupOutcome::Finished(_) => Err(CrawlsiftError::new_err("a shard run wrote outputs")),
    }
}

/// Merges the output folders of every shard of one run into the outputs a single dedup run
/// writes, byte for byte (report timings aside); `text` also writes the clean corpus. Returns a
/// dict: `documents`, `clusters`, `duplicates`, and the reading's counts.
#[pyfunction]
#[pyo3(signature = (shards, out, *, text=None, threads=None, memory=None, force=false, quiet=true))]
#[allow(clippy::too_many_arguments)]
pub fn merge<'py>(
    py: Python<'py>,
    shards: Vec<PathBuf>,
    out: PathBuf,
    text: Option<PathBuf>,
    threads: Option<usize>,
    memory: Option<usize>,
    force: bool,
    quiet: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mut req = MergeRequest::new(shards, out);
    req.text = text;
    req.threads = crawlsift_pipeline::run::threads(threads);
    if let Some(m) = memory {
        req.memory = m;
    }
    req.force = force;
    req.quiet = quiet;
    let outcome = py.detach(|| crawlsift_pipeline::run::merge::run(&req, &Hooks::silent()));
    let Some(done) = outcome.map_err(raise)? else {
        return Err(RunInterrupted::new_err("the merge was stopped"));
    };
    let d = tally(py, &done.tally)?;
    d.set_item("documents", done.documents)?;
    d.set_item("clusters", done.stats.clusters)?;
    let duplicates = done.stats.exact_duplicates + done.stats.near_duplicates;
    d.set_item("duplicates", duplicates)?;
    Ok(d)
}

/// Adds the exception classes to the module.
pub fn add_exceptions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CrawlsiftError", py.get_type::<CrawlsiftError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("OutputExistsError", py.get_type::<OutputExistsError>())?;
    m.add("ShardsError", py.get_type::<ShardsError>())?;
    m.add("DamagedError", py.get_type::<DamagedError>())?;
    m.add("InputOutputError", py.get_type::<InputOutputError>())?;
    m.add("RunInterrupted", py.get_type::<RunInterrupted>())?;
    Ok(())
}
