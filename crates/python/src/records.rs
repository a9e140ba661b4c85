//! `records(source)`: the records of archives as Python dicts, read on a background thread and
//! handed over in batches through a bounded channel, so Python iterates while the input is read
//! and memory stays bounded whatever its size.
//!
//! The source is a path, a list of paths or a folder (expanded as the CLI expands its arguments:
//! folders walked in sorted order, an input met twice read once, inputs that hold no archive
//! skipped and counted), a binary file object (read in chunks through its `read` method, so a
//! pipe or a socket works), or `bytes`. The reading itself is the reader crate's
//! (`read_input`, `read_stream`, `read_bytes`), the counting the CLI's (`crawlsift_pipeline::inputs`).

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use crawlsift_common::limits::RAW_QUEUE_CAP;
use crawlsift_pipeline::describe::describe;
use crawlsift_pipeline::inputs::{
    add_counts, errors_by_name, not_an_archive, skip_kind, SKIP_DUPLICATE,
};
use crawlsift_pipeline::InputSet;
use crawlsift_reader::{
    read_bytes, read_input, read_stream, FileReport, Input, ReadError, ReaderConfig, Record,
};
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};
use pyo3::exceptions::{
    PyFileNotFoundError, PyOSError, PyRuntimeWarning, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

/// How often a wait for the next batch looks for a pending Ctrl-C (KeyboardInterrupt).
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Bytes asked of a file object's `read` at a time.
const STREAM_CHUNK: usize = 1 << 20;

/// What the reading thread found, summed over its inputs as the CLI's `--summary` total sums
/// them: the archives read, and the inputs skipped by kind.
#[derive(Default)]
struct Summary {
    /// The counts of every input that holds an archive.
    total: FileReport,
    /// Inputs skipped, by kind (`not_archive`, `bad_compression`, `duplicate`).
    skipped: BTreeMap<&'static str, u64>,
    /// Inputs of a list or folder that could not be opened or read, each its error (naming the
    /// input and the byte offset): counted and passed over, as the CLI does.
    failed: Vec<String>,
}

/// The result of reading every input on the background thread.
type Outcome = Result<Summary, ReadError>;

/// Where the records come from.
enum Source {
    /// Files (a folder already expanded), read as the CLI reads them.
    Inputs(Vec<Input>),
    /// A binary file object, read through its `read` method.
    Stream(Py<PyAny>),
    /// Bytes in memory.
    Bytes(Bytes),
}

/// An iterator over the records of one or more archives (see [`records`]).
#[pyclass(module = "crawlsift._crawlsift")]
pub struct Records {
    /// Each input's name, as given or found in a folder (the `file` field of its records).
    names: Vec<String>,
    /// Whether each dict carries the `payload` bytes.
    payload: bool,
    /// Batches from the reading thread; disconnected when it is done.
    rx: Receiver<Vec<Record>>,
    /// The batch being handed out.
    current: std::vec::IntoIter<Record>,
    /// The reading thread, until it has been joined.
    worker: Option<JoinHandle<Outcome>>,
    /// The summary once every input has been read to its end.
    report: Option<Summary>,
}

/// The records of `source`, in order, as dicts with the fields of `crawlsift records` (`file`,
/// `offset`, `uoffset` where it applies, `index`, `type`, `id`, `url`, `date`, `content_type`,
/// `http_status`, `payload_length`), plus `warc_headers` (the record's header fields in order, as
/// `(name, value)` tuples), `http_headers` (the HTTP response's, or `None`) and with
/// `payload=True` the `payload` bytes (the HTTP body, decoded, or the whole block).
///
/// `source` is a path (`str` or `os.PathLike`), a list or tuple of paths, a folder (every file
/// below it in sorted order; inputs that hold no archive are skipped and counted), a binary file
/// object (anything with a `read(n)` method returning bytes; it need not seek), or `bytes`.
/// Anything else raises `TypeError`. A path that does not exist raises `FileNotFoundError` at
/// once. A lone input that cannot be opened or read raises `OSError` naming it (and the byte
/// offset) when iteration reaches it; among several (a list, a folder) such an input is passed
/// over as the CLI passes it over: the others are read, its error is listed in the `report`'s
/// `failed_inputs` and given as a `RuntimeWarning` when iteration ends. Damaged records are
/// skipped and counted in the iterator's `report`.
#[pyfunction]
#[pyo3(signature = (source, payload = false, threads = None))]
pub fn records(
    source: &Bound<'_, PyAny>,
    payload: bool,
    threads: Option<usize>,
) -> PyResult<Records> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let mut cfg = ReaderConfig::default();
    if let Some(n) = threads {
        cfg.threads = n;
    }
    let (src, names, duplicates) = classify(source)?;
    let (tx, rx) = bounded::<Vec<Record>>(RAW_QUEUE_CAP);
    let stream_name = names.first().cloned().unwrap_or_default();
    let worker = std::thread::Builder::new()
        .name("crawlsift-records".into())
        .spawn(move || read_all(src, &stream_name, duplicates, &cfg, tx))
        .map_err(|e| PyOSError::new_err(format!("cannot start the reading thread: {e}")))?;
    Ok(Records {
        names,
        payload,
        rx,
        current: Vec::new().into_iter(),
        worker: Some(worker),
        report: None,
    })
}

/// What `source` is: the inputs, their names, and how many inputs were given twice.
fn classify(source: &Bound<'_, PyAny>) -> PyResult<(Source, Vec<String>, u64)> {
    let py = source.py();
    if let Ok(b) = source.cast::<PyBytes>() {
        let data = Bytes::copy_from_slice(b.as_bytes());
        return Ok((Source::Bytes(data), vec!["<bytes>".into()], 0));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        let data = Bytes::from(b.to_vec());
        return Ok((Source::Bytes(data), vec!["<bytes>".into()], 0));
    }
    let paths: Option<Vec<PathBuf>> = if source.is_instance_of::<PyString>()
        || source.is_instance(&py.import("os")?.getattr("PathLike")?)?
    {
        Some(vec![source.extract()?])
    } else if source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>() {
        let mut v = Vec::new();
        for item in source.try_iter()? {
            let item = item?;
            if item.is_instance_of::<PyBytes>() {
                return Err(PyTypeError::new_err(
                    "records(): a list holds paths (str or os.PathLike), not bytes",
                ));
            }
            v.push(item.extract::<PathBuf>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "records(): a list holds paths (str or os.PathLike), not {}",
                    type_name(&item)
                ))
            })?);
        }
        Some(v)
    } else {
        None
    };
    if let Some(paths) = paths {
        if paths.is_empty() {
            return Err(PyValueError::new_err(
                "records(): the list of paths is empty",
            ));
        }
        for p in &paths {
            if p.as_os_str() != "-" && std::fs::symlink_metadata(p).is_err() {
                return Err(PyFileNotFoundError::new_err(format!(
                    "{}: no such file or folder",
                    p.display()
                )));
            }
        }
        let set = InputSet::expand(&paths).map_err(|e| PyOSError::new_err(e.to_string()))?;
        let names = (0..set.inputs.len() as u32)
            .map(|i| set.name(i).to_string())
            .collect();
        let dups = set.duplicates.len() as u64;
        return Ok((Source::Inputs(set.inputs), names, dups));
    }
    if source.hasattr("read")? {
        if source.is_instance(&py.import("io")?.getattr("TextIOBase")?)? {
            return Err(PyTypeError::new_err(
                "records(): the file object is open in text mode: open it in binary mode ('rb')",
            ));
        }
        let name = source
            .getattr("name")
            .ok()
            .and_then(|n| n.extract::<String>().ok())
            .unwrap_or_else(|| "<stream>".into());
        return Ok((Source::Stream(source.clone().unbind()), vec![name], 0));
    }
    Err(PyTypeError::new_err(format!(
        "records() takes a path (str or os.PathLike), a list of paths, a folder, a binary file \
         object or bytes, not {}",
        type_name(source)
    )))
}

/// A Python object's type name, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string())
}

/// Reads every input of `src` in order on the reading thread, sending batches to `tx` until the
/// iterator goes away, and sums the reports as the CLI's `--summary` total does.
fn read_all(
    src: Source,
    stream_name: &str,
    duplicates: u64,
    cfg: &ReaderConfig,
    tx: Sender<Vec<Record>>,
) -> Outcome {
    let mut sum = Summary::default();
    if duplicates > 0 {
        sum.skipped.insert(SKIP_DUPLICATE, duplicates);
    }
    let listening = std::cell::Cell::new(true);
    let mut sink = |batch| {
        listening.set(tx.send(batch).is_ok());
        listening.get()
    };
    let tally = |sum: &mut Summary, r: FileReport| {
        if not_an_archive(&r) {
            *sum.skipped.entry(skip_kind(&r)).or_default() += 1;
        } else {
            add_counts(&mut sum.total, &r);
        }
    };
    match src {
        Source::Inputs(inputs) => {
            let alone = inputs.len() == 1;
            for (fi, input) in inputs.iter().enumerate() {
                match read_input(input, fi as u32, cfg, &mut sink) {
                    Ok(r) if listening.get() => tally(&mut sum, r),
                    Ok(_) => break,
                    Err(e) if alone => return Err(e),
                    Err(e) => sum.failed.push(e.to_string()),
                }
                if !listening.get() {
                    break;
                }
            }
        }
        Source::Bytes(data) => tally(&mut sum, read_bytes(data, 0, cfg, &mut sink)),
        Source::Stream(obj) => {
            let reader = io::BufReader::with_capacity(STREAM_CHUNK, PyReader::new(obj));
            let r = read_stream(reader, 0, cfg, &mut sink).map_err(|(offset, source)| {
                ReadError::Io {
                    path: stream_name.into(),
                    offset,
                    source,
                }
            })?;
            tally(&mut sum, r);
        }
    }
    Ok(sum)
}

/// A Python binary file object as a [`Read`]: each call takes the GIL and calls `read(n)`.
struct PyReader {
    /// The file object.
    obj: Py<PyAny>,
    /// Bytes a `read` gave beyond what was asked, handed out first.
    spare: Vec<u8>,
}

impl PyReader {
    fn new(obj: Py<PyAny>) -> Self {
        PyReader {
            obj,
            spare: Vec::new(),
        }
    }
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.spare.is_empty() {
            self.spare = Python::attach(|py| -> io::Result<Vec<u8>> {
                let got = self
                    .obj
                    .bind(py)
                    .call_method1("read", (buf.len(),))
                    .map_err(|e| io::Error::other(format!("read() raised {e}")))?;
                if let Ok(b) = got.cast::<PyBytes>() {
                    Ok(b.as_bytes().to_vec())
                } else if let Ok(b) = got.cast::<PyByteArray>() {
                    Ok(b.to_vec())
                } else if got.is_none() {
                    Err(io::Error::other(
                        "read() gave None (a non-blocking stream with no data yet)",
                    ))
                } else {
                    Err(io::Error::other(format!(
                        "read() gave {}, not bytes: open the file in binary mode ('rb')",
                        type_name(&got)
                    )))
                }
            })?;
        }
        let n = self.spare.len().min(buf.len());
        buf[..n].copy_from_slice(&self.spare[..n]);
        self.spare.drain(..n);
        Ok(n)
    }
}

#[pymethods]
impl Records {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        loop {
            if let Some(rec) = self.current.next() {
                let name = self
                    .names
                    .get(rec.pos.file as usize)
                    .map_or("", String::as_str);
                return record_dict(py, &rec, name, self.payload).map(Some);
            }
            let rx = self.rx.clone();
            match py.detach(move || rx.recv_timeout(SIGNAL_POLL)) {
                Ok(batch) => self.current = batch.into_iter(),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish(py)?;
                    return Ok(None);
                }
            }
        }
    }

    /// The summary once iteration has ended (`None` before), summed over the inputs as the
    /// CLI's `records --summary` total: `records`, `bytes` (of the inputs that hold an
    /// archive), `errors` (records skipped or kept despite an error, by kind) and
    /// `skipped_inputs` (inputs not read, by kind: `not_archive`, `bad_compression`,
    /// `duplicate`), `invalid_dates` (records whose written date is no date) and `failed_inputs`
    /// (the error of each input of a list or folder that could not be opened or read).
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = &self.report else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("records", s.total.records)?;
        d.set_item("bytes", s.total.bytes_in)?;
        let errors = PyDict::new(py);
        for (kind, n) in errors_by_name(&s.total) {
            errors.set_item(kind, n)?;
        }
        d.set_item("errors", errors)?;
        let skipped = PyDict::new(py);
        for (kind, n) in &s.skipped {
            skipped.set_item(kind, n)?;
        }
        d.set_item("skipped_inputs", skipped)?;
        d.set_item("invalid_dates", s.total.invalid_dates)?;
        d.set_item("failed_inputs", &s.failed)?;
        Ok(Some(d))
    }
}

impl Records {
    /// Joins the reading thread: keeps its summary, or raises its error.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(worker) = self.worker.take() else {
            return Ok(());
        };
        match py.detach(move || worker.join()) {
            Ok(Ok(summary)) => {
                let failed = summary.failed.clone();
                self.report = Some(summary);
                for e in failed {
                    let msg =
                        std::ffi::CString::new(format!("crawlsift.records: {e}; passed over"))
                            .unwrap_or_default();
                    PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &msg, 1)?;
                }
                Ok(())
            }
            Ok(Err(e)) => Err(PyOSError::new_err(e.to_string())),
            Err(_) => Err(PyOSError::new_err(format!(
                "{}: the reading thread failed",
                self.names.join(", ")
            ))),
        }
    }
}

/// Header fields as a list of `(name, value)` tuples, in order.
fn header_list<'py, 'a>(
    py: Python<'py>,
    fields: impl Iterator<Item = (&'a str, &'a str)>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (k, v) in fields {
        list.append((k, v))?;
    }
    Ok(list)
}

/// One record as the dict `records()` yields.
fn record_dict<'py>(
    py: Python<'py>,
    rec: &Record,
    name: &str,
    payload: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (status, payload_length, _) = describe(rec);
    let d = PyDict::new(py);
    d.set_item("file", name)?;
    d.set_item("offset", rec.pos.offset)?;
    // As the CLI writes rows: present only for a record inside a member or frame it does not
    // start (a file compressed whole), see docs/formats.md.
    if rec.uoffset != 0 {
        d.set_item("uoffset", rec.uoffset)?;
    }
    d.set_item("index", rec.pos.index)?;
    d.set_item("type", rec.kind.as_str())?;
    d.set_item("id", &rec.id)?;
    d.set_item("url", rec.url.as_deref())?;
    let (date, date_raw) = crawlsift_reader::date::split(rec.date.as_deref());
    d.set_item("date", date.as_deref())?;
    if let Some(raw) = date_raw {
        d.set_item("date_raw", raw)?;
    }
    d.set_item("content_type", rec.content_type.as_deref())?;
    d.set_item("http_status", status)?;
    d.set_item("payload_length", payload_length)?;
    d.set_item("warc_headers", header_list(py, rec.headers.iter())?)?;
    let http = rec.http();
    match &http {
        Some(Ok(resp)) => d.set_item("http_headers", header_list(py, resp.headers.iter())?)?,
        _ => d.set_item("http_headers", py.None())?,
    }
    if payload {
        let bytes = match &http {
            Some(Ok(resp)) => PyBytes::new(py, &resp.body),
            _ => PyBytes::new(py, &rec.block),
        };
        d.set_item("payload", bytes)?;
    }
    Ok(d)
}

/// Reads records back from the places rows give (`file`, `offset`, `uoffset`: the rows of
/// `crawlsift records`, `extract`, `documents.jsonl.gz`, `clusters.jsonl`, `--text`), keeping the
/// files open and the inflate checkpoints of the gzip members it has read, so that many records
/// of one file compressed whole are read inflating it about once in all, not once each.
/// Bounded: 64 files, the checkpoints of 64 members.
#[pyclass(module = "crawlsift._crawlsift")]
pub struct RecordReader {
    inner: crawlsift_reader::RecordReader,
}

#[pymethods]
impl RecordReader {
    #[new]
    fn new() -> Self {
        RecordReader {
            inner: crawlsift_reader::RecordReader::new(),
        }
    }

    /// The record at `offset` / `uoffset` of the archive at `path`, as the dict `records()`
    /// gives (with `payload=True`, its payload). Raises `FileNotFoundError` when the file is
    /// gone, `ValueError` when no record starts there, `OSError` when it cannot be read.
    #[pyo3(signature = (path, offset, uoffset = 0, payload = false))]
    fn record_at<'py>(
        &mut self,
        py: Python<'py>,
        path: PathBuf,
        offset: u64,
        uoffset: u64,
        payload: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let inner = &mut self.inner;
        let got = py.detach(|| inner.record_at(&path, offset, uoffset));
        let rec = got.map_err(|e| match &e {
            ReadError::NoRecord { .. } => PyValueError::new_err(e.to_string()),
            ReadError::Open { source, .. } if source.kind() == io::ErrorKind::NotFound => {
                PyFileNotFoundError::new_err(e.to_string())
            }
            _ => PyOSError::new_err(e.to_string()),
        })?;
        record_dict(py, &rec, &path.to_string_lossy(), payload)
    }
}

/// The record at `offset` / `uoffset` of the archive at `path` (one call of a new
/// [`RecordReader`]; read many with one reader).
#[pyfunction]
#[pyo3(signature = (path, offset, uoffset = 0, payload = false))]
pub fn record_at<'py>(
    py: Python<'py>,
    path: PathBuf,
    offset: u64,
    uoffset: u64,
    payload: bool,
) -> PyResult<Bound<'py, PyDict>> {
    RecordReader::new().record_at(py, path, offset, uoffset, payload)
}
