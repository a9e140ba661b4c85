//! The run of `crawlsift reuse`: every page's main text (the documents `dedup` clusters, through
//! [`clustered_page`]) is tokenised, winnowed and cut into kernels by the extract workers
//! ([`TextSketch`]), gathered in input order into a [`Corpus`] and a [`KernelTable`] (its text
//! spilled to an unnamed file in the output folder, 0 bytes resident a document beyond its
//! fingerprints and place), then the candidate pairs are aligned on all threads and written to
//! `reuse.jsonl` ([`ReuseLine`]), pairs in input order of their first document, then of their
//! second, and the documents telling the same story are grouped ([`group_stories`]) and written
//! to `stories.jsonl` ([`StoryLine`]). The outputs do not depend on the thread count.
//!
//! Which document of a pair is the source is not claimed: `a` is the one read first (input order,
//! then record order), nothing more.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use crawlsift_extractor::{Extractor, ExtractorBuilder};
use crawlsift_reader::{FileReport, ReaderConfig, Record};
use crawlsift_reuse::{
    group_stories, Corpus, KernelTable, Kernels, Pair, Passage, ReuseConfig, Story, StoryConfig,
    TextSketch,
};
use serde::Serialize;

use crate::error::{Error, IoContext, Result};
use crate::flow::map_inputs;
use crate::inputs::{Cancelled, InputSet};
use crate::output::AtomicFile;
use crate::page::clustered_page;
use crate::site::site_of;

/// The pairs file in the output folder.
pub const REUSE_FILE: &str = "reuse.jsonl";

/// The stories file in the output folder.
pub const STORIES_FILE: &str = "stories.jsonl";

/// One line of `stories.jsonl`: documents telling the same story, in the same or other words,
/// the first one read first; every member's kernel similarity to the first is at least the
/// threshold (no chains), as `clusters.jsonl` gives near-duplicates.
#[derive(Debug, Serialize)]
pub struct StoryLine<'a> {
    /// Story number, from 0 in input order of the first members.
    pub story: usize,
    /// Members, the first included.
    pub size: usize,
    /// Record id of the first member.
    pub first: &'a str,
    /// The lowest kernel similarity of a member to the first (4 decimals).
    pub lowest_similarity: f64,
    /// Members, the first first, then in input order.
    pub members: Vec<StoryMemberLine<'a>>,
}

/// A member of a story as `stories.jsonl` gives it.
#[derive(Debug, Serialize)]
pub struct StoryMemberLine<'a> {
    /// Record id.
    pub id: &'a str,
    /// Target URL.
    pub url: Option<&'a str>,
    /// Input name.
    pub file: &'a str,
    /// Byte offset of the record in its input.
    pub offset: u64,
    /// Kernel similarity to the first member (4 decimals; 1 for the first).
    pub similarity: f64,
}

/// One line of `reuse.jsonl`: two documents sharing text. `a` is the document read first; which
/// one is the source is not claimed. Ids are the record ids `clusters.jsonl` names (the DOCNO of a
/// TREC document, the WARC-Record-ID of a WARC record).
#[derive(Debug, Serialize)]
pub struct ReuseLine<'a> {
    /// Record id of the earlier document.
    pub a: &'a str,
    /// Record id of the later document.
    pub b: &'a str,
    /// Share of `a`'s words inside the passages (4 decimals): near 1, `a` is (mostly) in `b`.
    pub a_share: f64,
    /// Share of `b`'s words inside the passages (4 decimals).
    pub b_share: f64,
    /// The passages: word ranges over each document's words (maximal runs of Unicode letters and
    /// digits) and character ranges (Unicode scalar values) in each main text, end exclusive.
    pub passages: &'a [Passage],
    /// Target URL of `a`.
    pub a_url: Option<&'a str>,
    /// Target URL of `b`.
    pub b_url: Option<&'a str>,
    /// The input `a` is in.
    pub a_file: &'a str,
    /// Byte offset of `a`'s record in its input.
    pub a_offset: u64,
    /// The input `b` is in.
    pub b_file: &'a str,
    /// Byte offset of `b`'s record in its input.
    pub b_offset: u64,
}

/// The settings of a reuse run.
pub struct ReuseSettings<'a> {
    /// The inputs.
    pub inputs: &'a InputSet,
    /// Reader settings.
    pub reader: &'a ReaderConfig,
    /// Extractor settings (checked: building it must not fail).
    pub extractor: &'a ExtractorBuilder,
    /// Reuse parameters (checked by [`Corpus::new`]).
    pub reuse: &'a ReuseConfig,
    /// Worker threads.
    pub threads: usize,
}

/// What a reuse run did.
#[derive(Debug, Default, Serialize)]
pub struct ReuseSummary {
    /// Documents (pages with text).
    pub documents: u64,
    /// Records that gave no document, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// Fingerprints in the index.
    pub fingerprints: u64,
    /// Fingerprints held by too many documents to pair any.
    pub common_fingerprints: u64,
    /// Fingerprints that are a site's template (once per document).
    pub template_fingerprints: u64,
    /// Candidate pairs aligned.
    pub candidates: u64,
    /// Pairs sharing at least one passage (lines of `reuse.jsonl`).
    pub pairs: u64,
    /// Passages in them.
    pub passages: u64,
    /// Pairs by the larger of their two shares, in tenths: `[0, 0.1)`, ..., `[0.9, 1]`.
    pub pairs_by_share: [u64; 10],
    /// Document pairs whose kernel similarity was computed (candidates of the story sketches).
    pub story_candidates: u64,
    /// Pairs at or above the story threshold.
    pub story_similar_pairs: u64,
    /// Stories (lines of `stories.jsonl`).
    pub stories: u64,
    /// Documents in them.
    pub story_documents: u64,
    /// Per input, its reader summary if it was read to its end.
    #[serde(skip)]
    pub reports: Vec<Option<Result<FileReport, String>>>,
    /// The pairs sharing the longest passages, for `report.html`.
    #[serde(skip)]
    pub largest: Vec<ReuseHighlight>,
}

/// A pair of documents sharing text as `report.html` shows it: each side's label and text with
/// its passages' character ranges.
#[derive(Debug, Clone, PartialEq)]
pub struct ReuseHighlight {
    /// Record id and URL of each document.
    pub labels: [String; 2],
    /// Share of each document's words inside the passages.
    pub shares: [f64; 2],
    /// Each document's main text.
    pub texts: [String; 2],
    /// The passages' character ranges in each text, in order.
    pub passages: [Vec<[u32; 2]>; 2],
}

/// Pairs `report.html` shows side by side: those whose passages hold the most words of the
/// earlier document (input order on a tie).
pub const REPORT_REUSE_PAIRS: usize = 3;

/// A record as the workers leave it.
struct Item {
    file: u32,
    offset: u64,
    /// How far the input had been read ([`crawlsift_reader::Record::read_to`]), for progress.
    read_to: u64,
    id: String,
    url: Option<String>,
    page: Result<(String, TextSketch), &'static str>,
}

/// Where a document came from, and where its text and then its kernels lie in the spill.
struct Doc {
    id: String,
    url: Option<String>,
    file: u32,
    offset: u64,
    at: u64,
    len: u32,
    kernels_len: u32,
}

/// Page texts, appended to an unnamed file as they come and read back by place.
struct Spill {
    out: BufWriter<File>,
    at: u64,
}

/// The documents of a run gathered for text reuse, in input order: each one's sketch in the
/// [`Corpus`] and its text appended to an unnamed file in the output folder. `crawlsift reuse`
/// and `dedup --reuse` both gather through it, so their `reuse.jsonl` are the same bytes.
pub struct ReuseGatherer {
    corpus: Corpus,
    kernels: KernelTable,
    /// Each document's site number, when its URL has a host.
    doc_sites: Vec<Option<u32>>,
    spill_file: File,
    spill: Spill,
    docs: Vec<Doc>,
    sites: HashMap<String, u32>,
    out: std::path::PathBuf,
}

impl ReuseGatherer {
    /// A gatherer for `cfg` (checked) whose scratch file goes in `out`.
    pub fn new(cfg: &ReuseConfig, out: &Path) -> Result<Self> {
        let corpus = Corpus::new(cfg).map_err(|e| Error::Usage(e.to_string()))?;
        let spill_file = tempfile::tempfile_in(out).at(out, || {
            format!("cannot create a scratch file in {}", out.display())
        })?;
        let writer = spill_file
            .try_clone()
            .at(out, || "the texts' scratch file".to_string())?;
        Ok(ReuseGatherer {
            corpus,
            kernels: KernelTable::new(),
            doc_sites: Vec::new(),
            spill_file,
            spill: Spill {
                out: BufWriter::new(writer),
                at: 0,
            },
            docs: Vec::new(),
            sites: HashMap::new(),
            out: out.to_path_buf(),
        })
    }

    /// Documents gathered.
    pub fn documents(&self) -> u64 {
        self.docs.len() as u64
    }

    /// Adds the next document: its record's place, id and URL, its main text and the text's
    /// sketch (made with the gatherer's settings: [`TextSketch::of`]).
    pub fn add(
        &mut self,
        place: (u32, u64),
        id: String,
        url: Option<String>,
        text: &str,
        sketch: &TextSketch,
    ) -> Result<()> {
        let out = &self.out;
        let site = site_of(url.as_deref());
        let site = (!site.is_empty()).then(|| {
            let next = self.sites.len() as u32;
            *self.sites.entry(site).or_insert(next)
        });
        let len = u32::try_from(text.len()).map_err(|_| Error::failed("a main text over 4 GiB"))?;
        let mut kernels = Vec::new();
        sketch.kernels.encode(&mut kernels);
        let kernels_len = u32::try_from(kernels.len())
            .map_err(|_| Error::failed("a text's kernels over 4 GiB"))?;
        for part in [text.as_bytes(), &kernels] {
            self.spill
                .out
                .write_all(part)
                .at(out, || "writing the texts' scratch file".to_string())?;
        }
        self.docs.push(Doc {
            id,
            url,
            file: place.0,
            offset: place.1,
            at: self.spill.at,
            len,
            kernels_len,
        });
        self.spill.at += u64::from(len) + u64::from(kernels_len);
        self.corpus.add(&sketch.fingerprints, site);
        self.kernels.add(&sketch.kernels);
        self.doc_sites.push(site);
        Ok(())
    }

    /// Finds the pairs of documents that share passages and the stories on `threads` threads and
    /// writes them to `out/reuse.jsonl` and `out/stories.jsonl`, inputs named as `inputs` names
    /// them; the figures go into `summary`.
    pub fn finish(
        self,
        threads: usize,
        inputs: &InputSet,
        summary: &mut ReuseSummary,
    ) -> Result<()> {
        let ReuseGatherer {
            corpus,
            kernels,
            doc_sites,
            spill_file,
            mut spill,
            docs,
            out,
            ..
        } = self;
        spill
            .out
            .flush()
            .at(&out, || "writing the texts' scratch file".to_string())?;
        drop(spill);
        summary.documents = docs.len() as u64;
        summary.fingerprints = corpus.fingerprints() as u64;
        let candidates = corpus.candidates(threads);
        summary.candidates = candidates.pairs.len() as u64;
        summary.common_fingerprints = candidates.common_fingerprints;
        summary.template_fingerprints = candidates.template_fingerprints;
        let docs = &docs;
        let text = |d: u32| -> Result<String> {
            let doc = &docs[d as usize];
            let mut buf = vec![0u8; doc.len as usize];
            spill_file
                .read_exact_at(&mut buf, doc.at)
                .at(&out, || "reading the texts' scratch file".to_string())?;
            String::from_utf8(buf)
                .map_err(|_| Error::failed("the texts' scratch file changed under the run"))
        };
        let kernels_of = |d: u32| -> Result<Kernels> {
            let doc = &docs[d as usize];
            let mut buf = vec![0u8; doc.kernels_len as usize];
            spill_file
                .read_exact_at(&mut buf, doc.at + u64::from(doc.len))
                .at(&out, || "reading the texts' scratch file".to_string())?;
            Kernels::decode(&buf)
                .ok_or_else(|| Error::failed("the texts' scratch file changed under the run"))
        };
        let pairs = candidates.align(threads, text)?;
        summary.pairs = pairs.len() as u64;
        summary.passages = pairs.iter().map(|p| p.passages.len() as u64).sum();
        for p in &pairs {
            let tenth = (p.a_share.max(p.b_share) * 10.0).floor().clamp(0.0, 9.0) as usize;
            summary.pairs_by_share[tenth] += 1;
        }
        write_pairs(&out.join(REUSE_FILE), &pairs, docs, inputs)?;
        let mut by_words: Vec<(u64, usize)> = pairs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let words = p
                    .passages
                    .iter()
                    .map(|q| u64::from(q.a_words[1] - q.a_words[0]));
                (words.sum(), i)
            })
            .collect();
        by_words.sort_unstable_by_key(|&(w, i)| (std::cmp::Reverse(w), i));
        for &(_, i) in by_words.iter().take(REPORT_REUSE_PAIRS) {
            let p = &pairs[i];
            let label = |d: &Doc| match &d.url {
                Some(u) => format!("{} {u}", d.id),
                None => d.id.clone(),
            };
            let (a, b) = (&docs[p.a as usize], &docs[p.b as usize]);
            summary.largest.push(ReuseHighlight {
                labels: [label(a), label(b)],
                shares: [rounded(p.a_share), rounded(p.b_share)],
                texts: [text(p.a)?, text(p.b)?],
                passages: [
                    p.passages.iter().map(|q| q.a_chars).collect(),
                    p.passages.iter().map(|q| q.b_chars).collect(),
                ],
            });
        }
        drop(pairs);
        let (stories, counts) = group_stories(
            &kernels,
            &doc_sites,
            threads,
            &StoryConfig::default(),
            kernels_of,
        )?;
        summary.story_candidates = counts.candidates;
        summary.story_similar_pairs = counts.similar_pairs;
        summary.stories = stories.len() as u64;
        summary.story_documents = stories.iter().map(|s| s.members.len() as u64).sum();
        write_stories(&out.join(STORIES_FILE), &stories, docs, inputs)
    }
}

/// Reads every input, finds the pairs of documents that share passages and the stories, and
/// writes them to `out/reuse.jsonl` and `out/stories.jsonl`. `progress` is called after each batch with the bytes of input done and the
/// documents so far. When `cancelled` says so, reading stops and nothing is written.
pub fn run_reuse(
    settings: &ReuseSettings<'_>,
    out: &Path,
    cancelled: Cancelled<'_>,
    progress: &dyn Fn(u64, u64),
) -> Result<ReuseSummary> {
    let cfg = settings.reuse;
    let mut gatherer = ReuseGatherer::new(cfg, out)?;
    let mut summary = ReuseSummary::default();
    let inputs = settings.inputs;
    let builder = settings.extractor;
    let init = move || {
        builder
            .clone()
            .build()
            .expect("the configuration was checked before any thread started")
    };
    let map = move |ex: &mut Extractor, batch: Vec<Record>| {
        batch
            .iter()
            .map(|rec| Item {
                file: rec.pos.file,
                offset: rec.pos.offset,
                read_to: rec.read_to,
                id: rec.id.clone(),
                url: rec.url.clone(),
                page: clustered_page(rec, ex).map(|p| {
                    let sketch = TextSketch::of(&p.text, cfg);
                    (p.text, sketch)
                }),
            })
            .collect::<Vec<Item>>()
    };
    let drain = |batch: Vec<Item>| -> Result<()> {
        let last = batch.last().map(|i| (i.file, i.read_to));
        for item in batch {
            match item.page {
                Ok((text, sketch)) => {
                    gatherer.add((item.file, item.offset), item.id, item.url, &text, &sketch)?
                }
                Err(why) => *summary.skipped.entry(why).or_default() += 1,
            }
        }
        if let Some((file, read_to)) = last {
            progress(inputs.bytes_before(file) + read_to, gatherer.documents());
        }
        Ok(())
    };
    summary.reports = map_inputs(
        inputs,
        settings.reader,
        cancelled,
        "reuse",
        init,
        map,
        drain,
    )?;
    summary.documents = gatherer.documents();
    if cancelled() {
        return Ok(summary);
    }
    gatherer.finish(settings.threads, inputs, &mut summary)?;
    Ok(summary)
}

/// A share as written: rounded to 4 decimals.
fn rounded(share: f64) -> f64 {
    (share * 10_000.0).round() / 10_000.0
}

fn write_pairs(path: &Path, pairs: &[Pair], docs: &[Doc], inputs: &InputSet) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    for p in pairs {
        let (a, b) = (&docs[p.a as usize], &docs[p.b as usize]);
        let line = ReuseLine {
            a: &a.id,
            b: &b.id,
            a_share: rounded(p.a_share),
            b_share: rounded(p.b_share),
            passages: &p.passages,
            a_url: a.url.as_deref(),
            b_url: b.url.as_deref(),
            a_file: inputs.name(a.file),
            a_offset: a.offset,
            b_file: inputs.name(b.file),
            b_offset: b.offset,
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")
            .at(path, || format!("writing {}", path.display()))?;
    }
    f.commit()
}

fn write_stories(path: &Path, stories: &[Story], docs: &[Doc], inputs: &InputSet) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    for (n, s) in stories.iter().enumerate() {
        let members: Vec<StoryMemberLine<'_>> = s
            .members
            .iter()
            .map(|m| {
                let d = &docs[m.doc as usize];
                StoryMemberLine {
                    id: &d.id,
                    url: d.url.as_deref(),
                    file: inputs.name(d.file),
                    offset: d.offset,
                    similarity: rounded(m.similarity),
                }
            })
            .collect();
        let line = StoryLine {
            story: n,
            size: members.len(),
            first: members[0].id,
            lowest_similarity: members.iter().map(|m| m.similarity).fold(1.0, f64::min),
            members,
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")
            .at(path, || format!("writing {}", path.display()))?;
    }
    f.commit()
}
