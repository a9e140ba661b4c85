//! `report.html` in a real browser: headless Chromium opens the report of the seed-7 TREC
//! corpus, takes a screenshot, and the test checks the picture is not blank and the console
//! logged no error (the page has no script: JavaScript is not needed to read it).

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;

use util::{crawlsift_ok, makecorpus, needs_shared};

/// The Chromium binary (`.ci/run` installs Debian's `chromium` when it is missing).
fn chromium() -> PathBuf {
    ["chromium", "chromium-browser"]
        .iter()
        .filter_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
        .next()
        .expect("this test needs chromium (apt-get install -y chromium)")
}

/// Opens `page` in headless Chromium, saves a screenshot to `png`, returns its stderr log.
fn screenshot(page: &Path, png: &Path, profile: &Path) -> String {
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    assert!(out.status.success(), "chromium failed: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Distinct colours and the share of pixels that are not white, of a PNG.
fn picture(png: &Path) -> (usize, f64) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut inked = 0usize;
    for p in pixels.chunks(px) {
        colours.insert(p[..3.min(px)].to_vec());
        inked += usize::from(p[..3.min(px)].iter().any(|&c| c < 240));
    }
    (colours.len(), inked as f64 / (pixels.len() / px) as f64)
}

/// The report without its first paragraph (tool, command line and times, which differ by run).
fn without_run_line(html: &str) -> String {
    let start = html.find("<p class=meta>").expect("the run line");
    let end = start + html[start..].find("</p>").unwrap();
    format!("{}{}", &html[..start], &html[end..])
}

#[test]
#[ignore = "needs ../shared"]
fn report_html_of_the_seed_7_corpus_renders_in_chromium_without_errors() {
    let shared = needs_shared();
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    makecorpus(
        &shared,
        &corpus,
        &["--docs", "500", "--seed", "7", "--format", "trec"],
    );
    // The archives only: the labels beside them (truth.jsonl, manifest.json) are no archives
    // and would make the run end with status 3.
    let mut archives: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            )
        })
        .map(|p| p.display().to_string())
        .collect();
    archives.sort();
    assert!(!archives.is_empty(), "makecorpus wrote no archive");
    let (one, two) = (dir.path().join("j1"), dir.path().join("j2"));
    for (out, j) in [(&one, "1"), (&two, "2")] {
        let mut args: Vec<&str> = vec!["dedup"];
        args.extend(archives.iter().map(String::as_str));
        args.extend(["--out", out.to_str().unwrap(), "-q", "-j", j]);
        crawlsift_ok(&args, 0);
    }
    let page = one.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // The same bytes whatever the thread count (but for the run line).
    let html2 = std::fs::read_to_string(two.join("report.html")).unwrap();
    assert_eq!(without_run_line(&html), without_run_line(&html2));
    // Self-contained: charts inline, nothing fetched, no script.
    assert!(html.matches("<svg").count() >= 5, "five charts");
    for banned in ["<script", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(banned), "report.html holds {banned}");
    }
    assert!(html.contains("Largest clusters") && html.contains("<ins>"));
    let png = dir.path().join("report.png");
    let log = screenshot(&page, &png, &dir.path().join("profile"));
    for error in ["Uncaught", ":CONSOLE"] {
        assert!(
            !log.contains(error),
            "console error in chromium's log:\n{log}"
        );
    }
    let (colours, inked) = picture(&png);
    assert!(colours > 16, "a blank screenshot: {colours} colours");
    assert!(
        inked > 0.05,
        "a blank screenshot: {inked:.3} of pixels inked"
    );
}
