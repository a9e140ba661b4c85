//! Interrupted runs lose nothing: `crawlsift dedup` killed with SIGKILL at arbitrary moments, or
//! stopped with Ctrl-C, and started again with the same arguments, writes the same output bytes as
//! a run that was never interrupted.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use util::*;

/// Inputs with several files (so some are checkpointed before a kill): a generated corpus when the
/// harness is there, otherwise copies of the sample crawl.
fn inputs(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    if let Some(shared) =
        shared("resume tests (generated corpus; using copies of the sample instead)")
    {
        makecorpus(
            &shared,
            &corpus,
            &[
                "--docs", "800", "--seed", "4", "--format", "warc-gz", "--files", "6",
            ],
        );
    } else {
        std::fs::create_dir_all(&corpus).unwrap();
        for i in 0..6 {
            std::fs::copy(
                root().join("data/sample.warc.gz"),
                corpus.join(format!("part-{i}.warc.gz")),
            )
            .unwrap();
        }
    }
    corpus
}

fn run_args<'a>(corpus: &'a Path, out: &'a Path, text: &'a Path) -> Vec<&'a str> {
    vec![
        "dedup",
        "-q",
        "--threads",
        "2",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--text",
        text.to_str().unwrap(),
    ]
}

fn assert_same_outputs(a: &Path, b: &Path, ta: &Path, tb: &Path) {
    for f in ["clusters.jsonl", "documents.jsonl.gz"] {
        assert!(
            contents(&a.join(f)) == contents(&b.join(f)),
            "{f} differs after resuming"
        );
    }
    assert!(
        contents(ta) == contents(tb),
        "the clean corpus differs after resuming"
    );
    let left: Vec<_> = std::fs::read_dir(b)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        left.iter().all(|n| !n.starts_with('.')),
        "checkpoints and temporary files are gone: {left:?}"
    );
}

/// How long an uninterrupted run takes, and its outputs.
fn reference(dir: &Path, corpus: &Path) -> (Duration, PathBuf, PathBuf) {
    let (out, text) = (dir.join("ref"), dir.join("ref.jsonl.gz"));
    let t = Instant::now();
    crawlsift_ok(&run_args(corpus, &out, &text), 0);
    (t.elapsed(), out, text)
}

#[test]
fn killed_runs_resume_to_identical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = inputs(dir.path());
    let (took, ref_out, ref_text) = reference(dir.path(), &corpus);
    let (out, text) = (dir.path().join("out"), dir.path().join("out.jsonl.gz"));
    // Kill at spread-out moments of the run: early, middle, late (a deterministic spread, so a
    // failure reproduces).
    for frac in [0.1, 0.35, 0.6, 0.85] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
            .args(run_args(&corpus, &out, &text))
            .current_dir(root())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(took.mul_f64(frac));
        let _ = child.kill(); // SIGKILL; the run may already have finished
        let _ = child.wait();
        if out.join("report.json").exists() && !out.join(".checkpoint").exists() {
            // It finished before the kill: start over so the next kill interrupts something.
            std::fs::remove_dir_all(&out).unwrap();
        }
    }
    crawlsift_ok(&run_args(&corpus, &out, &text), 0);
    assert_same_outputs(&ref_out, &out, &ref_text, &text);
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = inputs(dir.path());
    let (took, ref_out, ref_text) = reference(dir.path(), &corpus);
    let (out, text) = (dir.path().join("out"), dir.path().join("out.jsonl.gz"));
    let child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(run_args(&corpus, &out, &text))
        .current_dir(root())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(took.mul_f64(0.4));
    // SAFETY: kill(2) with a live child's pid and SIGINT has no memory effects.
    unsafe { libc_kill(child.id() as i32, 2) };
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.code() == Some(0) {
        println!("notice: the run finished before Ctrl-C reached it; nothing to resume");
    } else {
        assert_eq!(o.status.code(), Some(130), "interrupted status: {err}");
        assert!(err.contains("interrupted"), "{err}");
        assert!(
            !out.join("clusters.jsonl").exists(),
            "an interrupted run writes no clusters"
        );
        crawlsift_ok(&run_args(&corpus, &out, &text), 0);
    }
    assert_same_outputs(&ref_out, &out, &ref_text, &text);
}

#[test]
fn a_run_with_other_arguments_does_not_take_over_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ck = out.join(".checkpoint");
    std::fs::create_dir_all(&ck).unwrap();
    std::fs::write(ck.join("run.json"), b"{\"version\":\"0\",\"inputs\":[]}").unwrap();
    let o = crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    crawlsift_ok(
        &[
            "dedup",
            "-q",
            "data/sample.warc.gz",
            "--out",
            out.to_str().unwrap(),
            "--force",
        ],
        0,
    );
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}
