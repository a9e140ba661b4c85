//! `crawlsift check`: every problem of the archives, one JSON line each, strictly (the reading is
//! the library's, `crawlsift_pipeline::run::check`); this module gives it the arguments, prints
//! the summary and sets the status: 3 when any problem was found.

use crate::ExitCode;

use clap::Args;
use crawlsift_pipeline::run::check::{self, CheckRequest};

/// Arguments of `crawlsift check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// No summary on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `crawlsift check`.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let (inputs, threads) = (args.inputs.paths()?, crate::threads(args.threads));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let req = CheckRequest { inputs, threads };
    let checked = crate::with_hooks("check", true, |h| check::run(&req, &mut out, h))?;
    drop(out);
    if !args.quiet {
        eprintln!("crawlsift check: {}", checked.summary());
    }
    Ok(match crate::exit_code(crate::cancelled(), &checked.tally) {
        code if code.0 == 0 && checked.problems() > 0 => ExitCode::from(crate::EXIT_PROBLEMS),
        code => code,
    })
}
