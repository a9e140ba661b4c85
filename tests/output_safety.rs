//! Output safety, end to end: every output file of `crawlsift dedup` (and `extract`) appears
//! whole or not at all. An unwritable output path, a full disk and an output directory holding
//! another run's outputs each give a clear error and a non-zero exit, and leave no partial file
//! and no temporary file behind.
//!
//! The full disk is a real one: a 200 KiB tmpfs mounted for the test (we run as root in CI; where
//! `mount` is not allowed the test prints a notice and passes). The corpus comes from
//! `../shared/tools/makecorpus.py` when the harness is beside the repository, otherwise from a
//! small generator here.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The files `dedup --out DIR` writes.
const DEDUP_OUTPUTS: [&str; 3] = ["clusters.jsonl", "documents.jsonl.gz", "report.json"];

fn crawlsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(args)
        .output()
        .expect("running crawlsift")
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `dir` (recursively, hidden ones too).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Asserts no temporary file (`.NAME.tmp-PID`) is left anywhere under `dir`.
fn assert_no_temporaries(dir: &Path) {
    let tmp: Vec<_> = files_under(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".tmp"))
        })
        .collect();
    assert!(tmp.is_empty(), "temporary files left behind: {tmp:?}");
}

/// Asserts each dedup output present in `out` is whole: JSON lines that all parse and end in a
/// newline, a gzip stream that ends properly, a report that parses.
fn assert_outputs_whole(out: &Path) {
    let p = out.join("clusters.jsonl");
    if p.exists() {
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.is_empty() || text.ends_with('\n'),
            "{}: cut",
            p.display()
        );
        for l in text.lines() {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap_or_else(|e| panic!("{}: partial line {l:?}: {e}", p.display()));
        }
    }
    let p = out.join("documents.jsonl.gz");
    if p.exists() {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&p).unwrap())
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: not a whole gzip stream: {e}", p.display()));
        for l in text.lines() {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap_or_else(|e| panic!("{}: partial line: {e}", p.display()));
        }
    }
    let p = out.join("report.json");
    if p.exists() {
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(&p).unwrap())
            .unwrap_or_else(|e| panic!("{}: partial report: {e}", p.display()));
    }
}

/// A corpus of a few hundred pages whose outputs (with `--text`) are well over 200 KiB: from
/// makecorpus.py when ../shared is there, else generated here. Returns the archive's path.
fn corpus(dir: &Path) -> PathBuf {
    let tool = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/makecorpus.py");
    let out = dir.join("corpus");
    if tool.exists() {
        let ok = Command::new("python3")
            .arg(&tool)
            .args(["--out", s(&out), "--docs", "600", "--seed", "11"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            if let Some(f) = files_under(&out)
                .into_iter()
                .find(|p| s(p).ends_with(".warc.gz"))
            {
                return f;
            }
        }
        println!("notice: makecorpus.py failed; using the built-in corpus generator");
    }
    std::fs::create_dir_all(&out).unwrap();
    let path = out.join("generated.warc.gz");
    let mut f = std::fs::File::create(&path).unwrap();
    let mut x: u64 = 0x0DD5_EED5;
    for d in 0..600 {
        let mut html = String::from("<html><head><title>Page</title></head><body><article>");
        for p in 0..6 {
            html.push_str("<p>");
            for _ in 0..60 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Pronounceable high-entropy words: texts compress about 2:1.
                let w: String = (0..3)
                    .map(|i| {
                        let c = (x >> (i * 8)) as usize;
                        let cons = b"bcdfghklmnprstvz"[c % 16] as char;
                        let vow = b"aeiou"[(c / 16) % 5] as char;
                        format!("{cons}{vow}")
                    })
                    .collect();
                html.push_str(&w);
                html.push(' ');
            }
            html.push_str(&format!("paragraph {p} of {d}.</p>"));
        }
        html.push_str("</article></body></html>");
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{html}");
        let rec = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{d}>\r\n\
             WARC-Target-URI: http://example.com/{d}\r\nContent-Type: application/http; \
             msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
            http.len()
        );
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(rec.as_bytes()).unwrap();
        f.write_all(&e.finish().unwrap()).unwrap();
    }
    path
}

/// A tmpfs of `size` mounted on a fresh directory; unmounted on drop (also when a test fails).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts, or prints a notice naming `test` and returns None when mounting is not allowed.
    fn mount(test: &str, size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                s(dir.path()),
            ])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            println!("notice: {test} skipped: cannot mount a tmpfs here (not root, or no mount)");
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Asserts a failed run said what failed: a non-zero exit and an error naming `path` and the
/// cause `cause`.
fn assert_clear_failure(o: &Output, path: &Path, cause: &str) {
    assert!(
        matches!(o.status.code(), Some(c) if c != 0 && c != 101),
        "expected a clean non-zero exit: {}",
        show(o)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{}", show(o));
    assert!(err.contains("error"), "an error message: {}", show(o));
    assert!(
        err.contains(cause),
        "the cause ({cause}) is said: {}",
        show(o)
    );
    assert!(
        err.contains(s(path)),
        "the message names the path it could not write ({}): {}",
        path.display(),
        show(o)
    );
}

#[test]
fn output_under_a_regular_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.warc.gz");
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "not a directory").unwrap();
    let out = file.join("sub");
    // dedup --out FILE/sub: ENOTDIR.
    let o = crawlsift(&["dedup", "-q", "--out", s(&out), s(&sample)]);
    assert_clear_failure(&o, &out, "Not a directory");
    // extract -o FILE/sub/x.jsonl and --html-dir ... --out-dir FILE/sub.
    let target = out.join("x.jsonl");
    let o = crawlsift(&["extract", s(&sample), "-o", s(&target)]);
    assert_clear_failure(&o, &out, "Not a directory");
    let html_dir = dir.path().join("html");
    std::fs::create_dir(&html_dir).unwrap();
    std::fs::write(html_dir.join("a.html"), "<p>hello there</p>").unwrap();
    let o = crawlsift(&["extract", "--html-dir", s(&html_dir), "--out-dir", s(&out)]);
    assert_clear_failure(&o, &out, "Not a directory");
    // Nothing was written anywhere.
    assert_eq!(
        files_under(dir.path()),
        vec![file.clone(), html_dir.join("a.html")],
        "no file appeared"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn read_only_output_directory_is_a_clear_error() {
    // A read-only filesystem refuses root too.
    let Some(fs) = Tmpfs::mount("read_only_output_directory_is_a_clear_error", "1m") else {
        return;
    };
    let ro = Command::new("mount")
        .args(["-o", "remount,ro", s(fs.path())])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ro {
        println!("notice: read_only_output_directory_is_a_clear_error skipped: cannot remount ro");
        return;
    }
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.warc.gz");
    let out = fs.path().join("out");
    let o = crawlsift(&["dedup", "-q", "--out", s(&out), s(&sample)]);
    assert_clear_failure(&o, &out, "Read-only file system");
    let o = crawlsift(&["dedup", "-q", "--out", s(fs.path()), s(&sample)]);
    assert_clear_failure(&o, fs.path(), "Read-only file system");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains(".checkpoint"),
        "the folder the user gave is named, not an internal one: {err}"
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    // A read-only --text target is found before the run starts: nothing is written to --out
    // (before, clusters.jsonl, documents.jsonl.gz and the checkpoints were, without the report).
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let text = fs.path().join("clean.jsonl.gz");
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--out",
        s(&out),
        "--text",
        s(&text),
        s(&sample),
    ]);
    assert_clear_failure(&o, &text, "Read-only file system");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        !out.exists(),
        "no output folder is left: {:?}",
        files_under(&out)
    );
    // So is a read-only extract -o target.
    let target = fs.path().join("x.jsonl");
    let o = crawlsift(&["extract", s(&sample), "-o", s(&target)]);
    assert_clear_failure(&o, &target, "Read-only file system");
    assert!(o.stdout.is_empty(), "{}", show(&o));
}

#[test]
fn extract_does_not_overwrite_an_existing_output_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.warc.gz");
    let target = dir.path().join("pages.jsonl");
    std::fs::write(&target, "earlier work\n").unwrap();
    let o = crawlsift(&["extract", s(&sample), "-o", s(&target)]);
    assert_clear_failure(&o, &target, "--force");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "earlier work\n");
    assert_no_temporaries(dir.path());
    let o = crawlsift(&["extract", s(&sample), "-o", s(&target), "--force"]);
    assert!(o.status.success(), "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap().lines().count(),
        8,
        "the sample's pages replace the old file"
    );
}

#[test]
fn full_disk_leaves_no_partial_file_and_a_rerun_finishes() {
    let test = "full_disk_leaves_no_partial_file_and_a_rerun_finishes";
    let Some(fs) = Tmpfs::mount(test, "200k") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let input = corpus(work.path());
    // The reference: the same run on a roomy disk.
    let roomy = work.path().join("roomy");
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--out",
        s(&roomy),
        "--text",
        s(&roomy.join("text.jsonl.gz")),
        s(&input),
    ]);
    assert!(o.status.success(), "{}", show(&o));
    let total: u64 = files_under(&roomy)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(
        total > 200 << 10,
        "the outputs ({total} B) must not fit in 200 KiB"
    );

    // 1. --text and every output inside a 200 KiB tmpfs: the disk fills up.
    let out = fs.path().join("out");
    let text = out.join("text.jsonl.gz");
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--out",
        s(&out),
        "--text",
        s(&text),
        s(&input),
    ]);
    println!("full disk, --text: {}", show(&o).replace('\n', " | "));
    all_of(&[
        &|| assert_clear_failure(&o, &out, "No space left on device"),
        &|| assert_no_temporaries(fs.path()),
        &|| assert_outputs_whole(&out),
    ]);
    assert!(
        !text.exists(),
        "the clean corpus is whole or absent, and it cannot be whole"
    );

    // 2. Without --text, the disk fills at other points: at a checkpoint, at each final output.
    // Leave more room each time; every run either finishes with the roomy run's outputs or
    // fails cleanly. (On a second, larger tmpfs: the first keeps what step 1 left for step 3.)
    let Some(fs2) = Tmpfs::mount(test, "4m") else {
        return;
    };
    let filler = fs2.path().join("filler");
    let free = free_bytes(fs2.path());
    let rooms = [64u64, 192, 320, 448, 576, 704, 832, 1024, 1536, 2048, 3072].map(|k| k << 10);
    for (i, room) in rooms.into_iter().filter(|r| *r < free).enumerate() {
        let out = fs2.path().join(format!("out{i}"));
        std::fs::write(&filler, vec![b'x'; (free - room) as usize]).unwrap();
        let o = crawlsift(&["dedup", "-q", "--out", s(&out), s(&input)]);
        println!(
            "full disk, {} KiB free: {}",
            room >> 10,
            show(&o).replace('\n', " | ")
        );
        if o.status.success() {
            assert_same_outputs(&out, &roomy);
        } else {
            all_of(&[
                &|| assert_clear_failure(&o, &out, "No space left on device"),
                &|| assert_no_temporaries(fs2.path()),
                &|| assert_outputs_whole(&out),
            ]);
        }
        std::fs::remove_file(&filler).unwrap();
        let _ = std::fs::remove_dir_all(&out);
    }

    // 3. Room again: the command of step 1 finishes where it stopped, with the roomy run's
    // outputs and nothing else left behind.
    let grown = Command::new("mount")
        .args(["-o", "remount,size=16m", s(fs.path())])
        .output()
        .is_ok_and(|o| o.status.success());
    if !grown {
        println!("notice: {test}: cannot grow the tmpfs; rerun after a full disk not checked");
        return;
    }
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--out",
        s(&out),
        "--text",
        s(&text),
        s(&input),
    ]);
    assert!(
        o.status.success(),
        "rerun after freeing space: {}",
        show(&o)
    );
    assert_same_outputs(&out, &roomy);
    assert_eq!(
        gunzip(&text),
        gunzip(&roomy.join("text.jsonl.gz")),
        "--text after the rerun equals the roomy run's"
    );
    assert_no_temporaries(fs.path());
}

/// Asserts `out` holds the same clusters and documents as `reference` (the report holds
/// timings, so only its presence is checked).
fn assert_same_outputs(out: &Path, reference: &Path) {
    for f in DEDUP_OUTPUTS {
        let p = out.join(f);
        assert!(p.exists(), "{} missing", p.display());
        if f == "report.json" {
            continue;
        }
        let (a, b) = if f.ends_with(".gz") {
            (gunzip(&p), gunzip(&reference.join(f)))
        } else {
            (
                std::fs::read(&p).unwrap(),
                std::fs::read(reference.join(f)).unwrap(),
            )
        };
        assert!(a == b, "{f} differs from the uninterrupted run's");
    }
}

fn gunzip(p: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(p).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Runs every check, then fails with all their messages (so one run shows every problem).
fn all_of(checks: &[&dyn Fn()]) {
    let failed: Vec<String> = checks
        .iter()
        .filter_map(|c| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(c))
                .err()
                .map(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                })
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} check(s) failed:\n{}",
        failed.len(),
        failed.join("\n---\n")
    );
}

/// Free bytes of the filesystem holding `p` (`df`'s available blocks).
fn free_bytes(p: &Path) -> u64 {
    let o = Command::new("df")
        .args(["-B1", "--output=avail", s(p)])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("df output")
}

#[test]
fn other_runs_outputs_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sample = root.join("data/sample.warc.gz");
    let out = dir.path().join("out");
    let o = crawlsift(&["dedup", "-q", "--out", s(&out), s(&sample)]);
    assert!(o.status.success(), "{}", show(&o));
    let before: Vec<Vec<u8>> = DEDUP_OUTPUTS
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    // Another run (other arguments) into the same directory: refused, nothing touched.
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--method",
        "full",
        "--out",
        s(&out),
        s(&sample),
    ]);
    assert_clear_failure(&o, &out, "--force");
    let after: Vec<Vec<u8>> = DEDUP_OUTPUTS
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    assert!(before == after, "a refused run changed the outputs");
    assert_no_temporaries(&out);
    // With --force it runs.
    let o = crawlsift(&[
        "dedup",
        "-q",
        "--force",
        "--method",
        "full",
        "--out",
        s(&out),
        s(&sample),
    ]);
    assert!(o.status.success(), "{}", show(&o));
    assert_outputs_whole(&out);
    assert_no_temporaries(&out);
}
