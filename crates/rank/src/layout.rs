//! Reading a graph in Common Crawl's cc-webgraph text layout (the input of its
//! `process_webgraph.sh NAME vertices.txt.gz edges.txt.gz`):
//!
//! - `DIR/vertices.txt.gz`: gzip text, one line per vertex, `ID<TAB>NAME`, ids 0..n-1 in order.
//!   NAME is a URL, or a reversed host name (`com.example.www`) in a host graph. cc-webgraph's
//!   domain graphs add fields after the name (the number of hosts); they are read and dropped.
//! - `DIR/edges.txt.gz`: gzip text, one line per edge, `SRC<TAB>DST` (vertex ids), sorted by
//!   (SRC, DST), no duplicates; self-loops may appear.
//!
//! Both are streamed through a gzip decoder (members concatenated are read as one text) and a
//! bounded line reader (`limits::RANK_MAX_LINE_BYTES`); nothing but the graph itself is held.
//! A line that breaks the layout (no tab, an id that is not a number, ids out of order or out of
//! range, edges unsorted or repeated, text not UTF-8, a line too long) is a
//! [`RankError::Line`] naming the file and the line number; a file that cannot be opened or
//! inflated is a [`RankError::Io`] naming it.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crawlsift_common::limits::RANK_MAX_LINE_BYTES;
use flate2::read::MultiGzDecoder;

use crate::error::{Fault, RankError};
use crate::graph::{too_many_edges, Builder, Graph, Names, Pushed, MAX_COUNT};

/// The vertices file of a graph folder.
pub const VERTICES_FILE: &str = "vertices.txt.gz";
/// The edges file of a graph folder.
pub const EDGES_FILE: &str = "edges.txt.gz";

/// Reads `dir/vertices.txt.gz` and `dir/edges.txt.gz` into a [`Graph`].
pub fn read_graph(dir: &Path) -> Result<Graph, RankError> {
    let names = read_vertices(&dir.join(VERTICES_FILE))?;
    let mut builder = Builder::new(names)?;
    let path = dir.join(EDGES_FILE);
    let mut lines = Lines::open(&path)?;
    while let Some(line) = lines.next_line()? {
        let (src, dst) = split_edge(line).map_err(|fault| lines.fault(fault))?;
        builder.push(src, dst).map_err(|e| match e {
            Pushed::Fault(fault) => lines.fault(fault),
            Pushed::TooMany => too_many_edges(),
        })?;
    }
    Ok(builder.finish())
}

/// Reads the names of a vertices file, checking that ids run 0, 1, 2, ... in order.
pub fn read_vertices(path: &Path) -> Result<Names, RankError> {
    let mut names = Names::new();
    let mut lines = Lines::open(path)?;
    while let Some(line) = lines.next_line()? {
        let expected = names.len() as u64;
        let name = match split_vertex(line, expected) {
            Ok(name) => name,
            Err(fault) => return Err(lines.fault(fault)),
        };
        if expected >= MAX_COUNT {
            return Err(RankError::TooLarge {
                what: "vertices",
                max: MAX_COUNT,
            });
        }
        names.push(name);
    }
    Ok(names)
}

/// `ID<TAB>NAME[<TAB>...]` → NAME, when ID is `expected`.
fn split_vertex(line: &str, expected: u64) -> Result<&str, Fault> {
    let (id, rest) = line.split_once('\t').ok_or(Fault::MissingTab)?;
    let got = parse_id(id)?;
    if got != expected {
        return Err(Fault::IdOutOfOrder { got, expected });
    }
    Ok(rest.split('\t').next().unwrap_or(rest))
}

/// `SRC<TAB>DST` → (SRC, DST).
fn split_edge(line: &str) -> Result<(u64, u64), Fault> {
    let (src, dst) = line.split_once('\t').ok_or(Fault::MissingTab)?;
    if dst.contains('\t') {
        return Err(Fault::ExtraField);
    }
    Ok((parse_id(src)?, parse_id(dst)?))
}

/// A vertex id: ASCII digits only (no sign, no space), below 2^32.
fn parse_id(field: &str) -> Result<u64, Fault> {
    let bad = || Fault::BadId(field.chars().take(40).collect());
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match field.parse::<u64>() {
        Ok(id) if id <= MAX_COUNT => Ok(id),
        _ => Err(bad()),
    }
}

/// Lines of a gzip text file, each at most `RANK_MAX_LINE_BYTES`, numbered from 1.
struct Lines {
    reader: BufReader<MultiGzDecoder<File>>,
    path: PathBuf,
    line: u64,
    buf: Vec<u8>,
}

impl Lines {
    fn open(path: &Path) -> Result<Lines, RankError> {
        let file = File::open(path).map_err(|e| RankError::io(path, e))?;
        Ok(Lines {
            reader: BufReader::with_capacity(1 << 16, MultiGzDecoder::new(file)),
            path: path.to_path_buf(),
            line: 0,
            buf: Vec::new(),
        })
    }

    /// The next line without its `\n`, or `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<&str>, RankError> {
        self.buf.clear();
        let cap = RANK_MAX_LINE_BYTES as u64;
        let read = (&mut self.reader)
            .take(cap)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| RankError::io(&self.path, e))?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        } else if read as u64 == cap {
            return Err(self.fault(Fault::TooLong(RANK_MAX_LINE_BYTES)));
        }
        match std::str::from_utf8(&self.buf) {
            Ok(text) => Ok(Some(text)),
            Err(_) => Err(RankError::Line {
                path: self.path.clone(),
                line: self.line,
                fault: Fault::NotUtf8,
            }),
        }
    }

    fn fault(&self, fault: Fault) -> RankError {
        RankError::Line {
            path: self.path.clone(),
            line: self.line,
            fault,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_split_and_checked() {
        assert_eq!(split_vertex("0\tcom.example", 0), Ok("com.example"));
        assert_eq!(split_vertex("2\tcom.example\t17", 2), Ok("com.example"));
        assert_eq!(
            split_vertex("3\tx", 2),
            Err(Fault::IdOutOfOrder {
                got: 3,
                expected: 2
            })
        );
        assert_eq!(split_vertex("com.example", 0), Err(Fault::MissingTab));
        assert_eq!(split_edge("1\t2"), Ok((1, 2)));
        assert_eq!(split_edge("1\t2\t3"), Err(Fault::ExtraField));
        assert!(matches!(split_edge("-1\t2"), Err(Fault::BadId(_))));
        assert!(matches!(split_edge("1\t+2"), Err(Fault::BadId(_))));
        assert!(matches!(split_edge("1\t"), Err(Fault::BadId(_))));
        assert!(matches!(split_edge("4294967296\t0"), Err(Fault::BadId(_))));
        assert!(matches!(
            split_edge("99999999999999999999999\t0"),
            Err(Fault::BadId(_))
        ));
    }
}
