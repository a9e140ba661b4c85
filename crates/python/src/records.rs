//! `records(path)`: the records of one archive as Python dicts, read on a background thread and
//! handed over in batches through a bounded channel, so Python iterates while the file is read and
//! memory stays bounded whatever the file's size.

use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use crawlsift_common::limits::RAW_QUEUE_CAP;
use crawlsift_pipeline::describe::describe;
use crawlsift_reader::{read_input, FileReport, Input, ReadError, ReaderConfig, Record};
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// How often a wait for the next batch looks for a pending Ctrl-C (KeyboardInterrupt).
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// The result of reading a whole file on the background thread.
type Outcome = Result<FileReport, ReadError>;

/// An iterator over the records of one archive (see [`records`]).
#[pyclass(module = "crawlsift._crawlsift")]
pub struct Records {
    /// The input's name, as given (the `file` field of every record).
    name: String,
    /// Whether each dict carries the `payload` bytes.
    payload: bool,
    /// Batches from the reading thread; disconnected when it is done.
    rx: Receiver<Vec<Record>>,
    /// The batch being handed out.
    current: std::vec::IntoIter<Record>,
    /// The reading thread, until it has been joined.
    worker: Option<JoinHandle<Outcome>>,
    /// The file's summary once it has been read to its end.
    report: Option<FileReport>,
}

/// The records of the archive at `path` (WARC, ARC or TREC; plain, gzip, zstd or LZ4), in file
/// order, as dicts with the fields of `crawlsift records`: `file`, `offset`, `index`, `type`,
/// `id`, `url`, `date`, `content_type`, `http_status`, `payload_length`, and with
/// `payload=True` also `payload` (the HTTP body, decoded, or the whole block). Damaged records
/// are skipped and counted in the iterator's `report` once it is exhausted; a file that cannot be
/// opened raises `OSError` when iteration starts.
#[pyfunction]
#[pyo3(signature = (path, payload = false, threads = None))]
pub fn records(path: PathBuf, payload: bool, threads: Option<usize>) -> PyResult<Records> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let mut cfg = ReaderConfig::default();
    if let Some(n) = threads {
        cfg.threads = n;
    }
    let name = path.display().to_string();
    let (tx, rx) = bounded::<Vec<Record>>(RAW_QUEUE_CAP);
    let input = Input::Path(path);
    let worker = std::thread::Builder::new()
        .name("crawlsift-records".into())
        .spawn(move || read_input(&input, 0, &cfg, &mut |batch| tx.send(batch).is_ok()))
        .map_err(|e| PyOSError::new_err(format!("cannot start the reading thread: {e}")))?;
    Ok(Records {
        name,
        payload,
        rx,
        current: Vec::new().into_iter(),
        worker: Some(worker),
        report: None,
    })
}

#[pymethods]
impl Records {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        loop {
            if let Some(rec) = self.current.next() {
                return record_dict(py, &rec, &self.name, self.payload).map(Some);
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

    /// The file's summary once iteration has ended (`None` before): records, bytes, and the
    /// records skipped, by kind of error.
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = &self.report else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("records", r.records)?;
        d.set_item("bytes", r.bytes_in)?;
        let errors = PyDict::new(py);
        for (kind, n) in crawlsift_pipeline::inputs::errors_by_name(r) {
            errors.set_item(kind, n)?;
        }
        d.set_item("errors", errors)?;
        Ok(Some(d))
    }
}

impl Records {
    /// Joins the reading thread: keeps its report, or raises its error.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(worker) = self.worker.take() else {
            return Ok(());
        };
        match py.detach(move || worker.join()) {
            Ok(Ok(report)) => {
                self.report = Some(report);
                Ok(())
            }
            Ok(Err(e)) => Err(PyOSError::new_err(e.to_string())),
            Err(_) => Err(PyOSError::new_err(format!(
                "{}: the reading thread failed",
                self.name
            ))),
        }
    }
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
    d.set_item("date", rec.date.as_deref())?;
    d.set_item("content_type", rec.content_type.as_deref())?;
    d.set_item("http_status", status)?;
    d.set_item("payload_length", payload_length)?;
    if payload {
        let bytes = match rec.http() {
            Some(Ok(resp)) => PyBytes::new(py, &resp.body),
            _ => PyBytes::new(py, &rec.block),
        };
        d.set_item("payload", bytes)?;
    }
    Ok(d)
}
