//! Index files written whole or not at all: under a temporary name in the same directory,
//! fsynced, then renamed over the target.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::CdxjError;

/// A file being written; [`Atomic::commit`] puts it in place, dropping it removes it.
pub struct Atomic {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    target: PathBuf,
}

impl Atomic {
    /// Starts writing `target`.
    pub fn create(target: &Path) -> Result<Self, CdxjError> {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = target.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(|e| CdxjError::io(target, e))?;
        Ok(Atomic {
            out: Some(BufWriter::with_capacity(1 << 16, file)),
            tmp,
            target: target.to_path_buf(),
        })
    }

    /// Appends bytes.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CdxjError> {
        let out = self.out.as_mut().expect("written before commit");
        out.write_all(bytes)
            .map_err(|e| CdxjError::io(&self.target, e))
    }

    /// Flushes, fsyncs and renames the file into place.
    pub fn commit(mut self) -> Result<(), CdxjError> {
        let out = self.out.take().expect("committed once");
        let file = out
            .into_inner()
            .map_err(|e| CdxjError::io(&self.target, e.into_error()))?;
        file.sync_all()
            .map_err(|e| CdxjError::io(&self.target, e))?;
        std::fs::rename(&self.tmp, &self.target).map_err(|e| CdxjError::io(&self.target, e))
    }
}

impl Drop for Atomic {
    fn drop(&mut self) {
        if self.out.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}
