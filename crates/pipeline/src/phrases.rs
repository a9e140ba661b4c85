//! `dedup --phrases`: phrase-level duplication in a dedup run. The fingerprint workers sketch each
//! page's phrases next to its fingerprint ([`crate::dedup`]); the collector keeps the sketches in
//! document order ([`PhraseStore`]); once `dedup` has clustered the pages, [`analyze_run`] counts
//! popularity once per cluster (`crawlsift_phrases`), judges every page, and writes
//! `slice_and_dice.jsonl` and `popular_phrases.jsonl`; its [`PhraseReport`] is the `phrases`
//! section of `report.json`.

use crate::error::Result;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use crawlsift_common::limits;
use crawlsift_dedup::Clustering;
use crawlsift_phrases::{analyze, Analysis, JudgeConfig, PageInput, Sketch, Summary};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::flow::inputs::InputSet;
use crate::output::AtomicFile;
use crate::site::site_of;

/// Pages judged slice-and-dice, one JSON line each.
pub const SLICE_FILE: &str = "slice_and_dice.jsonl";
/// Popular phrases, most popular first.
pub const POPULAR_FILE: &str = "popular_phrases.jsonl";

/// Every document's sketch, in document order, and the words of sampled shingles.
#[derive(Debug, Default)]
pub struct PhraseStore {
    sketches: Vec<Box<[u64]>>,
    words: HashMap<u64, String>,
}

impl PhraseStore {
    /// Keeps the next document's sketch (`None`: a page without one, as if empty).
    pub fn push(&mut self, sketch: Option<Sketch>) {
        let sketch = sketch.unwrap_or_default();
        for (h, w) in sketch.words() {
            if self.words.len() >= limits::PHRASE_MAX_WORDS_KEPT {
                break;
            }
            self.words.entry(h).or_insert_with(|| w.to_string());
        }
        self.sketches.push(sketch.shingles);
    }

    /// Documents kept.
    pub fn len(&self) -> usize {
        self.sketches.len()
    }

    /// Whether no document was kept.
    pub fn is_empty(&self) -> bool {
        self.sketches.is_empty()
    }
}

/// A host with slice-and-dice pages.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HostCount {
    /// The host.
    pub host: String,
    /// Its slice-and-dice pages.
    pub pages: u64,
}

/// The `phrases` section of `report.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PhraseReport {
    /// Words per phrase (k).
    pub phrase_words: usize,
    /// Shingles per page (m).
    pub shingles_per_page: usize,
    /// Threshold, chance model, rule, Zipf table and histogram.
    #[serde(flatten)]
    pub summary: Summary,
    /// Hosts with the most slice-and-dice pages.
    pub hosts: Vec<HostCount>,
    /// Distinct phrases whose words were kept (the words sample).
    pub words_kept: usize,
}

/// A page as the output lines name it.
#[derive(Serialize)]
struct Named<'a> {
    id: &'a str,
    url: Option<&'a str>,
}

#[derive(Serialize)]
struct CoverLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    shared: u32,
    new: u32,
}

#[derive(Serialize)]
struct SliceLine<'a> {
    id: &'a str,
    url: Option<&'a str>,
    file: &'a str,
    offset: u64,
    popular_shingles: u32,
    borrowed_shingles: u32,
    template_shingles: u32,
    shingles: u32,
    covering_set: Vec<CoverLine<'a>>,
}

#[derive(Serialize)]
struct PopularLine<'a> {
    rank: usize,
    fingerprint: String,
    words: Option<&'a str>,
    classes: u32,
    pages: u32,
    hosts: u32,
    template: bool,
    examples: Vec<Named<'a>>,
}

/// Judges every document of a clustered run and writes the phrase outputs into `out`.
pub fn analyze_run(
    out: &Path,
    store: &PhraseStore,
    clustering: &Clustering,
    catalog: &Catalog,
    inputs: &InputSet,
    threads: usize,
) -> Result<PhraseReport> {
    let n = catalog.documents().min(store.len());
    let assigned = clustering.assignments(n);
    let clusters = clustering.clusters.len() as u32;
    let mut host_ids: BTreeMap<String, u32> = BTreeMap::new();
    let mut hosts: Vec<u32> = Vec::with_capacity(n);
    for d in 0..n {
        let site = site_of(catalog.doc(d as u32).origin.url.as_deref());
        let next = host_ids.len() as u32;
        hosts.push(*host_ids.entry(site).or_insert(next));
    }
    let pages: Vec<PageInput<'_>> = (0..n)
        .map(|d| PageInput {
            shingles: &store.sketches[d],
            class: assigned[d].unwrap_or(clusters + d as u32),
            host: hosts[d],
        })
        .collect();
    let a = analyze(&pages, &JudgeConfig::default(), threads);
    write_slice(out, &a, catalog, inputs)?;
    let ranked = a.ranked();
    write_popular(out, &a, &ranked, store, catalog)?;
    let mut names: Vec<&str> = vec![""; host_ids.len()];
    for (h, &i) in &host_ids {
        names[i as usize] = h;
    }
    let mut per_host: BTreeMap<u32, u64> = BTreeMap::new();
    for (d, v) in a.verdicts.iter().enumerate() {
        if v.slice_and_dice {
            *per_host.entry(hosts[d]).or_default() += 1;
        }
    }
    let mut top: Vec<HostCount> = per_host
        .into_iter()
        .map(|(h, pages)| HostCount {
            host: names[h as usize].to_string(),
            pages,
        })
        .collect();
    top.sort_by(|a, b| b.pages.cmp(&a.pages).then_with(|| a.host.cmp(&b.host)));
    top.truncate(limits::PHRASE_TOP_HOSTS);
    Ok(PhraseReport {
        phrase_words: limits::PHRASE_WORDS,
        shingles_per_page: limits::PHRASE_SHINGLES,
        summary: a.summary_of(&ranked),
        hosts: top,
        words_kept: store.words.len(),
    })
}

/// `report` as JSON, with `phrases` as its `phrases` section when given.
pub fn with_phrases<T: Serialize>(
    report: &T,
    phrases: Option<&PhraseReport>,
) -> serde_json::Result<serde_json::Value> {
    let mut v = serde_json::to_value(report)?;
    if let (Some(p), Some(o)) = (phrases, v.as_object_mut()) {
        o.insert("phrases".into(), serde_json::to_value(p)?);
    }
    Ok(v)
}

/// Writes `slice_and_dice.jsonl`: one line per flagged page, in document order.
fn write_slice(out: &Path, a: &Analysis, catalog: &Catalog, inputs: &InputSet) -> Result<()> {
    let mut f = std::io::BufWriter::new(AtomicFile::create(&out.join(SLICE_FILE))?);
    for (d, v) in a.verdicts.iter().enumerate() {
        if !v.slice_and_dice {
            continue;
        }
        let meta = catalog.doc(d as u32);
        let o = &meta.origin;
        let covers: Vec<_> = v.cover.iter().map(|(c, p)| (c, catalog.doc(*p))).collect();
        let line = SliceLine {
            id: &o.id,
            url: o.url.as_deref(),
            file: inputs.name(o.pos.file),
            offset: o.pos.offset,
            popular_shingles: v.popular,
            borrowed_shingles: v.borrowed,
            template_shingles: v.template,
            shingles: v.shingles,
            covering_set: covers
                .iter()
                .map(|(c, meta)| {
                    let src = &meta.origin;
                    CoverLine {
                        id: &src.id,
                        url: src.url.as_deref(),
                        shared: c.shared,
                        new: c.new,
                    }
                })
                .collect(),
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    f.into_inner().map_err(|e| e.into_error())?.commit()
}

/// Writes `popular_phrases.jsonl`: the most popular phrases first, at most
/// [`limits::PHRASE_LISTED`].
fn write_popular(
    out: &Path,
    a: &Analysis,
    ranked: &[&crawlsift_phrases::Popular],
    store: &PhraseStore,
    catalog: &Catalog,
) -> Result<()> {
    let mut f = std::io::BufWriter::new(AtomicFile::create(&out.join(POPULAR_FILE))?);
    for (i, p) in ranked.iter().take(limits::PHRASE_LISTED).enumerate() {
        let holders: Vec<_> = (p.holders.iter().take(limits::PHRASE_EXAMPLES))
            .map(|h| catalog.doc(h.2))
            .collect();
        let line = PopularLine {
            rank: i + 1,
            fingerprint: format!("{:016x}", p.shingle),
            words: store.words.get(&p.shingle).map(String::as_str),
            classes: p.classes,
            pages: p.pages,
            hosts: p.hosts,
            template: p.is_template(a.config.max_classes),
            examples: holders
                .iter()
                .map(|meta| {
                    let o = &meta.origin;
                    Named {
                        id: &o.id,
                        url: o.url.as_deref(),
                    }
                })
                .collect(),
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    f.into_inner().map_err(|e| e.into_error())?.commit()
}
