//! The whole record-to-fingerprint path as `crawlsift dedup` runs it: bytes -> reader
//! (`read_bytes`, any format and compression) -> the pipeline's page policy
//! (`crawlsift_pipeline::page::clustered_page`: record type, HTTP status, extractor, feeds left
//! out) -> dedup `Fingerprinter` -> `Clusterer`. Cluster members must be documents that were added.
#![no_main]
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprinter};
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_pipeline::page::clustered_page;
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
            if let Ok(page) = clustered_page(rec, &mut ex) {
                clusterer.add(fpr.fingerprint(&page.text));
            }
        }
        true
    });
    let added = clusterer.len();
    let result = clusterer
        .finish()
        .expect("no budget is set, so nothing spills");
    for c in &result.clusters {
        assert!((c.representative as usize) < added);
        for m in &c.members {
            assert!((m.doc as usize) < added);
        }
    }
});
