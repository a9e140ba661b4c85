/*!
The shared vocabulary of crawlsift.

`crawlsift-common` holds the few types that every stage speaks ([`SourcePos`], [`DocId`]), every
named bound of the program ([`limits`]), the deterministic thread helper the stages share
([`parallel`]), the file rules every crate follows ([`fs`]: atomic outputs, read-only maps,
spill files), the one small stable hash ([`fnv`]), a run's memory budget and the order its parts spill in ([`budget`]), what the
process holds in memory, measured ([`memory`]), and the one word rule of
statistics and reuse ([`words`]). It depends only on `memmap2`, `tempfile`, `libc` and
`unicode-general-category`, so `reader`, `extractor` and
`dedup` depend on it and never on each other; only the `crawlsift` binary wires them together.

```
use crawlsift_common::{limits, SourcePos};
let pos = SourcePos { file: 0, offset: 1234, index: 7 };
assert_eq!(pos.index, 7);
assert!(limits::MAX_RECORD_BYTES > 0);
```
*/

#![deny(missing_docs)]

pub mod budget;
pub mod fnv;
pub mod fs;
pub mod limits;
pub mod memory;
pub mod parallel;
pub mod words;

/// Where a record came from: the input file (an index into the run's sorted input list), the byte
/// offset of the record in that file (of its gzip member when the record starts a member of a
/// compressed file), and the record's ordinal within the file.
///
/// This is a CDX-like pointer: with the file list it finds the archive bytes again, and it is what
/// lets per-shard results be merged later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourcePos {
    /// Index of the input file in the run's input list.
    pub file: u32,
    /// Byte offset of the record (or of the gzip member holding its start) in the file.
    pub offset: u64,
    /// Ordinal of the record within its file, from 0.
    pub index: u64,
}

/// A document's identity within one run: ordered by file, then by position in the file, so sorting
/// by `DocId` is sorting by input order whatever the thread count.
pub type DocId = SourcePos;
