//! Helpers for the end-to-end tests: run the real `crawlsift` binary and read its outputs.

#![allow(dead_code)]

pub mod inputs;
pub mod watchdog;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where `data/` is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the repository, when it exists; otherwise prints a notice and returns None.
pub fn shared(test: &str) -> Option<PathBuf> {
    let p = root().join("..").join("shared");
    if p.join("tools").is_dir() {
        Some(p)
    } else {
        println!("notice: {test} skipped: ../shared (the evaluation harness) is not beside the repository");
        None
    }
}

/// `../shared` beside the repository, for a test marked `#[ignore = "needs ../shared"]` (run with
/// `--include-ignored`): panics when it is missing, so such a test never passes without testing.
pub fn needs_shared() -> PathBuf {
    let p = root().join("..").join("shared");
    assert!(
        p.join("tools").is_dir(),
        "this test needs ../shared (the evaluation harness) beside the repository"
    );
    p
}

/// Runs crawlsift with `args`, returning its output.
pub fn crawlsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("running crawlsift")
}

/// Runs crawlsift and asserts it exits with `code`.
pub fn crawlsift_ok(args: &[&str], code: i32) -> Output {
    let out = crawlsift(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "crawlsift {args:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The JSON lines of a file (gzip when it ends in `.gz`).
pub fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let mut text = String::new();
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::MultiGzDecoder::new(f)
            .read_to_string(&mut text)
            .unwrap();
    } else {
        std::io::BufReader::new(f)
            .read_to_string(&mut text)
            .unwrap();
    }
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Decompressed bytes of a file (gzip when it ends in `.gz`).
pub fn contents(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        raw
    }
}

/// Generates a labelled corpus into `out` with the harness's `makecorpus.py` and these arguments.
pub fn makecorpus(shared: &Path, out: &Path, args: &[&str]) {
    let st = Command::new("python3")
        .arg(shared.join("tools/makecorpus.py"))
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .expect("running python3");
    assert!(
        st.status.success(),
        "makecorpus.py {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// The parts of `report.json` that say how and when a run went, not what it found.
pub const RUN_FIELDS: [&str; 7] = [
    "command_line",
    "started",
    "ended",
    "seconds",
    "throughput",
    "peak_memory_bytes",
    "threads",
];

/// `report.json` without [`RUN_FIELDS`].
pub fn report_findings(out: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let obj = v.as_object_mut().unwrap();
    for f in RUN_FIELDS {
        assert!(obj.remove(f).is_some(), "report.json has {f}");
    }
    v
}
