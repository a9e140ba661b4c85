//! Hostile inputs, end to end: the real `crawlsift` binary under a watchdog that bounds its time
//! and its memory. Every input is run through `records --summary`, `extract` and `dedup --out`,
//! and each run must end on its own, within the time bound, below the memory bound, with exit
//! status 0 to 3 (never a panic's 101 or a signal) and with the damage said: a clear error on
//! stderr or a counted error/skip in the summary.
//!
//! The watchdog polls `/proc/<pid>/status` every few milliseconds: a child whose resident set
//! passes its bound is killed (an unbounded allocation fails the test instead of exhausting the
//! machine), and so is one still running at its deadline (a hang). Each run prints its time and
//! peak resident memory (`VmHWM`); `cargo test --test hostile -- --nocapture` collects them.
//!
//! Inputs are generated in temporary directories: a gzip bomb (4 GiB of zeros in ~4 MB), WARC
//! records claiming a Content-Length of 2^63, 2^64+1, -5 and `lots`, a 100 MB single-line page,
//! 1,000,000 nested tags, seeded random bytes, files cut inside a header, an unreadable file, a
//! symlink loop, a FIFO (with no writer, and a live pipe) and `/dev/zero`.

mod util;

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use util::inputs::*;
use util::watchdog::*;

/// Wall-clock bound of one run (debug build). Generous: the slowest honest run here takes a few
/// seconds; a hang is what this catches.
const RUN_SECS: u64 = 30;
/// Resident-memory bound of one run. The inputs are at most 100 MB; nothing may hold gigabytes.
const RUN_RSS_MB: u64 = 768;

const GIB: u64 = 1 << 30;

#[test]
fn gzip_bomb_member_is_passed_over_not_held() {
    let dir = tempfile::tempdir().unwrap();
    // A record claiming 4 GiB whose member inflates to 4 GiB of zeros, between two honest ones:
    // the bomb is counted, the honest records around it are still read.
    let bomb_len = 4 * GIB;
    let mut prefix = warc_head("bomb", &bomb_len.to_string());
    prefix.extend_from_slice(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n");
    let zeros = bomb_len - 44;
    let zeros = zeros - zeros % (1 << 20);
    let path = dir.path().join("bomb.warc.gz");
    let mut f = BufWriter::new(File::create(&path).unwrap());
    f.write_all(&gzip(&warc_page("before", article(1, 300).as_bytes())))
        .unwrap();
    f.write_all(&gzip_bomb(&prefix, zeros)).unwrap();
    f.write_all(&gzip(&warc_page("after", article(2, 300).as_bytes())))
        .unwrap();
    f.into_inner().unwrap().sync_all().unwrap();
    println!(
        "gzip bomb: {:.1} MB compressed, {:.1} GiB inflated",
        std::fs::metadata(&path).unwrap().len() as f64 / 1e6,
        (prefix.len() as u64 + zeros) as f64 / GIB as f64
    );
    let [records, extract, dedup] = run_all("gzip bomb", &path, dir.path(), RUN_SECS, RUN_RSS_MB);
    let total = total_line(&records);
    assert!(count(&total, "errors") >= 1, "the bomb is counted: {total}");
    assert_said(&records, &["too_large", "bomb", "ratio"], &[3]);
    assert!(
        count(&total, "records") >= 2,
        "the honest records before and after the bomb are read: {total}"
    );
    assert_said(&extract, &["too_large", "error"], &[3]);
    assert_said(&dedup, &["too_large", "error"], &[3]);

    // A bare bomb: a file that is one member of 4 GiB zeros (no archive inside).
    let bare = dir.path().join("zeros.gz");
    std::fs::write(&bare, gzip_bomb(b"", 4 * GIB)).unwrap();
    let out = dir.path().join("bare");
    let [records, extract, dedup] = run_all("gzip bomb (bare)", &bare, &out, RUN_SECS, RUN_RSS_MB);
    for r in [&records, &extract, &dedup] {
        assert_said(
            r,
            &["not a WARC", "too_large", "bad_header", "error"],
            &[1, 3],
        );
    }
}

#[test]
fn gzip_bomb_in_http_content_encoding_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    // The HTTP body is `Content-Encoding: gzip` of 2 GiB of zeros (~2 MB on the wire).
    let body = gzip_bomb(b"<html><body><p>", 2 * GIB);
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
    http.extend_from_slice(&body);
    let mut rec = warc_head("coded-bomb", &http.len().to_string());
    rec.extend_from_slice(&http);
    rec.extend_from_slice(b"\r\n\r\n");
    rec.extend_from_slice(&warc_page("after", article(3, 300).as_bytes()));
    let path = dir.path().join("coded.warc");
    std::fs::write(&path, &rec).unwrap();
    let [records, _extract, _dedup] =
        run_all("http gzip bomb", &path, dir.path(), RUN_SECS, RUN_RSS_MB);
    let total = total_line(&records);
    assert_eq!(count(&total, "records"), 2, "{total}");
    // The coded body is either stopped (counted) or decoded within the memory bound; either
    // way the page after it is still a document.
    let rep = report(&dir.path().join("dedup"));
    assert_eq!(rep["records"], 2, "{rep}");
    assert!(rep["documents"].as_u64() >= Some(1), "{rep}");
}

#[test]
fn content_length_of_2_pow_63_and_other_impossible_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>claimed</p>";
    for (name, len) in [
        ("2^63", "9223372036854775808"),
        ("2^64+1", "18446744073709551617"),
        ("2^63-1", "9223372036854775807"),
        ("negative", "-5"),
        ("non-numeric", "lots"),
    ] {
        // The lying record, then an honest one: the lie is counted and reading goes on.
        let mut data = warc_head("liar", len);
        data.extend_from_slice(page);
        data.extend_from_slice(b"\r\n\r\n");
        data.extend_from_slice(&warc_page("honest", article(4, 200).as_bytes()));
        let path = dir
            .path()
            .join(format!("len-{}.warc", name.replace('^', "pow")));
        std::fs::write(&path, &data).unwrap();
        let out = dir.path().join(format!("out-{}", name.replace('^', "pow")));
        let label = format!("Content-Length {name}");
        let [records, extract, dedup] = run_all(&label, &path, &out, RUN_SECS, RUN_RSS_MB);
        let total = total_line(&records);
        assert!(count(&total, "errors") >= 1, "{label}: counted: {total}");
        assert_said(&records, &["errors="], &[3]);
        assert_said(&extract, &["error", "too_large", "missing_length"], &[3]);
        assert_said(&dedup, &["error", "too_large", "missing_length"], &[3]);
        check_and_rewrite(&label, &path, &out);
    }
}

/// `check` names the damage (status 3) and `rewrite` writes what can be read (status 3), both
/// within the watchdog's bounds.
fn check_and_rewrite(label: &str, input: &Path, out: &Path) {
    let os = |s: &str| std::ffi::OsString::from(s);
    let inp = input.as_os_str().to_owned();
    let check = run_wrapped(
        &format!("{label} / check"),
        &[],
        &[os("check"), inp.clone()],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    let rewrite = run_wrapped(
        &format!("{label} / rewrite"),
        &[],
        &[
            os("rewrite"),
            inp,
            os("--out"),
            out.join("rewritten").into_os_string(),
        ],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    for r in [&check, &rewrite] {
        r.assert_clean_end();
    }
    assert_said(&check, &["problems"], &[3]);
    assert_said(&rewrite, &["written as WARC/1.1"], &[3]);
}

/// Writes a WARC file holding one response whose HTML body is one line of `mb` megabytes.
fn long_line_warc(path: &Path, mb: usize) {
    let word = b"lorem ipsum dolor sit amet, consectetur adipiscing elit ";
    let open = b"<html><head><title>One line</title></head><body><p>";
    let close = b"</p></body></html>";
    let reps = (mb << 20) / word.len();
    let http_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    let len = http_head.len() + open.len() + reps * word.len() + close.len();
    let mut f = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    f.write_all(&warc_head("long-line", &len.to_string()))
        .unwrap();
    f.write_all(http_head).unwrap();
    f.write_all(open).unwrap();
    for _ in 0..reps {
        f.write_all(word).unwrap();
    }
    f.write_all(close).unwrap();
    f.write_all(b"\r\n\r\n").unwrap();
    f.write_all(&warc_page("after", article(5, 200).as_bytes()))
        .unwrap();
    f.into_inner().unwrap().sync_all().unwrap();
}

#[test]
fn single_line_page_of_100_mb() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.warc");
    long_line_warc(&path, 100);
    // A 100 MB page is over the extractor's 64 MiB bound: it is a counted `too_large` skip, and
    // the record after it is still read.
    let [records, _extract, dedup] = run_all("100 MB single line", &path, dir.path(), 60, 1024);
    let total = total_line(&records);
    assert_eq!(count(&total, "records"), 2, "{total}");
    let rep = report(&dir.path().join("dedup"));
    assert_eq!(rep["records"], 2, "{rep}");
    assert_eq!(rep["skipped"]["too_large"], 1, "{rep}");
    assert_said(&dedup, &["too_large"], &[0, 3]);
}

#[test]
fn single_line_page_of_20_mb_is_extracted() {
    // Below the extractor's bound the one-line page goes through the extractor itself.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long20.warc");
    long_line_warc(&path, 20);
    let out = dir.path().join("x");
    let [_records, _extract, _dedup] = run_all("20 MB single line", &path, &out, 60, 1024);
    let rep = report(&out.join("dedup"));
    assert_eq!(rep["documents"], 2, "both pages are documents: {rep}");
}

#[test]
fn a_million_nested_tags() {
    let dir = tempfile::tempdir().unwrap();
    let mut html = b"<html><body>".to_vec();
    for _ in 0..1_000_000 {
        html.extend_from_slice(b"<div>");
    }
    html.extend_from_slice(b"deep text");
    for _ in 0..1_000_000 {
        html.extend_from_slice(b"</div>");
    }
    html.extend_from_slice(b"</body></html>");
    let page = dir.path().join("deep.html");
    std::fs::write(&page, &html).unwrap();
    // One HTML page on its own ...
    let r = run_bounded(
        "1,000,000 nested tags / extract --html",
        &["extract".into(), "--html".into(), page.clone().into()],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    r.assert_clean_end();
    assert_eq!(r.code, Some(0), "{}", r.text());
    assert!(r.stdout.contains("deep text"), "{}", tail(&r.stdout));
    // ... and inside an archive (unclosed as well: a million open tags that never close).
    let mut unclosed = b"<html><body>".to_vec();
    for _ in 0..1_000_000 {
        unclosed.extend_from_slice(b"<span><b>");
    }
    let mut data = warc_page("deep", &html);
    data.extend(warc_page("unclosed", &unclosed));
    let path = dir.path().join("deep.warc");
    std::fs::write(&path, &data).unwrap();
    let [records, _, _] = run_all(
        "1,000,000 nested tags",
        &path,
        dir.path(),
        RUN_SECS,
        RUN_RSS_MB,
    );
    assert_eq!(count(&total_line(&records), "records"), 2);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("extract.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines.iter().any(|l| l.to_string().contains("deep text")),
        "the deep page's text is extracted"
    );
}

#[test]
fn random_bytes_seeded() {
    let dir = tempfile::tempdir().unwrap();
    let mut x: u64 = 0x5EED_0FC0_FFEE;
    let mut data = Vec::with_capacity(8 << 20);
    while data.len() < 8 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data.extend_from_slice(&x.to_le_bytes());
    }
    let path = dir.path().join("random.bin");
    std::fs::write(&path, &data).unwrap();
    let rs = run_all("8 MB random bytes", &path, dir.path(), RUN_SECS, RUN_RSS_MB);
    // The only input holds no archive: said as such before anything is written, status 1.
    for r in &rs {
        assert_said(r, &["no archive found in"], &[1]);
    }
    // Random bytes behind a gzip magic and behind a WARC version line go down other paths.
    for (name, prefix) in [
        ("gzip magic", &[0x1f, 0x8b, 8, 0][..]),
        ("WARC line", &b"WARC/1.0\r\n"[..]),
    ] {
        let mut d = prefix.to_vec();
        d.extend_from_slice(&data[..1 << 20]);
        let p = dir
            .path()
            .join(format!("random-{}", name.replace(' ', "-")));
        std::fs::write(&p, &d).unwrap();
        let out = dir.path().join(format!("out-{}", name.replace(' ', "-")));
        let label = format!("random bytes behind a {name}");
        for r in run_all(&label, &p, &out, RUN_SECS, RUN_RSS_MB) {
            // Errors name their byte offset; the summary counts them.
            assert_said(&r, &["byte ", "errors="], &[1, 3]);
        }
        check_and_rewrite(&label, &p, &out);
    }
}

#[test]
fn file_truncated_in_the_middle_of_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let good = warc_page("first", article(6, 200).as_bytes());
    // Plain WARC: a whole record, then a header cut mid-line.
    let mut plain = good.clone();
    let second = warc_page("second", b"<p>x</p>");
    plain.extend_from_slice(&second[..60]);
    let p = dir.path().join("cut.warc");
    std::fs::write(&p, &plain).unwrap();
    let [records, _, _] = run_all(
        "cut in a WARC header",
        &p,
        &dir.path().join("a"),
        RUN_SECS,
        RUN_RSS_MB,
    );
    let total = total_line(&records);
    assert_eq!(count(&total, "records"), 1, "{total}");
    assert_said(&records, &["truncated"], &[3]);
    // Gzip: a whole member, then a member cut inside its WARC header (and one cut inside the gzip
    // header itself).
    for (name, cut) in [
        ("WARC header in a gzip member", None),
        ("gzip header", Some(6)),
    ] {
        let mut gz = gzip(&good);
        let member = gzip(&second);
        match cut {
            Some(n) => gz.extend_from_slice(&member[..n]),
            None => {
                // Inflate-level cut: a member whose deflate stream ends mid-header.
                let mut e =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&second[..60]).unwrap();
                let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
                let raw = e.flush_finish().unwrap();
                m.extend_from_slice(&raw[..raw.len() / 2]);
                gz.extend_from_slice(&m);
            }
        }
        let p = dir.path().join(format!("cut-{}.warc.gz", cut.unwrap_or(0)));
        std::fs::write(&p, &gz).unwrap();
        let out = dir.path().join(format!("gz{}", cut.unwrap_or(0)));
        let label = format!("cut in a {name}");
        let [records, _, _] = run_all(&label, &p, &out, RUN_SECS, RUN_RSS_MB);
        let total = total_line(&records);
        assert_eq!(count(&total, "records"), 1, "{label}: {total}");
        assert_said(&records, &["truncated", "errors="], &[3]);
    }
}

#[test]
fn directory_with_an_unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(
        input.join("a.warc"),
        warc_page("a", article(7, 200).as_bytes()),
    )
    .unwrap();
    let locked = input.join("b.warc");
    std::fs::write(&locked, warc_page("b", article(8, 200).as_bytes())).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut wrap: Vec<OsString> = Vec::new();
    if File::open(&locked).is_ok() {
        // Root reads a mode-000 file anyway: run crawlsift as `nobody` when setpriv can.
        let as_nobody = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ];
        let works = Command::new(as_nobody[0])
            .args(&as_nobody[1..])
            .args(["cat", locked.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| !s.success());
        if !works {
            println!(
                "notice: directory_with_an_unreadable_file skipped: running as root (a mode-000 \
                 file is readable) and setpriv cannot drop to nobody"
            );
            return;
        }
        wrap = as_nobody.iter().map(OsString::from).collect();
        // nobody must reach the input and write the outputs.
        for d in [dir.path(), input.as_path()] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        println!("note: running as root; crawlsift runs as nobody (setpriv) so mode 000 bites");
    }
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).unwrap();
    let [records, extract, dedup] = run_all_wrapped(
        "directory with an unreadable file",
        &wrap,
        &input,
        &out,
        RUN_SECS,
        RUN_RSS_MB,
    );
    for r in [&records, &extract, &dedup] {
        assert_said(r, &["b.warc"], &[1, 3]);
        assert!(r.stderr.contains("ermission"), "{}: {}", r.label, r.stderr);
    }
    // The readable file is still read.
    assert_eq!(count(&total_line(&records), "records"), 1);
    let rep = report(&out.join("dedup"));
    assert_eq!(rep["records"], 1, "{rep}");
}

#[test]
fn symlink_loop_in_an_input_directory() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::write(
        input.join("a.warc"),
        warc_page("a", article(9, 200).as_bytes()),
    )
    .unwrap();
    // A link to an ancestor (a directory cycle) and two links to each other (ELOOP).
    std::os::unix::fs::symlink("..", input.join("sub").join("up")).unwrap();
    std::os::unix::fs::symlink("l2", input.join("l1")).unwrap();
    std::os::unix::fs::symlink("l1", input.join("l2")).unwrap();
    let [records, _, dedup] = run_all("symlink loop", &input, dir.path(), RUN_SECS, RUN_RSS_MB);
    let total = total_line(&records);
    assert_eq!(count(&total, "records"), 1, "a.warc is read once: {total}");
    assert_eq!(records.code, Some(0), "{}", records.text());
    assert_eq!(dedup.code, Some(0), "{}", dedup.text());
    // Named on the command line, the looping link is a clear error.
    let r = run_bounded(
        "symlink loop named / records --summary",
        &[
            "records".into(),
            "--summary".into(),
            input.join("l1").into(),
        ],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    r.assert_clean_end();
    assert_said(&r, &["l1"], &[1, 3]);
}

#[test]
fn fifo_as_input_is_refused_or_read_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.warc");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("notice: fifo_as_input_is_refused_or_read_not_waited_on skipped: mkfifo failed");
        return;
    }
    // Nobody writes to the FIFO: opening it for reading would block for ever. The binary must
    // notice it is not a regular file and say so (or skip it), within the time bound.
    let [records, extract, dedup] = run_all("FIFO (no writer)", &fifo, dir.path(), 10, RUN_RSS_MB);
    for r in [&records, &extract, &dedup] {
        assert_said(r, &["pipe.warc"], &[1, 3]);
    }
    // In a directory, a FIFO is not an input at all.
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(
        input.join("a.warc"),
        warc_page("a", article(10, 200).as_bytes()),
    )
    .unwrap();
    std::fs::rename(&fifo, input.join("b.warc")).unwrap();
    let out = dir.path().join("d");
    let [records, _, _] = run_all("FIFO in a directory", &input, &out, 10, RUN_RSS_MB);
    assert_eq!(count(&total_line(&records), "records"), 1);
}

#[test]
fn pipe_with_a_writer_is_read_as_a_stream() {
    // `crawlsift records <(zcat x.warc.gz)`: the input is a pipe whose writer is alive; it is
    // read to its end like stdin (not refused, not mapped).
    let dir = tempfile::tempdir().unwrap();
    let mut data = warc_page("one", article(11, 200).as_bytes());
    data.extend(warc_page("two", article(12, 200).as_bytes()));
    let path = dir.path().join("two.warc");
    std::fs::write(&path, &data).unwrap();
    let wrap: Vec<OsString> = ["bash", "-c", r#"exec "$0" records --summary <(cat "$1")"#]
        .iter()
        .map(OsString::from)
        .collect();
    let r = run_wrapped(
        "pipe with a writer / records --summary",
        &wrap,
        &[path.into_os_string()],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    r.assert_clean_end();
    assert_eq!(r.code, Some(0), "{}", r.text());
    assert_eq!(count(&total_line(&r), "records"), 2, "{}", r.text());
}

#[test]
fn dev_zero_as_input() {
    // An endless device named as an input: refused or read to a bound, never swallowed whole.
    let dev = Path::new("/dev/zero");
    assert!(dev.exists(), "dev_zero_as_input needs /dev/zero");
    let dir = tempfile::tempdir().unwrap();
    let [records, extract, dedup] = run_all("/dev/zero", dev, dir.path(), RUN_SECS, RUN_RSS_MB);
    for r in [&records, &extract, &dedup] {
        assert_said(r, &["/dev/zero"], &[1, 3]);
    }
    // As standard input, the stream is not an archive: said at byte 0, not read for ever.
    let r = run_bounded(
        "/dev/zero on stdin / records --summary",
        &["records".into(), "--summary".into(), "-".into()],
        Some(dev),
        RUN_SECS,
        RUN_RSS_MB,
    );
    r.assert_clean_end();
    assert_said(&r, &["not a WARC", "bad_header"], &[3]);
}
