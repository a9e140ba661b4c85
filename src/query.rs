//! `crawlsift query`: the search scenario. Fingerprints one document (an indexed page by its
//! URL, an HTML file, a text file, or HTML on standard input) with the index's own settings and
//! prints its near-duplicates among the indexed documents as JSON lines, most similar first.
//! The search is the library's (`crawlsift_pipeline::run::query`); this module prints.

use crate::ExitCode;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{ArgGroup, Args};
use crawlsift_common::limits;
use crawlsift_pipeline::run::query::{self, Document};
use crawlsift_store::Located;
use serde::Serialize;

/// Arguments of `crawlsift query`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("document").required(true).args(["url", "html", "text", "stdin"])))]
pub struct QueryArgs {
    /// The index folder (made by `crawlsift index`).
    pub index: PathBuf,
    /// `-`: read an HTML page from standard input.
    #[arg(value_name = "-", value_parser = dash)]
    pub stdin: Option<String>,
    /// An indexed page, by its URL: its own fingerprint is searched for, and it is left out of
    /// its results.
    #[arg(long)]
    pub url: Option<String>,
    /// An HTML page: its main text is extracted as `crawlsift dedup` extracts it.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// A main text (UTF-8).
    #[arg(long, value_name = "FILE")]
    pub text: Option<PathBuf>,
    /// Share of words from which a document is a near-duplicate (default: the index's).
    #[arg(long, value_name = "SHARE")]
    pub threshold: Option<f64>,
    /// Results printed at most.
    #[arg(long, default_value_t = limits::STORE_QUERY_LIMIT)]
    pub limit: usize,
}

fn dash(s: &str) -> Result<String, String> {
    if s == "-" {
        Ok(s.to_string())
    } else {
        Err("the only positional argument after the index is `-` (a page on stdin)".into())
    }
}

/// One result line.
#[derive(Serialize)]
struct ResultLine<'a> {
    #[serde(flatten)]
    at: &'a Located,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// Runs `crawlsift query`.
pub fn run(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let read = |p: &PathBuf| -> anyhow::Result<Vec<u8>> {
        std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))
    };
    let doc = if let Some(url) = &args.url {
        Document::Url(url.clone())
    } else if let Some(p) = &args.text {
        Document::Text(read(p)?)
    } else if let Some(p) = &args.html {
        Document::Html(read(p)?)
    } else {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("reading standard input")?;
        Document::Html(b)
    };
    let found = query::run(&args.index, &doc, args.threshold, args.limit)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for hit in &found {
        let line = ResultLine {
            at: &hit.at,
            similarity: (f64::from(hit.similarity) * 1e4).round() / 1e4,
            kind: hit.kind.name(),
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if found.is_empty() {
        eprintln!("crawlsift query: no indexed document is a near-duplicate of it");
    }
    Ok(ExitCode::SUCCESS)
}
