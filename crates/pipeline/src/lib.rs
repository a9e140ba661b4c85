/*!
From crawl records to documents, fingerprints and clusters: the flow of crawlsift as a library.

`crawlsift-pipeline` sits between the stage crates (`crawlsift-common`, `-reader`, `-extractor`,
`-dedup`, none of which knows another) and the `crawlsift` binary, which only parses arguments and
wires these pieces together. One module per concept:

* [`page`]: which records are pages and what text they give (the page policy, in one place);
* [`stages`]: producer, worker pools and the ordered collector over bounded channels;
* [`inputs`]: the input set, the reading loop and the read tally (what reading one input gave is
  the reader's `FileReport`, which checkpoints keep as JSON);
* [`dedup`]: the threads of a dedup run up to clustering; [`collect`]: its collector;
  [`catalog`]: what the collector keeps per record for `documents.jsonl.gz`;
* [`checkpoint`]: the per-input checkpoint format of resumable runs; [`shard`]: shards of a
  run (`--shard I/N`) and their exact merge, built on those checkpoints;
* [`verdict`]: what clustering decided per document (the keep/duplicate rule);
* [`describe`]: a record's HTTP status and payload length, as `records` lists them;
* [`lines`]: the JSON line types of the outputs; [`write`](mod@write): their writers; [`output`]: files that
  appear whole or not at all;
* [`report`] builds `report.json`; [`html`] writes `report.html` beside it;
* [`against`]: `dedup --against`, this run's documents searched for in an index;
* [`segment`]: the fingerprint index of `crawlsift index` (segments, re-clustering, append);
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

pub mod against;
pub mod catalog;
pub mod checkpoint;
pub mod collect;
pub mod dedup;
pub mod describe;
pub mod html;
pub mod inputs;
pub mod lines;
pub mod output;
pub mod page;
pub mod phrases;
pub mod report;
pub mod reuse;
pub mod segment;
pub mod shard;
pub mod site;
pub mod stages;
pub mod verdict;
pub mod write;

pub use inputs::{InputSet, ReadTally};
