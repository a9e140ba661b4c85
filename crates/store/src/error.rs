//! The store's errors: each names the file and, for damage, the byte offset where it was found.

use std::path::PathBuf;

/// An error reading or writing an index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file cannot be opened, read, mapped or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not what it should be: truncated, overwritten, or made by something else.
    #[error("{path}: damaged at byte {offset}: {what}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where the damage was found.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The index was made with other fingerprint settings than the ones asked for.
    #[error("{path}: made with other settings ({what}); rebuild it, or use the settings it was made with")]
    OtherConfig {
        /// The index or segment.
        path: PathBuf,
        /// Which setting differs.
        what: String,
    },
    /// A request the store cannot honour (too many documents for a segment, ...).
    #[error("{0}")]
    Invalid(String),
}

impl StoreError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// Damage in `path` at `offset`.
    pub fn damaged(path: impl Into<PathBuf>, offset: u64, what: impl Into<String>) -> Self {
        StoreError::Damaged {
            path: path.into(),
            offset,
            what: what.into(),
        }
    }
}

/// Results of the store.
pub type Result<T> = std::result::Result<T, StoreError>;
