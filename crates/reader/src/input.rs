//! Inputs: expanding command-line arguments (files, directories recursed in sorted order, `-` for
//! stdin, `http(s)://` and `s3://` URLs) and input lists ([`read_input_list`]), and opening a file
//! as a memory map (falling back to a plain read when mapping fails) or a stream.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use crawlsift_common::limits::{INPUT_LIST_MAX_LINE_BYTES, REMOTE_MAX_LISTED};

use crate::error::ReadError;
use crate::remote;

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Input {
    /// Standard input (`-`), streamed.
    Stdin,
    /// A file, memory-mapped.
    Path(PathBuf),
    /// An `http://`, `https://` or `s3://` URL (as given, or as an S3 listing found it),
    /// streamed with resumption ([`crate::remote`]).
    Remote(String),
}

impl Input {
    /// The path as given (`-` for stdin).
    pub fn path(&self) -> PathBuf {
        match self {
            Input::Stdin => PathBuf::from("-"),
            Input::Path(p) => p.clone(),
            Input::Remote(url) => PathBuf::from(url),
        }
    }

    /// The input a name stands for, without looking at it: a URL is remote, anything else a
    /// path (a name as an [`Input::path`] gave it, read back from a saved list).
    pub fn named(name: &str) -> Input {
        if remote::is_remote(name) {
            Input::Remote(name.to_string())
        } else {
            Input::Path(PathBuf::from(name))
        }
    }
}

/// Expands arguments into inputs: `-` is stdin, a file is itself, a directory contributes every
/// file below it in sorted order (symlinked directories followed once: a loop is not followed
/// again), a URL (`http://`, `https://`, `s3://BUCKET/KEY`) is itself, and `s3://BUCKET/PREFIX/`
/// (ending in `/`) contributes every object under the prefix in key order. Fails on the first
/// argument that does not exist or cannot be listed.
pub fn expand_inputs(args: &[PathBuf]) -> Result<Vec<Input>, ReadError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
            continue;
        }
        if let Some(url) = a.to_str().filter(|s| remote::is_remote(s)) {
            let mut urls = Vec::new();
            remote::expand(url, &mut urls)?;
            out.extend(urls.into_iter().map(Input::Remote));
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

/// Reads an input list: one input a line (a path, or a URL; `-` is not taken), as Common Crawl's
/// `warc.paths.gz` lists its files. The list is a file or a URL, plain or gzipped (told from its
/// first bytes); blank lines and lines starting with `#` are skipped, and `prefix` (a folder, an
/// `https://` or `s3://` URL) is joined to every other line with one `/` between them. The
/// entries are meant to be expanded like command-line arguments ([`expand_inputs`]).
pub fn read_input_list(list: &Path, prefix: Option<&str>) -> Result<Vec<PathBuf>, ReadError> {
    let name = list.display().to_string();
    let source: Box<dyn Read> = match list.to_str().filter(|s| remote::is_remote(s)) {
        Some(url) => Box::new(remote::open(url)?),
        None => Box::new(File::open(list).map_err(|source| ReadError::Open {
            path: list.to_path_buf(),
            source,
        })?),
    };
    let mut plain = BufReader::new(source);
    let bad = |offset, source| ReadError::Io {
        path: list.to_path_buf(),
        offset,
        source,
    };
    let gzip = plain
        .fill_buf()
        .map_err(|e| bad(0, e))?
        .starts_with(&crate::compress::detect::GZIP_MAGIC);
    let mut lines: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(plain)))
    } else {
        Box::new(plain)
    };
    let (mut out, mut line, mut offset) = (Vec::new(), Vec::new(), 0u64);
    for number in 1.. {
        line.clear();
        let limit = INPUT_LIST_MAX_LINE_BYTES as u64 + 1;
        let n = (&mut lines)
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| bad(offset, e))?;
        if n == 0 {
            break;
        }
        let at = offset;
        let invalid = |why: String| {
            bad(
                at,
                std::io::Error::new(std::io::ErrorKind::InvalidData, why),
            )
        };
        if n as u64 == limit && !line.ends_with(b"\n") {
            return Err(invalid(format!(
                "line {number} is longer than {INPUT_LIST_MAX_LINE_BYTES} bytes"
            )));
        }
        offset += n as u64;
        let text = std::str::from_utf8(&line)
            .map_err(|_| invalid(format!("line {number} is not UTF-8")))?
            .trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if out.len() == REMOTE_MAX_LISTED {
            return Err(invalid(format!(
                "{name} names more than {REMOTE_MAX_LISTED} inputs"
            )));
        }
        out.push(PathBuf::from(join_prefix(prefix, text)));
    }
    Ok(out)
}

/// `line` under `prefix`, with one `/` between them (`line` as it is without a prefix).
fn join_prefix(prefix: Option<&str>, line: &str) -> String {
    match prefix.filter(|p| !p.is_empty()) {
        None => line.to_string(),
        Some(p) => format!(
            "{}/{}",
            p.trim_end_matches('/'),
            line.trim_start_matches('/')
        ),
    }
}

/// An opened input: a regular file's bytes (memory-mapped), or a stream to read in order.
pub(crate) enum Opened {
    /// A regular file, mapped (or read whole when mapping fails).
    Mapped(Bytes),
    /// A pipe, socket, device or remote object: streamed, never read whole.
    Stream(Box<dyn Read + Send>),
}

/// Opens an input that is not stdin: a path by what it is ([`open`]), a URL as a resumable
/// stream.
pub(crate) fn open_input(input: &Input) -> Result<Opened, ReadError> {
    match input {
        Input::Path(p) => open(p),
        Input::Remote(url) => Ok(Opened::Stream(Box::new(remote::open(url)?))),
        Input::Stdin => Err(ReadError::Open {
            path: "-".into(),
            source: std::io::Error::other("standard input is read as a stream"),
        }),
    }
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
    open_stream(path)
        .map(|f| Opened::Stream(Box::new(f)))
        .map_err(open_err)
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
                Input::Remote(u) => u.clone(),
            })
            .collect();
        assert_eq!(names, vec!["a.warc", "b.warc", "sub/c.warc", "-"]);
        assert!(expand_inputs(&[d.path().join("missing")]).is_err());
        let url = PathBuf::from("https://h/x.warc.gz");
        assert_eq!(
            expand_inputs(&[url]).unwrap(),
            vec![Input::Remote("https://h/x.warc.gz".into())]
        );
    }

    #[test]
    fn reads_input_lists_plain_and_gzipped() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let text = "# Common Crawl style\ncrawl-data/a.warc.gz\r\n\n  /crawl-data/b.warc.gz \n";
        let plain = d.path().join("paths.txt");
        std::fs::write(&plain, text).unwrap();
        let gz = d.path().join("paths.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        for list in [&plain, &gz] {
            let got = read_input_list(list, Some("s3://bucket/")).unwrap();
            let want = [
                "s3://bucket/crawl-data/a.warc.gz",
                "s3://bucket/crawl-data/b.warc.gz",
            ];
            assert_eq!(got, want.map(PathBuf::from));
        }
        let got = read_input_list(&plain, None).unwrap();
        assert_eq!(got[0], PathBuf::from("crawl-data/a.warc.gz"));
        std::fs::write(&plain, vec![b'a'; INPUT_LIST_MAX_LINE_BYTES + 10]).unwrap();
        let e = read_input_list(&plain, None).unwrap_err().to_string();
        assert!(e.contains("line 1 is longer"), "{e}");
        assert!(read_input_list(&d.path().join("missing"), None).is_err());
    }
}
