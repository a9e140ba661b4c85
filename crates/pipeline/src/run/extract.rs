//! `extract` over archives ([`run`]): one JSON line (or one document in another format) per page
//! of WARC/ARC/TREC inputs, in input order, with counts of what was skipped and why. A feed is not
//! a page (as in `dedup`): it is skipped as `feed`, or with `feeds` gives one line per item.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crawlsift_extractor::{format, Extractor, ExtractorBuilder, Format, Metadata, TextMethod};
use crawlsift_reader::{ReaderConfig, Record};

use super::Hooks;
use crate::columns::{LineFormat, EXTRACT};
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::lines::{DateFields, FeedItemLine, PageLine};
pub use crate::output::Target;
use crate::page::{extract_record, mime, Outcome, FEED_SKIP};

/// What an extraction over archives is asked to do.
#[derive(Debug, Clone)]
pub struct ExtractRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The extractor's settings.
    pub extractor: ExtractorBuilder,
    /// What the lines are made of.
    pub options: Options,
}

/// What an extraction counted.
#[derive(Debug, Default)]
pub struct Counts {
    /// Documents (pages and feed items) written.
    pub documents: u64,
    /// Records that gave no document, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// How the reading went.
    pub tally: ReadTally,
}

impl Counts {
    /// The closing line on stderr: documents, skipped records by reason, and skipped inputs by
    /// kind.
    pub fn summary_line(&self) -> String {
        let list = |m: &BTreeMap<&'static str, u64>| -> Vec<String> {
            m.iter().map(|(k, n)| format!("{k}={n}")).collect()
        };
        let (skipped, inputs) = (list(&self.skipped), list(&self.tally.skipped_inputs));
        format!(
            "crawlsift extract: {} documents; skipped: {}{}",
            self.documents,
            if skipped.is_empty() {
                "none".into()
            } else {
                skipped.join(" ")
            },
            if inputs.is_empty() {
                String::new()
            } else {
                format!("; skipped inputs: {}", inputs.join(" "))
            }
        )
    }
}

/// One batch's output, in input order.
struct Extracted {
    /// Its lines.
    text: Vec<u8>,
    /// The reasons of records that gave no line.
    skips: Vec<&'static str>,
    /// Documents (pages and feed items) written.
    docs: u64,
    /// The input of the batch's last record and how far it had been read, for progress.
    last: Option<(u32, u64)>,
}

/// Extracts every page of the inputs into `target`, in input order. The target is opened
/// before any input is read: one that cannot be written, or that exists (without `force`),
/// stops the run before it starts.
pub fn run(req: &ExtractRequest, target: Target<'_>, hooks: &Hooks<'_>) -> Result<Counts> {
    let inputs = InputSet::expand(&req.inputs)?;
    req.extractor.clone().build()?;
    let cfg = ReaderConfig {
        threads: req.threads,
        ..ReaderConfig::default()
    };
    if req.options.parquet && req.options.format != Format::Json {
        return Err(Error::Usage(
            "Parquet holds the rows of the JSON lines: --format parquet with another format".into(),
        ));
    }
    let format = if req.options.parquet {
        LineFormat::Parquet
    } else {
        LineFormat::Json
    };
    let mut out = target.open(format, &EXTRACT)?;
    let mut counts = Counts::default();
    hooks.progress.start(inputs.total_bytes());
    let (builder, opts) = (&req.extractor, req.options);
    let init = || {
        builder
            .clone()
            .build()
            .expect("the configuration was checked before any thread started")
    };
    let map = |ex: &mut Extractor, batch: Vec<Record>| extract_batch(&batch, ex, &inputs, opts);
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "extract",
        init,
        map,
        |b: Extracted| {
            for why in b.skips {
                *counts.skipped.entry(why).or_default() += 1;
            }
            counts.documents += b.docs;
            if let Some((file, read_to)) = b.last {
                let done = inputs.bytes_before(file) + read_to;
                hooks.progress.update(done, counts.documents);
            }
            out.write_lines(&b.text)
        },
    );
    hooks.progress.finish();
    let reports = reports?;
    out.finish()?;
    counts.tally = inputs.tally(&reports, false);
    Ok(counts)
}

/// Extracts a batch of records: one line per page, one per feed item, and the skip reasons.
/// What the lines are made of: feeds split or skipped, the format.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Split each feed into one line per item instead of skipping it.
    pub feeds: bool,
    /// The output format.
    pub format: Format,
    /// Write the JSON lines' rows as Parquet (`format` is then [`Format::Json`]; a file only).
    pub parquet: bool,
}

/// Writes one document in a format other than JSON lines: its origin in the header, then a
/// blank line after it (XML documents follow one another as `<doc>` elements).
fn write_doc(b: &mut Vec<u8>, format: Format, p: &Page<'_>, origin: &[(&str, &str)]) {
    let doc = format::render(format, p.title, p.text, p.parts, p.metadata, origin);
    b.extend_from_slice(doc.as_bytes());
    if !doc.ends_with('\n') {
        b.push(b'\n');
    }
    if format != Format::Xml {
        b.push(b'\n');
    }
}

/// The parts of a document [`write_doc`] writes.
struct Page<'a> {
    title: &'a str,
    text: &'a str,
    parts: &'a [crawlsift_extractor::Part],
    metadata: Option<&'a crawlsift_extractor::Metadata>,
}

fn extract_batch(
    batch: &[Record],
    ex: &mut Extractor,
    inputs: &InputSet,
    opts: Options,
) -> Extracted {
    let feeds = opts.feeds;
    let mut b = Extracted {
        text: Vec::new(),
        skips: Vec::new(),
        docs: 0,
        last: None,
    };
    for rec in batch {
        b.last = Some((rec.pos.file, rec.read_to));
        let file = inputs.name(rec.pos.file);
        let date = DateFields::of(rec.date.as_deref());
        match extract_record(rec, ex) {
            Outcome::Page(p, _) if p.method == TextMethod::Feed && !feeds => {
                b.skips.push(FEED_SKIP);
            }
            Outcome::Page(p, ctype) if p.method == TextMethod::Feed => {
                for (n, item) in p.items.iter().enumerate() {
                    if opts.format != Format::Json {
                        let (offset, number) = (rec.pos.offset.to_string(), n.to_string());
                        let uoffset = rec.uoffset.to_string();
                        let mut origin = vec![("file", file), ("offset", &offset)];
                        if rec.uoffset != 0 {
                            origin.push(("uoffset", &uoffset));
                        }
                        origin.extend([
                            ("id", rec.id.as_str()),
                            ("item", &number),
                            ("url", &item.link),
                            ("date", date.date.as_deref().unwrap_or("")),
                            ("date_raw", date.date_raw.unwrap_or("")),
                            ("published", item.date.as_deref().unwrap_or("")),
                            ("title", &item.title),
                        ]);
                        let page = Page {
                            title: &item.title,
                            text: &item.text,
                            parts: &[],
                            metadata: None,
                        };
                        write_doc(&mut b.text, opts.format, &page, &origin);
                        b.docs += 1;
                        continue;
                    }
                    let line = FeedItemLine {
                        file,
                        offset: rec.pos.offset,
                        uoffset: rec.uoffset,
                        id: &rec.id,
                        date: DateFields::of(rec.date.as_deref()),
                        item: n,
                        url: &item.link,
                        title: &item.title,
                        published: item.date.as_deref(),
                        text: &item.text,
                        content_type: ctype.as_deref().map(mime),
                        charset: p.charset,
                        method: TextMethod::Feed,
                    };
                    serde_json::to_writer(&mut b.text, &line)
                        .expect("writing JSON to memory cannot fail");
                    b.text.push(b'\n');
                    b.docs += 1;
                }
            }
            Outcome::Page(p, _) if opts.format != Format::Json => {
                let (offset, uoffset) = (rec.pos.offset.to_string(), rec.uoffset.to_string());
                let mut origin = vec![("file", file), ("offset", offset.as_str())];
                if rec.uoffset != 0 {
                    origin.push(("uoffset", uoffset.as_str()));
                }
                origin.extend([
                    ("id", rec.id.as_str()),
                    ("url", rec.url.as_deref().unwrap_or("")),
                    ("date", date.date.as_deref().unwrap_or("")),
                    ("date_raw", date.date_raw.unwrap_or("")),
                ]);
                if p.metadata.is_none() {
                    origin.push(("title", &p.title));
                }
                let page = Page {
                    title: &p.title,
                    text: &p.text,
                    parts: &p.parts,
                    metadata: p.metadata.as_deref(),
                };
                write_doc(&mut b.text, opts.format, &page, &origin);
                b.docs += 1;
            }
            Outcome::Page(p, ctype) => {
                let m = p.metadata.as_deref();
                let field = |f: fn(&Metadata) -> &str| m.map(f).filter(|v| !v.is_empty());
                let line = PageLine {
                    file,
                    offset: rec.pos.offset,
                    uoffset: rec.uoffset,
                    id: &rec.id,
                    date: DateFields::of(rec.date.as_deref()),
                    url: rec.url.as_deref(),
                    title: m.map_or(p.title.as_str(), |m| m.title.as_str()),
                    author: field(|m| &m.author),
                    published: field(|m| &m.published),
                    sitename: field(|m| &m.sitename),
                    language: field(|m| &m.language),
                    description: field(|m| &m.description),
                    canonical: field(|m| &m.canonical),
                    text: &p.text,
                    content_type: ctype.as_deref().map(mime),
                    charset: p.charset,
                    method: p.method,
                };
                serde_json::to_writer(&mut b.text, &line)
                    .expect("writing JSON to memory cannot fail");
                b.text.push(b'\n');
                b.docs += 1;
            }
            Outcome::Skipped(why) => b.skips.push(why),
        }
    }
    b
}
