//! `crawlsift extract INPUT...`: one JSON line per document of WARC/ARC/TREC archives, with
//! counts of what was skipped and why on stderr. Feeds give one line per item.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use crawlsift_common::limits::TEXT_QUEUE_CAP;
use crawlsift_extractor::{ExtractorBuilder, TextMethod};
use crawlsift_reader::{ReaderConfig, Record};

use crawlsift_pipeline::lines::{FeedItemLine, PageLine};
use crawlsift_pipeline::output::AtomicFile;
use crawlsift_pipeline::page::{extract_record, mime, Outcome};
use crawlsift_pipeline::stages::{self, Reorder};
use crawlsift_pipeline::{FileSummary, InputSet};

use super::ExtractArgs;
use crate::progress::Progress;

/// Runs the archive mode of `crawlsift extract`.
pub fn run(args: &ExtractArgs, builder: ExtractorBuilder) -> anyhow::Result<ExitCode> {
    let inputs = InputSet::expand(&args.inputs)?;
    let threads = crate::threads(args.threads)?;
    builder.clone().build().context("extractor configuration")?;
    let reader_cfg = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    let mut skipped: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut documents = 0u64;
    let mut out = match &args.output {
        Some(path) => Out::File(Box::new(AtomicFile::create(path)?)),
        None => Out::Stdout(io::BufWriter::with_capacity(1 << 16, io::stdout().lock())),
    };
    let progress = Progress::new(inputs.total_bytes(), args.output.is_none());

    let result = std::thread::scope(
        |s| -> anyhow::Result<Vec<Option<Result<FileSummary, String>>>> {
            let (reader, raw_rx) = inputs.spawn_record_reader(s, &reader_cfg, &crate::cancelled)?;
            let init = || {
                builder
                    .clone()
                    .build()
                    .expect("the configuration was checked before any thread started")
            };
            let lines = stages::stage(
                s,
                "extract",
                threads,
                raw_rx,
                TEXT_QUEUE_CAP,
                init,
                |ex, batch: Vec<Record>| {
                    let mut text = Vec::new();
                    let mut skips: Vec<&'static str> = Vec::new();
                    let mut docs = 0u64;
                    let mut last = None;
                    for rec in &batch {
                        last = Some(rec.pos);
                        match extract_record(rec, ex) {
                            Outcome::Page(p, ctype) if p.method == TextMethod::Feed => {
                                for (n, item) in p.items.iter().enumerate() {
                                    let line = FeedItemLine {
                                        id: &rec.id,
                                        item: n,
                                        url: &item.link,
                                        title: &item.title,
                                        date: item.date.as_deref(),
                                        text: &item.text,
                                        content_type: ctype.as_deref().map(mime),
                                        charset: p.charset,
                                        method: TextMethod::Feed,
                                    };
                                    serde_json::to_writer(&mut text, &line)
                                        .expect("writing JSON to memory cannot fail");
                                    text.push(b'\n');
                                    docs += 1;
                                }
                            }
                            Outcome::Page(p, ctype) => {
                                let line = PageLine {
                                    id: &rec.id,
                                    url: rec.url.as_deref(),
                                    title: &p.title,
                                    text: &p.text,
                                    content_type: ctype.as_deref().map(mime),
                                    charset: p.charset,
                                    method: p.method,
                                };
                                serde_json::to_writer(&mut text, &line)
                                    .expect("writing JSON to memory cannot fail");
                                text.push(b'\n');
                                docs += 1;
                            }
                            Outcome::Skipped(why) => skips.push(why),
                        }
                    }
                    (text, skips, docs, last)
                },
            );
            let drained = Reorder::drain(
                lines,
                |(text, skips, docs, last): (
                    Vec<u8>,
                    Vec<&'static str>,
                    u64,
                    Option<crawlsift_common::SourcePos>,
                )|
                 -> anyhow::Result<()> {
                    for why in skips {
                        *skipped.entry(why).or_default() += 1;
                    }
                    documents += docs;
                    if let Some(pos) = last {
                        progress.update(inputs.bytes_before(pos.file) + pos.offset, documents);
                    }
                    out.write_all(&text).context("writing output")
                },
            );
            let outcome = reader.join().expect("the reader thread does not panic");
            drained.map(|()| outcome.reports)
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
    let skipped: Vec<String> = skipped.iter().map(|(k, n)| format!("{k}={n}")).collect();
    eprintln!(
        "crawlsift extract: {documents} documents; skipped: {}",
        if skipped.is_empty() {
            "none".into()
        } else {
            skipped.join(" ")
        }
    );
    Ok(crate::exit_code(
        crate::cancelled(),
        tally.failed_inputs,
        tally.record_errors,
    ))
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
