//! The file rules every crate follows, written once.
//!
//! - [`AtomicFile`]: an output that appears whole or not at all. It is written under a temporary
//!   name in the target's folder (`.NAME.tmp-PID`); [`AtomicFile::commit`] fsyncs it, renames it
//!   over the target and fsyncs the folder, so the rename itself survives a crash. An error before
//!   the rename, or dropping the file uncommitted, removes the temporary file; a crash (no drop)
//!   leaves at most the temporary, never a partial target. A target that exists and is no regular
//!   file (`/dev/null`, `/dev/stdout`, a named pipe) is written in place: renaming a file over it
//!   would replace the device itself.
//! - [`map_file`], [`map_open`], [`map_or_read`]: a file's bytes, mapped read-only
//!   ([`FileBytes`]). The one `unsafe` block of mapping, and why it is sound enough, is here.
//! - [`spill_file`]: an unnamed temporary file in a folder, for data spilled out of memory; it is
//!   gone when closed, however the run ends.
//!
//! Errors are plain [`io::Error`]s; each crate wraps them in its own error naming the file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A file written under a temporary name and renamed into place by [`AtomicFile::commit`].
///
/// It is unbuffered: wrap it in a [`std::io::BufWriter`] (and take it back with `into_inner`)
/// for many small writes.
#[derive(Debug)]
pub struct AtomicFile {
    /// The open file; `None` once committed.
    file: Option<File>,
    tmp: PathBuf,
    target: PathBuf,
    /// Written in place (the target is a device or a pipe): no temporary file, no rename.
    in_place: bool,
}

/// The folder a file named `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Whether `path` exists and is neither a regular file nor a folder (a device, a pipe, a socket).
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.file_type().is_file() && !m.is_dir())
}

impl AtomicFile {
    /// Creates the temporary file for `target` (or opens `target` itself when it is a device or
    /// a pipe).
    pub fn create(target: &Path) -> io::Result<Self> {
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file name", target.display()),
            )
        })?;
        let in_place = is_special(target);
        let tmp = if in_place {
            target.to_path_buf()
        } else {
            folder_of(target).join(format!(
                ".{}.tmp-{}",
                name.to_string_lossy(),
                std::process::id()
            ))
        };
        let file = if in_place {
            OpenOptions::new().write(true).open(target)?
        } else {
            File::create(&tmp)?
        };
        Ok(AtomicFile {
            file: Some(file),
            tmp,
            target: target.to_path_buf(),
            in_place,
        })
    }

    /// The name the file gets on commit.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The open file, for positioned writes (a header filled in once the body is written).
    pub fn file(&self) -> &File {
        self.file
            .as_ref()
            .expect("an AtomicFile holds its file until commit")
    }

    /// Fsyncs the file, renames it to its target name and fsyncs the folder. On an error the
    /// temporary file is removed and the target is left as it was.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self
            .file
            .take()
            .expect("an AtomicFile is committed once, while it holds its file");
        if self.in_place {
            drop(file);
            return Ok(());
        }
        let synced = file.sync_all();
        drop(file);
        // Until the rename succeeds `self.file` is `None` but the temporary is still there:
        // removed here on error (Drop only removes while the file is held).
        let renamed = synced.and_then(|()| fs::rename(&self.tmp, &self.target));
        if let Err(e) = renamed {
            let _ = fs::remove_file(&self.tmp);
            return Err(e);
        }
        // Make the rename itself durable; a folder that cannot be opened or synced (some file
        // systems refuse) is not an error: the data is already on disk under its name.
        let _ = sync_dir(folder_of(&self.target));
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(data),
            None => Err(io::Error::other("file already committed")),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() && !self.in_place {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Fsyncs the folder `dir`, so that names created, renamed or removed in it are on disk.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(test)]
    tests::DIR_SYNCS.with(|n| n.set(n.get() + 1));
    File::open(dir)?.sync_all()
}

/// A file's bytes: mapped read-only, or read into memory.
#[derive(Debug)]
pub struct FileBytes(Held);

#[derive(Debug)]
enum Held {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// How a mapped file is going to be read (a hint to the kernel's read-ahead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// From start to end: read ahead generously.
    Sequential,
    /// Scattered pages: no read-ahead around them.
    Random,
}

impl FileBytes {
    /// Tells the kernel how the bytes are going to be read; only a hint, and nothing for bytes
    /// read into memory.
    pub fn advise(&self, access: Access) {
        #[cfg(unix)]
        if let Held::Map(m) = &self.0 {
            let _ = m.advise(match access {
                Access::Sequential => memmap2::Advice::Sequential,
                Access::Random => memmap2::Advice::Random,
            });
        }
        #[cfg(not(unix))]
        let _ = access;
    }

    /// Whether the bytes are mapped (rather than read into memory).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Held::Map(_))
    }
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Map(m) => m,
            Held::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Maps the open `file` read-only (an empty file gives no bytes, without a map).
pub fn map_open(file: &File) -> io::Result<FileBytes> {
    if file.metadata()?.len() == 0 {
        return Ok(FileBytes(Held::Owned(Vec::new())));
    }
    // SAFETY: the map is read-only and private to this process, and every file crawlsift maps is
    // written once and never modified in place: archives are inputs, and its own indexes and
    // store files are written under a temporary name and renamed into place ([`AtomicFile`]), so
    // a rewrite leaves an existing map on the old file. What no mapped reader can rule out
    // (ripgrep, FastWARC alike) is another process truncating the file while it is read; that is
    // accepted here, once for every crate.
    let map = unsafe { memmap2::Mmap::map(file) }?;
    Ok(FileBytes(Held::Map(map)))
}

/// Maps the file at `path` read-only.
pub fn map_file(path: &Path) -> io::Result<FileBytes> {
    map_open(&File::open(path)?)
}

/// Maps the file at `path` read-only, or reads it into memory where it cannot be mapped (a file
/// system without mmap). An error is that of opening or reading it.
pub fn map_or_read(path: &Path) -> io::Result<FileBytes> {
    let file = File::open(path)?;
    match map_open(&file) {
        Ok(b) => Ok(b),
        Err(_) => fs::read(path).map(|v| FileBytes(Held::Owned(v))),
    }
}

/// An unnamed temporary file in `dir` for data spilled out of memory (`what` names the data in an
/// error); it is gone once closed, however the run ends.
pub fn spill_file(dir: &Path, what: &str) -> io::Result<File> {
    tempfile::tempfile_in(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("{what} spill file in {}: {e}", dir.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Folders fsynced by this thread (each test runs on a thread of its own).
        pub(super) static DIR_SYNCS: Cell<usize> = const { Cell::new(0) };
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn commit_renames_into_place_and_syncs_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        fs::write(&target, "old").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(
            fs::read(&target).unwrap(),
            b"old",
            "not replaced before commit"
        );
        let before = DIR_SYNCS.with(Cell::get);
        f.commit().unwrap();
        assert_eq!(
            DIR_SYNCS.with(Cell::get),
            before + 1,
            "the folder was fsynced"
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["out.jsonl"]);
    }

    #[test]
    fn a_bare_name_commits_in_the_current_folder_path() {
        assert_eq!(folder_of(Path::new("x.jsonl")), Path::new("."));
        assert_eq!(folder_of(Path::new("a/x.jsonl")), Path::new("a"));
    }

    #[test]
    fn a_failed_commit_removes_the_temporary_and_keeps_the_target() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty folder as the target: the rename over it fails.
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), "x").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"data").unwrap();
        assert_eq!(
            names(dir.path()).len(),
            2,
            "the temporary exists while writing"
        );
        assert!(f.commit().is_err());
        assert_eq!(names(dir.path()), ["out"], "the temporary is gone");
        assert_eq!(names(&target), ["inside"]);
    }

    #[test]
    fn dropping_uncommitted_leaves_nothing_and_a_crash_no_partial_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(names(dir.path()).is_empty());
        // A crash runs no destructor: the temporary may stay, the target never appears.
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"partial").unwrap();
        std::mem::forget(f);
        assert!(!target.exists());
        let left = names(dir.path());
        assert_eq!(left.len(), 1);
        assert!(left[0].starts_with(".out.jsonl.tmp-"), "{left:?}");
    }

    #[test]
    fn a_missing_folder_fails_at_create() {
        let dir = tempfile::tempdir().unwrap();
        assert!(AtomicFile::create(&dir.path().join("no/such/out")).is_err());
        assert!(AtomicFile::create(Path::new("/")).is_err(), "no file name");
    }

    #[test]
    fn a_device_is_written_in_place() {
        let mut f = AtomicFile::create(Path::new("/dev/null")).unwrap();
        f.write_all(b"x").unwrap();
        f.commit().unwrap();
        assert!(is_special(Path::new("/dev/null")));
    }

    #[test]
    fn maps_read_what_is_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, b"some bytes").unwrap();
        let m = map_file(&p).unwrap();
        m.advise(Access::Random);
        assert_eq!(&*m, b"some bytes");
        assert!(m.is_mapped());
        assert_eq!(&*map_or_read(&p).unwrap(), b"some bytes");
        let e = dir.path().join("empty");
        fs::write(&e, b"").unwrap();
        assert!(map_file(&e).unwrap().is_empty());
        assert!(map_file(&dir.path().join("missing")).is_err());
        assert!(map_or_read(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn spill_files_are_unnamed_and_errors_name_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = spill_file(dir.path(), "test").unwrap();
        f.write_all(b"x").unwrap();
        assert!(names(dir.path()).is_empty(), "no name in the folder");
        let missing = dir.path().join("missing");
        let e = spill_file(&missing, "word profile")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("word profile spill file in "), "{e}");
        assert!(e.contains(&*missing.to_string_lossy()), "{e}");
    }
}
