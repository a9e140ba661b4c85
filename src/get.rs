//! `crawlsift get`: one capture of a URL from an index directory, read from its archive at its
//! offset (`crawlsift_cdxj::fetch`), printed as its decoded payload, the stored record, its main
//! text (the pipeline's page policy) or its metadata.

use crate::ExitCode;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crawlsift_cdxj::fetch::{closest, stored_record, Fetched, IndexDir};
use crawlsift_cdxj::Capture;
use crawlsift_extractor::ExtractorBuilder;
use crawlsift_pipeline::page::{extract_record, Outcome};

use crate::UsageError;

/// What `get` prints.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The HTTP body, de-chunked and content-decoded (the block for records without HTTP).
    Payload,
    /// The whole record as stored, decompressed.
    Raw,
    /// The extracted main text.
    Text,
    /// The capture's metadata as JSON.
    Json,
}

/// Arguments of `crawlsift get`.
#[derive(Args, Debug)]
pub struct GetArgs {
    /// The index directory (made by `crawlsift index`).
    pub index: PathBuf,
    /// The URL (canonicalised as SURT, as the index keys are).
    pub url: String,
    /// The capture closest to this time (4 to 14 digits, YYYYMMDDhhmmss); default the latest.
    #[arg(long)]
    pub at: Option<String>,
    /// The capture with this record id (WARC-Record-ID, with or without <>).
    #[arg(long)]
    pub id: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value = "payload")]
    pub format: Format,
}

/// Runs `crawlsift get`.
pub fn run(args: GetArgs) -> anyhow::Result<ExitCode> {
    if let Some(at) = &args.at {
        if !(4..=14).contains(&at.len()) || !at.bytes().all(|b| b.is_ascii_digit()) {
            return Err(UsageError(format!(
                "--at {at:?}: expected 4 to 14 digits (YYYYMMDDhhmmss)"
            ))
            .into());
        }
    }
    let index = IndexDir::open(&args.index)?;
    let captures = index.captures(&args.url)?;
    if captures.is_empty() {
        anyhow::bail!("{}: not in {}", args.url, args.index.display());
    }
    let (capture, fetched) = match &args.id {
        Some(id) => by_id(&index, &captures, id)?,
        None => {
            let c = closest(&captures, args.at.as_deref()).expect("captures is not empty");
            (c.clone(), index.read(c)?)
        }
    };
    let asked = capture.clone();
    let (capture, fetched, via) = index.resolve_revisit(&capture, fetched)?;
    let unresolved = fetched.record.kind == crawlsift_reader::RecordKind::Revisit
        && matches!(args.format, Format::Payload | Format::Text);
    if unresolved {
        eprintln!(
            "crawlsift: {}: the capture at {} is a revisit whose original is not in {}: \
             it has no payload of its own",
            args.url,
            capture.timestamp,
            args.index.display()
        );
        return Ok(ExitCode::from(crate::EXIT_PROBLEMS));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.format {
        Format::Payload => {
            let rec = &fetched.record;
            match rec.http() {
                Some(Ok(resp)) => out.write_all(&resp.body)?,
                _ => out.write_all(&rec.payload())?,
            }
        }
        Format::Raw => out.write_all(&stored_record(&fetched)?)?,
        Format::Text => {
            let mut ex = ExtractorBuilder::new().build()?;
            match extract_record(&fetched.record, &mut ex) {
                Outcome::Page(doc, _) => {
                    out.write_all(doc.text.as_bytes())?;
                    if !doc.text.ends_with('\n') {
                        out.write_all(b"\n")?;
                    }
                }
                Outcome::Skipped(why) => {
                    eprintln!("crawlsift: {}: no main text ({why})", args.url);
                    return Ok(ExitCode::from(crate::EXIT_PROBLEMS));
                }
            }
        }
        Format::Json => {
            let v = metadata(&asked, &capture, &fetched, &via);
            writeln!(out, "{v}")?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The capture among `captures` whose record has id `id`.
fn by_id(index: &IndexDir, captures: &[Capture], id: &str) -> anyhow::Result<(Capture, Fetched)> {
    let bare = id.trim().trim_start_matches('<').trim_end_matches('>');
    for c in captures {
        let f = index.read(c)?;
        if f.record.id.trim_start_matches('<').trim_end_matches('>') == bare {
            return Ok((c.clone(), f));
        }
    }
    anyhow::bail!("no capture of this URL has record id {id}")
}

/// The JSON metadata of a capture (and of the revisits that led to it).
fn metadata(asked: &Capture, c: &Capture, f: &Fetched, via: &[Capture]) -> serde_json::Value {
    let line = |c: &Capture| {
        serde_json::json!({
            "key": c.key, "timestamp": c.timestamp, "url": c.url, "mime": c.mime,
            "status": c.status, "digest": c.digest, "length": c.length, "offset": c.offset,
            "filename": c.filename,
        })
    };
    let r = &f.record;
    let mut v = line(c);
    v["path"] = f.path.to_string_lossy().into();
    v["record_id"] = r.id.clone().into();
    v["record_type"] = r.kind.as_str().into();
    v["date"] = r.date.clone().into();
    v["content_type"] = r.content_type.clone().into();
    if !via.is_empty() {
        v["revisit"] = line(asked);
    }
    v
}
