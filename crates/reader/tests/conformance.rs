//! Every real file of `../shared/corpus/real/`: no crash, no hang, at least as many records as the
//! better of warcio 1.8.1 and FastWARC 2.0, identical output with tiny buffers and with threads.

mod common;

use crawlsift_reader::ReaderConfig;

#[test]
#[ignore = "needs ../shared"]
fn real_corpus_reads_at_least_what_peers_read() {
    let shared = common::needs_shared();
    let dir = shared.join("corpus/real");
    let peers = std::fs::read_to_string(dir.join("peers.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut files = 0;
    for line in peers.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["file"].as_str().unwrap();
        let want = v["warcio_records"]
            .as_u64()
            .unwrap_or(0)
            .max(v["fastwarc_records"].as_u64().unwrap_or(0));
        let data = std::fs::read(dir.join(name)).unwrap();
        let (recs, rep) = common::read_all(
            &data,
            &common::cfg(crawlsift_common::limits::READ_BUFFER_BYTES),
        );
        files += 1;
        if (recs.len() as u64) < want {
            failures.push(format!(
                "{name}: {} records, peers {want}; errors {:?}",
                recs.len(),
                rep.error_examples
            ));
        }
        // Same records with small buffers (every carry-over path) and with parallel ranges.
        let (small, _) = common::read_all(&data, &common::cfg(997));
        let par = ReaderConfig {
            threads: 2,
            parallel_range_bytes: 4096,
            parallel_min_file_bytes: 0,
            ..ReaderConfig::default()
        };
        let (parallel, _) = common::read_all(&data, &par);
        let base: Vec<_> = recs.iter().map(common::key).collect();
        if small.iter().map(common::key).collect::<Vec<_>>() != base {
            failures.push(format!("{name}: small buffers change the output"));
        }
        if parallel.iter().map(common::key).collect::<Vec<_>>() != base {
            failures.push(format!("{name}: parallel ranges change the output"));
        }
        // Every HTTP response parses or fails cleanly; decoding never panics.
        for r in &recs {
            if let Some(Ok(h)) = r.http() {
                assert!(h.status < 1000);
            }
        }
    }
    assert!(files >= 40, "only {files} files listed");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
#[ignore = "needs ../shared"]
fn trec_samples_hold_two_documents_each() {
    let shared = common::needs_shared();
    let dir = shared.join("corpus/real");
    for (f, ids) in [
        ("anserini_trec_ap_sample.trectext", ["AP-0001", "doc2"]),
        ("anserini_trecweb_sample.trecweb", ["WEB-0001", "WEB-0003"]),
    ] {
        let data = std::fs::read(dir.join(f)).unwrap();
        let (recs, _) = common::read_all(&data, &common::cfg(64));
        let got: Vec<&str> = recs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(got, ids, "{f}");
    }
}
