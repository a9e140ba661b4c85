//! Output files that appear whole or not at all.
//!
//! [`AtomicFile`] writes to a temporary name beside the target (`.NAME.tmp-PID`), and only
//! [`AtomicFile::commit`] flushes, fsyncs and renames it into place; dropping it uncommitted
//! removes the temporary file. A `.gz` or `.zst` target name picks the compression. A target
//! that exists and is no regular file (`/dev/null`, `/dev/stdout`, a named pipe) is written in
//! place: renaming a file over it would replace the device itself.
//!
//! [`writable_dir`] and [`check_writable`] find an output that cannot be written before a run
//! reads anything, so a run never fails at its end with some outputs already written.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::columns::{LineFormat, ParquetLines, Table};
use crate::error::{Error, IoContext, Result};
use crawlsift_common::fs::{self as cfs, AtomicFile as Atomic};
use crawlsift_common::parallel::in_parallel;
use flate2::write::GzEncoder;

/// Buffer size of output writers: large enough that JSON lines go out in few syscalls.
const OUTPUT_BUFFER_BYTES: usize = 1 << 20;

enum Sink {
    Plain(BufWriter<Atomic>),
    Gzip(GzEncoder<BufWriter<Atomic>>),
    Zstd(zstd::Encoder<'static, BufWriter<Atomic>>),
}

/// zstd level of `.zst` outputs: zstd's default, fast with a good ratio.
const ZSTD_LEVEL: i32 = 3;

/// gzip level of `.gz` outputs. On `documents.jsonl.gz` of the 20k corpus (10.4 MB of JSON) level
/// 3 compresses in under half the time of the usual 6 for a file 6% larger (3.29 vs 3.10 MB,
/// `gzip -3` / `-6`), and writing it was the longest step after clustering.
const GZIP_LEVEL: u32 = 3;

/// A file written under a temporary name and renamed into place by [`AtomicFile::commit`]: the
/// compressed and buffered writer over [`crawlsift_common::fs::AtomicFile`], which owns the
/// temporary name, the fsyncs, the rename and the cleanup.
pub struct AtomicFile {
    sink: Option<Sink>,
    target: std::path::PathBuf,
}

impl AtomicFile {
    /// Creates the temporary file for `target`; compresses with gzip when the name ends in `.gz`.
    pub fn create(target: &Path) -> Result<Self> {
        Self::create_with(target, true)
    }

    /// Creates the temporary file for `target`, written as given whatever its name (for data
    /// compressed by the caller).
    pub fn create_raw(target: &Path) -> Result<Self> {
        Self::create_with(target, false)
    }

    fn create_with(target: &Path, compress_by_name: bool) -> Result<Self> {
        let file =
            Atomic::create(target).at(target, || format!("cannot create {}", target.display()))?;
        let buf = BufWriter::with_capacity(OUTPUT_BUFFER_BYTES, file);
        let lossy = target
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let sink = if !compress_by_name {
            Sink::Plain(buf)
        } else if lossy.ends_with(".gz") {
            Sink::Gzip(GzEncoder::new(buf, flate2::Compression::new(GZIP_LEVEL)))
        } else if lossy.ends_with(".zst") {
            Sink::Zstd(
                zstd::Encoder::new(buf, ZSTD_LEVEL)
                    .at(target, || format!("zstd for {}", target.display()))?,
            )
        } else {
            Sink::Plain(buf)
        };
        Ok(AtomicFile {
            sink: Some(sink),
            target: target.to_path_buf(),
        })
    }

    /// Finishes compression, flushes, fsyncs and renames the file to its target name.
    pub fn commit(mut self) -> Result<()> {
        let sink = self
            .sink
            .take()
            .expect("commit is called once, on a live file");
        let target = self.target.clone();
        let writing = || format!("writing {}", target.display());
        let buf = match sink {
            Sink::Plain(buf) => buf,
            Sink::Gzip(gz) => gz.finish().at(&target, writing)?,
            Sink::Zstd(z) => z.finish().at(&target, writing)?,
        };
        let file = buf
            .into_inner()
            .map_err(|e| e.into_error())
            .at(&target, writing)?;
        file.commit().at(&target, writing)
    }
}

/// Checks that `target` can be written, by creating (and removing) the temporary file
/// [`AtomicFile`] would write it under: a missing or read-only directory is an error naming
/// `target`, found before a run starts rather than when its outputs are written.
pub fn check_writable(target: &Path) -> Result<()> {
    // A device or a pipe is not opened ahead: a pipe's reader would see its end at once.
    if cfs::is_special(target) {
        return Ok(());
    }
    AtomicFile::create_raw(target).map(drop)
}

/// Refuses to overwrite any of `paths` that exists, unless `force`: the error names the first.
pub fn refuse_existing<P: AsRef<Path>>(
    paths: impl IntoIterator<Item = P>,
    force: bool,
) -> Result<()> {
    for p in paths {
        let p = p.as_ref();
        if p.exists() && !force {
            return Err(crate::Error::failed(format!(
                "{} already exists (--force overwrites it)",
                p.display()
            )));
        }
    }
    Ok(())
}

/// Creates the directory `dir` if missing and checks that files can be created in it (a probe
/// file, removed at once): the error names `dir`, as the user gave it.
pub fn writable_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).at(dir, || {
        format!("cannot create output directory {}", dir.display())
    })?;
    let probe = dir.join(format!(".crawlsift-probe-{}", std::process::id()));
    File::create(&probe).at(dir, || {
        format!("cannot write in output directory {}", dir.display())
    })?;
    fs::remove_file(&probe).at(&probe, || format!("cannot remove {}", probe.display()))?;
    Ok(())
}

/// Items per gzip member of [`write_gzip_chunks`]: a few MB of JSON lines, so two or more members
/// compress at once on anything but tiny outputs while the ratio stays that of one stream.
pub const GZIP_CHUNK_ITEMS: usize = 4096;

/// Writes the gzip file `target` as one member per chunk of [`GZIP_CHUNK_ITEMS`] of `items` items
/// (a multi-member file, which gzip readers read as one stream), `render` writing the bytes of a
/// range of items. Up to `threads` chunks are rendered and compressed at once; the bytes do not
/// depend on `threads`, and at most `threads` compressed chunks are held at a time.
pub fn write_gzip_chunks(
    target: &Path,
    items: usize,
    threads: usize,
    render: impl Fn(std::ops::Range<usize>, &mut Vec<u8>) -> Result<()> + Sync,
) -> Result<()> {
    let member = |range: std::ops::Range<usize>| -> Result<Vec<u8>> {
        let mut text = Vec::new();
        render(range, &mut text)?;
        let mut gz = GzEncoder::new(
            Vec::with_capacity(text.len() / 3),
            flate2::Compression::new(GZIP_LEVEL),
        );
        gz.write_all(&text)?;
        Ok(gz.finish()?)
    };
    let mut f = AtomicFile::create_raw(target)?;
    let starts: Vec<usize> = (0..items).step_by(GZIP_CHUNK_ITEMS).collect();
    if starts.is_empty() {
        f.write_all(&member(0..0)?)?; // an empty but valid gzip file
    }
    for group in starts.chunks(threads.max(1)) {
        // One chunk per thread; members come back in file order.
        let members = in_parallel(threads, group, |starts| {
            starts
                .iter()
                .map(|&a| member(a..(a + GZIP_CHUNK_ITEMS).min(items)))
                .collect::<Vec<_>>()
        });
        for m in members.into_iter().flatten() {
            f.write_all(&m?)?;
        }
    }
    f.commit()
}

impl AtomicFile {
    /// The same error, naming the file being written (a full disk must say where).
    fn name_error(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("writing {}: {e}", self.target.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let r = match self.sink.as_mut() {
            Some(Sink::Plain(w)) => w.write(data),
            Some(Sink::Gzip(w)) => w.write(data),
            Some(Sink::Zstd(w)) => w.write(data),
            None => Err(io::Error::other("file already committed")),
        };
        r.map_err(|e| self.name_error(e))
    }
    fn flush(&mut self) -> io::Result<()> {
        let r = match self.sink.as_mut() {
            Some(Sink::Plain(w)) => w.flush(),
            Some(Sink::Gzip(w)) => w.flush(),
            Some(Sink::Zstd(w)) => w.flush(),
            None => Ok(()),
        };
        r.map_err(|e| self.name_error(e))
    }
}

/// Where the lines of `records` and `extract` go.
pub enum Target<'a> {
    /// A file that appears whole on success (`.gz`, `.zst` names compressed, unless it is
    /// Parquet); an existing one is replaced only with `force`.
    File {
        /// The file.
        path: PathBuf,
        /// Replace it if it exists.
        force: bool,
    },
    /// A stream (standard output), flushed at the end.
    Stream(&'a mut dyn Write),
}

impl<'a> Target<'a> {
    /// The file `path` when given (replaced only with `force`), else `stream`.
    pub fn new(path: Option<PathBuf>, force: bool, stream: &'a mut dyn Write) -> Self {
        match path {
            Some(path) => Target::File { path, force },
            None => Target::Stream(stream),
        }
    }

    /// Opens the target for lines written as `format` (Parquet rows of `table`: a file only),
    /// before any input is read: a file that exists (without `force`) or cannot be made stops
    /// the run before it starts.
    pub(crate) fn open(self, format: LineFormat, table: &'static Table) -> Result<LineOut<'a>> {
        match self {
            Target::File { path, force } => {
                if !force && path.exists() {
                    return Err(Error::Exists {
                        what: format!(
                            "{} already exists; pass --force to overwrite it",
                            path.display()
                        ),
                        path,
                    });
                }
                LineOut::create(&path, format, table)
            }
            Target::Stream(_) if format == LineFormat::Parquet => Err(Error::Usage(
                "Parquet is written to a file, not to standard output: give -o FILE.parquet".into(),
            )),
            Target::Stream(w) => Ok(LineOut::Stream(w)),
        }
    }
}

/// An open output of JSON lines: a file of the lines, a Parquet file of their rows, or a stream.
pub(crate) enum LineOut<'a> {
    Json(Box<AtomicFile>),
    Parquet(Box<ParquetLines>),
    Stream(&'a mut dyn Write),
}

impl LineOut<'_> {
    /// The file `path` for lines written as `format` (Parquet rows of `table`).
    pub(crate) fn create(path: &Path, format: LineFormat, table: &'static Table) -> Result<Self> {
        Ok(match format {
            LineFormat::Json => LineOut::Json(Box::new(AtomicFile::create(path)?)),
            LineFormat::Parquet => LineOut::Parquet(Box::new(ParquetLines::create(path, table)?)),
        })
    }

    /// Writes whole JSON lines (or their rows).
    pub(crate) fn write_lines(&mut self, lines: &[u8]) -> Result<()> {
        match self {
            LineOut::Json(f) => f.write_all(lines).map_err(Error::Stream),
            LineOut::Parquet(p) => p.push_lines(lines),
            LineOut::Stream(w) => w.write_all(lines).map_err(Error::Stream),
        }
    }

    /// Commits a file (it appears whole), flushes a stream.
    pub(crate) fn finish(self) -> Result<()> {
        match self {
            LineOut::Json(f) => f.commit(),
            LineOut::Parquet(p) => p.commit(),
            LineOut::Stream(w) => w.flush().map_err(Error::Stream),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_device_target_is_written_in_place_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        // A named pipe stands for /dev/null or /dev/stdout: renaming over it would replace it.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo is needed");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(&fifo).unwrap())
        };
        check_writable(&fifo).unwrap(); // does not open it: the reader would see its end
        let mut f = AtomicFile::create(&fifo).unwrap();
        f.write_all(b"line\n").unwrap();
        f.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"line\n");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file"
        );
        check_writable(Path::new("/dev/null")).unwrap();
        let mut null = AtomicFile::create(Path::new("/dev/null")).unwrap();
        null.write_all(b"x").unwrap();
        null.commit().unwrap();
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn uncommitted_file_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn writability_checks_leave_nothing_and_name_the_path_given() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a").join("b");
        writable_dir(&out).unwrap();
        check_writable(&out.join("x.jsonl.gz")).unwrap();
        assert_eq!(fs::read_dir(&out).unwrap().count(), 0, "no probe is left");
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        let err = format!("{:#}", writable_dir(&file.join("sub")).unwrap_err());
        assert!(err.contains(&*file.join("sub").to_string_lossy()), "{err}");
        let err = format!("{:#}", check_writable(&file.join("t.gz")).unwrap_err());
        assert!(err.contains(&*file.join("t.gz").to_string_lossy()), "{err}");
        assert!(
            !err.contains(".tmp-"),
            "the temporary name is not shown: {err}"
        );
    }

    #[test]
    fn committed_gzip_file_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl.gz");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"{\"a\":1}\n").unwrap();
        f.commit().unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(File::open(&target).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "{\"a\":1}\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn chunked_gzip_reads_as_one_stream_and_does_not_depend_on_threads() {
        let dir = tempfile::tempdir().unwrap();
        let items = 2 * GZIP_CHUNK_ITEMS + 17;
        let render = |r: std::ops::Range<usize>, out: &mut Vec<u8>| -> Result<()> {
            for i in r {
                writeln!(out, "{{\"line\":{i}}}")?;
            }
            Ok(())
        };
        let mut files = Vec::new();
        for threads in [1, 2, 5] {
            let target = dir.path().join(format!("t{threads}.jsonl.gz"));
            write_gzip_chunks(&target, items, threads, render).unwrap();
            files.push(fs::read(&target).unwrap());
        }
        assert!(files.iter().all(|f| f == &files[0]));
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&files[0][..])
            .read_to_string(&mut text)
            .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), items);
        assert_eq!(lines[items - 1], format!("{{\"line\":{}}}", items - 1));
        // No items: still a valid (empty) gzip file.
        let empty = dir.path().join("empty.jsonl.gz");
        write_gzip_chunks(&empty, 0, 2, render).unwrap();
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(File::open(&empty).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert!(text.is_empty());
    }
}
