//! The parts of `report.html` above the largest clusters, each from the run's results: the run
//! line (the command as typed, the program by its name), the headline duplicate rate, the data of
//! each bar chart, and the table of records that gave no document. Records that are not pages
//! (requests, metadata, warcinfo, revisits, a site's `robots.txt`, the crawler's own files) are
//! left out of the skip chart, where they would hide the pages that were skipped, and counted in
//! the table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crawlsift_common::limits::REPORT_TOP_HOSTS;
use crawlsift_dedup::{Cluster, MatchKind};

use super::charts::Bar;
use super::text::esc;
use crate::page::{CRAWLER_LOG_SKIP, ROBOTS_SKIP};
use crate::report::{ReportParts, RunInfo};
use crate::site::site_of;

/// The skip reason of a record whose type holds no page (request, metadata, warcinfo, revisit,
/// continuation, a `dns:` response): see `page::extract_record`.
pub const RECORD_TYPE_SKIP: &str = "record_type";

/// Skip reasons of records that are not pages at all, with what they are: left out of the skip
/// chart, counted in the table.
pub const NOT_PAGES: [(&str, &str); 3] = [
    (
        RECORD_TYPE_SKIP,
        "records of a type that holds no page (request, metadata, warcinfo, revisit, ...)",
    ),
    (ROBOTS_SKIP, "a site's robots.txt"),
    (
        CRAWLER_LOG_SKIP,
        "the crawler's own files (its log, its manifest)",
    ),
];

/// The colour of the exact copies' bar.
pub const EXACT_COLOUR: &str = "#d35400";

/// Arguments of the command line shown in the run line; the rest are counted.
const SHOWN_ARGUMENTS: usize = 16;

/// The run line: tool, command line, extraction method, start and end.
pub fn run_line(run: &RunInfo) -> String {
    format!(
        "<p class=meta>{} &middot; {} &middot; method {} &middot; {} &rarr; {}</p>",
        esc(&run.tool),
        esc(&command_shown(&run.command_line)),
        esc(&run.extraction_method),
        esc(&run.started),
        esc(&run.ended)
    )
}

/// The command line as the user typed it: the program by its file name (the shell found it,
/// wherever it lies), the arguments as given, the first [`SHOWN_ARGUMENTS`] of a long list.
pub fn command_shown(args: &[String]) -> String {
    let mut shown: Vec<&str> = Vec::with_capacity(args.len().min(SHOWN_ARGUMENTS + 1));
    if let Some(program) = args.first() {
        shown.push(
            Path::new(program)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(program),
        );
    }
    let rest = args.get(1..).unwrap_or_default();
    shown.extend(rest.iter().take(SHOWN_ARGUMENTS).map(String::as_str));
    let mut line = shown.join(" ");
    if rest.len() > SHOWN_ARGUMENTS {
        let _ = write!(
            line,
            " … and {} more arguments (report.json lists them all)",
            rest.len() - SHOWN_ARGUMENTS
        );
    }
    line
}

/// `part` in percent of `whole`, one decimal ("<0.1%" for a share too small to show).
fn percent(part: u64, whole: u64) -> String {
    if part == 0 || whole == 0 {
        return "0%".into();
    }
    let p = part as f64 / whole as f64 * 100.0;
    if p < 0.05 {
        "&lt;0.1%".into()
    } else {
        format!("{p:.1}%")
    }
}

/// The headline: the share of documents that are duplicates, exact and near.
pub fn headline(documents: u64, exact: u64, near: u64, clusters: u64) -> String {
    if documents == 0 {
        return "<p class=headline>No documents: nothing to compare.</p>".into();
    }
    let dups = exact + near;
    format!(
        "<p class=headline><b>{}</b> of documents are duplicates: <b class=exact>{}</b> exact copies, \
         <b class=near>{}</b> near-duplicates <span class=sub>({dups} of {documents} documents, in {clusters} \
         clusters; one document of each cluster is kept)</span></p>",
        percent(dups, documents),
        percent(exact, documents),
        percent(near, documents),
    )
}

/// Clusters per size.
pub fn size_bars(clusters: &[Cluster]) -> Vec<Bar> {
    let edges: [(usize, usize, &str); 8] = [
        (2, 2, "2"),
        (3, 3, "3"),
        (4, 4, "4"),
        (5, 5, "5"),
        (6, 10, "6-10"),
        (11, 20, "11-20"),
        (21, 50, "21-50"),
        (51, usize::MAX, "51+"),
    ];
    edges
        .iter()
        .map(|&(lo, hi, name)| {
            let n = clusters
                .iter()
                .filter(|c| (lo..=hi).contains(&c.members.len()))
                .count();
            Bar::new(name, n as u64)
        })
        .collect()
}

/// Duplicates per similarity to their representative: near-duplicates in bins of 0.05 (from
/// the first bin that holds one), then the exact copies apart, in their own colour.
pub fn similarity_bars(clusters: &[Cluster]) -> Vec<Bar> {
    let (mut bins, mut exact) = ([0u64; 20], 0u64);
    for cl in clusters {
        for m in cl.members.iter().filter(|m| m.doc != cl.representative) {
            if m.kind == MatchKind::Exact {
                exact += 1;
            } else {
                let b = ((f64::from(m.similarity) * 20.0).floor().max(0.0) as usize).min(19);
                bins[b] += 1;
            }
        }
    }
    let mut out: Vec<Bar> = match bins.iter().position(|&n| n > 0) {
        Some(first) => (first..20)
            .map(|b| Bar::new(format!("{:.2}", b as f64 / 20.0), bins[b]))
            .collect(),
        None => Vec::new(),
    };
    out.push(Bar {
        label: "exact".into(),
        count: exact,
        colour: EXACT_COLOUR,
        apart: !out.is_empty(),
    });
    out
}

/// Duplicates per host, the [`REPORT_TOP_HOSTS`] with most.
pub fn host_bars(p: &ReportParts<'_>) -> Vec<Bar> {
    let mut per: BTreeMap<String, u64> = BTreeMap::new();
    for d in 0..p.catalog.documents() as u32 {
        if !p.verdicts.kept(d) {
            let host = site_of(p.catalog.doc(d).origin.url.as_deref());
            *per.entry(if host.is_empty() {
                "(no host)".into()
            } else {
                host
            })
            .or_default() += 1;
        }
    }
    let mut v: Vec<(String, u64)> = per.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(REPORT_TOP_HOSTS);
    v.into_iter().map(|(h, n)| Bar::new(h, n)).collect()
}

/// What a skip reason of a record that is not a page means; `None` for records that could have
/// been pages (another HTTP status, an image, an empty page...).
pub fn not_a_page(reason: &str) -> Option<&'static str> {
    NOT_PAGES
        .iter()
        .find(|(r, _)| *r == reason)
        .map(|(_, what)| *what)
}

/// The skip chart's bars (skips of records that could have been pages, then record errors) and
/// the number of records left out of it as not pages.
pub fn skip_bars(
    skipped: &BTreeMap<String, u64>,
    errors: &BTreeMap<String, u64>,
) -> (Vec<Bar>, u64) {
    let mut left_out = 0u64;
    let mut bars = Vec::new();
    for (k, &n) in skipped {
        if not_a_page(k).is_some() {
            left_out += n;
        } else {
            bars.push(Bar::new(format!("skip: {k}"), n));
        }
    }
    bars.extend(
        errors
            .iter()
            .map(|(k, &n)| Bar::new(format!("error: {k}"), n)),
    );
    (bars, left_out)
}

/// The table of every record that gave no document, by reason (those not charted marked), and
/// the records read by type.
pub fn skip_table(skipped: &BTreeMap<String, u64>, by_type: &BTreeMap<String, u64>) -> String {
    let mut h = String::from("<h2>Records that gave no document</h2>");
    if skipped.is_empty() {
        h.push_str("<p>Every record gave a document.</p>");
    } else {
        h.push_str("<table class=nums id=skips><tr><th>reason</th><th>records</th><th>in the chart</th></tr>");
        for (k, n) in skipped {
            let charted = match not_a_page(k) {
                Some(what) => format!("no: not a page, {what}"),
                None => "yes".into(),
            };
            let _ = write!(
                h,
                "<tr><td class=l>{}</td><td>{n}</td><td class=l>{}</td></tr>",
                esc(k),
                esc(&charted)
            );
        }
        h.push_str("</table>");
    }
    if !by_type.is_empty() {
        let types: Vec<String> = by_type
            .iter()
            .map(|(k, n)| format!("{} {n}", esc(k)))
            .collect();
        let _ = write!(
            h,
            "<p class=types>Records read, by type: {}</p>",
            types.join(" &middot; ")
        );
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{extract_record, Outcome};
    use crawlsift_dedup::Member;
    use crawlsift_extractor::ExtractorBuilder;
    use crawlsift_reader::{read_bytes, ReaderConfig};

    fn member(doc: u32, similarity: f32, kind: MatchKind) -> Member {
        Member {
            doc,
            similarity,
            kind,
        }
    }

    #[test]
    fn exact_copies_are_counted_apart_from_near_duplicates() {
        let clusters = vec![
            Cluster {
                representative: 0,
                members: vec![
                    member(0, 1.0, MatchKind::Representative),
                    member(1, 1.0, MatchKind::Exact),
                    member(2, 1.0, MatchKind::Exact),
                    member(3, 0.97, MatchKind::Near),
                ],
                lowest_similarity: 0.97,
            },
            Cluster {
                representative: 4,
                members: vec![
                    member(4, 1.0, MatchKind::Representative),
                    member(5, 0.81, MatchKind::Near),
                ],
                lowest_similarity: 0.81,
            },
        ];
        let bars = similarity_bars(&clusters);
        let got: Vec<(&str, u64, bool)> = bars
            .iter()
            .map(|b| (b.label.as_str(), b.count, b.apart))
            .collect();
        assert_eq!(
            got,
            [
                ("0.80", 1, false),
                ("0.85", 0, false),
                ("0.90", 0, false),
                ("0.95", 1, false),
                ("exact", 2, true)
            ]
        );
        assert_eq!(bars[4].colour, EXACT_COLOUR);
        assert_eq!(
            similarity_bars(&[])
                .iter()
                .map(|b| b.count)
                .collect::<Vec<_>>(),
            [0]
        );
        let sizes = size_bars(&clusters);
        assert_eq!((sizes[0].count, sizes[2].count), (1, 1));
    }

    #[test]
    fn the_headline_gives_exact_and_near_in_percent_of_documents() {
        let h = headline(497, 57, 93, 66);
        assert!(
            h.contains("<b>30.2%</b> of documents are duplicates"),
            "{h}"
        );
        assert!(h.contains("<b class=exact>11.5%</b> exact copies"), "{h}");
        assert!(h.contains("<b class=near>18.7%</b> near-duplicates"), "{h}");
        assert!(h.contains("150 of 497 documents, in 66 clusters"), "{h}");
        assert!(headline(0, 0, 0, 0).contains("No documents"));
        assert!(headline(100_000, 1, 0, 1).contains("&lt;0.1%"));
    }

    #[test]
    fn the_command_line_shows_the_program_by_name_and_the_paths_as_typed() {
        let args: Vec<String> = [
            "/home/u/crawlsift/target/release/crawlsift",
            "dedup",
            "corpus/a.warc.gz",
            "--out",
            "out",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            command_shown(&args),
            "crawlsift dedup corpus/a.warc.gz --out out"
        );
        let many: Vec<String> = std::iter::once("crawlsift".to_string())
            .chain((0..40).map(|i| format!("f{i}.warc")))
            .collect();
        let shown = command_shown(&many);
        assert!(
            shown.contains("f15.warc") && !shown.contains("f16.warc"),
            "{shown}"
        );
        assert!(shown.ends_with("and 24 more arguments (report.json lists them all)"));
        assert_eq!(command_shown(&[]), "");
    }

    #[test]
    fn records_that_are_not_pages_are_left_out_of_the_chart_and_kept_in_the_table() {
        // The reasons are those the page policy gives: a request, a robots.txt and a crawler's
        // log are read and skipped under the names this module leaves out.
        let warc = |kind: &str, uri: &str, ctype: &str, block: &str| {
            format!(
                "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:{uri}>\r\nWARC-Target-URI: {uri}\r\n\
                 Content-Type: {ctype}\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
                block.len()
            )
        };
        let data = [
            warc(
                "request",
                "http://a/",
                "application/http; msgtype=request",
                "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            ),
            warc(
                "metadata",
                "http://a/",
                "application/warc-fields",
                "via: http://b/\r\n",
            ),
            warc(
                "response",
                "http://a/robots.txt",
                "application/http; msgtype=response",
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nUser-agent: *\n",
            ),
            warc(
                "resource",
                "metadata://wget/wget.log",
                "text/plain",
                "Connecting to a.com\n",
            ),
            warc(
                "response",
                "http://a/x",
                "application/http; msgtype=response",
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n<p>gone</p>",
            ),
        ]
        .concat();
        let mut ex = ExtractorBuilder::new().build().unwrap();
        let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
        read_bytes(
            bytes::Bytes::from(data),
            0,
            &ReaderConfig::default(),
            &mut |batch| {
                for rec in &batch {
                    if let Outcome::Skipped(why) = extract_record(rec, &mut ex) {
                        *skipped.entry(why.to_string()).or_default() += 1;
                    }
                }
                true
            },
        );
        assert_eq!(skipped.values().sum::<u64>(), 5, "{skipped:?}");
        let errors = BTreeMap::from([("truncated".to_string(), 2u64)]);
        let (bars, left_out) = skip_bars(&skipped, &errors);
        let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["skip: http_status", "error: truncated"]);
        assert_eq!(left_out, 4);
        let by_type = BTreeMap::from([("request".to_string(), 1u64)]);
        let table = skip_table(&skipped, &by_type);
        for reason in skipped.keys() {
            assert!(
                table.contains(&format!("<td class=l>{reason}</td>")),
                "{table}"
            );
        }
        assert_eq!(table.matches("no: not a page").count(), 3, "{table}");
        assert!(table.contains("by type: request 1"));
    }
}
