//! The files of an index directory, by name. Every module that reads or writes one takes its
//! name from here, so none depends on another for a name.

/// The sorted CDXJ index.
pub const INDEX: &str = "index.cdxj";
/// The archives the index covers (see [`crate::manifest`]).
pub const MANIFEST: &str = "archives.jsonl";
/// ZipNum: the sorted lines in gzip blocks.
pub const BLOCKS: &str = "index.cdxj.gz";
/// ZipNum: one summary line per block.
pub const SUMMARY: &str = "index.idx";
/// Seek tables of the members that hold many records (see [`crate::seek`]).
pub const SEEK_DIR: &str = "seek";
/// ZipNum: where each part named in the summary is.
pub const LOC: &str = "index.loc";
