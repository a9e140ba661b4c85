//! `report.html` in a real browser: headless Chromium opens the report of the seed-7 WARC
//! corpus, takes a screenshot (kept as `docs/report.png`, the README's picture), and the test
//! checks the picture is not blank and the console logged no error (the page has no script:
//! JavaScript is not needed to read it). The page itself is checked for what a reader needs at
//! a glance: the headline duplicate rate, log-scale bars, exact copies apart from
//! near-duplicates, no records that are not pages in the skip chart, the command as typed. The
//! report of a corpus gzipped whole shows each cluster's own texts, read back at their places.

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;

use util::{json_lines, makecorpus, needs_shared, root};

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

/// Runs crawlsift in `dir` (so paths are relative, as a user types them), asserting status 0.
fn crawlsift_in(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running crawlsift");
    assert_eq!(
        out.status.code(),
        Some(0),
        "crawlsift {args:?}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes a corpus with `makecorpus.py ARGS` in `dir/corpus` and gives its archives, sorted, by
/// the relative paths a user types: the labels beside them (truth.jsonl, manifest.json) are no
/// archives and would make a run end with status 3.
fn corpus_in(dir: &Path, args: &[&str]) -> Vec<String> {
    let corpus = dir.join("corpus");
    makecorpus(&needs_shared(), &corpus, args);
    let mut archives: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".json") && !name.ends_with(".jsonl"))
        .map(|name| format!("corpus/{name}"))
        .collect();
    archives.sort();
    assert!(!archives.is_empty(), "makecorpus wrote no archive");
    archives
}

/// The SVG of the chart titled `title`.
fn chart<'a>(html: &'a str, title: &str) -> &'a str {
    let start = html
        .find(&format!("<title>{title}</title>"))
        .unwrap_or_else(|| panic!("no chart {title}"));
    &html[start..start + html[start..].find("</svg>").unwrap()]
}

/// `(fill, count)` of each bar of a column chart (a bar is a `rect`, its count the text after).
fn column_bars(svg: &str) -> Vec<(String, u64)> {
    svg.split("<rect ")
        .skip(1)
        .map(|bar| {
            let fill = bar.split("fill='").nth(1).unwrap();
            let fill = fill[..fill.find('\'').unwrap()].to_string();
            let text = &bar[bar.find("<text").unwrap()..];
            let count = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
            (fill, count.parse().unwrap())
        })
        .collect()
}

#[test]
#[ignore = "needs ../shared"]
fn report_html_of_the_seed_7_corpus_renders_in_chromium_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    // WARC, so the run meets request, metadata, warcinfo and revisit records as real crawls do.
    let archives = corpus_in(
        dir.path(),
        &["--docs", "500", "--seed", "7", "--format", "warc-gz"],
    );
    for (out, j) in [("j1", "1"), ("j2", "2")] {
        let mut args: Vec<&str> = vec!["dedup"];
        args.extend(archives.iter().map(String::as_str));
        args.extend(["--out", out, "-q", "-j", j]);
        crawlsift_in(dir.path(), &args);
    }
    let one = dir.path().join("j1");
    let page = one.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // The same bytes whatever the thread count (but for the run line).
    let html2 = std::fs::read_to_string(dir.path().join("j2/report.html")).unwrap();
    assert_eq!(without_run_line(&html), without_run_line(&html2));
    // Self-contained: charts inline, nothing fetched, no script.
    assert!(html.matches("<svg").count() >= 5, "five charts");
    for banned in ["<script", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(banned), "report.html holds {banned}");
    }
    assert!(html.contains("Largest clusters") && html.contains("<ins>"));
    // The run line: the program by its name and the paths as typed, no absolute path.
    let run = &html[html.find("<p class=meta>").unwrap()..];
    let run = &run[..run.find("</p>").unwrap()];
    assert!(
        run.contains(&format!(
            "&middot; crawlsift dedup {} --out j1",
            archives[0]
        )),
        "{run}"
    );
    assert!(!run.contains(&dir.path().display().to_string()), "{run}");
    // The headline: exact and near in % of documents, as report.json counts them.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("report.json")).unwrap()).unwrap();
    let documents = report["documents"].as_u64().unwrap();
    let exact = report["duplicates"]["exact"].as_u64().unwrap();
    let near = report["duplicates"]["near"].as_u64().unwrap();
    assert!(exact > 0 && near > 0, "the corpus has both kinds");
    let pct = |n: u64| format!("{:.1}%", n as f64 / documents as f64 * 100.0);
    let headline = &html[html.find("<p class=headline>").expect("a headline")..];
    let headline = &headline[..headline.find("</p>").unwrap()];
    for part in [
        format!("<b>{}</b> of documents are duplicates", pct(exact + near)),
        format!("<b class=exact>{}</b> exact copies", pct(exact)),
        format!("<b class=near>{}</b> near-duplicates", pct(near)),
    ] {
        assert!(headline.contains(&part), "{part} not in {headline}");
    }
    // Bars on a log scale, and the charts say so.
    assert!(html.matches("(log scale)").count() >= 4);
    // Exact copies apart from the near-duplicates: their own bar, their own colour, and the
    // counts of each kind add up to report.json's.
    let bars = column_bars(chart(
        &html,
        "Similarity of duplicates to their representative",
    ));
    let sum = |exact_bar: bool| -> u64 {
        bars.iter()
            .filter(|(fill, _)| (fill == "#d35400") == exact_bar)
            .map(|b| b.1)
            .sum()
    };
    assert_eq!(bars.iter().filter(|(f, _)| f == "#d35400").count(), 1);
    assert_eq!((sum(true), sum(false)), (exact, near), "{bars:?}");
    // Records that are not pages: not in the skip chart, in the table.
    let skipped = report["skipped"].as_object().unwrap();
    assert!(skipped["record_type"].as_u64().unwrap() > 0);
    let skips = chart(&html, "Pages skipped and record errors, by kind");
    assert!(!skips.contains("record_type") && skips.contains("skip: http_status"));
    for (reason, n) in skipped {
        assert!(
            html.contains(&format!("<td class=l>{reason}</td><td>{n}</td>")),
            "{reason} {n} not in the table"
        );
    }
    // The largest clusters name their records by the inputs as typed.
    assert!(html.contains("representative: corpus/"));
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
    // The README's picture of the report, fresh from this run.
    std::fs::copy(&png, root().join("docs").join("report.png")).unwrap();
}

/// The words of one side of a cluster's pair on the page: tags dropped, entities read back.
fn side_words(html: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => plain.push(c),
            _ => {}
        }
    }
    let plain = plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    plain.split_whitespace().map(str::to_string).collect()
}

#[test]
fn report_html_of_a_file_gzipped_whole_shows_each_clusters_own_text() {
    // Every record of a `.trec.gz` gzipped whole shares the member at offset 0: each side of each
    // "Largest clusters" pair must be its own document's text (read back at its decompressed
    // byte), not the file's first document, and the page renders without an error.
    let dir = tempfile::tempdir().unwrap();
    let archives = corpus_in(
        dir.path(),
        &["--docs", "300", "--seed", "7", "--format", "trec-gz"],
    );
    let archive = archives
        .iter()
        .find(|n| n.ends_with(".trec.gz"))
        .expect("a .trec.gz");
    crawlsift_in(dir.path(), &["dedup", archive, "--out", "o", "-q"]);
    // Every document's own text, as dedup extracts it (`blocks`), by its place.
    let extracted = Command::new(env!("CARGO_BIN_EXE_crawlsift"))
        .args(["extract", archive, "--method", "blocks"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(extracted.status.code(), Some(0));
    let rows = dir.path().join("texts.jsonl");
    std::fs::write(&rows, &extracted.stdout).unwrap();
    let texts: std::collections::HashMap<(u64, u64), String> = json_lines(&rows)
        .into_iter()
        .map(|r| {
            let at = (
                r["offset"].as_u64().unwrap(),
                r.get("uoffset").map_or(0, |u| u.as_u64().unwrap()),
            );
            (at, r["text"].as_str().unwrap().to_string())
        })
        .collect();
    let page = dir.path().join("o/report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let mut seen = std::collections::HashSet::new();
    for side in html.split("<div class=side><div class=label>").skip(1) {
        let label = &side[..side.find("</div>").unwrap()];
        let at = label.split(" @").nth(1).unwrap();
        let offset: u64 = at.split([' ', '(']).next().unwrap().parse().unwrap();
        let uoffset: u64 = match at.find("(decompressed byte ") {
            Some(i) => {
                let rest = &at[i + "(decompressed byte ".len()..];
                rest[..rest.find(')').unwrap()].parse().unwrap()
            }
            None => 0,
        };
        let body = &side[side.find("<div class=text>").unwrap() + "<div class=text>".len()..];
        let shown = side_words(&body[..body.find("</div>").unwrap()]);
        let own: Vec<String> = texts[&(offset, uoffset)]
            .split_whitespace()
            .map(str::to_string)
            .collect();
        assert!(shown.len() > 20, "{label}: {} words shown", shown.len());
        let n = shown.len().min(own.len());
        assert_eq!(shown[..n], own[..n], "{label}: another document's text");
        seen.insert(uoffset);
    }
    assert!(seen.len() >= 6, "sides from distinct places: {seen:?}");
    assert!(seen.iter().filter(|&&u| u > 0).count() >= 5, "{seen:?}");
    let log = screenshot(
        &page,
        &dir.path().join("whole.png"),
        &dir.path().join("profile"),
    );
    for error in ["Uncaught", ":CONSOLE"] {
        assert!(
            !log.contains(error),
            "console error in chromium's log:\n{log}"
        );
    }
}
