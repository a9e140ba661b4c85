//! Tests of the `learned` method: its features, its model's plumbing and its decisions.

use super::features::{NAMES, NF};
use crate::{ExtractorBuilder, Method};

const PAGE: &str = "<html><head><title>Budget approved</title></head><body>\
    <nav><a href=/>Home</a> <a href=/news>News</a> <a href=/sport>Sport</a></nav>\
    <div class=main><h1>Budget approved</h1>\
    <p>The council voted on Tuesday to approve the new budget, which raises spending on schools, roads and parks by four percent.</p>\
    <p>Critics said the plan, drafted in a hurry, leaves too little in reserve for the coming winter, and they promised to fight it.</p>\
    <p>The mayor defended the vote, saying the city had waited long enough for repairs that residents had asked about for years.</p>\
    <ul class=related><li><a href=/a>Other story one here</a><li><a href=/b>Other story two here</a></ul></div>\
    <footer>Copyright 2024 The City Paper, all rights reserved, call us for more.</footer></body></html>";

fn feature(name: &str) -> usize {
    NAMES.iter().position(|n| *n == name).unwrap()
}

#[test]
fn every_feature_has_a_distinct_name() {
    let mut names = NAMES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), NF);
}

#[test]
fn features_describe_each_block_and_the_rules_decisions() {
    let mut ex = ExtractorBuilder::new().build().unwrap();
    let reports = ex.explain(PAGE);
    let find = |t: &str| reports.iter().find(|r| r.text.starts_with(t)).unwrap();
    let nav = find("Home");
    let prose = find("The council");
    let heading = find("Budget approved");
    let footer = find("Copyright");
    assert_eq!(nav.features[feature("in_nav")], 1.0);
    assert_eq!(prose.features[feature("in_nav")], 0.0);
    assert!(nav.features[feature("link_density")] > 0.9);
    assert_eq!(prose.features[feature("link_density")], 0.0);
    assert_eq!(heading.features[feature("own_h")], 1.0);
    assert_eq!(prose.features[feature("own_p")], 1.0);
    assert_eq!(footer.features[feature("in_footer")], 1.0);
    // The blocks method keeps the prose and drops the navigation.
    assert_eq!(prose.features[feature("rule_kept")], 1.0);
    assert_eq!(nav.features[feature("rule_kept")], 0.0);
    assert_eq!(prose.features[feature("rule_distance")], 0.0);
    for r in &reports {
        assert!(r.features.iter().all(|v| v.is_finite()), "{r:?}");
    }
}

#[test]
fn the_method_keeps_what_explain_says_it_keeps() {
    let mut ex = ExtractorBuilder::new()
        .method(Method::Learned)
        .build()
        .unwrap();
    let text = ex.html_text(PAGE).1;
    let kept: Vec<String> = ex
        .explain(PAGE)
        .into_iter()
        .filter(|r| r.keep)
        .map(|r| r.text)
        .collect();
    assert_eq!(text, kept.join("\n"));
    assert!(text.contains("The council voted"), "{text}");
    assert!(text.contains("for years."), "{text}");
    for bad in ["Home", "Other story"] {
        assert!(!text.contains(bad), "{bad} in {text}");
    }
}

#[test]
fn a_page_without_blocks_gives_no_text() {
    let mut ex = ExtractorBuilder::new()
        .method(Method::Learned)
        .build()
        .unwrap();
    assert_eq!(ex.html_text("<html><body></body></html>").1, "");
    assert!(ex.explain("").is_empty());
}

#[test]
fn log_words_is_where_the_context_reads_it() {
    use super::features::{CONTAINER, LOG_WORDS, TEMPLATE};
    assert_eq!(NAMES[LOG_WORDS], "log_words");
    let container: Vec<&str> = CONTAINER.iter().map(|&i| NAMES[i]).collect();
    assert_eq!(
        container,
        ["node_log_words", "node_link_density", "node_children"]
    );
    assert_eq!(NAMES[*TEMPLATE.start()], "own_h");
    assert_eq!(NAMES[*TEMPLATE.end()], "depth");
    assert_eq!(NAMES[*TEMPLATE.end() - 1], "hint_comment");
}

#[test]
fn how_a_page_indents_its_code_changes_no_feature() {
    let page = |code: &str| {
        format!(
            "<html><body><h1>Loops</h1><p>A loop in Rust, written out in full below for the reader.</p>\
             <pre>{code}</pre><p>That prints three lines, one number on each line of the output.</p></body></html>"
        )
    };
    let mut ex = ExtractorBuilder::new().build().unwrap();
    let indented = ex.explain(&page(
        "fn main() {\n    for i in 0..3 {\n        f(i);\n    }\n}",
    ));
    let flat = ex.explain(&page("fn main() { for i in 0..3 { f(i); } }"));
    assert_eq!(indented.len(), flat.len());
    assert!(indented.iter().any(|r| r.text.contains("\n        f(i);")));
    for (a, b) in indented.iter().zip(&flat) {
        assert_eq!(a.features, b.features, "{} / {}", a.text, b.text);
        assert_eq!(a.score.to_bits(), b.score.to_bits());
    }
}
