//! The exit status, pinned for every command: 0 clean, 1 fatal (an input cannot be opened, an
//! output cannot be written), 2 usage error, 3 finished but with problems (an input that is no
//! archive, records with errors, digests that do not match). 130 (Ctrl-C) is pinned in
//! `tests/resume.rs`. One case per status and command, each with what it must say.

mod util;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use util::{crawlsift, root};

/// Runs crawlsift with `args` and asserts its exit status is `code` and its stderr holds `said`.
fn status(args: &[&str], code: i32, said: &str) -> Output {
    let o = crawlsift(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(code),
        "crawlsift {args:?}\nstdout: {}\nstderr: {err}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        err.contains(said),
        "crawlsift {args:?}: expected {said:?} in: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    o
}

/// Runs crawlsift with `args`, reads the first `n` bytes of its standard output, then closes it
/// (as `| head -c N` does) and waits for the end.
fn read_then_leave(args: &[&str], n: usize) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0u8; n];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    child.wait_with_output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const SAMPLE: &str = "data/sample.warc.gz";

/// Inputs of the cases, made in a temporary folder.
struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let sample = std::fs::read(root().join(SAMPLE)).unwrap();
        // A truncated archive: records with errors.
        std::fs::write(
            dir.path().join("cut.warc.gz"),
            &sample[..sample.len() - 500],
        )
        .unwrap();
        // Not archives: an image and a plain-text file.
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend((0..2000u32).map(|i| (i * 7919 % 251) as u8));
        std::fs::write(dir.path().join("image.png"), png).unwrap();
        std::fs::write(
            dir.path().join("notes.txt"),
            "just some notes\nnothing else\n",
        )
        .unwrap();
        // The sample with one block digest changed: a digest mismatch.
        let mut warc = Vec::new();
        flate2::read::MultiGzDecoder::new(&sample[..])
            .read_to_end(&mut warc)
            .unwrap();
        let field = b"WARC-Block-Digest: sha1:";
        let at = warc
            .windows(field.len())
            .position(|w| w == field)
            .expect("the sample has block digests")
            + field.len();
        warc[at] = if warc[at] == b'A' { b'B' } else { b'A' };
        std::fs::write(dir.path().join("tampered.warc"), warc).unwrap();
        // A crawl folder with a README beside its archive.
        let crawl = dir.path().join("crawl");
        std::fs::create_dir(&crawl).unwrap();
        std::fs::write(crawl.join("a.warc.gz"), &sample).unwrap();
        std::fs::write(crawl.join("README.md"), "# A crawl\nOne file.\n").unwrap();
        // Plain HTML pages.
        let html = dir.path().join("html");
        std::fs::create_dir(&html).unwrap();
        std::fs::write(html.join("a.html"), page(3000)).unwrap();
        // A regular file, under which nothing can be created.
        std::fs::write(dir.path().join("file"), "a file, not a folder").unwrap();
        Fixtures { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A path no output can be written to: under a regular file.
    fn unwritable(&self, name: &str) -> PathBuf {
        self.path("file").join(name)
    }
}

/// An HTML page of `paragraphs` paragraphs: more main text than a pipe buffer holds.
fn page(paragraphs: usize) -> String {
    let mut html = String::from("<html><body><article>");
    for i in 0..paragraphs {
        html.push_str(&format!(
            "<p>Paragraph {i} of a long page, with enough words to count as main text.</p>\n"
        ));
    }
    html.push_str("</article></body></html>");
    html
}

#[test]
fn records_statuses() {
    let f = Fixtures::new();
    status(&["records", "--summary", SAMPLE], 0, "");
    status(&["records", "no/such.warc"], 1, "no/such.warc");
    status(&["records", "--threads", "0", SAMPLE], 2, "--threads");
    status(&["records"], 2, "required");
    // Finished with problems: record errors, an input that is no archive, digest mismatches.
    status(&["records", s(&f.path("cut.warc.gz"))], 3, "byte ");
    let o = status(
        &["records", "--summary", SAMPLE, s(&f.path("image.png"))],
        3,
        "not an archive",
    );
    let total = String::from_utf8_lossy(&o.stdout);
    assert!(
        total.contains("errors=0 ") && total.contains("skipped_inputs=1 [not_archive=1]"),
        "a skipped input, not a record error: {total}"
    );
    // No input holds an archive: fatal, nothing read (tests/outcomes.rs pins every command).
    status(
        &["records", s(&f.path("notes.txt"))],
        1,
        "no archive found in",
    );
    let o = status(
        &[
            "records",
            "--summary",
            "--verify-digests",
            s(&f.path("tampered.warc")),
        ],
        3,
        "digests do not match",
    );
    let total = String::from_utf8_lossy(&o.stdout);
    assert!(total.contains("mismatch=1"), "{total}");
}

#[test]
fn extract_statuses() {
    let f = Fixtures::new();
    let out = f.path("pages.jsonl");
    status(&["extract", SAMPLE, "-o", s(&out)], 0, "8 documents");
    // -o names an existing file: refused without --force, before anything is read.
    status(&["extract", SAMPLE, "-o", s(&out)], 1, "--force");
    status(&["extract", "no/such.warc"], 1, "no/such.warc");
    status(
        &["extract", SAMPLE, "-o", s(&f.unwritable("x.jsonl"))],
        1,
        "Not a directory",
    );
    status(&["extract", "--threads", "0", SAMPLE], 2, "--threads");
    status(&["extract"], 2, "required");
    status(&["extract", s(&f.path("cut.warc.gz"))], 3, "truncated");
    status(
        &["extract", SAMPLE, s(&f.path("image.png"))],
        3,
        "not_archive=1",
    );
}

#[test]
fn extract_html_statuses() {
    let f = Fixtures::new();
    let a = f.path("html").join("a.html");
    status(&["extract", "--html", s(&a)], 0, "");
    status(&["extract", "--html", "no/such.html"], 1, "no/such.html");
    status(
        &["extract", "--html", s(&a), SAMPLE],
        2,
        "cannot be used with",
    );
    // A reader that goes away (`| head -1`) ends the run quietly, as in the archive mode.
    let o = read_then_leave(&["extract", "--html", s(&a)], 16);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

#[test]
fn extract_html_dir_statuses() {
    let f = Fixtures::new();
    let html = f.path("html");
    let out = f.path("texts");
    status(
        &["extract", "--html-dir", s(&html), "--out-dir", s(&out)],
        0,
        "",
    );
    assert!(out.join("a.txt").exists());
    let bad = f.unwritable("texts");
    status(
        &["extract", "--html-dir", s(&html), "--out-dir", s(&bad)],
        1,
        s(&bad),
    );
    status(&["extract", "--html-dir", s(&html)], 2, "--out-dir");
}

#[test]
fn dedup_statuses() {
    let f = Fixtures::new();
    let out = |n: &str| f.path("runs").join(n);
    status(&["dedup", "-q", SAMPLE, "--out", s(&out("clean"))], 0, "");
    status(
        &["dedup", "-q", "no/such.warc", "--out", s(&out("missing"))],
        1,
        "no/such.warc",
    );
    let bad = f.unwritable("out");
    status(&["dedup", "-q", SAMPLE, "--out", s(&bad)], 1, s(&bad));
    status(
        &[
            "dedup",
            "-q",
            "--threads",
            "0",
            SAMPLE,
            "--out",
            s(&out("t0")),
        ],
        2,
        "--threads",
    );
    status(
        &[
            "dedup",
            "-q",
            "--threshold",
            "2",
            SAMPLE,
            "--out",
            s(&out("t2")),
        ],
        2,
        "threshold",
    );
    assert!(
        !out("t0").exists() && !out("t2").exists(),
        "usage errors write nothing"
    );
    // A crawl folder with a README: the README is a skipped input, counted in the report.
    let crawl = f.path("crawl");
    status(
        &["dedup", "-q", s(&crawl), "--out", s(&out("readme"))],
        3,
        "",
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out("readme").join("report.json")).unwrap()).unwrap();
    assert_eq!(report["skipped_inputs"]["not_archive"], 1, "{report}");
    assert_eq!(report["record_errors"], serde_json::json!({}), "{report}");
    assert_eq!(report["records"], 23, "{report}");
    status(
        &[
            "dedup",
            "-q",
            s(&f.path("cut.warc.gz")),
            "--out",
            s(&out("cut")),
        ],
        3,
        "",
    );
}

#[test]
fn the_same_file_twice_is_read_once_with_a_warning() {
    let f = Fixtures::new();
    let a = f.path("crawl").join("a.warc.gz");
    let link = f.path("link.warc.gz");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    for args in [
        vec![s(&a), s(&a)],
        vec![s(&a), s(&link)],
        vec![s(&f.path("crawl")), s(&a)],
    ] {
        let mut cmd = vec!["records", "--summary"];
        cmd.extend(&args);
        let o = crawlsift(&cmd);
        let err = String::from_utf8_lossy(&o.stderr);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            err.contains("warning") && err.contains("read once"),
            "{args:?}: {err}"
        );
        let total = text.lines().find(|l| l.starts_with("TOTAL")).unwrap();
        assert!(
            total.contains("records=23 ") && total.contains("duplicate=1"),
            "{args:?}: {total}"
        );
    }
}

#[test]
fn every_command_explains_the_statuses_in_its_help() {
    for cmd in [
        &["--help"][..],
        &["records", "--help"],
        &["extract", "--help"],
        &["dedup", "--help"],
    ] {
        let o = status(cmd, 0, "");
        let help = String::from_utf8_lossy(&o.stdout);
        for line in ["Exit status:", "  0 ", "  1 ", "  2 ", "  3 ", "  130 "] {
            assert!(help.contains(line), "{cmd:?} --help lacks {line:?}: {help}");
        }
    }
}

/// A reader that goes away early (`| head`) is a normal end: status 0 and no error, for every
/// command that writes to standard output, JSON or text. The output is made larger than a pipe
/// holds (64 KiB), so the command is still writing when the reader leaves.
#[test]
fn a_reader_that_goes_away_is_a_quiet_end() {
    use util::inputs;
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("pages.warc");
    let mut bytes = Vec::new();
    for i in 0..400u64 {
        bytes.extend(inputs::warc_page(
            &format!("p{i}"),
            inputs::article(i, 600).as_bytes(),
        ));
    }
    std::fs::write(&warc, bytes).unwrap();
    let w = s(&warc);
    for args in [
        &["records", w][..],
        &["extract", w],
        &["stats", "-q", "--top", "10000", w],
        &["stats", "-q", "--json", "--top", "10000", w],
    ] {
        let o = read_then_leave(args, 100);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
    }
}
