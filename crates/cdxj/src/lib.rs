/*!
CDXJ indexes of crawl archives, as `cdxj-indexer` 1.5.0 writes them and pywb reads them.

`crawlsift-cdxj` builds an index directory from archives ([`build`], [`append`]): `index.cdxj`,
one line `SURT-key timestamp {json}` per capture, sorted byte-wise, with exactly the fields and
values `cdxj-indexer` writes ([`line`]); `archives.jsonl`, the archives it covers ([`manifest`]);
and on request the ZipNum files pywb reads for large collections, or a WACZ's ZipNum index
([`zipnum`]). Lookups ([`CdxjFile::captures`], [`ZipNum::captures`]) binary-search the mapped
files: there is no load step.

```
use crawlsift_cdxj::surt::surt;
assert_eq!(surt("https://www.Example.com:443/a/?b=2&a=1#top"), "com,example)/a?a=1&b=2");
```

Modules: `surt` (keys, with `idna` for non-ASCII hosts), `timestamp`, `head` (the HTTP head
as warcio reads it), `json` (Python's JSON escaping), `line` (captures and their lines), `extent`
(where a record's bytes are), `archive` (one archive's lines as its records arrive), `build`
(the build: which archives to read, the parallel pass, the index written), `sort` (bounded-memory sorting), `merge` (order, merging into an
existing index), `layout` (file names), `fetch` (a capture's record from its archive), `lookup`, `zipnum`, `manifest`, `write` (atomic files), `error`.
*/

#![deny(missing_docs)]

pub mod archive;
pub mod build;
pub mod error;
pub mod extent;
pub mod fetch;
pub mod head;
mod idna;
pub mod json;
pub mod layout;
pub mod line;
pub mod lookup;
pub mod manifest;
pub mod merge;
pub mod seek;
pub mod sort;
pub mod surt;
pub mod timestamp;
mod write;
pub mod zipnum;

pub use build::{append, build, Build, BuildOptions, BuildSummary, InputSummary, Reading, INDEX};
pub use error::CdxjError;
pub use line::Capture;
pub use lookup::CdxjFile;
pub use manifest::{Archive, Manifest};
pub use zipnum::ZipNum;
