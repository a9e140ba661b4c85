//! `crawlsift query`: the search scenario. Fingerprints one document (an indexed page by its
//! URL, an HTML file, a text file, or HTML on standard input) with the index's own settings and
//! prints its near-duplicates among the indexed documents as JSON lines, most similar first.
//! The search is `crawlsift_store::search`'s; the index is memory-mapped, never loaded.

use crate::ExitCode;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{ArgGroup, Args};
use crawlsift_common::limits;
use crawlsift_dedup::{Fingerprint, Fingerprinter};
use crawlsift_extractor::{charset, CharsetMode, ExtractorBuilder};
use crawlsift_store::file::Access;
use crawlsift_store::{search, DocRef, Index, Located};
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
    // One search reads a few pieces of the index: read them, not mapped (see `Access::Read`).
    let index = Index::open_as(&args.index, Access::Read)?;
    let cfg = index.config().clone();
    let threshold = args.threshold.unwrap_or(cfg.threshold);
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(crate::UsageError(format!("--threshold {threshold} not in (0, 1]")).into());
    }
    let (fp, exclude) = document(&args, &index)?;
    let hits = search(&index, &fp, threshold, exclude)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for hit in hits.iter().take(args.limit) {
        let at = index.locate(hit.doc)?;
        let line = ResultLine {
            at: &at,
            similarity: (f64::from(hit.similarity) * 1e4).round() / 1e4,
            kind: hit.kind.name(),
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The fingerprint searched for, and the indexed document to leave out (for `--url`).
fn document(args: &QueryArgs, index: &Index) -> anyhow::Result<(Fingerprint, Option<DocRef>)> {
    let cfg = index.config();
    if let Some(url) = &args.url {
        let Some(d) = index.find_url(url)? else {
            bail!("{url} is not in the index {}", args.index.display());
        };
        let fp = index.segments()[d.segment].fingerprint(d.row)?;
        return Ok((fp, Some(d)));
    }
    let read = |p: &PathBuf| -> anyhow::Result<Vec<u8>> {
        std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))
    };
    let text = if let Some(p) = &args.text {
        String::from_utf8_lossy(&read(p)?).into_owned()
    } else {
        let bytes = match &args.html {
            Some(p) => read(p)?,
            None => {
                let mut b = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut b)
                    .context("reading standard input")?;
                b
            }
        };
        let mut ex = ExtractorBuilder::new()
            .charset(CharsetMode::Auto)
            .build()
            .context("extractor configuration")?;
        let decoded = charset::decode(&bytes, None, CharsetMode::Auto);
        ex.html_text(&decoded.text).1
    };
    Ok((Fingerprinter::new(cfg).fingerprint(&text), None))
}
