//! `crawlsift extract INPUT...`: one JSON line per document of WARC/ARC/TREC archives, with
//! counts of what was skipped and why on stderr. The extraction is the library's
//! (`crawlsift_pipeline::run::extract`); this module gives it the arguments and prints.

use std::io;

use crawlsift_extractor::{ExtractorBuilder, Format};
use crawlsift_pipeline::run::extract::{self, ExtractRequest, Options, Target};

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
            parquet: args.format == Some(super::FormatArg::Parquet),
        },
    };
    let mut stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let target = Target::new(args.output.clone(), args.force, &mut stdout);
    // The bar shows only when the lines go to a file.
    let quiet = args.output.is_none();
    let counts = crate::with_hooks("extract", quiet, |h| extract::run(&req, target, h))?;
    eprintln!("{}", counts.summary_line());
    Ok(crate::exit_code(crate::cancelled(), &counts.tally))
}
