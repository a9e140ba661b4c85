//! `crawlsift dedup --phrases` (issue 18): the circle of phrases, greedy covering sets against
//! brute force, pages stitched from many sources found and named, site template text and pages
//! borrowing from one article not flagged, and the same outputs for any thread count;
//! `--drop-popular-phrases` keeping a repeated sentence in its first kept document only.

mod util;

use std::collections::BTreeSet;
use std::path::Path;

use crawlsift_phrases::{greedy_cover, SketchConfig, Sketcher};
use proptest::prelude::*;
use util::*;

/// Word `j` of source article `s`: every source has words of its own, so two sources share no
/// phrase by chance.
fn word(s: usize, j: usize) -> String {
    format!("src{s}word{j}")
}

/// Sentence `i` (12 words) of source `s`.
fn sentence(s: usize, i: usize) -> String {
    (0..12)
        .map(|j| word(s, i * 12 + j))
        .collect::<Vec<_>>()
        .join(" ")
        + "."
}

/// A WARC response record of an HTML page at `url`.
fn record(id: usize, url: &str, body: &str) -> Vec<u8> {
    let html = format!(
        "<html><head><title>Page {id}</title></head><body><article>{body}</article></body></html>"
    );
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:page-{id}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

/// Paragraphs of sentences.
fn paragraphs(sentences: &[String]) -> String {
    sentences
        .chunks(3)
        .map(|c| format!("<p>{}</p>", c.join(" ")))
        .collect()
}

/// The test crawl: 32 source articles (12 sentences each, one host each); pages 100-103 stitched
/// from two sentences of each of 8 sources (each source quoted once); page 200 borrowing half of source 0; pages 300-307 on
/// one site, each with words of its own, the same three template sentences and a link block
/// shared with each of six other pages of the site.
fn crawl(path: &Path) {
    let mut warc = Vec::new();
    for s in 0..32 {
        let body: Vec<String> = (0..12).map(|i| sentence(s, i)).collect();
        let url = format!("https://news{s}.example/article");
        warc.extend(record(s, &url, &paragraphs(&body)));
    }
    for p in 0..4 {
        let body: Vec<String> = (0..8)
            .flat_map(|k| {
                let s = p * 8 + k;
                [sentence(s, 2 * p), sentence(s, 2 * p + 1)]
            })
            .collect();
        let url = format!("https://spam{p}.example/best-offers");
        warc.extend(record(100 + p, &url, &paragraphs(&body)));
    }
    let mut near: Vec<String> = (0..6).map(|i| sentence(0, i)).collect();
    near.extend((0..6).map(|i| sentence(50, i)));
    warc.extend(record(
        200,
        "https://blog.example/quote",
        &paragraphs(&near),
    ));
    let template: Vec<String> = (0..3).map(|i| sentence(90, i)).collect();
    for p in 0..8 {
        let mut body: Vec<String> = (0..10).map(|i| sentence(60 + p, i)).collect();
        body.extend(template.iter().cloned());
        // Links to the site's neighbouring pages: a block shared with each of six other pages,
        // as many sources as a stitched page has, all on the page's own site.
        for d in [1, 2, 3, 5, 6, 7] {
            let (a, b) = (p.min((p + d) % 8), p.max((p + d) % 8));
            body.push(sentence(100 + a * 8 + b, 0));
        }
        let url = format!("https://site.example/page{p}");
        warc.extend(record(300 + p, &url, &paragraphs(&body)));
    }
    std::fs::write(path, warc).unwrap();
}

fn ids(lines: &[serde_json::Value]) -> BTreeSet<String> {
    lines
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn stitched_pages_are_found_with_their_sources_and_nothing_else_is() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    crawl(&input);
    let run = |threads: &str| {
        let out = dir.path().join(format!("out{threads}"));
        crawlsift_ok(
            &[
                "dedup",
                input.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--phrases",
                "--threads",
                threads,
                "--quiet",
            ],
            0,
        );
        out
    };
    let one = run("1");
    let flagged = json_lines(&one.join("slice_and_dice.jsonl"));
    let want: BTreeSet<String> = (100..104).map(|p| format!("<urn:uuid:page-{p}>")).collect();
    // The quoting page (200) and the site's pages (300-307, sharing template paragraphs) are
    // not stitched; neither are the sources, though stitched pages share their sentences.
    assert_eq!(ids(&flagged), want);
    for line in &flagged {
        let p: usize = line["id"].as_str().unwrap()[15..18].parse().unwrap();
        let named: BTreeSet<String> = line["covering_set"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect();
        let truth: BTreeSet<String> = (0..8)
            .map(|k| format!("<urn:uuid:page-{}>", (p - 100) * 8 + k))
            .collect();
        assert_eq!(named, truth, "{line}");
        assert!(line["popular_shingles"].as_u64().unwrap() > 0);
        assert!(line["shingles"].as_u64() >= line["popular_shingles"].as_u64());
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("report.json")).unwrap()).unwrap();
    let phrases = &report["phrases"];
    assert_eq!(phrases["slice_and_dice_pages"], 4);
    assert_eq!(phrases["chance_model"]["threshold_classes"], 2);
    assert!(
        phrases["template_phrases"].as_u64().unwrap() > 0,
        "{phrases}"
    );
    assert_eq!(phrases["hosts"].as_array().unwrap().len(), 4);
    let popular = json_lines(&one.join("popular_phrases.jsonl"));
    assert!(!popular.is_empty());
    let classes: Vec<u64> = popular
        .iter()
        .map(|l| l["classes"].as_u64().unwrap())
        .collect();
    assert!(
        classes.windows(2).all(|w| w[0] >= w[1]),
        "most popular first"
    );
    // The site's template paragraphs are its most popular phrases: 8 classes, one host.
    assert_eq!(classes[0], 8);
    assert_eq!(popular[0]["template"], true);

    // The same bytes for any thread count.
    let three = run("3");
    for f in ["slice_and_dice.jsonl", "popular_phrases.jsonl"] {
        assert_eq!(
            std::fs::read(one.join(f)).unwrap(),
            std::fs::read(three.join(f)).unwrap(),
            "{f}"
        );
    }
    let report3: serde_json::Value =
        serde_json::from_slice(&std::fs::read(three.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["phrases"], report3["phrases"]);
}

/// The text of each clean-corpus line, by record id.
fn texts(path: &Path) -> std::collections::BTreeMap<String, String> {
    json_lines(path)
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_string(),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn drop_popular_phrases_keeps_each_repeated_sentence_in_its_first_document_only() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    crawl(&input);
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let text = dir.path().join(format!("{name}.jsonl.gz"));
        let mut args = vec![
            "dedup",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--text",
            text.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        crawlsift_ok(&args, 0);
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        (text, report)
    };
    let (plain, plain_report) = run("plain", &[]);
    assert!(plain_report.get("drop_popular_phrases").is_none());
    let (one, report) = run("one", &["--drop-popular-phrases", "--threads", "1"]);
    let before = texts(&plain);
    let after = texts(&one);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "the same documents are kept"
    );
    let page = |p: usize| format!("<urn:uuid:page-{p}>");
    // The sources come first: they keep every sentence.
    for s in 0..32 {
        assert_eq!(before[&page(s)], after[&page(s)], "source {s}");
    }
    // The stitched pages are nothing but sentences of the sources.
    for p in 100..104 {
        assert!(
            !after[&page(p)].contains("word"),
            "{p}: {}",
            after[&page(p)]
        );
    }
    // The quoting page keeps its own sentences, loses those of source 0.
    let quote = &after[&page(200)];
    assert!(!quote.contains("src0word"), "{quote}");
    for i in 0..6 {
        assert!(quote.contains(&sentence(50, i)), "{quote}");
    }
    // The site's template sentences stay on its first page only; each link sentence, shared by
    // two pages, on the first of them.
    for p in 0..8 {
        let t = &after[&page(300 + p)];
        assert_eq!(t.contains(&sentence(90, 0)), p == 0, "{p}: {t}");
        for i in 0..10 {
            assert!(t.contains(&sentence(60 + p, i)), "{p}: {t}");
        }
    }
    let d = &report["drop_popular_phrases"];
    // 4 stitched pages x 16 sentences, 6 quoted, 7 pages x 3 template sentences, and 24 link
    // sentences (the pairs of pages 1, 2 or 3 apart around the site, each on two pages).
    assert_eq!(d["repeated_sentences"], 4 * 16 + 6 + 7 * 3 + 24, "{d}");
    // The site's first page holds first every sentence it shares.
    assert_eq!(d["documents_changed"], 4 + 1 + 7, "{d}");
    let lost: usize = before.values().map(String::len).sum::<usize>()
        - after.values().map(String::len).sum::<usize>();
    assert!(
        d["repeated_bytes"].as_u64().unwrap() as usize >= lost,
        "{d}"
    );

    // The same bytes for any thread count.
    let (three, report3) = run("three", &["--drop-popular-phrases", "--threads", "3"]);
    assert_eq!(contents(&one), contents(&three));
    assert_eq!(
        report["drop_popular_phrases"],
        report3["drop_popular_phrases"]
    );

    // Only with --text.
    let o = crawlsift(&[
        "dedup",
        input.to_str().unwrap(),
        "--out",
        dir.path().join("no-text").to_str().unwrap(),
        "--drop-popular-phrases",
    ]);
    assert!(!o.status.success());
}

#[test]
fn without_phrases_no_phrase_output_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    crawl(&input);
    let out = dir.path().join("out");
    crawlsift_ok(
        &[
            "dedup",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    assert!(!out.join("slice_and_dice.jsonl").exists());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert!(report.get("phrases").is_none());
}

#[test]
fn an_n_word_text_has_n_phrases_around_the_circle() {
    let k = SketchConfig::default().words;
    let mut s = Sketcher::new(&SketchConfig::default());
    for n in 1..30 {
        let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        let mut phrases = Vec::new();
        let got = s.for_each_phrase(&words.join(" "), |i, fp| phrases.push((i, fp)));
        assert_eq!(got, words);
        assert_eq!(phrases.len(), n, "{n} words");
        for (i, fp) in phrases {
            // Phrase i is words i..i+k, wrapping past the end to the first words.
            let window: Vec<&str> = (0..k).map(|j| words[(i + j) % n].as_str()).collect();
            let mut first = None;
            s.for_each_phrase(&window.join(" "), |j, f| {
                if j == 0 {
                    first = Some(f);
                }
            });
            assert_eq!(first, Some(fp), "phrase {i} of {n}");
        }
    }
}

/// The fewest classes covering every coverable shingle, by trying every subset.
fn fewest(holders: &[Vec<u32>]) -> usize {
    let mut classes: Vec<u32> = holders.iter().flatten().copied().collect();
    classes.sort_unstable();
    classes.dedup();
    let coverable = holders.iter().filter(|h| !h.is_empty()).count();
    (0u32..1 << classes.len())
        .filter(|mask| {
            let covers = |h: &&Vec<u32>| {
                h.iter()
                    .any(|c| mask >> classes.binary_search(c).unwrap() & 1 == 1)
            };
            holders.iter().filter(covers).count() == coverable
        })
        .map(u32::count_ones)
        .min()
        .unwrap_or(0) as usize
}

proptest! {
    /// Greedy covers every coverable shingle, is never below the optimum nor above its
    /// H(n) <= 1 + ln n bound, and is optimal when each shingle has one source (a stitched page).
    #[test]
    fn greedy_cover_against_brute_force(
        holders in proptest::collection::vec(proptest::collection::vec(0u32..9, 0..4), 0..14)
    ) {
        let cover = greedy_cover(&holders);
        let best = fewest(&holders);
        let taken: BTreeSet<u32> = cover.iter().map(|c| c.class).collect();
        prop_assert!(holders.iter().all(|h| h.is_empty() || h.iter().any(|c| taken.contains(c))));
        prop_assert!(cover.len() >= best);
        let bound = best as f64 * (1.0 + (holders.len().max(1) as f64).ln());
        prop_assert!(cover.len() as f64 <= bound + 1e-9);
        let single: Vec<Vec<u32>> = holders.iter().map(|h| h.iter().take(1).copied().collect()).collect();
        prop_assert_eq!(greedy_cover(&single).len(), fewest(&single));
    }
}
