//! Index files written whole or not at all: [`Atomic`] is the buffered writer of the index over
//! [`crawlsift_common::fs::AtomicFile`] (temporary name in the same folder, fsync, rename, folder
//! fsync, the temporary removed on error), with errors naming the target.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crawlsift_common::fs::AtomicFile;

use crate::error::CdxjError;

/// A file being written; [`Atomic::commit`] puts it in place, dropping it removes it.
pub struct Atomic {
    out: BufWriter<AtomicFile>,
    target: PathBuf,
}

impl Atomic {
    /// Starts writing `target`.
    pub fn create(target: &Path) -> Result<Self, CdxjError> {
        let file = AtomicFile::create(target).map_err(|e| CdxjError::io(target, e))?;
        Ok(Atomic {
            out: BufWriter::with_capacity(1 << 16, file),
            target: target.to_path_buf(),
        })
    }

    /// Appends bytes.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CdxjError> {
        self.out
            .write_all(bytes)
            .map_err(|e| CdxjError::io(&self.target, e))
    }

    /// Flushes, fsyncs and renames the file into place.
    pub fn commit(self) -> Result<(), CdxjError> {
        let target = self.target;
        let file = self
            .out
            .into_inner()
            .map_err(|e| CdxjError::io(&target, e.into_error()))?;
        file.commit().map_err(|e| CdxjError::io(&target, e))
    }
}
