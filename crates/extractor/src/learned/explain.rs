//! `crawlsift extract --explain` (one page: each block, a summary of its features, the `learned`
//! method's score (the second stage's, then the first stage's) and the keep/drop decision with its
//! reason) and `--dump-blocks` (every page of
//! `--html-dir` as a table of block features, the machine form `scripts/train_extractor.py`
//! reads).

use crate::learned::{self, features::NAMES, BlockReport};
use crate::{charset, Extractor};
use std::fmt::Write;

/// Index of a feature by name (they are fixed at build time).
fn at(name: &str) -> usize {
    NAMES.iter().position(|n| *n == name).unwrap_or(0)
}

fn blocks(ex: &mut Extractor, bytes: &[u8]) -> Vec<BlockReport> {
    let decoded = charset::decode(bytes, None, ex.config().charset);
    ex.explain(&decoded.text)
}

/// The `--explain` report of one page.
pub fn explain(ex: &mut Extractor, bytes: &[u8]) -> String {
    let reports = blocks(ex, bytes);
    let mut out = String::new();
    let kept = reports.iter().filter(|r| r.keep).count();
    let _ = writeln!(
        out,
        "# {} blocks, {kept} kept by the learned method; score > {} keeps; \
         rules = blocks method (R in its region, K kept, F under furniture)",
        reports.len(),
        learned::threshold()
    );
    let _ = writeln!(
        out,
        "# block\tdecision\tscore\tfirst\treason\twords\tlinks\ttag\trules\ttext"
    );
    let (words, link, h, li, td) = (
        at("log_words"),
        at("link_density"),
        at("own_h"),
        at("own_li"),
        at("own_td"),
    );
    let (region, kept_r, furn) = (at("rule_region"), at("rule_kept"), at("rule_furniture"));
    for (i, r) in reports.iter().enumerate() {
        let f = &r.features;
        let tag = if f[h] > 0.0 {
            format!("h{}", f[h])
        } else if f[li] > 0.0 {
            "li".into()
        } else if f[td] > 0.0 {
            "td".into()
        } else {
            "-".into()
        };
        let rules: String = [(region, 'R'), (kept_r, 'K'), (furn, 'F')]
            .iter()
            .map(|&(k, c)| if f[k] > 0.0 { c } else { '.' })
            .collect();
        let text: String = r.text.chars().take(100).collect();
        let _ = writeln!(
            out,
            "{i}\t{}\t{:.3}\t{:.3}\t{}\t{:.0}\t{:.2}\t{tag}\t{rules}\t{text}",
            if r.keep { "KEEP" } else { "drop" },
            r.score,
            r.first_score,
            r.why.label(),
            f[words].exp() - 1.0,
            f[link],
        );
    }
    out
}

/// The `--dump-blocks` table of one page: a header, then per block the decision, score, every
/// feature and the text (tabs and line breaks as spaces).
pub fn dump(ex: &mut Extractor, bytes: &[u8]) -> String {
    let reports = blocks(ex, bytes);
    let mut out = String::from("keep\tscore");
    for n in NAMES {
        out.push('\t');
        out.push_str(n);
    }
    out.push_str("\ttext\n");
    for r in &reports {
        let _ = write!(out, "{}\t{}", u8::from(r.keep), r.score);
        for v in &r.features {
            let _ = write!(out, "\t{v}");
        }
        out.push('\t');
        out.extend(r.text.chars().map(|c| if c.is_control() { ' ' } else { c }));
        out.push('\n');
    }
    out
}
