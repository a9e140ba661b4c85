//! `crawlsift extract INPUT...`: one JSON line per document of WARC/ARC/TREC archives, with
//! counts of what was skipped and why on stderr. The extraction is the library's
//! (`crawlsift_pipeline::run::extract`); this module gives it the arguments and prints.

use std::io;

use crawlsift_extractor::{ExtractorBuilder, Format};
use crawlsift_pipeline::run::extract::{self, Counts, ExtractRequest, Options, Target};

use super::ExtractArgs;
use crate::ExitCode;

/// Runs the archive mode of `crawlsift extract`.
pub fn run(args: &ExtractArgs, builder: ExtractorBuilder) -> anyhow::Result<ExitCode> {
    let req = ExtractRequest {
        inputs: args.inputs.paths()?,
        threads: crate::threads(args.threads),
        extractor: builder,
        options: Options {
            feeds: args.feeds,
            format: args.format(Format::Json),
        },
    };
    let mut stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let target = match &args.output {
        Some(path) => Target::File {
            path: path.clone(),
            force: args.force,
        },
        None => Target::Stream(&mut stdout),
    };
    // The bar shows only when the lines go to a file.
    let quiet = args.output.is_none();
    let counts = crate::with_hooks("extract", quiet, |h| extract::run(&req, target, h))?;
    print_counts(&counts);
    Ok(crate::exit_code(crate::cancelled(), &counts.tally))
}

/// The closing line on stderr: documents, skipped records by reason, and skipped inputs by kind.
fn print_counts(counts: &Counts) {
    let tally = &counts.tally;
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
