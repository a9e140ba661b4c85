//! RSS 2.0, Atom and RDF feeds, read with quick-xml: one [`FeedItem`] per `<item>`/`<entry>`.
//!
//! Fields are matched by local name, so namespace prefixes do not matter: the title, the link
//! (RSS/RDF `<link>` text, Atom `<link href>` with no `rel` or `rel="alternate"`), the text
//! (`content:encoded`/Atom `content` preferred over `description`/`summary`, HTML reduced to visible
//! text) and the date from whichever synonym the source uses: `pubDate`, `published`, `dc:date`,
//! `issued`, `created`, `xn:publicationTime`, then `updated`/`modified`, written as RFC 3339.

use crawlsift_common::limits::{MAX_FEED_FIELD_BYTES, MAX_FEED_ITEMS};
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::dom::Doc;

/// One feed entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedItem {
    /// The entry's title.
    pub title: String,
    /// The entry's link.
    pub link: String,
    /// The entry's date as RFC 3339, when one was found and parsed.
    pub date: Option<String>,
    /// The entry's text (HTML content reduced to visible text).
    pub text: String,
}

/// A read feed.
#[derive(Debug, Clone, Default)]
pub struct Feed {
    /// The channel/feed title.
    pub title: String,
    /// The entries.
    pub items: Vec<FeedItem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    None,
    Title,
    Link,
    Content,
    Summary,
    /// A publication date synonym.
    Published,
    /// A modification date synonym (used when no publication date exists).
    Updated,
}

fn field_of(local: &[u8]) -> Field {
    match local {
        b"title" => Field::Title,
        b"link" => Field::Link,
        b"encoded" | b"content" => Field::Content,
        b"description" | b"summary" => Field::Summary,
        b"pubDate" | b"published" | b"date" | b"issued" | b"created" | b"publicationTime" => {
            Field::Published
        }
        b"updated" | b"modified" | b"lastBuildDate" => Field::Updated,
        _ => Field::None,
    }
}

#[derive(Default)]
struct Raw {
    title: String,
    link: String,
    content: String,
    summary: String,
    published: String,
    updated: String,
}

/// Reads a feed; `None` when it holds no item and no title (not a feed, or unreadable).
pub fn read(xml: &str) -> Option<Feed> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = false;
    let mut feed = Feed::default();
    let mut in_item = false;
    let mut item_depth = 0usize;
    let mut depth = 0usize;
    let mut field = Field::None;
    let mut field_depth = 0usize;
    let mut raw = Raw::default();
    let mut channel_title = String::new();
    let mut doc = Doc::default();
    // A syntax error ends the reading; what was read before it is kept.
    while let Ok(ev) = reader.read_event() {
        match ev {
            Event::Start(e) => {
                depth += 1;
                let local = e.local_name();
                let name = local.as_ref();
                if !in_item && (name == b"item" || name == b"entry") {
                    in_item = true;
                    item_depth = depth;
                    raw = Raw::default();
                } else if field == Field::None {
                    let f = field_of(name);
                    if f == Field::Link && in_item {
                        if let Some(href) = atom_href(&e) {
                            raw.link = href;
                        }
                    }
                    if f != Field::None && (in_item || f == Field::Title) {
                        field = f;
                        field_depth = depth;
                    }
                }
            }
            Event::Empty(e)
                if in_item && e.local_name().as_ref() == b"link" && raw.link.is_empty() =>
            {
                if let Some(href) = atom_href(&e) {
                    raw.link = href;
                }
            }
            Event::End(_) => {
                if field != Field::None && depth == field_depth {
                    field = Field::None;
                }
                if in_item && depth == item_depth {
                    in_item = false;
                    if feed.items.len() < MAX_FEED_ITEMS {
                        feed.items.push(finish_item(&raw, &mut doc));
                    }
                }
                depth = depth.saturating_sub(1);
            }
            Event::Text(t) => {
                let s = t
                    .unescape()
                    .map(|c| c.into_owned())
                    .unwrap_or_else(|_| String::from_utf8_lossy(&t).into_owned());
                push_field(field, in_item, &s, &mut raw, &mut channel_title);
            }
            Event::CData(c) => {
                let s = String::from_utf8_lossy(&c).into_owned();
                push_field(field, in_item, &s, &mut raw, &mut channel_title);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    feed.title = collapse(&channel_title);
    if feed.items.is_empty() {
        return None;
    }
    Some(feed)
}

fn push_field(field: Field, in_item: bool, s: &str, raw: &mut Raw, channel_title: &mut String) {
    let target = match (field, in_item) {
        (Field::Title, false) => channel_title,
        (_, false) | (Field::None, _) => return,
        (Field::Title, true) => &mut raw.title,
        (Field::Link, true) => &mut raw.link,
        (Field::Content, true) => &mut raw.content,
        (Field::Summary, true) => &mut raw.summary,
        (Field::Published, true) => &mut raw.published,
        (Field::Updated, true) => &mut raw.updated,
    };
    if target.len() + s.len() <= MAX_FEED_FIELD_BYTES {
        target.push_str(s);
    }
}

fn atom_href(e: &quick_xml::events::BytesStart<'_>) -> Option<String> {
    let mut href = None;
    let mut alternate = true;
    for a in e.attributes().flatten() {
        match a.key.local_name().as_ref() {
            b"href" => href = a.unescape_value().ok().map(|v| v.trim().to_string()),
            b"rel" => alternate = a.value.as_ref() == b"alternate",
            _ => {}
        }
    }
    if alternate {
        href
    } else {
        None
    }
}

fn finish_item(raw: &Raw, doc: &mut Doc) -> FeedItem {
    let body = if raw.content.trim().is_empty() {
        &raw.summary
    } else {
        &raw.content
    };
    crate::html::parse_with(body, doc, crate::html::Wants::NONE);
    let text = std::mem::take(&mut doc.text);
    crate::html::parse_with(&raw.title, doc, crate::html::Wants::NONE);
    let title = std::mem::take(&mut doc.text).replace('\n', " ");
    let date = parse_date(raw.published.trim()).or_else(|| parse_date(raw.updated.trim()));
    FeedItem {
        title,
        link: raw.link.trim().to_string(),
        date,
        text,
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses an RFC 822/2822 date (`Tue, 10 Jun 2003 04:00:00 GMT`) or an ISO 8601 / W3C-DTF date
/// (`2003-06-10T04:00:00Z`, `2003-06-10T04:00:00.5+02:00`, `2003-06-10`) into RFC 3339
/// (`2003-06-10T04:00:00Z`, offsets kept as given).
pub fn parse_date(s: &str) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    if s.as_bytes().first().is_some_and(u8::is_ascii_digit) && s.get(4..5) == Some("-") {
        parse_iso(s)
    } else {
        parse_rfc822(s)
    }
}

fn num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Gregorian leap year.
fn format(y: u32, mo: u32, d: u32, h: u32, mi: u32, sec: u32, off: &str) -> Option<String> {
    let max_day = crate::calendar::days_in_month(y, mo)?;
    if !(1..=9999).contains(&y) || d == 0 || d > max_day || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    Some(format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}{off}"
    ))
}

fn parse_iso(s: &str) -> Option<String> {
    let y = num(s.get(0..4)?)?;
    let mo = num(s.get(5..7)?)?;
    if s.get(7..8)? != "-" {
        return None;
    }
    let d = num(s.get(8..10)?)?;
    let rest = s.get(10..)?;
    if rest.is_empty() {
        return format(y, mo, d, 0, 0, 0, "Z");
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let h = num(rest.get(0..2)?)?;
    if rest.get(2..3)? != ":" {
        return None;
    }
    let mi = num(rest.get(3..5)?)?;
    let mut tail = rest.get(5..)?;
    let mut sec = 0;
    if let Some(t) = tail.strip_prefix(':') {
        sec = num(t.get(0..2)?)?;
        tail = t.get(2..)?;
        if let Some(frac) = tail.strip_prefix(['.', ',']) {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            tail = frac.get(n..)?;
        }
    }
    let off = zone(tail.trim())?;
    format(y, mo, d, h, mi, sec, &off)
}

/// A zone as RFC 3339 wants it: `Z` or `+hh:mm`. Accepts `Z`, `+hh:mm`, `+hhmm`, `+hh`, the RFC 822
/// names (`GMT`, `UT`, `EST`...) and nothing (taken as UTC).
fn zone(z: &str) -> Option<String> {
    let named = match z.to_ascii_uppercase().as_str() {
        "" | "Z" | "GMT" | "UT" | "UTC" => Some("Z"),
        "EST" => Some("-05:00"),
        "EDT" => Some("-04:00"),
        "CST" => Some("-06:00"),
        "CDT" => Some("-05:00"),
        "MST" => Some("-07:00"),
        "MDT" => Some("-06:00"),
        "PST" => Some("-08:00"),
        "PDT" => Some("-07:00"),
        _ => None,
    };
    if let Some(n) = named {
        return Some(n.to_string());
    }
    let sign = z.get(0..1)?;
    if sign != "+" && sign != "-" {
        return None;
    }
    let digits: String = z[1..].chars().filter(|c| *c != ':').collect();
    let (hh, mm) = match digits.len() {
        2 => (num(&digits)?, 0),
        4 => (num(&digits[0..2])?, num(&digits[2..4])?),
        _ => return None,
    };
    if hh > 23 || mm > 59 {
        return None;
    }
    if hh == 0 && mm == 0 {
        return Some("Z".to_string());
    }
    Some(format!("{sign}{hh:02}:{mm:02}"))
}

fn parse_rfc822(s: &str) -> Option<String> {
    // Optional day name, then `d Mon yyyy hh:mm[:ss] zone`.
    let s = match s.split_once(',') {
        Some((_, rest)) => rest,
        None => s,
    };
    let mut parts = s.split_whitespace();
    let d = num(parts.next()?)?;
    let mon = parts.next()?;
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let mon_l = mon.get(0..3)?.to_ascii_lowercase();
    let mo = months.iter().position(|m| *m == mon_l)? as u32 + 1;
    let ys = parts.next()?;
    let mut y = num(ys)?;
    if ys.len() == 2 {
        y += if y < 50 { 2000 } else { 1900 };
    }
    let (h, mi, sec, zone_s) = match parts.next() {
        None => (0, 0, 0, ""),
        Some(t) => {
            let mut tp = t.split(':');
            let h = num(tp.next()?)?;
            let mi = num(tp.next()?)?;
            let sec = match tp.next() {
                Some(x) => num(x)?,
                None => 0,
            };
            (h, mi, sec, parts.next().unwrap_or(""))
        }
    };
    let off = zone(zone_s)?;
    format(y, mo, d, h, mi, sec, &off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss2_items_with_pubdate_and_html_description() {
        let xml = r#"<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Chan</title>
            <item><title>First &amp; best</title><link>http://a.example/1</link>
              <pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
              <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;&lt;script&gt;x()&lt;/script&gt;</description></item>
            <item><title>Second</title><link>http://a.example/2</link><pubDate>Wed, 11 Jun 03 09:30 EDT</pubDate>
              <description>short</description><content:encoded><![CDATA[<p>Full <i>text</i></p>]]></content:encoded></item>
            </channel></rss>"#;
        let f = read(xml).unwrap();
        assert_eq!(f.title, "Chan");
        assert_eq!(f.items.len(), 2);
        assert_eq!(f.items[0].title, "First & best");
        assert_eq!(f.items[0].link, "http://a.example/1");
        assert_eq!(f.items[0].date.as_deref(), Some("2003-06-10T04:00:00Z"));
        assert_eq!(f.items[0].text, "Hello world");
        assert_eq!(f.items[1].text, "Full text");
        assert_eq!(
            f.items[1].date.as_deref(),
            Some("2003-06-11T09:30:00-04:00")
        );
    }

    #[test]
    fn atom_entries_with_published_or_updated_and_href_links() {
        let xml = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
            <entry><title type="html">One</title><link rel="self" href="http://x/self"/><link href="http://x/1"/>
              <published>2003-12-13T18:30:02.25+01:00</published><updated>2004-01-01T00:00:00Z</updated>
              <content type="html">&lt;p&gt;Body one&lt;/p&gt;</content></entry>
            <entry><title>Two</title><link rel="alternate" href="http://x/2"/><updated>2003-12-14T10:00:00Z</updated>
              <summary>Sum two</summary></entry></feed>"#;
        let f = read(xml).unwrap();
        assert_eq!(f.items.len(), 2);
        assert_eq!(f.items[0].link, "http://x/1");
        assert_eq!(
            f.items[0].date.as_deref(),
            Some("2003-12-13T18:30:02+01:00")
        );
        assert_eq!(f.items[0].text, "Body one");
        assert_eq!(f.items[1].date.as_deref(), Some("2003-12-14T10:00:00Z"));
        assert_eq!(f.items[1].text, "Sum two");
    }

    #[test]
    fn rdf_items_with_dc_date_and_xn_publication_time() {
        let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xn="http://www.ning.com/atom/1.0">
            <channel><title>R</title></channel>
            <item rdf:about="http://r/1"><title>R1</title><link>http://r/1</link><dc:date>2004-05-06</dc:date><description>d1</description></item>
            <item rdf:about="http://r/2"><title>R2</title><link>http://r/2</link><xn:publicationTime>2004-05-07T08:09:10+0200</xn:publicationTime></item>
            </rdf:RDF>"#;
        let f = read(xml).unwrap();
        assert_eq!(f.title, "R");
        assert_eq!(f.items[0].date.as_deref(), Some("2004-05-06T00:00:00Z"));
        assert_eq!(
            f.items[1].date.as_deref(),
            Some("2004-05-07T08:09:10+02:00")
        );
        assert_eq!(f.items[0].text, "d1");
    }

    #[test]
    fn bad_dates_and_broken_feeds_do_not_panic() {
        assert_eq!(parse_date("2003-02-30"), None);
        assert_eq!(parse_date("Mon, 99 Foo 2003"), None);
        assert_eq!(parse_date("yesterday"), None);
        assert!(read("<rss><channel><item><title>x</title>").is_none());
        assert!(read("not xml at all").is_none());
        let f = read("<rss><channel><item><title>x</title></item><item><title>y").unwrap();
        assert_eq!(f.items.len(), 1);
    }
}
