//! `crawlsift extract INPUT...`: one JSON line per document of WARC/ARC/TREC archives, with
//! counts of what was skipped and why on stderr. A feed is not a page (as in `dedup`): it is
//! skipped as `feed`, or with `--feeds` gives one line per item.

use crate::ExitCode;
use std::collections::BTreeMap;
use std::io::{self, Write};

use anyhow::Context;
use crawlsift_common::limits::TEXT_QUEUE_CAP;
use crawlsift_common::SourcePos;
use crawlsift_extractor::{format, Extractor, ExtractorBuilder, Format, Metadata, TextMethod};
use crawlsift_reader::{ReaderConfig, Record};

use crawlsift_pipeline::lines::{FeedItemLine, PageLine};
use crawlsift_pipeline::output::AtomicFile;
use crawlsift_pipeline::page::{extract_record, mime, Outcome, FEED_SKIP};
use crawlsift_pipeline::stages::{self, Reorder};
use crawlsift_pipeline::{InputSet, ReadTally};
use crawlsift_reader::FileReport;

use super::ExtractArgs;
use crate::progress::Progress;

/// Per input, its summary if it was read to its end.
type Reports = Vec<Option<Result<FileReport, String>>>;

/// One batch's output, in input order.
struct Extracted {
    /// Its JSON lines.
    text: Vec<u8>,
    /// The reasons of records that gave no line.
    skips: Vec<&'static str>,
    /// Documents (pages and feed items) written.
    docs: u64,
    /// The position of the batch's last record, for progress.
    last: Option<SourcePos>,
}

/// What the collector counts.
#[derive(Default)]
struct Counts {
    documents: u64,
    skipped: BTreeMap<&'static str, u64>,
}

/// Runs the archive mode of `crawlsift extract`.
pub fn run(args: &ExtractArgs, builder: ExtractorBuilder) -> anyhow::Result<ExitCode> {
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads);
    builder.clone().build().context("extractor configuration")?;
    let reader_cfg = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    let mut counts = Counts::default();
    // The output is opened before any input is read: a target that cannot be written, or one
    // that exists (without --force), stops the run before it starts.
    let mut out = match &args.output {
        Some(path) => {
            if !args.force && path.exists() {
                anyhow::bail!(
                    "{} already exists; pass --force to overwrite it",
                    path.display()
                );
            }
            Out::File(Box::new(AtomicFile::create(path)?))
        }
        None => Out::Stdout(io::BufWriter::with_capacity(1 << 16, io::stdout().lock())),
    };
    let progress = Progress::new(inputs.total_bytes(), args.output.is_none());
    let result = read_and_write(
        &inputs,
        &reader_cfg,
        &builder,
        &progress,
        &mut counts,
        &mut out,
        Options {
            feeds: args.feeds,
            format: args.format(Format::Json),
        },
    );
    progress.finish();
    if let Err(e) = &result {
        if e.root_cause()
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
        {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let reports = result?;
    match out {
        Out::File(f) => f.commit()?,
        Out::Stdout(mut w) => w.flush()?,
    }
    let tally = inputs.tally(&reports, false);
    print_counts(&counts, &tally);
    Ok(crate::exit_code(crate::cancelled(), &tally))
}

/// Reads every input, extracting pages on `cfg.threads` workers, and writes their lines to `out`
/// in input order, counting documents and skips.
fn read_and_write(
    inputs: &InputSet,
    cfg: &ReaderConfig,
    builder: &ExtractorBuilder,
    progress: &Progress,
    counts: &mut Counts,
    out: &mut Out,
    opts: Options,
) -> anyhow::Result<Reports> {
    std::thread::scope(|s| -> anyhow::Result<Reports> {
        let (reader, raw_rx) = inputs.spawn_record_reader(s, cfg, &crate::cancelled)?;
        let init = || {
            builder
                .clone()
                .build()
                .expect("the configuration was checked before any thread started")
        };
        let lines = stages::stage(
            s,
            "extract",
            cfg.threads,
            raw_rx,
            TEXT_QUEUE_CAP,
            init,
            |ex, batch: Vec<Record>| extract_batch(&batch, ex, inputs, opts),
        );
        let drained = Reorder::drain(lines, |b: Extracted| -> anyhow::Result<()> {
            for why in b.skips {
                *counts.skipped.entry(why).or_default() += 1;
            }
            counts.documents += b.docs;
            if let Some(pos) = b.last {
                progress.update(inputs.bytes_before(pos.file) + pos.offset, counts.documents);
            }
            out.write_all(&b.text).context("writing output")
        });
        let outcome = reader.join().expect("the reader thread does not panic");
        drained.map(|()| outcome.reports)
    })
}

/// Extracts a batch of records: one line per page, one per feed item, and the skip reasons.
/// What the lines are made of: feeds split or skipped, the format.
#[derive(Clone, Copy)]
struct Options {
    feeds: bool,
    format: Format,
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
        b.last = Some(rec.pos);
        let file = inputs.name(rec.pos.file);
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
                            ("date", rec.date.as_deref().unwrap_or("")),
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
                        date: rec.date.as_deref(),
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
                    ("date", rec.date.as_deref().unwrap_or("")),
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
                    date: rec.date.as_deref(),
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

/// The closing line on stderr: documents, skipped records by reason, and skipped inputs by kind.
fn print_counts(counts: &Counts, tally: &ReadTally) {
    let skipped: Vec<String> = counts
        .skipped
        .iter()
        .map(|(k, n)| format!("{k}={n}"))
        .collect();
    let inputs: Vec<String> = tally
        .skipped_inputs
        .iter()
        .map(|(k, n)| format!("{k}={n}"))
        .collect();
    eprintln!(
        "crawlsift extract: {} documents; skipped: {}{}",
        counts.documents,
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
    );
}

/// Where the JSON lines go: a file that appears whole on success, or standard output.
enum Out {
    File(Box<AtomicFile>),
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
}

impl Write for Out {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Out::File(f) => f.write(b),
            Out::Stdout(w) => w.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Stdout(w) => w.flush(),
        }
    }
}
