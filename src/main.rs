//! The main entry point into crawlsift: parses the command line and runs one subcommand.

mod dedup;
mod extract;
mod progress;
mod records;
mod stats;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};

/// Read web crawls (WARC, ARC, TREC), extract main text and cluster duplicate documents.
#[derive(Parser, Debug)]
#[command(name = "crawlsift", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the records of archives as JSON lines, or count them with --summary.
    Records(records::RecordsArgs),
    /// Extract the main text of pages: from archives, one HTML file, or a folder of HTML files.
    Extract(extract::ExtractArgs),
    /// Cluster exact and near-duplicate documents of archives (the main job).
    Dedup(dedup::DedupArgs),
    /// Term statistics of the documents' main text: counts, Zipf's and Heaps' laws, unusualness.
    Stats(stats::StatsArgs),
}

/// Set by the first Ctrl-C: readers stop, workers drain, and the command ends cleanly.
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Whether the user asked the run to stop (Ctrl-C).
pub(crate) fn cancelled() -> bool {
    CANCELLED.load(Ordering::Relaxed)
}

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

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
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("crawlsift: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// The worker thread count: `--threads`, or all cores.
pub(crate) fn threads(arg: Option<usize>) -> anyhow::Result<usize> {
    match arg {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)),
    }
}

/// Exit status: 130 when the run stopped early on Ctrl-C (`interrupted`), 1 when an input could
/// not be opened, 2 when records had errors, 0 otherwise.
pub(crate) fn exit_code(interrupted: bool, open_failures: usize, record_errors: u64) -> ExitCode {
    if interrupted {
        ExitCode::from(EXIT_INTERRUPTED)
    } else if open_failures > 0 {
        ExitCode::from(1)
    } else if record_errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
