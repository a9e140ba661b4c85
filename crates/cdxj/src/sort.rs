//! Sorting lines in bounded memory: lines gather in a buffer of `CDXJ_SORT_BUFFER_BYTES`; a full
//! buffer is sorted ([`crate::merge::line_cmp`]) and spilled to a run file in the index directory;
//! [`Sorter::finish`] merges the runs and the last buffer into one sorted stream without repeats.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crawlsift_common::limits::CDXJ_SORT_BUFFER_BYTES;

use crate::error::CdxjError;
use crate::merge::line_cmp;

/// Lines to sort, in memory or spilled.
pub struct Sorter {
    dir: PathBuf,
    limit: usize,
    buf: Vec<String>,
    bytes: usize,
    runs: Vec<PathBuf>,
}

impl Sorter {
    /// A sorter spilling into `dir`.
    pub fn new(dir: &Path) -> Sorter {
        Sorter::with_limit(dir, CDXJ_SORT_BUFFER_BYTES)
    }

    /// A sorter spilling every `limit` bytes of lines (tests use small limits).
    pub fn with_limit(dir: &Path, limit: usize) -> Sorter {
        Sorter {
            dir: dir.to_path_buf(),
            limit,
            buf: Vec::new(),
            bytes: 0,
            runs: Vec::new(),
        }
    }

    /// Adds lines (without newlines).
    pub fn extend(&mut self, lines: impl IntoIterator<Item = String>) -> Result<(), CdxjError> {
        for l in lines {
            self.bytes += l.len() + 1;
            self.buf.push(l);
            if self.bytes >= self.limit {
                self.spill()?;
            }
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<(), CdxjError> {
        sort_dedup(&mut self.buf);
        let path = self.dir.join(format!(
            ".sort-run-{}-{}",
            std::process::id(),
            self.runs.len()
        ));
        self.runs.push(path.clone());
        let file = File::create(&path).map_err(|e| CdxjError::io(&path, e))?;
        let mut w = BufWriter::new(file);
        for l in self.buf.drain(..) {
            w.write_all(l.as_bytes())
                .and_then(|_| w.write_all(b"\n"))
                .map_err(|e| CdxjError::io(&path, e))?;
        }
        w.flush().map_err(|e| CdxjError::io(&path, e))?;
        self.bytes = 0;
        Ok(())
    }

    /// The lines sorted, without repeats.
    pub fn finish(mut self) -> Result<Sorted, CdxjError> {
        sort_dedup(&mut self.buf);
        let mut sources: Vec<Source> = Vec::new();
        for p in &self.runs {
            let f = File::open(p).map_err(|e| CdxjError::io(p, e))?;
            sources.push(Source::Run(BufReader::new(f), p.clone()));
        }
        sources.push(Source::Mem(std::mem::take(&mut self.buf).into_iter()));
        let mut heap = BinaryHeap::new();
        for (i, s) in sources.iter_mut().enumerate() {
            if let Some(l) = s.next_line()? {
                heap.push(Reverse(Head(l, i)));
            }
        }
        Ok(Sorted {
            sources,
            heap,
            last: None,
            runs: std::mem::take(&mut self.runs),
        })
    }
}

impl Drop for Sorter {
    fn drop(&mut self) {
        for p in &self.runs {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Sorts lines as Python sorts them with their newlines, and drops repeated lines.
pub fn sort_dedup(lines: &mut Vec<String>) {
    lines.sort_unstable_by(|a, b| line_cmp(a, b));
    lines.dedup();
}

enum Source {
    Run(BufReader<File>, PathBuf),
    Mem(std::vec::IntoIter<String>),
}

impl Source {
    fn next_line(&mut self) -> Result<Option<String>, CdxjError> {
        match self {
            Source::Mem(it) => Ok(it.next()),
            Source::Run(r, p) => {
                let mut l = String::new();
                match r.read_line(&mut l).map_err(|e| CdxjError::io(&*p, e))? {
                    0 => Ok(None),
                    _ => {
                        if l.ends_with('\n') {
                            l.pop();
                        }
                        Ok(Some(l))
                    }
                }
            }
        }
    }
}

/// A line and the source it came from, ordered by the line.
#[derive(PartialEq, Eq)]
struct Head(String, usize);

impl Ord for Head {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        line_cmp(&self.0, &o.0).then(self.1.cmp(&o.1))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// The merged, sorted lines of a [`Sorter`]; run files are removed when it is dropped.
pub struct Sorted {
    sources: Vec<Source>,
    heap: BinaryHeap<Reverse<Head>>,
    last: Option<String>,
    runs: Vec<PathBuf>,
}

impl Iterator for Sorted {
    type Item = Result<String, CdxjError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Reverse(Head(line, i)) = self.heap.pop()?;
            match self.sources[i].next_line() {
                Ok(Some(n)) => self.heap.push(Reverse(Head(n, i))),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
            if self.last.as_deref() != Some(line.as_str()) {
                self.last = Some(line.clone());
                return Some(Ok(line));
            }
        }
    }
}

impl Drop for Sorted {
    fn drop(&mut self) {
        for p in &self.runs {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_runs_merge_sorted_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..1000)
            .map(|i| format!("k{} {}", (i * 7919) % 500, i % 3))
            .collect();
        let mut expect = lines.clone();
        sort_dedup(&mut expect);
        let mut s = Sorter::with_limit(dir.path(), 600);
        s.extend(lines.clone()).unwrap();
        assert!(s.runs.len() > 10);
        let got: Vec<String> = s.finish().unwrap().map(Result::unwrap).collect();
        assert_eq!(got, expect);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "runs removed"
        );
        let mut m = Sorter::new(dir.path());
        m.extend(lines).unwrap();
        assert_eq!(
            m.finish().unwrap().map(Result::unwrap).collect::<Vec<_>>(),
            expect
        );
    }
}
