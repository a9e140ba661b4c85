//! `crawlsift reuse` (issue 35) end to end: a page pasting a passage of another page on another
//! site is paired with it, at the right words and characters of both main texts; pages of one
//! site sharing only their skeleton are not; the output is the same bytes for any thread count;
//! and on `../shared/bench/reuse` (PAN 2013 text alignment) the scorer's figures hold.

mod util;

use std::path::Path;

use util::*;

/// `n` words of their own for `tag`, so unrelated pages share no phrase by chance.
fn words(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag}x{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A WARC response record of an HTML page at `url` whose article is `paras`.
fn record(id: &str, url: &str, paras: &[String]) -> Vec<u8> {
    let body: String = paras.iter().map(|p| format!("<p>{p}.</p>")).collect();
    let html = format!(
        "<html><head><title>{id}</title></head><body><article>{body}</article></body></html>"
    );
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{id}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

/// The quoted passage: 45 words of the source's second paragraph.
fn quote() -> String {
    words("quoted", 45)
}

/// A source page, a page of another site pasting a passage of it, four pages of a third site
/// sharing a skeleton paragraph (and nothing else), and an unrelated page.
fn crawl(path: &Path) {
    let mut warc = Vec::new();
    let skeleton = words("skeleton", 40);
    warc.extend(record(
        "source",
        "https://news.example/story",
        &[words("lead", 60), quote(), words("rest", 80)],
    ));
    for s in 0..4 {
        warc.extend(record(
            &format!("sibling{s}"),
            &format!("https://site.example/page{s}"),
            &[skeleton.clone(), words(&format!("own{s}"), 150)],
        ));
    }
    warc.extend(record(
        "copier",
        "https://blog.example/post",
        &[words("intro", 120), quote(), words("outro", 30)],
    ));
    warc.extend(record(
        "unrelated",
        "https://other.example/",
        &[words("u", 200)],
    ));
    std::fs::write(path, warc).unwrap();
}

#[test]
fn a_pasted_passage_pairs_its_pages_and_a_shared_skeleton_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    crawl(&input);
    let input = input.to_str().unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.path().join(format!("out{threads}"));
        crawlsift_ok(
            &[
                "reuse",
                input,
                "--out",
                out.to_str().unwrap(),
                "-q",
                "-j",
                threads,
            ],
            0,
        );
        outputs.push(contents(&out.join("reuse.jsonl")));
    }
    assert_eq!(outputs[0], outputs[1], "the same bytes for 1 and 3 threads");
    let lines = json_lines(&dir.path().join("out1").join("reuse.jsonl"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert_eq!(
        (l["a"].as_str(), l["b"].as_str()),
        (Some("<urn:uuid:source>"), Some("<urn:uuid:copier>"))
    );
    assert_eq!(l["a_url"], "https://news.example/story");
    assert_eq!(l["a_offset"], 0);
    let p = &l["passages"].as_array().unwrap()[0];
    assert_eq!(p["a_words"], serde_json::json!([60, 105]));
    assert_eq!(p["b_words"], serde_json::json!([120, 165]));
    // 45 of the source's 185 words, of the copier's 195.
    assert_eq!(l["a_share"], 0.2432);
    assert_eq!(l["b_share"], 0.2308);
    // The character ranges cut the passage out of each main text as `extract` gives it.
    let ex = crawlsift_ok(&["extract", input], 0);
    let texts: Vec<serde_json::Value> = String::from_utf8(ex.stdout)
        .unwrap()
        .lines()
        .map(|x| serde_json::from_str(x).unwrap())
        .collect();
    for (side, id) in [
        ("a_chars", "<urn:uuid:source>"),
        ("b_chars", "<urn:uuid:copier>"),
    ] {
        let text = texts.iter().find(|t| t["id"] == id).unwrap()["text"]
            .as_str()
            .unwrap();
        let r = p[side].as_array().unwrap();
        let cut: String = text
            .chars()
            .skip(r[0].as_u64().unwrap() as usize)
            .take((r[1].as_u64().unwrap() - r[0].as_u64().unwrap()) as usize)
            .collect();
        assert_eq!(cut, quote(), "{side}");
    }
    // A second run refuses to overwrite without --force.
    let out1 = dir.path().join("out1");
    crawlsift_ok(&["reuse", input, "--out", out1.to_str().unwrap(), "-q"], 1);
    crawlsift_ok(
        &[
            "reuse",
            input,
            "--out",
            out1.to_str().unwrap(),
            "-q",
            "--force",
        ],
        0,
    );
    // A passage minimum above the quote's length reports nothing.
    let out2 = dir.path().join("out2");
    crawlsift_ok(
        &[
            "reuse",
            input,
            "--out",
            out2.to_str().unwrap(),
            "-q",
            "--min-passage-words",
            "46",
        ],
        0,
    );
    assert!(json_lines(&out2.join("reuse.jsonl")).is_empty());
}

/// `dedup --reuse` finds the same pairs in the same pass: its `reuse.jsonl` is the bytes
/// `crawlsift reuse` writes, its clusters are those of a run without it, and a shard refuses it
/// (a shard does not see every document).
#[test]
fn dedup_reuse_writes_what_reuse_writes_and_clusters_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    crawl(&input);
    let input = input.to_str().unwrap();
    let out = |name: &str| dir.path().join(name);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    crawlsift_ok(&["reuse", input, "--out", &s(&out("r")), "-q"], 0);
    crawlsift_ok(&["dedup", input, "--out", &s(&out("d")), "-q"], 0);
    crawlsift_ok(
        &["dedup", input, "--out", &s(&out("dr")), "-q", "--reuse"],
        0,
    );
    let reuse = contents(&out("r").join("reuse.jsonl"));
    assert!(!reuse.is_empty());
    assert_eq!(contents(&out("dr").join("reuse.jsonl")), reuse);
    assert_eq!(
        contents(&out("dr").join("clusters.jsonl")),
        contents(&out("d").join("clusters.jsonl"))
    );
    assert!(!out("d").join("reuse.jsonl").exists());
    let report: serde_json::Value =
        serde_json::from_slice(&contents(&out("dr").join("report.json"))).unwrap();
    assert_eq!(report["reuse"]["pairs"], 1, "{}", report["reuse"]);
    assert_eq!(
        report["reuse"]["pairs_by_share"][2], 1,
        "shares 0.24 and 0.23"
    );
    // report.html shows the pair side by side, the quoted passage marked in both texts.
    let html = String::from_utf8(contents(&out("dr").join("report.html"))).unwrap();
    assert!(html.contains("<h2>Text reuse and stories</h2>"));
    assert!(
        html.contains("Shares 0.2432 and 0.2308 &middot; 1 passages"),
        "{html}"
    );
    assert_eq!(
        html.matches(&format!("<mark>{}</mark>", quote())).count(),
        2
    );
    let plain = String::from_utf8(contents(&out("d").join("report.html"))).unwrap();
    assert!(!plain.contains("Text reuse"));
    let o = crawlsift_ok(
        &[
            "dedup",
            input,
            "--out",
            &s(&out("sh")),
            "-q",
            "--reuse",
            "--shard",
            "0/2",
        ],
        2,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--shard"));
}

/// The PAN 2013 passages of `bench/reuse`, scored by `scorereuse.py`. The scorer stops with a
/// TypeError on any detected pair the truth does not hold (its line 80 takes `len` of an int),
/// so the truth's pairs are scored from a copy holding only them (every figure it gives but
/// the list of other pairs is over the truth's pairs alone, so they are unchanged) and the
/// other pairs are counted here.
#[test]
#[ignore = "needs ../shared"]
fn the_pan_2013_passages_are_found() {
    let shared = needs_shared();
    let bench = shared.join("bench/reuse");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    crawlsift_ok(
        &[
            "reuse",
            bench.join("docs.trectext").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    let truth: std::collections::HashSet<(String, String)> = json_lines(&bench.join("truth.jsonl"))
        .iter()
        .map(|t| {
            (
                t["a"].as_str().unwrap().to_string(),
                t["b"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let lines = std::fs::read_to_string(out.join("reuse.jsonl")).unwrap();
    let mut kept = String::new();
    let mut other = 0;
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (a, b) = (
            v["a"].as_str().unwrap().to_string(),
            v["b"].as_str().unwrap().to_string(),
        );
        if truth.contains(&(a.clone(), b.clone())) || truth.contains(&(b, a)) {
            kept.push_str(line);
            kept.push('\n');
        } else {
            other += 1;
        }
    }
    let scored = dir.path().join("truth_pairs.jsonl");
    std::fs::write(&scored, kept).unwrap();
    let json = dir.path().join("score.json");
    let run = std::process::Command::new("python3")
        .arg(shared.join("tools/scorereuse.py"))
        .args([bench.as_os_str(), scored.as_os_str()])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    println!(
        "{}other pairs: {other}",
        String::from_utf8_lossy(&run.stdout)
    );
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let f = |k: &str| s[k].as_f64().unwrap();
    assert!(f("pair_recall") >= 0.95, "{s}");
    assert!(f("passage_recall") >= 0.9, "{s}");
    assert!(f("granularity") <= 1.1, "{s}");
    // The truth labels one passage a pair; the pairs share more (obfuscated copies of the same
    // sources, passages running on past the labelled end), which counts against precision: 0.60
    // measured, of which the detected words outside the truth are 86% in 3-word runs both
    // documents hold.
    assert!(f("passage_precision") >= 0.55, "{s}");
}

/// A news story, the same story retold on another site in other words and order (no
/// near-duplicate of it), a page of the first site about something else and pages on other topics:
/// `stories.jsonl` holds the story and its retelling alone, the same bytes for any thread count
/// and from `dedup --reuse`, and `report.json` counts it.
#[test]
fn a_story_retold_in_other_words_is_grouped_with_its_first_telling() {
    let story =
        "Firefighters in the Mexican state of Zacatecas contained the Sierra Fria wildfire \
        on Sunday, after it had burned some 4,300 hectares of pine and oak forest near the town of \
        Jerez. Officials of Conafor, the national forestry commission, said 340 brigade members \
        and two Bell helicopters fought the fire for six days. The cause is being investigated; \
        no homes were lost, and the Jerez dam was never threatened";
    let retold = "On Sunday firefighters contained the Sierra Fria wildfire in the Mexican state \
        of Zacatecas, which burned about 4,300 hectares of oak and pine forest close to Jerez. \
        According to officials of Conafor, Mexico's national forestry commission, 340 members \
        of brigades and two Bell helicopters fought the blaze for six days. Its cause is under \
        investigation. No homes were lost and the dam at Jerez was never threatened";
    let others = [
        "The city council approved a budget for repairing tram lines in the old quarter, with \
         work starting in spring and buses replacing trams on weekends until autumn",
        "A recipe for lemon cake: beat butter and sugar, add eggs one by one, fold in flour and \
         ground almonds, then bake for forty minutes and glaze with lemon juice",
        "Chess openings for beginners: control the centre, develop knights before bishops, \
         castle early and do not move the same piece twice in the opening",
        "The museum's new wing shows textiles from Andean weavers, with looms, dyes made from \
         cochineal and indigo, and a room of ponchos from the nineteenth century",
        "Our support team answers questions about invoices, delivery times and returns by email \
         within two working days, and by telephone on weekday mornings",
    ];
    let mut warc = Vec::new();
    warc.extend(record(
        "story",
        "https://news.example/fire",
        &[story.to_string()],
    ));
    warc.extend(record(
        "same-site",
        "https://news.example/council",
        &[others[0].to_string()],
    ));
    for (i, o) in others[1..].iter().enumerate() {
        warc.extend(record(
            &format!("other{i}"),
            &format!("https://site{i}.example/"),
            &[o.to_string()],
        ));
    }
    warc.extend(record(
        "retold",
        "https://wire.example/zacatecas",
        &[retold.to_string()],
    ));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    std::fs::write(&input, warc).unwrap();
    let input = input.to_str().unwrap();
    let out = |name: &str| dir.path().join(name);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    crawlsift_ok(
        &["reuse", input, "--out", &s(&out("r1")), "-q", "-j", "1"],
        0,
    );
    crawlsift_ok(
        &["reuse", input, "--out", &s(&out("r3")), "-q", "-j", "3"],
        0,
    );
    crawlsift_ok(
        &["dedup", input, "--out", &s(&out("d")), "-q", "--reuse"],
        0,
    );
    let stories = contents(&out("r1").join("stories.jsonl"));
    assert_eq!(contents(&out("r3").join("stories.jsonl")), stories);
    assert_eq!(contents(&out("d").join("stories.jsonl")), stories);
    // No near-duplicate of each other: `dedup` alone does not put them together.
    assert!(json_lines(&out("d").join("clusters.jsonl")).is_empty());
    let lines = json_lines(&out("r1").join("stories.jsonl"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert_eq!(l["story"], 0);
    assert_eq!(l["size"], 2);
    assert_eq!(l["first"], "<urn:uuid:story>");
    let m = l["members"].as_array().unwrap();
    assert_eq!(m[0]["similarity"], 1.0);
    assert_eq!(m[1]["id"], "<urn:uuid:retold>");
    assert_eq!(m[1]["url"], "https://wire.example/zacatecas");
    let sim = m[1]["similarity"].as_f64().unwrap();
    assert!(
        sim >= 0.2 && sim == l["lowest_similarity"].as_f64().unwrap(),
        "{l}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&contents(&out("d").join("report.json"))).unwrap();
    assert_eq!(report["reuse"]["stories"], 1, "{}", report["reuse"]);
    assert_eq!(report["reuse"]["story_documents"], 2);
}
