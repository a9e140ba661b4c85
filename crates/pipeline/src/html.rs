//! `report.html`: the dedup report a person opens in a browser. One self-contained file: no
//! script, no external style, font or image; charts are inline SVG drawn here (cluster sizes,
//! similarity of merged pairs, duplicates per host, the Zipf curve before and after dedup, skips
//! and errors by kind), then the largest clusters with their representative and one member side
//! by side, word differences highlighted. Every text from a page is escaped. The bytes depend
//! only on the run's results (and the times `report.json` already holds), not on thread count.

use crate::error::Result;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use crawlsift_common::limits::{REPORT_DIFF_WORDS, REPORT_TOP_HOSTS};
use crawlsift_dedup::Clusterer;
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_reader::{Input, RecordReader};
use hashbrown::HashMap;

use crate::output::AtomicFile;
use crate::page::clustered_page;
use crate::report::{DedupReport, ReportParts};
use crate::site::site_of;
use crate::verdict::Verdicts;

/// The rank-frequency curves of a run's words, `(rank, freq)` at log-spaced ranks: over every
/// document and over the kept ones.
#[derive(Debug, Clone, Default)]
pub struct ZipfCurves {
    /// All documents.
    pub raw: Vec<(u64, u64)>,
    /// Documents kept (unique ones and one per cluster).
    pub kept: Vec<(u64, u64)>,
}

/// The Zipf curves of the words dedup compared (the word profiles: normalised words as 32-bit
/// hashes, so the curve is exact up to rare hash collisions). An error is a spilled profile
/// that could not be read back.
pub fn zipf_curves(
    clusterer: &Clusterer,
    verdicts: &Verdicts,
    threads: usize,
) -> Result<ZipfCurves, crawlsift_dedup::SpillError> {
    // A word's count lives in one of `ZIPF_PARTS` small maps chosen by its top bits. Words are
    // first scattered by part, a bounded slice of documents at a time, then each part's words
    // are counted into its map: one map at a time stays in cache, where one map of every word
    // took a cache miss per word. Each thread counts a contiguous run of documents; the maps
    // are summed part by part, and the curves come from the sorted counts, so nothing depends
    // on the thread count.
    let docs: Vec<u32> = (0..clusterer.len() as u32).collect();
    let parts = crawlsift_common::parallel::in_parallel(threads, &docs, |chunk| {
        let mut maps: Vec<WordCounts> = (0..ZIPF_PARTS).map(|_| HashMap::default()).collect();
        let mut scattered: Vec<Vec<(u32, bool)>> = vec![Vec::new(); ZIPF_PARTS];
        let mut pending = 0usize;
        let drain = |scattered: &mut Vec<Vec<(u32, bool)>>, maps: &mut Vec<WordCounts>| {
            for (words, map) in scattered.iter_mut().zip(maps.iter_mut()) {
                for (w, kept) in words.drain(..) {
                    let c = map.entry(w).or_default();
                    c.0 += 1;
                    c.1 += u64::from(kept);
                }
            }
        };
        for &d in chunk {
            let Some(p) = clusterer.profile(d)? else {
                continue;
            };
            let kept = verdicts.kept(d);
            for &w in p.words.iter() {
                scattered[(w >> ZIPF_PART_SHIFT) as usize].push((w, kept));
            }
            pending += p.words.len();
            if pending >= ZIPF_SCATTER_WORDS {
                drain(&mut scattered, &mut maps);
                pending = 0;
            }
        }
        drain(&mut scattered, &mut maps);
        Ok(maps)
    });
    let mut parts = parts.into_iter();
    let mut maps = parts.next().transpose()?.unwrap_or_default();
    for other in parts {
        let other = other?;
        for (map, more) in maps.iter_mut().zip(other) {
            for (w, (all, kept)) in more {
                let c = map.entry(w).or_default();
                c.0 += all;
                c.1 += kept;
            }
        }
    }
    let curve = |f: fn(&(u64, u64)) -> u64| {
        let mut v: Vec<u64> = maps
            .iter()
            .flat_map(|m| m.values().map(f))
            .filter(|&n| n > 0)
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        crawlsift_stats::zipf::curve(&v)
    };
    Ok(ZipfCurves {
        raw: curve(|c| c.0),
        kept: curve(|c| c.1),
    })
}

/// Maps a Zipf count is split into, by a word's top bits (a power of two).
const ZIPF_PARTS: usize = 64;
/// Shift that leaves a word's top bits: its part.
const ZIPF_PART_SHIFT: u32 = 32 - ZIPF_PARTS.trailing_zeros();
/// Words scattered before they are counted (bounds the scatter buffers at 8 bytes a word).
const ZIPF_SCATTER_WORDS: usize = 1 << 20;

/// Count of each word over every document and over the kept ones.
type WordCounts = HashMap<u32, (u64, u64), WordHash>;

/// Hashes a word of a profile (already a hash of the word) with one multiply: the map's control
/// bits come from the high bits, which the multiply fills; a general-purpose hasher cost a third
/// of the curve's time.
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, w: u32) {
        self.0 = u64::from(w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type WordHash = std::hash::BuildHasherDefault<WordHasher>;

/// A representative and one member of a large cluster, as the side-by-side view shows them.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Cluster number.
    pub cluster: usize,
    /// Members.
    pub size: usize,
    /// (label, text) of the representative and of the member (text `None` when the record
    /// could not be read again, e.g. from standard input).
    pub sides: [(String, Option<String>); 2],
    /// The member's similarity to the representative.
    pub similarity: f32,
}

/// Reads again the representative and the first other member of the `report`'s largest
/// clusters (one record each, at its byte offset) and extracts their text.
pub fn largest_pairs(p: &ReportParts<'_>, extractor: &ExtractorBuilder) -> Vec<Pair> {
    let Ok(mut ex) = extractor.clone().build() else {
        return Vec::new();
    };
    let mut reader = RecordReader::new();
    let mut text_of = |doc: u32| -> (String, Option<String>) {
        let o = &p.catalog.doc(doc).origin;
        let at = match o.uoffset {
            0 => o.pos.offset.to_string(),
            u => format!("{} (decompressed byte {u})", o.pos.offset),
        };
        let label = format!(
            "{} @{at} {}",
            p.inputs.name(o.pos.file),
            o.url.as_deref().unwrap_or(&o.id)
        );
        let text = match p.inputs.inputs.get(o.pos.file as usize) {
            Some(Input::Path(path)) => {
                record_text(&mut reader, path, o.pos.offset, o.uoffset, &mut ex)
            }
            _ => None,
        };
        (label, text)
    };
    let mut order: Vec<usize> = (0..p.clustering.clusters.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(p.clustering.clusters[i].members.len()));
    order
        .into_iter()
        .take(crawlsift_common::limits::REPORT_LARGEST_CLUSTERS)
        .filter_map(|i| {
            let cl = &p.clustering.clusters[i];
            let m = cl.members.iter().find(|m| m.doc != cl.representative)?;
            Some(Pair {
                cluster: i,
                size: cl.members.len(),
                sides: [text_of(cl.representative), text_of(m.doc)],
                similarity: m.similarity,
            })
        })
        .collect()
}

/// The main text of the record at `offset` / `uoffset` of `path`, read again with `reader`
/// (which keeps the inflate checkpoints of a file compressed whole between records).
fn record_text(
    reader: &mut RecordReader,
    path: &Path,
    offset: u64,
    uoffset: u64,
    ex: &mut crawlsift_extractor::Extractor,
) -> Option<String> {
    let rec = reader.record_at(path, offset, uoffset).ok()?;
    clustered_page(&rec, ex).ok().map(|p| p.text)
}

/// Writes `report.html` (whole or not at all).
pub fn write_html(
    path: &Path,
    p: &ReportParts<'_>,
    r: &DedupReport<'_>,
    zipf: &ZipfCurves,
    pairs: &[Pair],
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(render(p, r, zipf, pairs).as_bytes())?;
    f.commit()
}

/// The whole page.
pub fn render(
    p: &ReportParts<'_>,
    r: &DedupReport<'_>,
    zipf: &ZipfCurves,
    pairs: &[Pair],
) -> String {
    let mut h = String::with_capacity(1 << 16);
    h.push_str(HEAD);
    let _ = write!(
        h,
        "<h1>crawlsift dedup report</h1><p class=meta>{} &middot; {} &middot; method {} &middot; {} &rarr; {}</p>",
        esc(&r.run.tool),
        esc(&r.run.command_line.join(" ")),
        esc(&r.run.extraction_method),
        esc(&r.run.started),
        esc(&r.run.ended)
    );
    let dups = r.duplicates.exact + r.duplicates.near;
    let _ = write!(
        h,
        "<table class=nums><tr><th>records</th><th>documents</th><th>clusters</th><th>duplicates</th><th>exact</th><th>near</th><th>too short</th><th>boilerplate</th></tr>\
         <tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
        r.records, r.documents, r.clusters, dups, r.duplicates.exact, r.duplicates.near, r.too_short, r.boilerplate
    );
    h.push_str("<div class=grid>");
    h.push_str(&bars(
        "Cluster sizes (clusters per size)",
        &size_bins(p),
        false,
    ));
    h.push_str(&bars(
        "Similarity of merged pairs (members per share of words in common)",
        &similarity_bins(p),
        false,
    ));
    h.push_str(&bars("Duplicates per host (top 20)", &host_bins(p), true));
    h.push_str(&loglog(
        "Zipf: word frequency by rank (log-log)",
        &[
            ("all documents", "#c0392b", &zipf.raw[..]),
            ("after dedup", "#2471a3", &zipf.kept[..]),
        ],
    ));
    let mut kinds: Vec<(String, u64)> = r
        .skipped
        .iter()
        .map(|(k, n)| (format!("skip: {k}"), *n))
        .collect();
    kinds.extend(
        r.record_errors
            .iter()
            .map(|(k, n)| (format!("error: {k}"), *n)),
    );
    h.push_str(&bars("Records skipped and errors, by kind", &kinds, true));
    h.push_str("</div>");
    h.push_str("<h2>Largest clusters</h2>");
    if pairs.is_empty() {
        h.push_str("<p>No clusters.</p>");
    }
    for pair in pairs {
        let _ = write!(
            h,
            "<h3>Cluster {} &middot; {} documents &middot; member similarity {:.4}</h3><div class=pair>",
            pair.cluster, pair.size, pair.similarity
        );
        let texts = [pair.sides[0].1.as_deref(), pair.sides[1].1.as_deref()];
        let diff = match texts {
            [Some(a), Some(b)] => Some(word_diff(a, b)),
            _ => None,
        };
        for (side, (label, _)) in pair.sides.iter().enumerate() {
            let title = if side == 0 {
                "representative"
            } else {
                "member"
            };
            let _ = write!(
                h,
                "<div class=side><div class=label>{title}: {}</div><div class=text>",
                esc(label)
            );
            match &diff {
                Some(d) => h.push_str(&d[side]),
                None => h.push_str("<i>text not available (input cannot be read again)</i>"),
            }
            h.push_str("</div></div>");
        }
        h.push_str("</div>");
    }
    h.push_str("<h2>Glossary</h2><dl>");
    for (k, v) in &r.glossary {
        let _ = write!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    h.push_str("</dl></body></html>\n");
    h
}

const HEAD: &str = "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>crawlsift dedup report</title><style>\
body{font:14px/1.4 sans-serif;margin:16px;color:#222;max-width:1260px}\
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:18px 0 6px}h3{font-size:14px;margin:12px 0 4px}\
.meta{color:#555;margin:0 0 10px;word-break:break-all}\
table.nums{border-collapse:collapse;margin:6px 0}table.nums td,table.nums th{border:1px solid #bbb;padding:3px 10px;text-align:right}\
.grid{display:flex;flex-wrap:wrap;gap:12px}.chart{border:1px solid #ddd;padding:4px}\
.pair{display:flex;gap:8px}.side{flex:1;min-width:0;border:1px solid #ccc}\
.label{background:#eee;padding:3px 6px;font-size:12px;word-break:break-all}\
.text{padding:6px;max-height:260px;overflow:auto;font-size:12px;white-space:pre-wrap}\
del{background:#f5b7b1;text-decoration:none}ins{background:#abebc6;text-decoration:none}\
dt{font-weight:bold}dd{margin:0 0 4px 16px}\
</style></head><body>";

/// `s` with `&`, `<`, `>`, `"` and `'` escaped.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

fn size_bins(p: &ReportParts<'_>) -> Vec<(String, u64)> {
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
            let n = p
                .clustering
                .clusters
                .iter()
                .filter(|c| (lo..=hi).contains(&c.members.len()))
                .count();
            (name.to_string(), n as u64)
        })
        .collect()
}

fn similarity_bins(p: &ReportParts<'_>) -> Vec<(String, u64)> {
    let mut bins = [0u64; 20];
    for cl in &p.clustering.clusters {
        for m in cl.members.iter().filter(|m| m.doc != cl.representative) {
            let b = ((f64::from(m.similarity) * 20.0).floor() as usize).min(19);
            bins[b] += 1;
        }
    }
    let first = bins.iter().position(|&n| n > 0).unwrap_or(19);
    (first..20)
        .map(|b| (format!("{:.2}", b as f64 / 20.0), bins[b]))
        .collect()
}

fn host_bins(p: &ReportParts<'_>) -> Vec<(String, u64)> {
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
    v
}

/// A bar chart: horizontal bars with labels (`horizontal`), or columns.
fn bars(title: &str, data: &[(String, u64)], horizontal: bool) -> String {
    let max = data.iter().map(|d| d.1).max().unwrap_or(0).max(1) as f64;
    let mut s = String::new();
    let (w, row) = (600.0, 18.0);
    if horizontal {
        let h = 30.0 + row * data.len().max(1) as f64;
        let _ = write!(s, "<div class=chart><svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role=img><title>{t}</title><text x='4' y='16' font-size='13' font-weight='bold'>{t}</text>", t = esc(title));
        if data.is_empty() {
            s.push_str("<text x='4' y='40' font-size='12'>none</text>");
        }
        for (i, (label, n)) in data.iter().enumerate() {
            let y = 26.0 + row * i as f64;
            let bw = (*n as f64 / max) * 300.0;
            let _ = write!(s, "<text x='226' y='{:.1}' font-size='11' text-anchor='end'>{}</text><rect x='230' y='{y:.1}' width='{bw:.1}' height='{:.1}' fill='#5d6d7e'/><text x='{:.1}' y='{:.1}' font-size='11'>{n}</text>", y + 12.0, esc(&shorten(label, 36)), row - 4.0, 234.0 + bw, y + 12.0);
        }
    } else {
        let h = 230.0;
        let n = data.len().max(1) as f64;
        let cw = (w - 60.0) / n;
        let _ = write!(s, "<div class=chart><svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role=img><title>{t}</title><text x='4' y='16' font-size='13' font-weight='bold'>{t}</text><line x1='40' y1='200' x2='{:.1}' y2='200' stroke='#444'/>", w - 10.0, t = esc(title));
        for (i, (label, v)) in data.iter().enumerate() {
            let x = 45.0 + cw * i as f64;
            let bh = (*v as f64 / max) * 160.0;
            let _ = write!(s, "<rect x='{x:.1}' y='{:.1}' width='{:.1}' height='{bh:.1}' fill='#5d6d7e'/><text x='{:.1}' y='{:.1}' font-size='10' text-anchor='middle'>{v}</text><text x='{:.1}' y='214' font-size='10' text-anchor='middle'>{}</text>", 200.0 - bh, (cw - 4.0).max(1.0), x + cw / 2.0 - 2.0, 196.0 - bh, x + cw / 2.0 - 2.0, esc(label));
        }
    }
    s.push_str("</svg></div>");
    s
}

/// One line of a chart: its name, colour and `(x, y)` points.
type Series<'a> = (&'a str, &'a str, &'a [(u64, u64)]);

/// A log-log line chart of `(x, y)` series.
fn loglog(title: &str, series: &[Series<'_>]) -> String {
    let (w, h, l, b, t, r) = (600.0, 300.0, 50.0, 260.0, 30.0, 580.0);
    let pts = series
        .iter()
        .flat_map(|s| s.2.iter())
        .filter(|p| p.0 > 0 && p.1 > 0);
    let xmax = pts.clone().map(|p| p.0).max().unwrap_or(10).max(10) as f64;
    let ymax = pts.map(|p| p.1).max().unwrap_or(10).max(10) as f64;
    let (lx, ly) = (xmax.log10().ceil(), ymax.log10().ceil());
    let px = |x: f64| l + x.log10() / lx * (r - l);
    let py = |y: f64| b - y.log10() / ly * (b - t);
    let mut s = String::new();
    let _ = write!(s, "<div class=chart><svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role=img><title>{tt}</title><text x='4' y='16' font-size='13' font-weight='bold'>{tt}</text><rect x='{l}' y='{t}' width='{}' height='{}' fill='none' stroke='#444'/>", r - l, b - t, tt = esc(title));
    for e in 0..=lx as i32 {
        let x = px(10f64.powi(e));
        let _ = write!(s, "<line x1='{x:.1}' y1='{t}' x2='{x:.1}' y2='{b}' stroke='#ddd'/><text x='{x:.1}' y='{:.1}' font-size='10' text-anchor='middle'>1e{e}</text>", b + 13.0);
    }
    for e in 0..=ly as i32 {
        let y = py(10f64.powi(e));
        let _ = write!(s, "<line x1='{l}' y1='{y:.1}' x2='{r}' y2='{y:.1}' stroke='#ddd'/><text x='{:.1}' y='{:.1}' font-size='10' text-anchor='end'>1e{e}</text>", l - 4.0, y + 3.0);
    }
    let _ = write!(s, "<text x='{:.1}' y='{:.1}' font-size='11' text-anchor='middle'>rank</text><text x='12' y='{:.1}' font-size='11' transform='rotate(-90 12 {:.1})' text-anchor='middle'>frequency</text>", (l + r) / 2.0, b + 28.0, (t + b) / 2.0, (t + b) / 2.0);
    for (i, (name, color, data)) in series.iter().enumerate() {
        let path: Vec<String> = data
            .iter()
            .filter(|p| p.0 > 0 && p.1 > 0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x as f64), py(y as f64)))
            .collect();
        let _ = write!(s, "<polyline fill='none' stroke='{color}' stroke-width='1.8' points='{}'/><text x='{:.1}' y='{:.1}' font-size='11' fill='{color}'>{}</text>", path.join(" "), r - 120.0, t + 16.0 + 14.0 * i as f64, esc(name));
    }
    s.push_str("</svg></div>");
    s
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut o: String = s.chars().take(max - 1).collect();
    o.push('…');
    o
}

/// Word-level differences of `a` and `b` (their first [`REPORT_DIFF_WORDS`] words), as HTML:
/// words only in `a` in `<del>`, only in `b` in `<ins>`, the rest plain; all escaped.
pub fn word_diff(a: &str, b: &str) -> [String; 2] {
    let wa: Vec<&str> = a.split_whitespace().take(REPORT_DIFF_WORDS).collect();
    let wb: Vec<&str> = b.split_whitespace().take(REPORT_DIFF_WORDS).collect();
    let (n, m) = (wa.len(), wb.len());
    // lcs[i][j]: longest common subsequence of wa[i..] and wb[j..].
    let mut lcs = vec![0u16; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * (m + 1) + j] = if wa[i] == wb[j] {
                lcs[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut oa, mut ob) = (String::new(), String::new());
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && wa[i] == wb[j] {
            oa.push_str(&esc(wa[i]));
            ob.push_str(&esc(wb[j]));
            oa.push(' ');
            ob.push(' ');
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j]) {
            let _ = write!(ob, "<ins>{}</ins> ", esc(wb[j]));
            j += 1;
        } else {
            let _ = write!(oa, "<del>{}</del> ", esc(wa[i]));
            i += 1;
        }
    }
    for (o, words, all) in [(&mut oa, n, a), (&mut ob, m, b)] {
        if all.split_whitespace().nth(words).is_some() {
            o.push_str("<i>[…]</i>");
        }
    }
    [oa, ob]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_text_is_escaped_and_differences_marked() {
        let [a, b] = word_diff("the <b>cat</b> sat", "the <script>x</script> sat down");
        assert_eq!(a, "the <del>&lt;b&gt;cat&lt;/b&gt;</del> sat ");
        assert_eq!(
            b,
            "the <ins>&lt;script&gt;x&lt;/script&gt;</ins> sat <ins>down</ins> "
        );
        assert_eq!(esc("a&'\""), "a&amp;&#39;&quot;");
    }

    #[test]
    fn zipf_counts_are_every_word_of_every_profile_for_any_thread_count() {
        use crawlsift_dedup::{DedupConfig, Fingerprinter};
        let cfg = DedupConfig::default();
        let mut f = Fingerprinter::new(&cfg);
        let mut c = Clusterer::new(&cfg).unwrap();
        let vocabulary: Vec<String> = (0..3000).map(|i| format!("w{i}")).collect();
        for d in 0..60usize {
            // Texts over a skewed vocabulary; every fifth one a copy of the one before.
            let src = if d % 5 == 4 { d - 1 } else { d };
            let mut x = src as u64 * 7919 + 1;
            let text: Vec<&str> = (0..400)
                .map(|_| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    // Squaring a uniform draw favours low ranks.
                    let u = (x >> 33) as f64 / (1u64 << 31) as f64;
                    vocabulary[(u * u * 3000.0) as usize % 3000].as_str()
                })
                .collect();
            c.add(f.fingerprint(&text.join(" "))).unwrap();
        }
        let clustering = c.cluster_on(1).unwrap();
        let verdicts = Verdicts::new(&clustering, c.len());
        let mut all: HashMap<u32, (u64, u64)> = HashMap::new();
        for d in 0..c.len() as u32 {
            for &w in c.profile(d).unwrap().unwrap().words.iter() {
                let e = all.entry(w).or_default();
                e.0 += 1;
                e.1 += u64::from(verdicts.kept(d));
            }
        }
        let curve = |f: fn(&(u64, u64)) -> u64| {
            let mut v: Vec<u64> = all.values().map(f).filter(|&n| n > 0).collect();
            v.sort_unstable_by(|a, b| b.cmp(a));
            crawlsift_stats::zipf::curve(&v)
        };
        assert!(
            verdicts.kept(3) && !verdicts.kept(4),
            "the copies are clustered"
        );
        for threads in [1, 2, 3] {
            let z = zipf_curves(&c, &verdicts, threads).unwrap();
            assert_eq!(z.raw, curve(|c| c.0), "{threads} threads");
            assert_eq!(z.kept, curve(|c| c.1), "{threads} threads");
        }
    }

    #[test]
    fn long_texts_are_cut_and_say_so() {
        let long = "w ".repeat(REPORT_DIFF_WORDS + 5);
        let [a, _] = word_diff(&long, "w");
        assert!(a.ends_with("<i>[…]</i>"));
    }
}
