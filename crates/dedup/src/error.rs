//! Errors of the dedup crate: only configuration can be wrong; any text is valid input.

use thiserror::Error;

/// What can go wrong when building a [`crate::Fingerprinter`] or [`crate::Clusterer`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DedupError {
    /// A configuration value is out of its range (the message names the field and the bound).
    #[error("invalid dedup configuration: {0}")]
    InvalidConfig(String),
}
