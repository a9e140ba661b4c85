//! The library's errors, typed: every run of [`crate::run`] and every step under it returns
//! [`Error`]. Each variant says which kind of failure it is (an argument refused, outputs that
//! already exist, a file that cannot be read or written, one that is damaged, a stage crate's
//! own error), names the file and, for damage, the byte offset; the text is what the command line
//! prints, and [`std::error::Error::source`] keeps the cause.

use std::path::{Path, PathBuf};

/// Results of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of a run, or of one of its steps.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument or setting the run refuses, found before anything is read (the CLI's exit
    /// status 2).
    #[error("{0}")]
    Usage(String),
    /// The output folder holds outputs of an earlier run, and `force` was not given.
    #[error("{} already holds outputs of a run ({}); pass --force to overwrite them", dir.display(), files.join(", "))]
    OutputsExist {
        /// The output folder.
        dir: PathBuf,
        /// The outputs found there.
        files: Vec<String>,
    },
    /// An output file or index that exists and is not replaced without `force`.
    #[error("{what}")]
    Exists {
        /// What exists, and how to go on.
        what: String,
        /// The file or folder.
        path: PathBuf,
    },
    /// A file or folder cannot be opened, read, made, written or removed.
    #[error("{what}")]
    Io {
        /// What was being done, naming the path.
        what: String,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file the run reads back (a checkpoint, a shard's manifest, a spill) is not what was
    /// written: where, and what is wrong.
    #[error("{what} ({} at byte {offset})", path.display())]
    Damaged {
        /// What is damaged, and how to go on.
        what: String,
        /// The file.
        path: PathBuf,
        /// Where the damage was found.
        offset: u64,
        /// The cause, when a decoder said it.
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// No input holds an archive (a folder of READMEs, a page given where an archive is
    /// wanted): found before any output is made, so nothing is left behind.
    #[error("no archive found in {}: {} input{} read, none a WARC, ARC or TREC file{}", names.join(", "), inputs, if *inputs == 1 { "" } else { "s" }, hint)]
    NoArchive {
        /// The paths given.
        names: Vec<String>,
        /// How many files they held.
        inputs: usize,
        /// How to go on, when the inputs look like something else (pages: `--html`).
        hint: String,
    },
    /// Shards that do not make one complete run (`merge`).
    #[error("{0}")]
    Shards(String),
    /// An error writing to a stream that is not a named file (standard output).
    #[error(transparent)]
    Stream(#[from] std::io::Error),
    /// The reader's error (an input that cannot be found or opened).
    #[error(transparent)]
    Read(#[from] crawlsift_reader::ReadError),
    /// The fingerprint index's error.
    #[error(transparent)]
    Store(#[from] crawlsift_store::StoreError),
    /// The CDXJ index's error.
    #[error(transparent)]
    Cdxj(#[from] crawlsift_cdxj::CdxjError),
    /// A clustering setting the clusterer refuses.
    #[error(transparent)]
    Dedup(#[from] crawlsift_dedup::DedupError),
    /// A spill file of the clusterer (word profiles, signatures) that cannot be written or read
    /// back: fatal, the outputs would be wrong.
    #[error(transparent)]
    Spill(#[from] crawlsift_dedup::SpillError),
    /// An extractor setting the extractor refuses.
    #[error("extractor configuration")]
    Extractor(#[from] crawlsift_extractor::ConfigError),
    /// A value that cannot be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A Parquet output that cannot be written: a row that does not fit its columns, or the
    /// writer's error (`columns.rs`).
    #[error("writing {} as Parquet", path.display())]
    Columns {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: ColumnsError,
    },
    /// Something the run could not do, with its cause (a step's, or a temporary file's).
    #[error("{what}")]
    Failed {
        /// What could not be done.
        what: String,
        /// The cause, when there is one apart from the text.
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

/// What is wrong with a row of a Parquet output (`columns.rs`), or what the Parquet writer could
/// not do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ColumnsError {
    /// A line that is not a JSON object.
    #[error("row {row}: not a JSON object")]
    NotJson {
        /// The row, from 1.
        row: u64,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// A key no column of the table names.
    #[error("row {row}: `{key}` is no column of the {table} table")]
    UnknownKey {
        /// The row, from 1.
        row: u64,
        /// The key.
        key: String,
        /// The table.
        table: &'static str,
    },
    /// A value of another type than its column's.
    #[error("row {row}: `{column}` is {value}, not a {expected}")]
    WrongType {
        /// The row, from 1.
        row: u64,
        /// The column.
        column: &'static str,
        /// The value (cut to 40 characters).
        value: String,
        /// The column's type.
        expected: &'static str,
    },
    /// A null, or a missing key, in a column every row has.
    #[error("row {row}: `{column}` is null or missing, and every row has it")]
    Missing {
        /// The row, from 1.
        row: u64,
        /// The column.
        column: &'static str,
    },
    /// The Parquet writer's error (an I/O error writing the file among them).
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    /// Arrow's error building a row group.
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

impl Error {
    /// An I/O error doing `what` on `path`.
    pub fn io(what: impl Into<String>, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            path: path.into(),
            source,
        }
    }

    /// A failure said in words.
    pub fn failed(what: impl Into<String>) -> Self {
        Error::Failed {
            what: what.into(),
            source: None,
        }
    }

    /// Damage in `path` at `offset`.
    pub fn damaged(
        what: impl Into<String>,
        path: &Path,
        offset: u64,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Damaged {
            what: what.into(),
            path: path.to_path_buf(),
            offset,
            source,
        }
    }

    /// Whether the error is, or is caused by, writing to a pipe whose reader has gone
    /// (`crawlsift ... | head`).
    pub fn is_broken_pipe(&self) -> bool {
        is_broken_pipe(self)
    }
}

/// `err` and its causes on one line, each said once: a cause whose text the line already holds
/// (an I/O error a path error quotes) is not repeated. What the command line prints.
pub fn error_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cur = Some(err);
    while let Some(e) = cur {
        let part = e.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        cur = e.source();
    }
    text
}

/// Whether `err`, or an error that caused it, is a write to a pipe whose reader has gone: the
/// one test the library's errors and the command line's use.
pub fn is_broken_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(err);
    while let Some(e) = cur {
        let kind = if let Some(io) = e.downcast_ref::<std::io::Error>() {
            Some(io.kind())
        } else if let Some(json) = e.downcast_ref::<serde_json::Error>() {
            // serde_json's error hides the io error it wraps from `source()`: ask it.
            json.io_error_kind()
        } else if let Some(Error::Stream(io)) = e.downcast_ref::<Error>() {
            Some(io.kind())
        } else {
            None
        };
        if kind == Some(std::io::ErrorKind::BrokenPipe) {
            return true;
        }
        cur = e.source();
    }
    false
}

/// Adds what was being done, and on which path, to an I/O error.
pub(crate) trait IoContext<T> {
    /// The error as [`Error::Io`], `what` naming the step and `path` the file.
    fn at(self, path: &Path, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &Path, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::io(what(), path, e))
    }
}

/// Says what failed, keeping the cause (for errors of steps that are not files').
pub(crate) trait Because<T> {
    /// The error as [`Error::Failed`] with `what` and the cause as its source.
    fn because(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> Because<T> for Result<T, E> {
    fn because(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::Failed {
            what: what(),
            source: Some(Box::new(e)),
        })
    }
}

/// Returns early with [`Error::failed`] and a formatted message.
macro_rules! fail {
    ($($t:tt)*) => {
        return Err($crate::error::Error::failed(format!($($t)*)))
    };
}
pub(crate) use fail;
