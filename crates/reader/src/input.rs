//! Inputs: expanding command-line arguments (files, directories recursed in sorted order, `-` for
//! stdin) and opening a file as a memory map (falling back to a plain read when mapping fails).

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::error::ReadError;

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Input {
    /// Standard input (`-`), streamed.
    Stdin,
    /// A file, memory-mapped.
    Path(PathBuf),
}

impl Input {
    /// The path as given (`-` for stdin).
    pub fn path(&self) -> PathBuf {
        match self {
            Input::Stdin => PathBuf::from("-"),
            Input::Path(p) => p.clone(),
        }
    }
}

/// Expands arguments into inputs: `-` is stdin, a file is itself, a directory contributes every
/// file below it in sorted order (symlinked directories followed once: a loop is not followed
/// again). Fails on the first argument that does not exist or cannot be listed.
pub fn expand_inputs(args: &[PathBuf]) -> Result<Vec<Input>, ReadError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
            continue;
        }
        let meta = std::fs::metadata(a).map_err(|source| ReadError::Open {
            path: a.clone(),
            source,
        })?;
        if meta.is_dir() {
            walk(a, &mut out, &mut seen)?;
        } else {
            out.push(Input::Path(a.clone()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<Input>, seen: &mut HashSet<PathBuf>) -> Result<(), ReadError> {
    let open_err = |source| ReadError::Open {
        path: dir.to_path_buf(),
        source,
    };
    let canon = std::fs::canonicalize(dir).map_err(open_err)?;
    if !seen.insert(canon) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(open_err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        match std::fs::metadata(&p) {
            Ok(m) if m.is_dir() => walk(&p, out, seen)?,
            Ok(m) if m.is_file() => out.push(Input::Path(p)),
            // Broken symlinks, sockets and the like are not inputs.
            _ => {}
        }
    }
    Ok(())
}

/// An opened input: a regular file's bytes (memory-mapped), or a stream to read in order.
pub(crate) enum Opened {
    /// A regular file, mapped (or read whole when mapping fails).
    Mapped(Bytes),
    /// A pipe, socket or device: streamed, never read whole.
    Stream(File),
}

/// Opens an input by what it is. A regular file is memory-mapped; anything else (a named pipe,
/// process substitution, a device) is streamed with bounded memory. A FIFO is opened without
/// waiting for a writer: with none, it reads as empty instead of blocking for ever.
pub(crate) fn open(path: &Path) -> Result<Opened, ReadError> {
    let open_err = |source| ReadError::Open {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(open_err)?;
    if meta.is_file() {
        return map_file(path).map(Opened::Mapped);
    }
    if meta.is_dir() {
        return Err(open_err(std::io::Error::other("is a directory")));
    }
    open_stream(path).map(Opened::Stream).map_err(open_err)
}

#[cfg(unix)]
fn open_stream(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    // Reads block again from here on (a pipe with a writer waits for its data, as `cat` does).
    // SAFETY: fcntl on a descriptor this function owns, with flags it read from it.
    unsafe {
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open_stream(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Maps a regular file (read into memory where it cannot be mapped), read ahead in order.
fn map_file(path: &Path) -> Result<Bytes, ReadError> {
    let bytes = crawlsift_common::fs::map_or_read(path).map_err(|source| ReadError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.is_empty() {
        return Ok(Bytes::new());
    }
    bytes.advise(crawlsift_common::fs::Access::Sequential);
    Ok(Bytes::from_owner(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_sorted_and_survives_symlink_loops() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("b.warc"), b"x").unwrap();
        std::fs::write(d.path().join("a.warc"), b"x").unwrap();
        std::fs::write(d.path().join("sub/c.warc"), b"x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.path(), d.path().join("sub/loop")).unwrap();
        let got = expand_inputs(&[d.path().to_path_buf(), PathBuf::from("-")]).unwrap();
        let names: Vec<String> = got
            .iter()
            .map(|i| match i {
                Input::Stdin => "-".to_string(),
                Input::Path(p) => p.strip_prefix(d.path()).unwrap().display().to_string(),
            })
            .collect();
        assert_eq!(names, vec!["a.warc", "b.warc", "sub/c.warc", "-"]);
        assert!(expand_inputs(&[d.path().join("missing")]).is_err());
    }
}
