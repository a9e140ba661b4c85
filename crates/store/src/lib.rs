/*!
The fingerprint index of crawlsift: what `crawlsift index` writes under `IDX/fp/` and what
`crawlsift query` and `crawlsift dedup --against` search, with no load step.

An index is a [`manifest`] listing immutable [`segment`]s in document order, plus the [`state`]
of the clustering over all of them (flags, clusters, site template lines) and `clusters.jsonl`.
A segment is two files opened with no load step: fingerprints with their band tables ([`bands`]),
URL table and document table, and word profiles ([`profiles`]). Every file shares one checked
layout ([`file`]), memory-mapped for bulk work or read piece by piece for one search
([`file::Access`]); every offset read from it is bounds-checked, so a damaged file gives an
[`error::StoreError`] naming the file and byte offset, never a panic. [`search`] finds a
document's near-duplicates as clustering would; [`merge`] joins segments built apart.

```
use crawlsift_dedup::{DedupConfig, Fingerprinter};
use crawlsift_store::manifest::InputEntry;
use crawlsift_store::segment::{write_segment, DocIn, Segment};

let cfg = DedupConfig { min_words: 5, ..DedupConfig::default() };
let fp = Fingerprinter::new(&cfg).fingerprint("one two three four five six seven eight");
let dir = tempfile::tempdir().unwrap();
let input = InputEntry { path: "/a.warc".into(), size: 1, identity: "x".into() };
let doc = DocIn { fp: &fp, id: "<urn:1>", url: Some("http://a/"), file: 0, offset: 0, index: 0 };
write_segment(dir.path(), "seg-000000", &cfg, &[input], &[doc]).unwrap();
let seg = Segment::open(dir.path(), "seg-000000").unwrap();
assert_eq!(seg.fingerprint(0).unwrap(), fp);
assert_eq!(seg.find_url("http://a/").unwrap(), Some(0));
```
*/

#![deny(missing_docs)]

pub mod bands;
pub mod error;
pub mod file;
pub mod index;
pub mod manifest;
pub mod merge;
pub mod packed;
pub mod profiles;
pub mod search;
pub mod segment;
pub mod state;

pub use error::StoreError;
pub use index::{DocRef, Index, Located};
pub use search::{search, Hit, HitKind};

#[cfg(test)]
mod tests;
