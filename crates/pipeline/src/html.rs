//! `report.html`: the dedup report a person opens in a browser. One self-contained file: no
//! script, no external style, font or image. At the top, the command as typed and the headline
//! duplicate rate (exact and near, in % of documents); then charts drawn as inline SVG
//! ([`charts`]: counts on a log scale, so small bins stay visible) of cluster sizes, the
//! similarity of duplicates (exact copies apart), duplicates per host, the Zipf curve before and
//! after dedup, skips and errors by kind (records that are not pages left out, counted in the
//! table under the charts: [`sections`]); then the largest clusters with their representative
//! and one member side by side, word differences highlighted ([`text`]); with `--reuse`, the
//! pairs sharing text and the stories ([`reuse`]). Every text from a page
//! is escaped. The bytes depend only on the run's results (and the times `report.json` already
//! holds), not on thread count.

mod charts;
mod reuse;
mod sections;
mod text;

use crate::error::Result;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use crawlsift_dedup::Clusterer;
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_reader::{Input, RecordReader};
use hashbrown::HashMap;

use crate::output::AtomicFile;
use crate::page::clustered_page;
use crate::report::{DedupReport, ReportParts};
use crate::reuse::ReuseSummary;
use crate::verdict::Verdicts;
pub use text::{esc, word_diff};

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
    reuse: Option<&ReuseSummary>,
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(render(p, r, zipf, pairs, reuse).as_bytes())?;
    f.commit()
}

/// The whole page: the run line and the headline duplicate rate, the counts, the charts, the
/// records that gave no document, the largest clusters side by side, text reuse and stories
/// (`--reuse`), the glossary.
pub fn render(
    p: &ReportParts<'_>,
    r: &DedupReport<'_>,
    zipf: &ZipfCurves,
    pairs: &[Pair],
    reuse: Option<&ReuseSummary>,
) -> String {
    let mut h = String::with_capacity(1 << 16);
    h.push_str(HEAD);
    h.push_str("<h1>crawlsift dedup report</h1>");
    h.push_str(&sections::run_line(r.run));
    h.push_str(&sections::headline(
        r.documents as u64,
        r.duplicates.exact,
        r.duplicates.near,
        r.clusters,
    ));
    let dups = r.duplicates.exact + r.duplicates.near;
    let _ = write!(
        h,
        "<table class=nums><tr><th>records</th><th>documents</th><th>clusters</th><th>duplicates</th><th>exact</th><th>near</th><th>too short</th><th>boilerplate</th></tr>\
         <tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
        r.records, r.documents, r.clusters, dups, r.duplicates.exact, r.duplicates.near, r.too_short, r.boilerplate
    );
    let clusters = &p.clustering.clusters;
    h.push_str("<div class=grid>");
    h.push_str(&charts::columns(
        "Cluster sizes",
        "clusters per number of documents",
        &sections::size_bars(clusters),
    ));
    h.push_str(&charts::columns(
        "Similarity of duplicates to their representative",
        "near-duplicates per share of words in common; exact copies apart, in orange",
        &sections::similarity_bars(clusters),
    ));
    h.push_str(&charts::rows(
        "Duplicates per host (top 20)",
        "duplicates",
        &sections::host_bars(p),
    ));
    h.push_str(&charts::loglog(
        "Zipf: word frequency by rank (log-log)",
        &[
            ("all documents", "#c0392b", &zipf.raw[..]),
            ("after dedup", "#2471a3", &zipf.kept[..]),
        ],
    ));
    let (skips, not_pages) = sections::skip_bars(r.skipped, &r.record_errors);
    let note = if not_pages > 0 {
        format!("{not_pages} records that are not pages left out, counted in the table below")
    } else {
        "records that could have been pages".to_string()
    };
    h.push_str(&charts::rows(
        "Pages skipped and record errors, by kind",
        &note,
        &skips,
    ));
    h.push_str("</div>");
    h.push_str(&sections::skip_table(r.skipped, &r.records_by_type));
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
    if let Some(summary) = reuse {
        h.push_str(&reuse::section(summary));
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
.headline{font-size:20px;margin:8px 0}.headline b{font-size:26px}.headline b.exact{color:#d35400}.headline .sub{font-size:14px;color:#555}\
table.nums{border-collapse:collapse;margin:6px 0}table.nums td,table.nums th{border:1px solid #bbb;padding:3px 10px;text-align:right}table.nums td.l{text-align:left}\
.types{color:#555;font-size:12px}\
.grid{display:flex;flex-wrap:wrap;gap:12px}.chart{border:1px solid #ddd;padding:4px}\
.pair{display:flex;gap:8px}.side{flex:1;min-width:0;border:1px solid #ccc}\
.label{background:#eee;padding:3px 6px;font-size:12px;word-break:break-all}\
.text{padding:6px;max-height:260px;overflow:auto;font-size:12px;white-space:pre-wrap}\
del{background:#f5b7b1;text-decoration:none}mark{background:#f9e79f}ins{background:#abebc6;text-decoration:none}\
dt{font-weight:bold}dd{margin:0 0 4px 16px}\
</style></head><body>";

#[cfg(test)]
mod tests {
    use super::*;

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
            c.add(f.fingerprint(&text.join(" ")));
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
}
