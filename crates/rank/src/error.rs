//! The errors of link analysis: a file that cannot be read or written (with its path), a line of
//! the graph layout that breaks the contract (with its file, line number and what is wrong), a
//! graph too large for the arrays or the algorithm, bad parameters, and an iteration that did not
//! converge. Nothing in this crate panics on its input; every fault comes back as a [`RankError`].

use std::io;
use std::path::PathBuf;

use thiserror::Error;

/// What is wrong with one line of `vertices.txt.gz` or `edges.txt.gz`, or with one edge given to
/// [`crate::Graph::from_edges`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Fault {
    /// The line has no tab: a vertex line is `ID<TAB>NAME`, an edge line `SRC<TAB>DST`.
    #[error("no tab: expected two tab-separated fields")]
    MissingTab,
    /// An edge line has a third field.
    #[error("more than two tab-separated fields")]
    ExtraField,
    /// A field that should be a vertex id is not a decimal number below 2^32.
    #[error("{0:?} is not a vertex id (a decimal number below 2^32)")]
    BadId(String),
    /// A vertex line's id is not the line's index (ids run 0, 1, 2, ... in order).
    #[error("vertex id {got} where {expected} was expected (ids run from 0 in order)")]
    IdOutOfOrder {
        /// The id the line holds.
        got: u64,
        /// The line's index.
        expected: u64,
    },
    /// An edge names a vertex that `vertices.txt.gz` does not hold.
    #[error("vertex {id} out of range (the graph has {vertices} vertices)")]
    VertexOutOfRange {
        /// The id named.
        id: u64,
        /// Vertices of the graph.
        vertices: u64,
    },
    /// The edge does not come after the one before it in (SRC, DST) order, or repeats it.
    #[error("edge {src}->{dst} is not after edge {prev_src}->{prev_dst}: edges must be sorted by (SRC, DST) without duplicates")]
    Unsorted {
        /// The edge's source.
        src: u32,
        /// The edge's destination.
        dst: u32,
        /// The previous edge's source.
        prev_src: u32,
        /// The previous edge's destination.
        prev_dst: u32,
    },
    /// The line is not UTF-8.
    #[error("not UTF-8")]
    NotUtf8,
    /// The line is longer than `limits::RANK_MAX_LINE_BYTES`.
    #[error("line longer than {0} bytes")]
    TooLong(usize),
}

/// An error of reading, ranking or writing a graph.
#[derive(Debug, Error)]
pub enum RankError {
    /// A file could not be opened, read (gzip damage included), written or renamed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A line of a graph file breaks the layout.
    #[error("{}:{line}: {fault}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Its line number, from 1.
        line: u64,
        /// What is wrong with it.
        fault: Fault,
    },
    /// An edge given to [`crate::Graph::from_edges`] breaks the layout.
    #[error("edge {index}: {fault}")]
    Edge {
        /// The edge's index in the slice, from 0.
        index: usize,
        /// What is wrong with it.
        fault: Fault,
    },
    /// The graph has more vertices or edges than the u32 arrays hold.
    #[error("{what}: more than {max} (the graph's arrays hold u32 ids and offsets)")]
    TooLarge {
        /// "vertices" or "edges".
        what: &'static str,
        /// The largest count allowed.
        max: u64,
    },
    /// Exact harmonic centrality was asked of a graph over
    /// `limits::RANK_HARMONIC_EXACT_MAX_VERTICES` vertices.
    #[error("{vertices} vertices are too many for exact harmonic centrality (one search per vertex; at most {max}): estimate it with HyperBall")]
    TooLargeForExact {
        /// Vertices of the graph.
        vertices: usize,
        /// The cap.
        max: usize,
    },
    /// HyperBall (webgraph-algo) failed.
    #[error("HyperBall: {0}")]
    HyperBall(String),
    /// A parameter is out of its range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// Values given to a writer do not fit the graph (count, NaN or infinity).
    #[error("{what}: {problem}")]
    BadValues {
        /// Which values ("pagerank", "harmonic", ...).
        what: &'static str,
        /// What is wrong with them.
        problem: String,
    },
    /// A power iteration reached its iteration cap before its change fell below the tolerance
    /// (networkx raises `PowerIterationFailedConvergence` there).
    #[error("{algorithm} did not converge in {iterations} iterations (last change {change:e}, needed below {needed:e})")]
    NotConverged {
        /// "pagerank" or "hits".
        algorithm: &'static str,
        /// Iterations made.
        iterations: usize,
        /// The last iteration's change (L1 over the vertices).
        change: f64,
        /// The bound it had to fall below.
        needed: f64,
    },
}

impl RankError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> RankError {
        RankError::Io {
            path: path.into(),
            source,
        }
    }
}
