//! The crawlsift command line as a library: [`run`] parses the arguments, calls the subcommand's
//! run in `crawlsift_pipeline::run` with the command line's hooks (Ctrl-C, progress bar, notes),
//! prints its outcome and turns how it ended into the exit status (one meaning per status,
//! [`EXIT_STATUS_HELP`]). The binary (`main.rs`) adds only the Ctrl-C handler.
#![deny(missing_docs)]

mod check;
mod dedup;
mod extract;
mod get;
mod index;
mod links;
mod merge;
mod query;
mod records;
mod reuse;
mod rewrite;
mod stats;

use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};
use crawlsift_pipeline::ReadTally;

/// The exit statuses, the same for every command (`--help` shows them).
pub use crawlsift_pipeline::run::EXIT_STATUS_HELP;

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
    /// Merge the shards of a dedup run (`dedup --shard I/N`) into the outputs of a single run.
    #[command(after_help = EXIT_STATUS_HELP)]
    Merge(merge::MergeArgs),
    /// Term statistics of the documents' main text: counts, Zipf's and Heaps' laws, unusualness.
    #[command(after_help = format!("{}\n\n{EXIT_STATUS_HELP}", stats::WORDS_HELP))]
    Stats(stats::StatsArgs),
    /// Index archives: a sorted CDXJ index for random access by URL (pywb reads it as is), and
    /// fingerprints, band tables and clusters in IDX/fp/ for `query` and `dedup --against`.
    #[command(after_help = EXIT_STATUS_HELP)]
    Index(index::IndexArgs),
    /// The near-duplicates of one document among an index's documents, as JSON lines.
    #[command(after_help = EXIT_STATUS_HELP)]
    Query(query::QueryArgs),
    /// Print one capture of a URL from an index: payload, raw record, main text or metadata.
    #[command(after_help = EXIT_STATUS_HELP)]
    Get(get::GetArgs),
    /// Passages documents share (partial copies, quotations) and the same stories told in other
    /// words: reuse.jsonl and stories.jsonl in the output folder.
    #[command(after_help = EXIT_STATUS_HELP)]
    Reuse(reuse::ReuseArgs),
    /// Check archives strictly: every problem (bad digest, length mismatch, truncated member,
    /// missing mandatory field, invalid date, ...) as a JSON line with file, offset and record id.
    #[command(after_help = EXIT_STATUS_HELP)]
    Check(check::CheckArgs),
    /// Write archives anew as WARC/1.1, a gzip member per record, responses whose payload was
    /// written before as revisits (identical-payload-digest), ARC and TREC as WARC.
    #[command(after_help = EXIT_STATUS_HELP)]
    Rewrite(rewrite::RewriteArgs),
    /// Package archives as WACZ 1.1.1 (archives a gzip member per record, CDXJ index, pages with
    /// their main text, datapackage.json) for ReplayWeb.page and pywb.
    #[command(after_help = EXIT_STATUS_HELP)]
    Wacz(rewrite::WaczArgs),
    /// The web graph of archives: page and host graphs (cc-webgraph's layout) and anchor texts.
    #[command(after_help = EXIT_STATUS_HELP)]
    Links(rewrite::ArchivesOutArgs),
    /// PageRank, HITS and harmonic centrality of a graph `crawlsift links` wrote.
    #[command(after_help = EXIT_STATUS_HELP)]
    Rank(links::RankArgs),
}

/// Set by the first Ctrl-C: readers stop, workers drain, and the command ends cleanly.
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Whether the user asked the run to stop (Ctrl-C).
pub(crate) fn cancelled() -> bool {
    CANCELLED.load(Ordering::Relaxed)
}

/// Exit status of a fatal error: an input cannot be opened, an output cannot be written.
pub const EXIT_FATAL: u8 = 1;

/// Exit status of a usage error (clap's own, for errors found after parsing too).
pub const EXIT_USAGE: u8 = 2;

/// Exit status of a run that finished but met problems in its input (counted in its summary).
pub const EXIT_PROBLEMS: u8 = 3;

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// How a command ended: its exit status ([`EXIT_STATUS_HELP`]), a number so that both the binary
/// and in-process callers (the Python package) get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExitCode(pub u8);

impl ExitCode {
    /// Finished cleanly.
    pub const SUCCESS: ExitCode = ExitCode(0);

    /// The status `code`.
    pub fn from(code: u8) -> Self {
        ExitCode(code)
    }
}

/// Asks a running command to stop cleanly (what the first Ctrl-C does): readers stop, workers
/// drain, and a `dedup` run keeps its checkpoints. Returns whether a stop was already asked for.
pub fn request_stop() -> bool {
    CANCELLED.swap(true, Ordering::SeqCst)
}

/// Runs one command line (`args` starts with the program's name, as `std::env::args_os()` does)
/// and returns its exit status ([`EXIT_STATUS_HELP`]): help and version print and give 0, a usage
/// error prints and gives 2.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    CANCELLED.store(false, Ordering::SeqCst);
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Records(args) => records::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Index(args) => index::run(args),
        Command::Get(args) => get::run(args),
        Command::Query(args) => query::run(args),
        Command::Reuse(args) => reuse::run(args),
        Command::Check(args) => check::run(args),
        Command::Rewrite(args) => rewrite::run(args),
        Command::Wacz(args) => rewrite::run_wacz(args),
        Command::Links(args) => links::run(args),
        Command::Rank(args) => links::run_rank(args),
    };
    match result {
        Ok(code) => code.0,
        Err(err) if crawlsift_pipeline::is_broken_pipe(err.as_ref()) => 0, // `| head`: quiet
        Err(err) => {
            eprintln!(
                "crawlsift: error: {}",
                crawlsift_pipeline::error_line(err.as_ref())
            );
            // Arguments the library refuses after parsing are usage errors too.
            if let Some(crawlsift_pipeline::Error::Usage(_)) = err.downcast_ref() {
                eprintln!("\nFor more information, try '--help'.");
                EXIT_USAGE
            } else {
                EXIT_FATAL
            }
        }
    }
}

/// The inputs of every command that reads archives.
#[derive(clap::Args, Debug, Clone)]
#[group(id = "source", required = true, multiple = true)]
pub(crate) struct InputArgs {
    /// Archive files, folders (walked in sorted order), `-` (stdin), `https://` or `s3://` URLs.
    pub inputs: Vec<std::path::PathBuf>,
    /// A file (plain or gzipped, or a URL) naming more inputs, one a line (as warc.paths.gz).
    #[arg(long, value_name = "FILE")]
    pub input_list: Option<std::path::PathBuf>,
    /// Joined to each line of --input-list: a folder, an `https://` or an `s3://` URL.
    #[arg(long, requires = "input_list")]
    pub prefix: Option<String>,
}

impl InputArgs {
    /// The inputs named, then those of the list (none at all is a usage error).
    pub fn paths(&self) -> crawlsift_pipeline::Result<Vec<std::path::PathBuf>> {
        let (list, prefix) = (self.input_list.as_deref(), self.prefix.as_deref());
        crawlsift_pipeline::run::named_inputs(&self.inputs, list, prefix)
    }
}

/// What makes two documents near-duplicates, as `dedup` and `index` take it from the command
/// line (the same flags, defaults and checks in both).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct JudgingArgs {
    /// Near-duplicates share at least this much of their words: the Dice coefficient of their
    /// word multisets outside site-template lines, 2|A∩B| / (|A|+|B|), in (0, 1].
    #[arg(long, value_name = "SHARE", default_value_t = crawlsift_common::limits::DEDUP_THRESHOLD)]
    pub threshold: f64,
    /// Texts with fewer words are too short to judge: reported, and clustered only with their
    /// exact copies.
    #[arg(long, value_name = "WORDS", default_value_t = crawlsift_common::limits::DEDUP_MIN_WORDS)]
    pub min_words: usize,
}

impl JudgingArgs {
    /// The library's settings of these flags (checked when the run starts).
    pub fn judging(&self) -> crawlsift_pipeline::run::Judging {
        crawlsift_pipeline::run::Judging {
            threshold: self.threshold,
            min_words: self.min_words,
        }
    }
}

/// Runs `f` with the hooks of a command line: Ctrl-C as the cancellation, the progress bar on
/// stderr and notes as `crawlsift COMMAND: ...` (neither with `quiet`).
pub(crate) fn with_hooks<T>(
    command: &str,
    quiet: bool,
    f: impl FnOnce(&crawlsift_pipeline::run::Hooks<'_>) -> crawlsift_pipeline::Result<T>,
) -> crawlsift_pipeline::Result<T> {
    let progress = crawlsift_pipeline::progress_bar::TerminalProgress::hidden_if(quiet);
    let notice = |line: &str| {
        if !quiet {
            eprintln!("crawlsift {command}: {line}");
        }
    };
    let hooks = crawlsift_pipeline::run::Hooks {
        cancelled: &cancelled,
        progress: &progress,
        notice: &notice,
    };
    f(&hooks)
}

/// `--threads`: parsed (at least 1, else a usage error) and the count (or all cores).
pub(crate) use crawlsift_pipeline::run::{threads, threads_arg};

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
