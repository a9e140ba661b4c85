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
        // Its labels are not input: in the folder they would be skipped inputs (not archives)
        // and every run would end with status 3 instead of 0.
        for labels in ["truth.jsonl", "manifest.json"] {
            let _ = std::fs::remove_file(corpus.join(labels));
        }
    } else {
        // Each part is the sample's gzip members many times over: long enough a run (about a
        // second) that a signal sent after some inputs are checkpointed lands before the end.
        std::fs::create_dir_all(&corpus).unwrap();
        let sample = std::fs::read(root().join("data/sample.warc.gz")).unwrap();
        for i in 0..6 {
            std::fs::write(corpus.join(format!("part-{i}.warc.gz")), sample.repeat(100)).unwrap();
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
        // Text reuse in the same pass: a replayed input's sketches are made again from its
        // checkpointed texts, and reuse.jsonl must come out the same.
        "--reuse",
        // The web graph in the same pass: a replayed input's links come from its checkpoint.
        "--links",
    ]
}

fn assert_same_outputs(a: &Path, b: &Path, ta: &Path, tb: &Path) {
    for f in [
        "clusters.jsonl",
        "documents.jsonl.gz",
        "reuse.jsonl",
        "pages/edges.txt.gz",
        "pages/vertices.txt.gz",
        "anchors.jsonl.gz",
    ] {
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

/// How far a run has got: whether it has started its checkpoints, and how many inputs are
/// checkpointed (`OUT/.checkpoint/NNNNNN.ckpt`).
fn checkpoint_state(out: &Path) -> (bool, usize) {
    let dir = out.join(".checkpoint");
    let started = dir.join("run.json").exists();
    let inputs = std::fs::read_dir(&dir).map_or(0, |d| {
        d.filter_map(Result::ok)
            .filter(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                n.len() == 11 && n.ends_with(".ckpt") && n[..6].bytes().all(|b| b.is_ascii_digit())
            })
            .count()
    });
    (started, inputs)
}

/// Starts the run and sends `signal` once it has started its checkpoints and at least
/// `checkpointed` inputs are checkpointed, asserting that the signal reached a run still in
/// progress (one that has not finished nor written its report). Returns the run's status and
/// stderr, and the number of inputs checkpointed when the signal was sent.
fn signal_mid_run(
    args: &[&str],
    out: &Path,
    checkpointed: usize,
    signal: i32,
) -> (std::process::ExitStatus, String, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(args)
        .current_dir(root())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    let at = loop {
        let (started, n) = checkpoint_state(out);
        if started && n >= checkpointed {
            break n;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!(
                "the run ended ({st}) before {checkpointed} inputs were checkpointed: the signal \
                 would not have interrupted it"
            );
        }
        assert!(Instant::now() < deadline, "the run made no progress");
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before the signal was sent"
    );
    assert!(
        !out.join("report.json").exists(),
        "the run had finished its outputs before the signal"
    );
    // SAFETY: kill(2) with a live child's pid has no memory effects.
    unsafe { libc_kill(child.id() as i32, signal) };
    let o = child.wait_with_output().unwrap();
    (
        o.status,
        String::from_utf8_lossy(&o.stderr).into_owned(),
        at,
    )
}

#[test]
fn killed_runs_resume_to_identical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = inputs(dir.path());
    let (_, ref_out, ref_text) = reference(dir.path(), &corpus);
    let (out, text) = (dir.path().join("out"), dir.path().join("out.jsonl.gz"));
    let args = run_args(&corpus, &out, &text);
    // Kill (SIGKILL) at spread-out moments of the run, by how many of the 6 inputs are
    // checkpointed: at the start, then after 1, 2 and 4 inputs. Each kill must land on a run in
    // progress: one that finished first fails the test instead of passing unnoticed.
    for checkpointed in [0, 1, 2, 4] {
        let (status, err, at) = signal_mid_run(&args, &out, checkpointed, SIGKILL);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(SIGKILL),
            "the kill after {checkpointed} checkpointed inputs did not end the run ({status}): {err}"
        );
        assert!(
            !out.join("report.json").exists() && !out.join("clusters.jsonl").exists(),
            "a run killed with {at} inputs checkpointed left final outputs"
        );
        assert!(
            out.join(".checkpoint").join("run.json").exists(),
            "the killed run's checkpoints are there to resume"
        );
    }
    crawlsift_ok(&args, 0);
    assert_same_outputs(&ref_out, &out, &ref_text, &text);
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = inputs(dir.path());
    let (_, ref_out, ref_text) = reference(dir.path(), &corpus);
    let (out, text) = (dir.path().join("out"), dir.path().join("out.jsonl.gz"));
    let args = run_args(&corpus, &out, &text);
    // Ctrl-C (SIGINT) once 2 of the 6 inputs are checkpointed: the reading is not over, so the
    // run stops early (status 130) and writes no final output.
    let (status, err, _) = signal_mid_run(&args, &out, 2, SIGINT);
    assert_eq!(status.code(), Some(130), "interrupted status: {err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(
        !out.join("clusters.jsonl").exists(),
        "an interrupted run writes no clusters"
    );
    let (_, n) = checkpoint_state(&out);
    assert!(
        n >= 2,
        "the interrupted run keeps its checkpoints: {n} of 6"
    );
    crawlsift_ok(&args, 0);
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

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}
