//! Every code block of `README.md` and `docs/*.md` runs as written, the way `rustdoc` runs
//! doctests. The fence's language says what happens to a block:
//!
//! - ```` ```console ````: a terminal session. A line starting with `$ ` is a command (a line
//!   ending in ` \` continues on the next); the lines after it, up to the next command, are what
//!   it prints, stdout and stderr together as a terminal shows them. A line that is only `...`
//!   stands for any number of lines, and `...` inside a line for any text within that line (times,
//!   sizes that vary). A last line `[exit N]` says the command ends with status N; without it the
//!   status must be 0. Nothing after a command means it prints nothing.
//! - ```` ```sh ````: a script, run by `bash` with `set -euo pipefail`; it must exit 0. What it
//!   prints is not checked (a `cmp` or `test` in it checks what matters).
//! - ```` ```text ````, ```` ```json ````: shown, never run (synopses, output shapes, commands
//!   that need what a test cannot have, such as `cargo install`).
//! - ```` ```python ````: run by the Python gate (`scripts/ci-gates/python.sh`, with
//!   `scripts/doc_python_blocks.py`), where the package is installed; not here.
//!
//! Any other fence, a bare ```` ``` ```` included, fails the test: a block is runnable or says
//! it is not. The blocks of one file run in order in one fresh folder, where `data/` is the
//! repository's `data/` and the `crawlsift` under test comes first on `PATH`, so later blocks
//! can read what earlier ones wrote.

mod util;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use util::root;

/// How long one command or script may run before the block fails as hung.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(120);

/// What the fence's language makes of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Console,
    Sh,
    Shown,
    Python,
}

/// One fenced block: its file, the line of its opening fence, its kind and its lines.
#[derive(Debug)]
struct Block {
    file: PathBuf,
    line: usize,
    kind: Kind,
    body: Vec<String>,
}

/// The fenced blocks of a Markdown text, or the first fence whose language is not one of the
/// known ones (`line: language`).
fn blocks(file: &Path, text: &str) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Option<Kind>, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        match open.take() {
            None if fence => {
                let marker = &trimmed[..3];
                let info = trimmed.trim_start_matches(&marker[..1]).trim();
                let lang = info
                    .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                    .next()
                    .unwrap_or("");
                let kind = match lang {
                    "console" => Some(Kind::Console),
                    "sh" => Some(Kind::Sh),
                    "text" | "json" => Some(Kind::Shown),
                    "python" => Some(Kind::Python),
                    _ => None,
                };
                if kind.is_none() {
                    return Err(format!(
                        "{}:{}: a block marked {lang:?}: mark it `console` or `sh` (run) or \
                         `text` (shown, not run)",
                        file.display(),
                        i + 1
                    ));
                }
                open = Some((i + 1, marker.to_string(), kind, Vec::new()));
            }
            None => {}
            Some((start, marker, kind, body)) => {
                if trimmed.starts_with(marker.as_str()) && trimmed.trim_end() == marker {
                    out.push(Block {
                        file: file.to_path_buf(),
                        line: start,
                        kind: kind.expect("checked above"),
                        body,
                    });
                } else {
                    let mut body = body;
                    body.push(line.to_string());
                    open = Some((start, marker, kind, body));
                }
            }
        }
    }
    if let Some((start, ..)) = open {
        return Err(format!("{}:{start}: a block never closed", file.display()));
    }
    Ok(out)
}

/// One command of a console block and what it must print and return.
#[derive(Debug)]
struct Step {
    command: String,
    expected: Vec<String>,
    status: i32,
}

/// The commands of a console block (lines before the first `$ ` are an error).
fn steps(block: &Block) -> Result<Vec<Step>, String> {
    let mut out: Vec<Step> = Vec::new();
    let mut lines = block.body.iter();
    while let Some(line) = lines.next() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut command = cmd.to_string();
            while command.ends_with(" \\") {
                command.truncate(command.len() - 1);
                match lines.next() {
                    Some(more) => command.push_str(more.trim_start()),
                    None => break,
                }
            }
            out.push(Step {
                command,
                expected: Vec::new(),
                status: 0,
            });
        } else {
            let Some(step) = out.last_mut() else {
                return Err(format!(
                    "{}:{}: a console block must start with a `$ ` command line",
                    block.file.display(),
                    block.line
                ));
            };
            step.expected.push(line.clone());
        }
    }
    for step in &mut out {
        if let Some(last) = step.expected.last() {
            if let Some(n) = last
                .strip_prefix("[exit ")
                .and_then(|r| r.strip_suffix(']'))
            {
                step.status = n.trim().parse().map_err(|_| {
                    format!(
                        "{}:{}: bad status line {last:?}",
                        block.file.display(),
                        block.line
                    )
                })?;
                step.expected.pop();
            }
        }
    }
    Ok(out)
}

/// Whether `line` matches the expected line `pattern`, where each `...` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("...").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &line[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the printed `lines` match the `expected` ones, where a line `...` stands for any
/// number of lines (none included).
fn output_matches(expected: &[String], lines: &[&str]) -> bool {
    match expected.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p.trim() == "..." => {
            (0..=lines.len()).any(|skip| output_matches(rest, &lines[skip..]))
        }
        Some((p, rest)) => match lines.split_first() {
            Some((l, more)) => line_matches(p, l) && output_matches(rest, more),
            None => false,
        },
    }
}

/// Runs `script` with bash in `dir` (stderr joined to stdout, `crawlsift` first on `PATH`) and
/// returns its exit status and output, or an error if it runs past [`BLOCK_TIMEOUT`].
fn run(dir: &Path, script: &str) -> Result<(i32, String), String> {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_crawlsift"));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.parent().expect("binary folder").to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("bash: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > BLOCK_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {BLOCK_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = reader.join().expect("reader thread");
    Ok((
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out).into_owned(),
    ))
}

/// Runs one block in `dir`; the error says where and what differed.
fn check(block: &Block, dir: &Path) -> Result<(), String> {
    let at = format!("{}:{}", block.file.display(), block.line);
    match block.kind {
        Kind::Shown | Kind::Python => Ok(()),
        Kind::Sh => {
            let script = format!("set -euo pipefail\n{}", block.body.join("\n"));
            let (status, out) = run(dir, &script).map_err(|e| format!("{at}: {e}"))?;
            if status == 0 {
                Ok(())
            } else {
                Err(format!(
                    "{at}: the sh block exited {status}; it printed:\n{out}"
                ))
            }
        }
        Kind::Console => {
            for step in steps(block)? {
                let (status, out) = run(dir, &step.command)
                    .map_err(|e| format!("{at}: `{}`: {e}", step.command))?;
                let lines: Vec<&str> = out.lines().collect();
                if status != step.status || !output_matches(&step.expected, &lines) {
                    let what = if status == step.status {
                        "its output differs"
                    } else {
                        "its exit status differs"
                    };
                    return Err(format!(
                        "{at}: `{}`: {what}: it exited {status} (expected {}) and printed:\n\
                         {out}\nexpected:\n{}",
                        step.command,
                        step.status,
                        step.expected.join("\n")
                    ));
                }
            }
            Ok(())
        }
    }
}

/// README.md and every `docs/*.md`, in name order.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect()
        })
        .unwrap_or_default();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// Runs every file's blocks in a folder of its own and returns every failure.
fn run_documents(files: &[PathBuf]) -> Vec<String> {
    let root = root();
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("read a document");
        let rel = file.strip_prefix(&root).unwrap_or(file);
        let blocks = match blocks(rel, &text) {
            Ok(b) => b,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let dir = tempfile::tempdir().expect("temporary folder");
        std::os::unix::fs::symlink(root.join("data"), dir.path().join("data")).expect("link data");
        for block in &blocks {
            if let Err(e) = check(block, dir.path()) {
                failures.push(e);
            }
        }
    }
    failures
}

#[test]
fn every_block_of_the_readme_and_docs_runs_as_written() {
    let files = documents();
    let failures = run_documents(&files);
    assert!(
        failures.is_empty(),
        "{} block(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The test can fail: a wrong output, a wrong status, a failing script and an unmarked block
/// are each caught.
#[test]
fn a_broken_block_fails() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let good = write(
        "good.md",
        "```console\n$ crawlsift dedup --threads 0 --out o data/sample.warc.gz\n...\n[exit 2]\n\
         $ echo a b \\\n  c\na ... c\n```\n```sh\ntest -s data/sample.warc.gz\n```\n\
         ```text\nnot run at all\n```\n",
    );
    assert_eq!(run_documents(&[good]), Vec::<String>::new());
    let cases = [
        ("wrong output", "```console\n$ echo hello\nhallo\n```\n"),
        (
            "extra output",
            "```console\n$ echo hello; echo more\nhello\n```\n",
        ),
        (
            "wrong status",
            "```console\n$ crawlsift records --summary nothing-here\n...\n```\n",
        ),
        (
            "failing script",
            "```sh\ncrawlsift records --no-such-flag\n```\n",
        ),
        (
            "unmarked block",
            "```\ncrawlsift records data/sample.warc.gz\n```\n",
        ),
        (
            "bash block",
            "```bash\ncrawlsift records data/sample.warc.gz\n```\n",
        ),
    ];
    for (name, text) in cases {
        let file = write(&format!("{}.md", name.replace(' ', "_")), text);
        assert_eq!(run_documents(&[file]).len(), 1, "{name} was not caught");
    }
}

#[test]
fn wildcards_match_what_they_should_and_no_more() {
    assert!(line_matches("in ... s; 2 clusters", "in 0.1 s; 2 clusters"));
    assert!(!line_matches(
        "in ... s; 2 clusters",
        "in 0.1 s; 3 clusters"
    ));
    assert!(line_matches("a...b...c", "abc"));
    assert!(!line_matches("ab...ba", "aba"));
    let exp = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(output_matches(&exp(&["a", "...", "z"]), &["a", "z"]));
    assert!(output_matches(
        &exp(&["a", "...", "z"]),
        &["a", "b", "c", "z"]
    ));
    assert!(!output_matches(&exp(&["a", "...", "z"]), &["a", "b"]));
    assert!(!output_matches(&exp(&["a"]), &[]));
}
