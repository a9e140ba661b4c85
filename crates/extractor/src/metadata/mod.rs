//! A page's metadata: title, author, publication date, site name, language, description and
//! canonical URL, from what the page says about itself, most explicit source first:
//!
//! * JSON-LD (`<script type="application/ld+json">`, `@graph` included): `headline`, `author`,
//!   `datePublished` (then `dateCreated`), `publisher.name`, `description`;
//! * `<meta>`: OpenGraph (`og:title`, `og:site_name`, `og:description`, `og:url`,
//!   `article:published_time`, `article:author`), Dublin Core, Parse.ly, Sailthru and the plain
//!   `author`, `date`, `description`, `application-name`; microdata `itemprop` values;
//! * `<time datetime>` (one marked `pubdate` or `itemprop=datePublished` first), an element whose
//!   class or `rel` names the author or byline;
//! * the URL (`/2021/03/04/`, `/2021-03-04-`), then the first full date written in the page's
//!   visible text (`4 March 2021`, `March 4, 2021`, `2021-03-04`, `04.03.2021`).
//!
//! Dates come out as ISO 8601 calendar dates (`2021-03-04`, [`crate::dates`]); the language is the main text's, by `whatlang`, as an ISO 639-1 code when there
//! is one ([`crate::language`]). The page is tokenized once more (html5gum), so this runs only when asked for.

pub(crate) mod calendar;
pub mod dates;
pub mod language;

use crawlsift_common::limits::{MAX_JSON_LD_BYTES, MAX_METADATA_FIELD_BYTES};
use html5gum::{Token, Tokenizer};

use crate::dates::{iso_date, text_date, url_date};
use crate::language::language;

/// What a page says about itself. Empty strings are unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Metadata {
    /// The title (the headline, without the site name `<title>` often adds).
    pub title: String,
    /// The author or authors (`; ` between names).
    pub author: String,
    /// Publication date, ISO 8601 (`2021-03-04`).
    pub published: String,
    /// The site's name.
    pub sitename: String,
    /// Language of the main text (ISO 639-1, else 639-3).
    pub language: String,
    /// The page's own description.
    pub description: String,
    /// The canonical URL the page names (`<link rel=canonical>`, `og:url`).
    pub canonical: String,
}

impl Metadata {
    /// The fields in output order, by the names the output formats use.
    pub fn fields(&self) -> [(&'static str, &str); 7] {
        [
            ("title", &self.title),
            ("author", &self.author),
            ("published", &self.published),
            ("sitename", &self.sitename),
            ("language", &self.language),
            ("description", &self.description),
            ("canonical", &self.canonical),
        ]
    }
}

/// Candidates gathered in one pass, by source.
#[derive(Default)]
struct Found {
    ld_title: String,
    ld_author: String,
    ld_date: String,
    ld_site: String,
    ld_description: String,
    meta: Vec<(String, String)>,
    title: String,
    h1: String,
    time_pub: String,
    time_any: String,
    byline: String,
    canonical: String,
}

/// Keeps the first `MAX_METADATA_FIELD_BYTES` of `s`, whitespace collapsed.
fn clean(s: &str) -> String {
    let mut out = String::new();
    for w in s.split_whitespace() {
        if out.len() + w.len() + 1 > MAX_METADATA_FIELD_BYTES {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn set(slot: &mut String, value: &str) {
    if slot.is_empty() {
        *slot = clean(value);
    }
}

/// What an element being read for its text is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    None,
    Title,
    H1,
    JsonLd,
    Byline,
}

/// Reads the metadata of `html`; `url` (the record's, if any), `text` (the main text, for the
/// language and a date written in it) and `visible` (all the page's visible text, one block a
/// line, where a byline is looked for) complete it.
pub fn read(html: &str, url: Option<&str>, text: &str, visible: &str) -> Metadata {
    let mut f = Found::default();
    let mut reading = Reading::None;
    let mut depth = 0u32;
    let mut buf = String::new();
    let mut lang_attr = String::new();
    for token in Tokenizer::new(html).flatten() {
        match token {
            Token::StartTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
                let attr = |k: &str| {
                    tag.attributes
                        .get(k.as_bytes())
                        .map(|v| String::from_utf8_lossy(v).into_owned())
                };
                if reading != Reading::None {
                    if reading == Reading::Byline && !tag.self_closing {
                        depth += 1;
                    }
                    continue;
                }
                match name.as_str() {
                    "html" => lang_attr = attr("lang").unwrap_or_default(),
                    "title" if f.title.is_empty() => reading = Reading::Title,
                    "h1" if f.h1.is_empty() => reading = Reading::H1,
                    "script" => {
                        if attr("type")
                            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
                        {
                            reading = Reading::JsonLd;
                        }
                    }
                    "meta" => {
                        let key = attr("property")
                            .or_else(|| attr("name"))
                            .or_else(|| attr("itemprop"));
                        let value = attr("content").or_else(|| attr("datetime"));
                        if let (Some(k), Some(v)) = (key, value) {
                            if f.meta.len() < 256 {
                                f.meta.push((k.to_ascii_lowercase(), clean(&v)));
                            }
                        }
                    }
                    "link" => {
                        if attr("rel").is_some_and(|r| r.eq_ignore_ascii_case("canonical")) {
                            set(&mut f.canonical, &attr("href").unwrap_or_default());
                        }
                    }
                    "time" => {
                        if let Some(dt) = attr("datetime") {
                            let is_pub = tag.attributes.contains_key(&b"pubdate"[..])
                                || attr("itemprop")
                                    .is_some_and(|p| p.eq_ignore_ascii_case("datepublished"));
                            if is_pub {
                                set(&mut f.time_pub, &dt);
                            } else {
                                set(&mut f.time_any, &dt);
                            }
                        }
                    }
                    _ => {
                        let names = [attr("class"), attr("rel"), attr("itemprop")];
                        let byline = names.iter().flatten().any(|v| {
                            let v = v.to_ascii_lowercase();
                            v.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
                                matches!(w, "author" | "byline" | "creator" | "dc-creator")
                            })
                        });
                        if byline && f.byline.is_empty() && !tag.self_closing {
                            reading = Reading::Byline;
                            depth = 0;
                        }
                    }
                }
                buf.clear();
            }
            Token::String(s) if reading != Reading::None && buf.len() < MAX_JSON_LD_BYTES => {
                buf.push_str(&String::from_utf8_lossy(&s));
            }
            Token::EndTag(_) => {
                if reading == Reading::Byline && depth > 0 {
                    depth -= 1;
                    continue;
                }
                match reading {
                    Reading::Title => set(&mut f.title, &buf),
                    Reading::H1 => set(&mut f.h1, &buf),
                    Reading::JsonLd => json_ld(&buf, &mut f),
                    Reading::Byline => set(&mut f.byline, &byline(&buf)),
                    Reading::None => {}
                }
                reading = Reading::None;
                buf.clear();
            }
            _ => {}
        }
    }
    let (by_author, by_date) = byline_line(visible);
    if f.byline.is_empty() {
        f.byline = by_author;
    }
    if f.time_any.is_empty() {
        f.time_any = by_date;
    }
    finish(f, url, text, &lang_attr)
}

/// Blocks of the visible text looked at for a byline.
const BYLINE_BLOCKS: usize = 200;

/// A byline written as a block of its own (`By Jane Doe · 4 March 2021`): its names and date.
fn byline_line(visible: &str) -> (String, String) {
    for line in visible.lines().take(BYLINE_BLOCKS) {
        let lower = line.trim_start().get(..5).unwrap_or("").to_lowercase();
        let starts = ["by ", "von ", "par ", "por ", "door "]
            .iter()
            .any(|p| lower.starts_with(p));
        if starts && line.split_whitespace().count() <= 24 {
            let name = byline(line);
            if !name.is_empty() {
                return (name, text_date(line).unwrap_or_default());
            }
        }
    }
    (String::new(), String::new())
}

/// A byline's names: `By Jane Doe and John Roe | 4 March 2021` gives `Jane Doe and John Roe`.
fn byline(s: &str) -> String {
    let s = clean(s);
    let s = s
        .split(['|', '•', '·', '\n', '–', '—'])
        .next()
        .unwrap_or("")
        .trim();
    let lower = s.to_lowercase();
    let s = ["by ", "von ", "par ", "por ", "door ", "di "]
        .iter()
        .find_map(|p| lower.starts_with(p).then(|| s.get(p.len()..).unwrap_or("")))
        .unwrap_or(s);
    // Cut a date or a role that follows a comma.
    let s = s
        .split(" - ")
        .next()
        .unwrap_or(s)
        .split(',')
        .next()
        .unwrap_or(s)
        .trim();
    if s.is_empty() || s.len() > 80 || s.split_whitespace().count() > 8 || s.contains("://") {
        String::new()
    } else {
        s.to_string()
    }
}

/// Names of a JSON-LD `author` value (a string, a Person/Organization, or a list of them).
fn ld_names(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(clean(s)),
        serde_json::Value::Object(o) => {
            if let Some(n) = o.get("name") {
                ld_names(n, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().take(16).for_each(|x| ld_names(x, out)),
        _ => {}
    }
}

fn ld_str(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::String(s)) => clean(s),
        Some(serde_json::Value::Array(a)) => ld_str(a.first()),
        Some(serde_json::Value::Object(o)) => ld_str(o.get("name").or_else(|| o.get("@value"))),
        _ => String::new(),
    }
}

/// Reads one JSON-LD script: the first object with a date or headline wins each field.
fn json_ld(src: &str, f: &mut Found) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(src.trim()) else {
        return;
    };
    let mut todo = vec![&v];
    let mut seen = 0;
    while let Some(v) = todo.pop() {
        seen += 1;
        if seen > 256 {
            break;
        }
        match v {
            serde_json::Value::Array(a) => todo.extend(a.iter().rev().take(64)),
            serde_json::Value::Object(o) => {
                if let Some(g) = o.get("@graph") {
                    todo.push(g);
                }
                let ty = ld_str(o.get("@type")).to_ascii_lowercase();
                let creative = ty.contains("article")
                    || ty.contains("posting")
                    || ty.contains("report")
                    || ty == "webpage"
                    || ty == "creativework"
                    || ty.contains("review")
                    || o.contains_key("datePublished");
                if creative {
                    set(&mut f.ld_title, &ld_str(o.get("headline")));
                    let mut names = Vec::new();
                    if let Some(a) = o.get("author").or_else(|| o.get("creator")) {
                        ld_names(a, &mut names);
                    }
                    names.retain(|n| !n.is_empty() && !n.contains("://"));
                    names.dedup();
                    set(&mut f.ld_author, &names.join("; "));
                    set(
                        &mut f.ld_date,
                        &ld_str(o.get("datePublished").or_else(|| o.get("dateCreated"))),
                    );
                    if let Some(p) = o.get("publisher") {
                        set(&mut f.ld_site, &ld_str(Some(p)));
                    }
                    set(&mut f.ld_description, &ld_str(o.get("description")));
                } else if ty == "website" || ty == "organization" || ty == "newsmediaorganization" {
                    set(&mut f.ld_site, &ld_str(o.get("name")));
                }
            }
            _ => {}
        }
    }
}

fn meta<'a>(f: &'a Found, keys: &[&str]) -> &'a str {
    for k in keys {
        if let Some((_, v)) = f.meta.iter().find(|(mk, v)| mk == k && !v.is_empty()) {
            return v;
        }
    }
    ""
}

fn first<'a>(cands: &[&'a str]) -> &'a str {
    cands
        .iter()
        .copied()
        .find(|s| !s.trim().is_empty())
        .unwrap_or("")
}

fn finish(f: Found, url: Option<&str>, text: &str, lang_attr: &str) -> Metadata {
    let sitename = first(&[
        meta(&f, &["og:site_name"]),
        &f.ld_site,
        meta(&f, &["application-name", "twitter:site"]),
    ])
    .trim_start_matches('@')
    .to_string();
    let mut title = first(&[
        &f.ld_title,
        meta(&f, &["og:title", "twitter:title", "dc.title", "headline"]),
        &strip_site(&f.title, &sitename),
        &f.h1,
    ])
    .to_string();
    if title.is_empty() {
        title = f.title.clone();
    }
    let meta_author = meta(
        &f,
        &[
            "author",
            "article:author",
            "dc.creator",
            "parsely-author",
            "sailthru.author",
            "byl",
            "citation_author",
        ],
    );
    let meta_author = if meta_author.contains("://") {
        ""
    } else {
        meta_author
    };
    // Some sites write the byline's "By " into the tag too.
    let meta_author = ["By ", "by ", "BY "]
        .iter()
        .find_map(|p| meta_author.strip_prefix(p))
        .unwrap_or(meta_author)
        .trim();
    let author = first(&[&f.ld_author, meta_author, &f.byline]).to_string();
    let dates = [
        f.ld_date.as_str(),
        meta(
            &f,
            &[
                "article:published_time",
                "og:published_time",
                "datepublished",
                "publishdate",
                "pubdate",
                "publish-date",
                "parsely-pub-date",
                "sailthru.date",
                "dc.date.issued",
                "dc.date",
                "dcterms.created",
                "date",
                "citation_publication_date",
                "article.published",
            ],
        ),
        &f.time_pub,
        &f.time_any,
    ];
    let published = dates
        .iter()
        .find_map(|d| iso_date(d))
        .or_else(|| url.and_then(url_date))
        .or_else(|| text_date(text))
        .unwrap_or_default();
    let description = first(&[
        meta(
            &f,
            &[
                "og:description",
                "description",
                "twitter:description",
                "dc.description",
            ],
        ),
        &f.ld_description,
    ])
    .to_string();
    let canonical = first(&[&f.canonical, meta(&f, &["og:url"])]).to_string();
    Metadata {
        title,
        author,
        published,
        sitename,
        language: language(text, lang_attr),
        description,
        canonical,
    }
}

/// `<title>` without a site name after (or before) a separator: `Story | Site` gives `Story`.
fn strip_site(title: &str, sitename: &str) -> String {
    for sep in [" | ", " - ", " – ", " — ", " :: ", " » ", " · "] {
        if let Some((a, b)) = title.rsplit_once(sep) {
            let (a, b) = (a.trim(), b.trim());
            let site = sitename.to_lowercase();
            if !site.is_empty() && b.to_lowercase().contains(&site) {
                return a.to_string();
            }
            if !site.is_empty() && a.to_lowercase().contains(&site) && !b.is_empty() {
                return b.to_string();
            }
            // Without a known site name: the shorter side is the site when it is short.
            if b.split_whitespace().count() <= 3 && a.split_whitespace().count() > 3 {
                return a.to_string();
            }
        }
    }
    title.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_wins_then_meta_then_patterns() {
        let page = r#"<html lang="en"><head><title>The story - Daily Site</title>
            <meta property="og:site_name" content="Daily Site">
            <meta name="author" content="Meta Author">
            <meta name="description" content="What it is about.">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebSite","name":"Daily Site"},
              {"@type":"NewsArticle","headline":"The story","datePublished":"2021-03-04T10:00:00+01:00",
               "author":[{"@type":"Person","name":"Jane Doe"},{"@type":"Person","name":"John Roe"}]}]}</script>
            </head><body><p>Text.</p></body></html>"#;
        let m = read(
            page,
            None,
            "This is the story of a day in the town, told in English words.",
            "",
        );
        assert_eq!(m.title, "The story");
        assert_eq!(m.author, "Jane Doe; John Roe");
        assert_eq!(m.published, "2021-03-04");
        assert_eq!(m.sitename, "Daily Site");
        assert_eq!(m.description, "What it is about.");
        assert_eq!(m.language, "en");
        let by = read("<meta name=author content='By Kim Lee'>", None, "", "");
        assert_eq!(by.author, "Kim Lee");
        let bare = r#"<html><head><title>Notes | Blog</title></head><body>
            <span class="byline">By Ann Example, staff writer</span>
            <time datetime="2019-12-31">Dec 31</time></body></html>"#;
        let m = read(bare, None, "", "");
        assert_eq!(
            (m.title.as_str(), m.author.as_str(), m.published.as_str()),
            ("Notes | Blog", "Ann Example", "2019-12-31")
        );
        assert_eq!(
            read(
                "<p>x</p>",
                Some("https://a.example/news/2020/02/29/leap"),
                "",
                "",
            )
            .published,
            "2020-02-29"
        );
        assert_eq!(
            read("<p>x</p>", None, "Posted on March 4, 2021 by me", "").published,
            "2021-03-04"
        );
        assert_eq!(
            read("<p>x</p>", None, "Veröffentlicht am 4. März 2021", "").published,
            "2021-03-04"
        );
        assert_eq!(
            read("<p>x</p>", None, "Am 04.03.2021 um 10 Uhr", "").published,
            "2021-03-04"
        );
        assert_eq!(
            read("<p>x</p>", None, "no date on 2021-02-30 here", "").published,
            ""
        );
    }

    #[test]
    fn hostile_metadata_is_bounded() {
        let big = format!(
            "<script type='application/ld+json'>{}</script><meta name=author content='{}'>",
            "[".repeat(100_000),
            "x ".repeat(1 << 20)
        );
        let m = read(&big, None, "", "");
        assert!(m.author.len() <= MAX_METADATA_FIELD_BYTES);
    }
}
