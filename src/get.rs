//! `crawlsift get`: one capture of a URL from an index directory, read from its archive at its
//! offset (`crawlsift_cdxj::fetch`), printed as its decoded payload, the stored record, its main
//! text (the pipeline's page policy) or its metadata.

use crate::ExitCode;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use crawlsift_pipeline::run::get;

use crawlsift_pipeline::Error::Usage;

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
            return Err(Usage(format!(
                "--at {at:?}: expected 4 to 14 digits (YYYYMMDDhhmmss)"
            ))
            .into());
        }
    }
    let found = get::find(
        &args.index,
        &args.url,
        args.at.as_deref(),
        args.id.as_deref(),
    )?;
    let (capture, fetched) = (&found.capture, &found.fetched);
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
        Format::Payload | Format::Raw => {
            let (bytes, what, kind) = get::capture_bytes(fetched, args.format == Format::Raw)?;
            if out.is_terminal() && get::is_binary(&bytes) {
                eprintln!(
                    "crawlsift: {}: the {what} is binary ({} bytes{}): not printed to a terminal; \
                     redirect it to a file (> FILE) or a pipe",
                    args.url,
                    bytes.len(),
                    kind.map_or(String::new(), |t| format!(", {t}"))
                );
                return Ok(ExitCode::from(crate::EXIT_FATAL));
            }
            out.write_all(&bytes)?;
        }
        Format::Text => match get::main_text(fetched)? {
            Ok(text) => {
                out.write_all(text.as_bytes())?;
                if !text.ends_with('\n') {
                    out.write_all(b"\n")?;
                }
            }
            Err(why) => {
                eprintln!("crawlsift: {}: no main text ({why})", args.url);
                return Ok(ExitCode::from(crate::EXIT_PROBLEMS));
            }
        },
        Format::Json => {
            writeln!(out, "{}", get::metadata(&found))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
