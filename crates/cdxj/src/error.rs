//! Errors of building and reading CDXJ indexes: each names the file and, for damaged index
//! files, the byte offset.

use std::path::PathBuf;

/// An error of the CDXJ index.
#[derive(Debug, thiserror::Error)]
pub enum CdxjError {
    /// A file could not be read, written or renamed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// An index file is damaged: a line that is not `KEY TIMESTAMP {json}`, lines out of order.
    #[error("{path}: byte {offset}: {message}")]
    Damaged {
        /// The index file.
        path: PathBuf,
        /// Where the damage is.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A request the index cannot serve (two archives with one name, an archive not listed).
    #[error("{0}")]
    Invalid(String),
}

impl CdxjError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CdxjError::Io {
            path: path.into(),
            source,
        }
    }

    /// Damage in index file `path` at byte `offset`.
    pub fn damaged(path: impl Into<PathBuf>, offset: u64, message: impl Into<String>) -> Self {
        CdxjError::Damaged {
            path: path.into(),
            offset,
            message: message.into(),
        }
    }
}
