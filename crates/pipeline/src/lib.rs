/*!
From crawl records to documents, fingerprints and clusters: the flow of crawlsift as a library.

`crawlsift-pipeline` sits between the stage crates (`crawlsift-common`, `-reader`, `-extractor`,
`-dedup`, `-stats`, `-store`, `-phrases`, `-cdxj`, none of which knows another) and its callers,
the `crawlsift` command line and the Python package, which only turn arguments into requests and
outcomes into messages:

* [`run`]: every run, one call each, a request and [`run::Hooks`] in, an outcome or an
  [`Error`] out: `dedup` (also a shard of a run, and `--against`), `merge`, `index`, `records`,
  `extract`, `stats`, `get`, `query`;
* [`flow`]: the one scaffold every reading takes (reader thread, worker stages over bounded
  channels, input order restored, cancellation), the input set and the read tally;
* [`error`]: the library's typed errors, naming the file and the byte offset;
* [`page`]: which records are pages and what text they give (the page policy, in one place);
* [`collect`]: a dedup run's collector; [`catalog`]: what it keeps per record;
* [`checkpoint`]: the per-input checkpoint format of resumable runs; [`shard`]: shards of a
  run and their exact merge, built on those checkpoints;
* [`verdict`]: what clustering decided per document (the keep/duplicate rule);
* [`describe`]: a record's HTTP status and payload length, as `records` lists them;
* [`lines`]: the JSON line types of the outputs; [`write`](mod@write): their writers; [`output`]:
  files that appear whole or not at all; [`columns`]: the same rows as Parquet
  (`--format parquet`);
* [`report`] builds `report.json`; [`html`] writes `report.html` beside it; [`phrases`]: the
  phrase-level part of a dedup run; [`site`]: a document's site;
* [`reuse`](mod@reuse): the run of `crawlsift reuse`, passages shared between documents
  (`reuse.jsonl`).

```
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_pipeline::page::{extract_record, Outcome};
use crawlsift_reader::{read_bytes, ReaderConfig};

let warc = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
WARC-Target-URI: http://example.com/\r\nContent-Type: application/http; msgtype=response\r\n\
Content-Length: 97\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n\
<html><body><p>Hello there, reader.</p></body></html>\r\n\r\n";
let mut ex = ExtractorBuilder::new().build().unwrap();
let mut texts = Vec::new();
read_bytes(bytes::Bytes::from_static(warc), 0, &ReaderConfig::default(), &mut |batch| {
    for rec in &batch {
        if let Outcome::Page(page, _) = extract_record(rec, &mut ex) {
            texts.push(page.text);
        }
    }
    true
});
assert_eq!(texts, ["Hello there, reader."]);
```
*/
#![deny(missing_docs)]

pub mod catalog;
pub mod checkpoint;
pub mod collect;
pub mod columns;
pub mod describe;
pub mod error;
pub mod flow;
pub mod html;
pub mod lines;
pub mod links;
pub mod output;
pub mod page;
pub mod payloads;
pub mod phrases;
pub mod progress_bar;
pub mod report;
pub mod reuse;
pub mod run;
pub mod shard;
pub mod site;
pub mod verdict;
pub mod warc_out;
pub mod write;
pub mod zip_store;

pub use error::{error_line, is_broken_pipe, Error, Result};
pub use flow::inputs::{InputSet, ReadTally};
/// The input set and read tally, where the Python package and older callers name them.
pub use flow::{inputs, stages};
