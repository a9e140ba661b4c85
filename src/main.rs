//! The main entry point into crawlsift: parses the command line, runs one subcommand and turns
//! how it ended into the exit status (one meaning per status, [`EXIT_STATUS_HELP`]).

mod dedup;
mod extract;
mod index;
mod progress;
mod query;
mod records;
mod stats;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};
use crawlsift_pipeline::ReadTally;

/// The exit statuses, the same for every command (`--help` shows them).
const EXIT_STATUS_HELP: &str = "\
Exit status:
  0    finished cleanly
  1    fatal: an input cannot be opened, an output cannot be written or already exists
       (without --force), or the run was aborted. Outputs are checked, and a missing input
       path is found, before anything is read; a file that exists but cannot be read is
       reported, the other inputs are still read and the outputs written.
  2    usage error: a bad argument or option
  3    finished, but some input was not an archive (skipped), some records had errors, or
       digests did not match (--verify-digests), each counted in the summary and report.
       The same file given twice is read once, with a warning (no status of its own).
  130  stopped by Ctrl-C (dedup: the same command again resumes the run)";

/// Read web crawls (WARC, ARC, TREC), extract main text and cluster duplicate documents.
#[derive(Parser, Debug)]
#[command(name = "crawlsift", version, about, after_help = EXIT_STATUS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the records of archives as JSON lines, or count them with --summary.
    #[command(after_help = EXIT_STATUS_HELP)]
    Records(records::RecordsArgs),
    /// Extract the main text of pages: from archives, one HTML file, or a folder of HTML files.
    #[command(after_help = EXIT_STATUS_HELP)]
    Extract(extract::ExtractArgs),
    /// Cluster exact and near-duplicate documents of archives (the main job).
    #[command(after_help = EXIT_STATUS_HELP)]
    Dedup(dedup::DedupArgs),
    /// Term statistics of the documents' main text: counts, Zipf's and Heaps' laws, unusualness.
    #[command(after_help = format!("{}\n\n{EXIT_STATUS_HELP}", stats::WORDS_HELP))]
    Stats(stats::StatsArgs),
    /// Index archives: fingerprints, band tables and clusters in IDX/fp/, searched by `query`.
    #[command(after_help = EXIT_STATUS_HELP)]
    Index(index::IndexArgs),
    /// The near-duplicates of one document among an index's documents, as JSON lines.
    #[command(after_help = EXIT_STATUS_HELP)]
    Query(query::QueryArgs),
}

/// Set by the first Ctrl-C: readers stop, workers drain, and the command ends cleanly.
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Whether the user asked the run to stop (Ctrl-C).
pub(crate) fn cancelled() -> bool {
    CANCELLED.load(Ordering::Relaxed)
}

/// Exit status of a fatal error: an input cannot be opened, an output cannot be written.
const EXIT_FATAL: u8 = 1;

/// Exit status of a usage error (clap's own, for errors found after parsing too).
const EXIT_USAGE: u8 = 2;

/// Exit status of a run that finished but met problems in its input (counted in its summary).
const EXIT_PROBLEMS: u8 = 3;

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// An error in the arguments found after parsing (a configuration the library refuses): exit 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The first Ctrl-C asks for a clean stop; a second one ends the process at once.
    let _ = ctrlc::set_handler(|| {
        if CANCELLED.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
        eprintln!(
            "\ncrawlsift: interrupted; finishing the work in flight (Ctrl-C again to quit at once)"
        );
    });
    let result = match cli.command {
        Command::Records(args) => records::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Index(args) => index::run(args),
        Command::Query(args) => query::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS, // `| head`: a quiet end
        Err(err) => {
            eprintln!("crawlsift: error: {}", message(&err));
            if err.downcast_ref::<UsageError>().is_some() {
                eprintln!("\nFor more information, try '--help'.");
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_FATAL)
            }
        }
    }
}

/// Whether `err` comes from writing to a pipe whose reader has gone (`crawlsift ... | head`).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line, each said once: a cause whose text its context already
/// holds (an I/O error a path error quotes) is not repeated.
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Parses `--threads`: a whole number of at least 1 (0 is a usage error, exit 2).
pub(crate) fn threads_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The worker thread count: `--threads` (at least 1, checked when parsing), or all cores.
pub(crate) fn threads(arg: Option<usize>) -> usize {
    arg.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Exit status of a run that read its inputs: 130 when it stopped early on Ctrl-C
/// (`interrupted`), 1 when an input could not be opened, 3 when the input had problems (record
/// errors, an input that is no archive, digest mismatches), 0 otherwise.
pub(crate) fn exit_code(interrupted: bool, tally: &ReadTally) -> ExitCode {
    if interrupted {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if tally.failed_inputs > 0 {
        ExitCode::from(EXIT_FATAL)
    } else if tally.has_problems() {
        ExitCode::from(EXIT_PROBLEMS)
    } else {
        ExitCode::SUCCESS
    }
}

/// Exit status of a run over plain HTML files (`extract --html-dir`): 1 when a page could not be
/// read or its text not written, 0 otherwise.
pub(crate) fn pages_exit_code(failed: usize) -> ExitCode {
    if failed > 0 {
        ExitCode::from(EXIT_FATAL)
    } else {
        ExitCode::SUCCESS
    }
}
