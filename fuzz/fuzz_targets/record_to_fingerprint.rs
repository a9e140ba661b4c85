//! The whole record-to-fingerprint path as `crawlsift dedup` runs it: bytes -> reader
//! (`read_bytes`, any format and compression) -> each record's HTTP message -> extractor ->
//! dedup `Fingerprinter` -> `Clusterer`. Cluster members must be documents that were added.
#![no_main]
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprinter};
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_reader::{read_bytes, ReaderConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cfg = ReaderConfig {
        threads: 1,
        buffer_bytes: 4096,
        ..Default::default()
    };
    // A small minimum so that short fuzzed texts reach MinHash and the LSH buckets.
    let dcfg = DedupConfig {
        min_words: 3,
        ..DedupConfig::default()
    };
    let mut ex = ExtractorBuilder::new().build().unwrap();
    let mut fpr = Fingerprinter::new(&dcfg);
    let mut clusterer = Clusterer::new(&dcfg).unwrap();
    read_bytes(bytes::Bytes::copy_from_slice(data), 0, &cfg, &mut |batch| {
        for rec in &batch {
            let _ = rec.payload();
            let extracted = match rec.http() {
                Some(Ok(resp)) => {
                    let ctype = resp.header("content-type").map(str::to_string);
                    ex.extract(&resp.body, ctype.as_deref(), None)
                }
                Some(Err(_)) => continue,
                None => ex.extract(&rec.block, rec.content_type.as_deref(), None),
            };
            if let Ok(doc) = extracted {
                clusterer.add(fpr.fingerprint(&doc.text));
                for item in &doc.items {
                    clusterer.add(fpr.fingerprint(&item.text));
                }
            }
        }
        true
    });
    let added = clusterer.len();
    let result = clusterer.finish();
    for c in &result.clusters {
        assert!((c.representative as usize) < added);
        for m in &c.members {
            assert!((m.doc as usize) < added);
        }
    }
});
