//! Errors of the dedup crate: any text is valid input, so only configuration can be wrong, and a
//! spill file of a clustering bounded in memory can fail to be written or read back.

use thiserror::Error;

/// What can go wrong when building a [`crate::Fingerprinter`] or [`crate::Clusterer`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DedupError {
    /// A configuration value is out of its range (the message names the field and the bound).
    #[error("invalid dedup configuration: {0}")]
    InvalidConfig(String),
}

/// A spill file of a clustering bounded in memory could not be written or read back (the disk,
/// not the input): the clustering stops with it rather than judge documents on missing words.
/// The file is unnamed (gone when the clusterer is), so the error names its folder.
#[derive(Debug, Error)]
#[error("{action} the {what} spill file in {}, at byte {offset}: {source}", dir.display())]
pub struct SpillError {
    /// What the file holds: `word profile` or `signature`.
    pub what: &'static str,
    /// `writing` or `reading back`.
    pub action: &'static str,
    /// The folder of the file.
    pub dir: std::path::PathBuf,
    /// Where in the file the write or read was.
    pub offset: u64,
    /// The error of the system.
    #[source]
    pub source: std::io::Error,
}
