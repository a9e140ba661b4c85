//! The writers of a dedup run's outputs: `clusters.jsonl`, `documents.jsonl.gz` (or, with
//! `--format parquet`, `documents.parquet`) and the clean corpus of `--text` (from the
//! [`TextSpill`] of page texts written during the run; Parquet when its name ends in `.parquet`).
//! Each file appears whole or not at all ([`AtomicFile`], [`crate::columns::ParquetLines`]);
//! [`write_outputs`] writes them at the same time.

use crate::error::{fail, IoContext, Result};
use crawlsift_common::limits::LINKS_TEXT_MAX_ANCHORS;
use crawlsift_links::Graph;
use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crawlsift_dedup::Clustering;
use crawlsift_phrases::{DropReport, SentenceFilter};

use crate::catalog::Catalog;
use crate::columns::{write_parquet_chunks, LineFormat, DOCUMENTS, TEXT};
use crate::flow::inputs::InputSet;
use crate::lines::{
    exact_hex, match_name, rounded, simhash_hex, ClusterLine, DateFields, DocumentLine, MemberLine,
    SkippedLine, TextLine,
};
use crate::output::{write_gzip_chunks, AtomicFile, LineOut, GZIP_CHUNK_ITEMS};
use crate::page::Origin;
use crate::verdict::Verdicts;

/// The clusters file in the output folder.
pub const CLUSTERS_FILE: &str = "clusters.jsonl";
/// The per-record file in the output folder.
pub const DOCUMENTS_FILE: &str = "documents.jsonl.gz";
/// The per-record file in the output folder with `--format parquet`.
pub const DOCUMENTS_PARQUET_FILE: &str = "documents.parquet";
/// The report in the output folder.
pub const REPORT_FILE: &str = "report.json";
/// The HTML report in the output folder (written by `html::write_html`).
pub const HTML_FILE: &str = "report.html";
/// The files a dedup run writes into its output folder.
pub const OUTPUT_FILES: [&str; 5] = [
    CLUSTERS_FILE,
    DOCUMENTS_FILE,
    DOCUMENTS_PARQUET_FILE,
    REPORT_FILE,
    HTML_FILE,
];

/// The clean corpus a run writes (`--text`).
pub struct CleanCorpus<'a> {
    /// Where.
    pub path: &'a Path,
    /// The texts, as the run read them.
    pub spill: TextSpill,
    /// The web graph of the run (`--links`): each line then carries the anchor texts its URL is
    /// given (`anchors`).
    pub graph: Option<&'a Graph>,
}

/// The per-record file of a run writing `format`.
pub fn documents_file(format: LineFormat) -> &'static str {
    match format {
        LineFormat::Json => DOCUMENTS_FILE,
        LineFormat::Parquet => DOCUMENTS_PARQUET_FILE,
    }
}

/// Writes `clusters.jsonl` and the documents (as `format`: [`documents_file`]) into `out`, and the
/// clean corpus to `text` when given, at the same time (each is serialised and compressed on its own thread). With
/// `drop_repeats` (`--drop-popular-phrases`) the clean corpus loses the sentences an earlier kept
/// document holds, and what went is returned.
pub fn write_outputs(
    (out, format): (&Path, LineFormat),
    c: &Clustering,
    catalog: &Catalog,
    inputs: &InputSet,
    text: Option<CleanCorpus<'_>>,
    drop_repeats: bool,
    threads: usize,
) -> Result<Option<DropReport>> {
    let verdicts = Verdicts::new(c, catalog.documents());
    let verdicts = &verdicts;
    std::thread::scope(|s| -> Result<Option<DropReport>> {
        let clusters_out = out.join(CLUSTERS_FILE);
        let clusters = std::thread::Builder::new()
            .name("write-clusters".into())
            .spawn_scoped(s, move || write_clusters(&clusters_out, c, catalog, inputs))?;
        let text = match text {
            Some(corpus) => Some(
                std::thread::Builder::new()
                    .name("write-text".into())
                    .spawn_scoped(s, move || {
                        let mut filter = drop_repeats.then(SentenceFilter::default);
                        let anchors = corpus.graph.map(|g| {
                            move |doc: u32| anchors_field(g, catalog.doc(doc).origin.url.as_deref())
                        });
                        let anchors = anchors
                            .as_ref()
                            .map(|f| f as &dyn Fn(u32) -> Option<String>);
                        let (path, sp) = (corpus.path, corpus.spill);
                        sp.write_clean_corpus(path, verdicts, filter.as_mut(), anchors)?;
                        Ok(filter.map(|f| f.report().clone()))
                    })?,
            ),
            None => None,
        };
        let documents = write_documents(
            &out.join(documents_file(format)),
            format,
            verdicts,
            catalog,
            inputs,
            threads,
        );
        let clusters = clusters
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        let text = text
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .transpose();
        documents.and(clusters).and(text.map(Option::flatten))
    })
}

/// Writes `clusters.jsonl`: one line per cluster, its members in document order.
pub fn write_clusters(
    path: &Path,
    c: &Clustering,
    catalog: &Catalog,
    inputs: &InputSet,
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    for (ci, cl) in c.clusters.iter().enumerate() {
        let metas: Vec<_> = cl.members.iter().map(|m| catalog.doc(m.doc)).collect();
        let rep = catalog.doc(cl.representative);
        let members = cl
            .members
            .iter()
            .zip(&metas)
            .map(|(m, meta)| {
                let o = &meta.origin;
                MemberLine {
                    id: &o.id,
                    url: o.url.as_deref(),
                    file: inputs.name(o.pos.file),
                    offset: o.pos.offset,
                    uoffset: o.uoffset,
                    similarity: rounded(m.similarity),
                    kind: match_name(m.kind),
                }
            })
            .collect();
        let line = ClusterLine {
            cluster: ci,
            size: cl.members.len(),
            representative: &rep.origin.id,
            lowest_similarity: rounded(cl.lowest_similarity),
            members,
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    if let Some(e) = catalog.error() {
        fail!("{e}");
    }
    f.commit()
}

/// Writes `documents.jsonl.gz` (or its rows as Parquet): one line per listed record, in input
/// order.
pub fn write_documents(
    path: &Path,
    format: LineFormat,
    v: &Verdicts,
    catalog: &Catalog,
    inputs: &InputSet,
    threads: usize,
) -> Result<()> {
    let render = |range: std::ops::Range<usize>, out: &mut Vec<u8>| -> Result<()> {
        catalog.for_each_in(range, &mut |m| {
            let o = &m.origin;
            let file = inputs.name(o.pos.file);
            match m.doc {
                Some(d) => {
                    let fp = m.fp;
                    let d = d as usize;
                    let duplicate_of = v.duplicate_of[d].map(|r| catalog.doc(r));
                    let line = DocumentLine {
                        id: &o.id,
                        url: o.url.as_deref(),
                        file,
                        offset: o.pos.offset,
                        uoffset: o.uoffset,
                        title: &m.title,
                        words: fp.map(|f| f.words),
                        exact_hash: fp.map(|f| exact_hex(f.exact)),
                        simhash: fp.map(|f| simhash_hex(f.simhash)),
                        cluster: v.cluster[d],
                        duplicate_of: duplicate_of.as_ref().map(|r| r.origin.id.as_str()),
                        too_short: v.too_short[d],
                        boilerplate: v.boilerplate[d],
                        template_share: rounded(v.template_share[d]),
                        skipped: None,
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                }
                None => {
                    let line = SkippedLine {
                        id: &o.id,
                        url: o.url.as_deref(),
                        file,
                        offset: o.pos.offset,
                        uoffset: o.uoffset,
                        cluster: None,
                        duplicate_of: None,
                        skipped: m.skipped.as_deref(),
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                }
            }
            out.push(b'\n');
            Ok(())
        })
    };
    let items = catalog.records();
    match format {
        LineFormat::Json => write_gzip_chunks(path, items, threads, render),
        LineFormat::Parquet => {
            write_parquet_chunks(path, &DOCUMENTS, items, (threads, GZIP_CHUNK_ITEMS), render)
        }
    }
}

/// Page texts, written as they come to a temporary file, so `--text` can keep the unique ones
/// after clustering without holding every text in memory.
pub struct TextSpill {
    file: BufWriter<File>,
    path: PathBuf,
    /// The inputs' names, for each line's `file`.
    names: Vec<String>,
}

impl Drop for TextSpill {
    /// The spill is scratch: it goes, whether the run finished or failed.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

impl TextSpill {
    /// The spill file of a run writing into `out` (named after the process, so runs do not mix).
    pub fn path_in(out: &Path) -> PathBuf {
        out.join(format!(".text-spill.jsonl.tmp-{}", std::process::id()))
    }

    /// Creates the spill file `path` of a run over these inputs (their names, in order).
    pub fn create(path: &Path, names: Vec<String>) -> Result<Self> {
        let file = File::create(path).at(path, || format!("cannot create {}", path.display()))?;
        Ok(TextSpill {
            file: BufWriter::new(file),
            path: path.to_path_buf(),
            names,
        })
    }

    /// Appends the next document's line.
    pub fn push(&mut self, o: &Origin, date: Option<&str>, title: &str, text: &str) -> Result<()> {
        let line = TextLine {
            id: &o.id,
            url: o.url.as_deref(),
            file: self
                .names
                .get(o.pos.file as usize)
                .map_or("?", String::as_str),
            offset: o.pos.offset,
            uoffset: o.uoffset,
            date: DateFields::of(date),
            title,
            text,
        };
        serde_json::to_writer(&mut self.file, &line)
            .map_err(io::Error::from)
            .and_then(|()| self.file.write_all(b"\n"))
            .at(&self.path, || format!("writing {}", self.path.display()))
    }

    /// Writes the lines of the documents `verdicts` keeps to `target` (their rows as Parquet when
    /// its name ends in `.parquet`), their texts through `repeats` when given (in document order,
    /// so the same for any thread count), each with the field `extra` gives the document, if any
    /// (`,"name":value`), added at its end.
    pub fn write_clean_corpus(
        mut self,
        target: &Path,
        verdicts: &Verdicts,
        mut repeats: Option<&mut SentenceFilter>,
        extra: Option<&dyn Fn(u32) -> Option<String>>,
    ) -> Result<()> {
        self.file
            .flush()
            .at(&self.path, || format!("writing {}", self.path.display()))?;
        let spill =
            File::open(&self.path).at(&self.path, || format!("reading {}", self.path.display()))?;
        let mut out = LineOut::create(target, LineFormat::of_name(target), &TEXT)?;
        let documents = verdicts.duplicate_of.len();
        let mut row = Vec::new();
        for (doc, line) in BufReader::new(spill).lines().take(documents).enumerate() {
            let line = line?;
            if !verdicts.kept(doc as u32) {
                continue;
            }
            row.clear();
            match repeats.as_deref_mut() {
                Some(f) => without_repeats(&line, f, &mut row)?,
                None => row.extend_from_slice(line.as_bytes()),
            }
            // A line is one JSON object: a field of `extra` goes before its closing brace.
            if let Some(field) = extra.and_then(|f| f(doc as u32)) {
                if row.last() == Some(&b'}') {
                    row.pop();
                    row.extend_from_slice(field.as_bytes());
                    row.push(b'}');
                }
            }
            row.push(b'\n');
            out.write_lines(&row)?;
        }
        out.finish()
    }
}

/// A spilled [`TextLine`] read back, its strings borrowed from the line where JSON lets them be.
#[derive(serde::Deserialize)]
struct SpilledLine<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    url: Option<Cow<'a, str>>,
    #[serde(borrow)]
    file: Cow<'a, str>,
    offset: u64,
    #[serde(default)]
    uoffset: u64,
    #[serde(borrow)]
    date: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    date_raw: Option<Cow<'a, str>>,
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// Writes one clean-corpus line with its `text` through `f`: a line that loses nothing is copied
/// as it is, one that does is written again as the [`TextLine`] it was, with the filtered text.
fn without_repeats(line: &str, f: &mut SentenceFilter, out: &mut impl Write) -> Result<()> {
    let row: SpilledLine<'_> = serde_json::from_str(line)?;
    match f.filter(&row.text) {
        Some(text) => {
            let line = TextLine {
                id: &row.id,
                url: row.url.as_deref(),
                file: &row.file,
                offset: row.offset,
                uoffset: row.uoffset,
                date: DateFields {
                    date: row.date.as_deref().map(Cow::Borrowed),
                    date_raw: row.date_raw.as_deref(),
                },
                title: &row.title,
                text: &text,
            };
            serde_json::to_writer(&mut *out, &line)?;
        }
        None => out.write_all(line.as_bytes())?,
    }
    Ok(())
}

/// The `,"anchors":[...]` field of a clean-corpus line: the anchor texts the page's URL is given
/// by the run's other pages (`--links`), most given first, at most
/// [`LINKS_TEXT_MAX_ANCHORS`] of them; `None` when it is given none.
fn anchors_field(graph: &Graph, url: Option<&str>) -> Option<String> {
    let url = crawlsift_links::normalise(url?)?;
    let given: Vec<_> = graph
        .anchors_of(&url)
        .take(LINKS_TEXT_MAX_ANCHORS)
        .collect();
    if given.is_empty() {
        return None;
    }
    let json = serde_json::to_string(&given).ok()?;
    Some(format!(",\"anchors\":{json}"))
}
