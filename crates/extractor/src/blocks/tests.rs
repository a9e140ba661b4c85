//! Tests of the `blocks` method's rules 1-11, 17 and 4b on small pages.

use crate::{ExtractorBuilder, Method};

/// The `blocks` text of `html`.
pub(super) fn blocks(html: &str) -> String {
    let mut ex = ExtractorBuilder::new()
        .method(Method::Blocks)
        .build()
        .unwrap();
    ex.html_text(html).1
}

pub(super) const PROSE: &str = "<p>The council voted on Tuesday to approve the new budget, which raises spending on schools, roads and parks by four percent.</p>\
    <p>Critics said the plan, drafted in a hurry, leaves too little in reserve for the coming winter, and they promised to fight it.</p>\
    <p>The mayor defended the vote, saying the city had waited long enough for repairs that residents had asked about for years.</p>";

#[test]
fn navigation_footer_and_link_lists_are_dropped() {
    let html = format!(
        "<html><head><title>Budget approved</title></head><body>\
         <nav><a href=/>Home</a> <a href=/news>News</a> <a href=/sport>Sport</a></nav>\
         <div class=main><h1>Budget approved</h1>{PROSE}\
         <ul class=related><li><a href=/a>Other story one here</a><li><a href=/b>Other story two here</a></ul></div>\
         <footer>Copyright 2024 The City Paper, all rights reserved, call us for more.</footer></body></html>"
    );
    let out = blocks(&html);
    assert!(
        out.starts_with("Budget approved\nThe council voted"),
        "{out}"
    );
    assert!(out.contains("for years."));
    for bad in ["Home", "Other story", "Copyright"] {
        assert!(!out.contains(bad), "{bad} in {out}");
    }
}

#[test]
fn comment_sections_and_share_widgets_are_dropped() {
    let html = format!(
        "<body><article>{PROSE}<div class=share-buttons><p>Share this article on your favourite social network, please do it now.</p></div></article>\
         <div id=comments><p>I think this is a terrible decision, and the council should be ashamed of itself, frankly.</p>\
         <p>Agreed, completely and totally, with the previous commenter, who said it so very well, thanks.</p></div></body>"
    );
    let out = blocks(&html);
    assert!(
        out.contains("The council voted") && out.contains("for years."),
        "{out}"
    );
    assert!(
        !out.contains("Share this") && !out.contains("terrible"),
        "{out}"
    );
}

#[test]
fn discussion_threads_keep_their_replies() {
    // The opening post and the replies share one template (class `body`): a forum thread.
    let mut html = String::from(
        "<body><article><h1>Trip to Japan</h1><div class=body><p>We have never been to Japan, and wonder whether to plan it ourselves or take a tour. Any advice?</p></div></article><section id=replies>",
    );
    for i in 0..6 {
        html.push_str(&format!(
            "<article class=reply><div class=body><p>Reply {i}: we planned our own trip last spring, and it was easy, the trains are simple and people are kind.</p>\
             <p>Buy a rail pass before you go, and book the first hotel, then see how it feels after a few days.</p></div></article>"
        ));
    }
    html.push_str("</section></body>");
    let out = blocks(&html);
    assert!(out.contains("never been to Japan"), "{out}");
    assert!(
        out.contains("Reply 0:") && out.contains("Reply 5:"),
        "{out}"
    );
    // The same replies under a post with its own template are a comment section.
    let blog = html.replace("<div class=body><p>We have", "<div class=entry><p>We have");
    let out = blocks(&blog);
    assert!(out.contains("never been to Japan"), "{out}");
    assert!(!out.contains("Reply 0:"), "{out}");
}

#[test]
fn a_footer_stays_furniture_however_long() {
    // A product page: short selling points, then a footer of legal footnotes that holds
    // most of the page's prose.
    let mut html = String::from("<body><main><h1>Watch</h1><div class=tiles>");
    for i in 0..4 {
        html.push_str(&format!("<div class=tile><p>Model {i}: the ultimate way to watch your health, from $399.</p></div>"));
    }
    html.push_str("</div></main><footer><ol>");
    for i in 0..20 {
        html.push_str(&format!("<li>Footnote {i}: financing is available to qualified customers, subject to credit approval, and terms vary.</li>"));
    }
    html.push_str("</ol></footer></body>");
    let out = blocks(&html);
    assert!(
        out.contains("Model 0:") && out.contains("Model 3:"),
        "{out}"
    );
    assert!(!out.contains("Footnote"), "{out}");
}

#[test]
fn pages_without_prose_keep_all_their_text() {
    let out = blocks("<body><a href='javascript:'><p>abc</p><p>def</p>ghi</a></body>");
    assert_eq!(out, "abc\ndef\nghi");
    // One prose block is enough to filter: the link label goes.
    let out = blocks("<body><p><a href=/x>Home</a></p><p>This paragraph is long enough to be prose, with a comma.</p></body>");
    assert!(!out.contains("Home"), "{out}");
}

#[test]
fn an_article_split_over_several_containers_is_kept_whole() {
    // Old layout: one section per table, the tables in cells of an outer table; the first
    // section is long, the others short but as prose-like.
    let long = "word ".repeat(75);
    let mut html = String::from(
        "<body><table><tr><td class=nav><a href=/>Home</a> <a href=/n>News</a></td><td>",
    );
    html.push_str(&format!(
        "<table><tr><td><p>Part A, {long}end, one.</p><p>Part A, {long}end, two.</p></td></tr></table>"
    ));
    for i in 0..3 {
        html.push_str(&format!(
            "<table><tr><td><p>Part {i}: first, the council voted, on Tuesday, to approve the budget.</p>\
             <p>Then, critics said, the plan leaves, they think, too little in reserve.</p></td></tr></table>"
        ));
    }
    html.push_str("</td></tr></table></body>");
    let out = blocks(&html);
    for i in 0..3 {
        assert!(out.contains(&format!("Part {i}:")), "{i}: {out}");
    }
    assert!(out.contains("Part A"), "{out}");
    assert!(!out.contains("Home"), "{out}");
}

#[test]
fn the_headline_before_the_region_is_kept() {
    // The heading sits outside the article's container, after a section link and before a
    // byline: its block belongs to the heading's parent, but it is an `<h1>` all the same.
    let html = format!(
        "<html><head><title>Budget approved | The City Paper</title></head><body><div class=top>\
         <div class=meta><a href=/news>News</a></div><h1 class=headline><span>Budget approved</span></h1>\
         <div class=byline>By A. Reporter</div><div class=story>{PROSE}</div></div></body></html>"
    );
    let out = blocks(&html);
    assert!(out.starts_with("Budget approved\n"), "{out}");
}

#[test]
fn captions_and_bylines_are_dropped() {
    let html = format!(
        "<body><article><div class=byline><div>By A. Reporter</div></div><p class=dateline>3:02 PM March 27, 2017</p>\
         <figure><img src=a.jpg><figcaption>The mayor, at the vote on Tuesday, in the council chamber.</figcaption></figure>\
         {PROSE}<blockquote class=twitter-tweet><p>The vote is in, and it is a good day for the city, thanks all.</p>&mdash; The Mayor (@mayor) March 4, 2017</blockquote></article></body>"
    );
    let out = blocks(&html);
    assert!(out.contains("for years."), "{out}");
    assert!(!out.contains("good day"), "{out}");
    assert!(
        !out.contains("Reporter") && !out.contains("chamber"),
        "{out}"
    );
    // A long <figure> wraps content (a pull quote), not a caption.
    let quote = "the plan, they said, is fair, ".repeat(15);
    let html = format!("<body><article>{PROSE}<figure><blockquote><p>{quote}</p></blockquote></figure></article></body>");
    assert!(blocks(&html).contains("is fair"));
}

#[test]
fn galleries_inside_the_article_are_dropped() {
    // A site-wide picture gallery embedded in the story (its captions are the same on every
    // article of the site, so two articles would share most of their words through it).
    let slides: String = (1..=6)
        .map(|i| format!("<li><span>{i}/6</span><p>A humanoid robot gestures during a demo at a stall in the expo, picture {i}</p></li>"))
        .collect();
    let html = format!(
        "<body><article><h1>Budget approved</h1>{PROSE}\
         <div class=\"container grid-mod-gallery\"><h3>Gadgets and tech news in pictures</h3><ul>{slides}</ul></div>\
         <p>The budget takes effect in January, after a second reading that is expected to pass easily.</p>{PROSE}</article></body>"
    );
    let out = blocks(&html);
    assert!(
        out.contains("for years.") && out.contains("pass easily."),
        "{out}"
    );
    assert!(
        !out.contains("robot") && !out.contains("in pictures"),
        "{out}"
    );
}

#[test]
fn an_article_in_two_parts_around_a_box_is_kept_whole() {
    // The story body is split in two parts by a box; the longer part sits in a wrapper of
    // its own, so the first part is a sibling of the wrapper, not of the winner.
    let long =
        "The council voted, on Tuesday, to approve the budget, and critics said it was rushed. "
            .repeat(4);
    let html = format!(
        "<body><article><div class=p1><div class=b><p>Part one: the vote came late at night, after a long debate, with many absent.</p>\
         <p>Part one again: residents had waited for years, and said so, loudly, at the meeting.</p></div></div>\
         <div class=box><a href=/s>Subscribe</a></div>\
         <div class=p2><div class=w><div class=b><p>{long}</p><p>{long}</p><p>{long}</p></div></div></div></article></body>"
    );
    let out = blocks(&html);
    assert!(
        out.contains("Part one:") && out.contains("critics said"),
        "{out}"
    );
}

#[test]
fn page_wide_wrapper_named_like_furniture_is_not_furniture() {
    let html = format!("<body><div class='page has-sidebar'>{PROSE}</div><div class=sidebar><p>Ads and more ads, with offers.</p></div></body>");
    let out = blocks(&html);
    assert!(out.contains("The council voted"), "{out}");
}

#[test]
fn non_article_pages_keep_all_clean_blocks() {
    // A listing: many short, equal entries in separate containers; none is "the" article.
    let mut html = String::from("<body><nav><a href=/>Home</a><a href=/x>Menu</a></nav>");
    for i in 0..12 {
        html.push_str(&format!(
            "<div class=card><h3>Event number {i}</h3><p>An opening at gallery {i}, with works by several artists, runs all month.</p></div>"
        ));
    }
    html.push_str("</body>");
    let out = blocks(&html);
    assert!(
        out.contains("gallery 0,") && out.contains("gallery 11,"),
        "{out}"
    );
    assert!(!out.contains("Home"));
}
