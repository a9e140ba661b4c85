//! The watchdog of the end-to-end hostile-input tests (`tests/hostile.rs`, `tests/bombs.rs`):
//! runs the real `crawlsift` binary bounded in time and resident memory, on a file, on standard
//! input, or on a pipe. The inputs they share are made by `util/inputs.rs`.
//!
//! The watchdog polls `/proc/<pid>/status` every few milliseconds: a child whose resident set
//! passes its bound is killed (an unbounded allocation fails the test instead of exhausting the
//! machine), and so is one still running at its deadline (a hang). Each run prints its time and
//! peak resident memory (`VmHWM`); `-- --nocapture` collects them.

#![allow(dead_code)]

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How often the watchdog samples the child.
pub const POLL: Duration = Duration::from_millis(4);

/// How one bounded run ended.
pub struct Ran {
    pub label: String,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub secs: f64,
    pub peak_mb: f64,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// Ended by itself with 0 (clean), 1 (fatal) or 3 (finished, but some input was not an
    /// archive or had errors), without a panic message. (2 is a usage error: no hostile input may
    /// pass for one.)
    pub fn assert_clean_end(&self) {
        assert!(
            matches!(self.code, Some(0 | 1 | 3)) && self.signal.is_none(),
            "{}: exit {:?} signal {:?}\nstdout: {}\nstderr: {}",
            self.label,
            self.code,
            self.signal,
            tail(&self.stdout),
            tail(&self.stderr)
        );
        assert!(
            !self.stderr.contains("panicked"),
            "{}: panicked: {}",
            self.label,
            tail(&self.stderr)
        );
    }
}

pub fn tail(s: &str) -> &str {
    let n = s.len().saturating_sub(3000);
    let mut i = n;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// `VmHWM` (peak resident set) and `VmRSS` of a live process, in kB, once it runs crawlsift
/// (before `exec` the child still shows the test process's memory).
pub fn mem_kb(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<&str> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)
    };
    if field("Name:")? != "crawlsift" {
        return None;
    }
    Some((
        field("VmHWM:")?.parse().ok()?,
        field("VmRSS:")?.parse().ok()?,
    ))
}

/// Runs crawlsift with `args` (stdin from `stdin`, or empty) under the watchdog: killed after
/// `secs` seconds or once its resident set passes `rss_mb`; either fails the test.
pub fn run_bounded(
    label: &str,
    args: &[OsString],
    stdin: Option<&Path>,
    secs: u64,
    rss_mb: u64,
) -> Ran {
    run_wrapped(label, &[], args, stdin, secs, rss_mb)
}

/// [`run_bounded`], with crawlsift started through `wrap` (a command that `exec`s its
/// arguments, such as `setpriv ...`), so the watched process is crawlsift itself.
pub fn run_wrapped(
    label: &str,
    wrap: &[OsString],
    args: &[OsString],
    stdin: Option<&Path>,
    secs: u64,
    rss_mb: u64,
) -> Ran {
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("stdout");
    let err_path = out_dir.path().join("stderr");
    let bin = OsString::from(env!("CARGO_BIN_EXE_crawlsift"));
    let mut cmd = match wrap.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    cmd.args(args)
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap());
    match stdin {
        Some(p) => cmd.stdin(File::open(p).unwrap()),
        None => cmd.stdin(Stdio::null()),
    };
    let started = Instant::now();
    let mut child = cmd.spawn().expect("running crawlsift");
    let pid = child.id();
    let mut peak_kb = 0u64;
    let mut killed = None;
    let status = loop {
        if let Some((hwm, rss)) = mem_kb(pid) {
            peak_kb = peak_kb.max(hwm);
            if rss > rss_mb * 1024 && killed.is_none() {
                killed = Some(format!(
                    "resident memory {} MB > bound {rss_mb} MB",
                    rss / 1024
                ));
                let _ = child.kill();
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if started.elapsed() > Duration::from_secs(secs) && killed.is_none() {
            killed = Some(format!("still running after {secs} s (hang)"));
            let _ = child.kill();
        }
        // Sample densely at first: most runs here end within milliseconds.
        if started.elapsed() > Duration::from_millis(100) {
            std::thread::sleep(POLL);
        } else {
            std::thread::yield_now();
        }
    };
    let ran = Ran {
        label: label.to_string(),
        code: status.code(),
        signal: status.signal(),
        secs: started.elapsed().as_secs_f64(),
        peak_mb: peak_kb as f64 / 1024.0,
        stdout: String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned(),
    };
    let peak = if peak_kb == 0 {
        "peak RSS not sampled (ended first)".to_string()
    } else {
        format!("peak RSS {:.1} MB", ran.peak_mb)
    };
    println!(
        "bounded run {label}: exit {:?}{} in {:.2} s, {peak}",
        ran.code,
        ran.signal
            .map(|s| format!(" signal {s}"))
            .unwrap_or_default(),
        ran.secs,
    );
    if let Some(why) = killed {
        panic!(
            "{label}: killed by the watchdog: {why}\nstderr: {}",
            tail(&ran.stderr)
        );
    }
    ran
}

/// The three commands a user runs on an input, each under the watchdog; returns
/// (records --summary, extract, dedup) in that order. `extract` writes `out/extract.jsonl`,
/// `dedup` writes into `out/dedup/`.
pub fn run_all(label: &str, input: &Path, out: &Path, secs: u64, rss_mb: u64) -> [Ran; 3] {
    run_all_wrapped(label, &[], input, out, secs, rss_mb)
}

/// [`run_all`] through a `wrap` command (see [`run_wrapped`]).
pub fn run_all_wrapped(
    label: &str,
    wrap: &[OsString],
    input: &Path,
    out: &Path,
    secs: u64,
    rss_mb: u64,
) -> [Ran; 3] {
    std::fs::create_dir_all(out).unwrap();
    let os = |s: &str| OsString::from(s);
    let inp = input.as_os_str().to_owned();
    let ex_out = out.join("extract.jsonl").into_os_string();
    let dd_out = out.join("dedup").into_os_string();
    let records = run_wrapped(
        &format!("{label} / records --summary"),
        wrap,
        &[os("records"), os("--summary"), inp.clone()],
        None,
        secs,
        rss_mb,
    );
    let extract = run_wrapped(
        &format!("{label} / extract"),
        wrap,
        &[os("extract"), inp.clone(), os("-o"), ex_out],
        None,
        secs,
        rss_mb,
    );
    let dedup = run_wrapped(
        &format!("{label} / dedup --out"),
        wrap,
        &[os("dedup"), os("--out"), dd_out.clone(), inp],
        None,
        secs,
        rss_mb,
    );
    for r in [&records, &extract, &dedup] {
        r.assert_clean_end();
    }
    // What dedup counted is in its report too.
    let mut dedup = dedup;
    if let Ok(rep) = std::fs::read_to_string(Path::new(&dd_out).join("report.json")) {
        dedup.stdout.push_str(&rep);
    }
    [records, extract, dedup]
}

/// The `TOTAL:` line of `records --summary`.
pub fn total_line(r: &Ran) -> String {
    r.stdout
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .unwrap_or_else(|| panic!("{}: no TOTAL line: {}", r.label, r.text()))
        .to_string()
}

/// A `key=N` count of a summary line.
pub fn count(line: &str, key: &str) -> u64 {
    let pat = format!("{key}=");
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&pat))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
}

/// Asserts the damage was said: an error or counted skip somewhere in the run's output,
/// naming one of `words`, and exit status `codes`.
pub fn assert_said(r: &Ran, words: &[&str], codes: &[i32]) {
    let text = r.text();
    assert!(
        words.iter().any(|w| text.contains(w)),
        "{}: expected one of {words:?} in the output:\n{}",
        r.label,
        tail(&text)
    );
    assert!(
        r.code.is_some_and(|c| codes.contains(&c)),
        "{}: exit {:?}, expected one of {codes:?}\n{}",
        r.label,
        r.code,
        tail(&text)
    );
}

/// `report.json` of a dedup run into `dir`.
pub fn report(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// [`run_bounded`] with `input` fed through a pipe (`cat input |`), so crawlsift reads a real
/// pipe, not a file, on its standard input; `args` name it `-`.
pub fn run_piped(label: &str, input: &Path, args: &[OsString], secs: u64, rss_mb: u64) -> Ran {
    let wrap: Vec<OsString> = ["bash", "-c", r#"f=$1; shift; exec "$0" "$@" < <(cat "$f")"#]
        .iter()
        .map(OsString::from)
        .collect();
    let mut all = vec![input.as_os_str().to_owned()];
    all.extend_from_slice(args);
    run_wrapped(label, &wrap, &all, None, secs, rss_mb)
}
