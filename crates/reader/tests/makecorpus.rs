//! Every `--format` of `../shared/tools/makecorpus.py`: every truth.jsonl id is read back, and
//! the output does not depend on the thread count.

mod common;

use std::collections::HashSet;
use std::process::Command;

use crawlsift_reader::{expand_inputs, read_input, ReaderConfig};

#[test]
#[ignore = "needs ../shared"]
fn generated_corpora_read_with_every_truth_id() {
    let shared = common::needs_shared();
    let tool = shared.join("tools/makecorpus.py");
    assert!(
        Command::new("python3").arg("--version").output().is_ok(),
        "this test needs python3 (to run ../shared/tools/makecorpus.py)"
    );
    for format in ["warc-gz", "warc", "warc-gz-whole", "trec-gz", "trec"] {
        let dir = tempfile::tempdir().unwrap();
        let st = Command::new("python3")
            .arg(&tool)
            .args([
                "--out",
                dir.path().to_str().unwrap(),
                "--docs",
                "200",
                "--seed",
                "3",
                "--format",
                format,
            ])
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let truth = std::fs::read_to_string(dir.path().join("truth.jsonl")).unwrap();
        let want: Vec<String> = truth
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let inputs = expand_inputs(&[dir.path().to_path_buf()]).unwrap();
        let mut outputs = Vec::new();
        for threads in [1, 2] {
            let cfg = ReaderConfig {
                threads,
                verify_digests: true,
                parallel_range_bytes: 16 << 10,
                parallel_min_file_bytes: 0,
                ..ReaderConfig::default()
            };
            let mut ids = HashSet::new();
            let mut keys = Vec::new();
            for (i, input) in inputs.iter().enumerate() {
                let name = input.path().display().to_string();
                if name.ends_with(".jsonl") || name.ends_with(".json") {
                    continue;
                }
                let rep = read_input(input, i as u32, &cfg, &mut |b| {
                    for r in &b {
                        ids.insert(r.id.clone());
                        keys.push(common::key(r));
                        if r.id.starts_with("<urn") || !r.id.is_empty() {
                            if let Some(h) = r.http() {
                                assert!(h.is_ok(), "{}: {:?}", r.id, h.err());
                            }
                        }
                    }
                    true
                })
                .unwrap();
                assert_eq!(
                    rep.error_count(),
                    0,
                    "{format} {name}: {:?}",
                    rep.error_examples
                );
                assert_eq!(
                    rep.digests.mismatch, 0,
                    "{format} {name}: digest mismatches"
                );
            }
            let missing: Vec<&String> = want.iter().filter(|id| !ids.contains(*id)).collect();
            assert!(
                missing.is_empty(),
                "{format}: {} truth ids not read, e.g. {:?}",
                missing.len(),
                &missing[..missing.len().min(3)]
            );
            outputs.push(keys);
        }
        assert!(
            outputs[0] == outputs[1],
            "{format}: thread count changes the output"
        );
    }
}
