//! Every run of the library, each one call: a plain request (inputs, outputs, options) and
//! [`Hooks`] (progress, cancellation, notes) in, an outcome out, a typed [`Error`](crate::Error)
//! when it cannot finish. The command line and the Python package are callers of these:
//!
//! * [`dedup::run`] (`crawlsift dedup`, also a shard of a run with `shard`, and `--against`
//!   through [`against`]), [`merge::run`] (the shards' merge), both ending in [`conclude`];
//! * [`index::run`] (`crawlsift index`: the CDXJ half and the fingerprint half, [`segment`]);
//! * [`reuse::run`] (`crawlsift reuse`: passages shared between documents);
//! * [`check::run`] (`crawlsift check`: every problem of the archives, strictly);
//! * [`rewrite::run`] (`crawlsift rewrite`: the archives as WARC/1.1, a gzip member a record,
//!   identical payloads as revisits); [`wacz::run`] (`crawlsift wacz`: a WACZ package of them);
//! * [`read`]: the threads of a dedup run's reading, shared by the three.

pub mod against;
pub mod check;
pub mod conclude;
pub mod dedup;
pub mod extract;
pub mod get;
pub mod index;
pub mod links;
pub mod merge;
pub mod pages;
pub mod query;
pub mod rank;
pub mod read;
pub mod records;
pub mod reuse;
pub mod rewrite;
pub mod segment;
pub mod stats;
pub mod wacz;

use crawlsift_dedup::{Clusterer, DedupConfig};

use crate::error::{Error, Result};
use crate::flow::inputs::Cancelled;

/// What a run tells its caller while it works.
pub trait Progress: Sync {
    /// The run starts reading `total` bytes of input (0: unknown).
    fn start(&self, _total: u64) {}
    /// Bytes of input done so far, documents so far.
    fn update(&self, _bytes: u64, _documents: u64) {}
    /// The reading is over.
    fn finish(&self) {}
}

/// The command line's exit statuses, the same for every command (`--help` shows them): how a
/// run's outcome (its [`ReadTally`](crate::ReadTally), an error, Ctrl-C) reads as a status.
pub const EXIT_STATUS_HELP: &str = "\
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

/// A run that shows no progress.
pub struct NoProgress;

impl Progress for NoProgress {}

/// The hooks of a run into its caller.
#[derive(Clone, Copy)]
pub struct Hooks<'a> {
    /// Whether the run was asked to stop (Ctrl-C): readers stop, workers drain, checkpoints
    /// are kept.
    pub cancelled: Cancelled<'a>,
    /// Progress of the reading.
    pub progress: &'a dyn Progress,
    /// A note said while the run works (resuming, what spilled to disk), without the
    /// command's name.
    pub notice: &'a (dyn Fn(&str) + Sync),
}

impl Hooks<'static> {
    /// No progress, no notes, never cancelled.
    pub fn silent() -> Self {
        Hooks {
            cancelled: &|| false,
            progress: &NoProgress,
            notice: &|_| {},
        }
    }
}

/// What makes two documents near-duplicates, as `dedup` and `index` take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judging {
    /// The least share of words two near-duplicates have in common (Dice, outside site
    /// template lines), in (0, 1].
    pub threshold: f64,
    /// Texts with fewer words are too short to judge.
    pub min_words: usize,
}

impl Default for Judging {
    fn default() -> Self {
        Judging {
            threshold: crawlsift_common::limits::DEDUP_THRESHOLD,
            min_words: crawlsift_common::limits::DEDUP_MIN_WORDS,
        }
    }
}

impl Judging {
    /// The dedup configuration of these settings; one the clusterer refuses is a usage error.
    pub fn config(&self) -> Result<DedupConfig> {
        let cfg = DedupConfig {
            threshold: self.threshold,
            min_words: self.min_words,
            ..DedupConfig::default()
        };
        Clusterer::new(&cfg).map_err(|e| Error::Usage(e.to_string()))?;
        Ok(cfg)
    }
}

/// The inputs of a run as a command line gives them: those `named` (paths, folders, `-`, URLs),
/// then those an input `list` names ([`crawlsift_reader::read_input_list`], each line under
/// `prefix`). None at all is a usage error.
pub fn named_inputs(
    named: &[std::path::PathBuf],
    list: Option<&std::path::Path>,
    prefix: Option<&str>,
) -> Result<Vec<std::path::PathBuf>> {
    let mut all = named.to_vec();
    if let Some(list) = list {
        all.extend(crawlsift_reader::read_input_list(list, prefix)?);
    }
    if all.is_empty() {
        let why = "no inputs: name archives, folders or URLs, or an --input-list";
        return Err(Error::Usage(why.into()));
    }
    Ok(all)
}

/// Parses a `--threads` value: a whole number of at least 1 (0 is a usage error).
pub fn threads_arg(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The worker thread count: `asked`, or all cores.
pub fn threads(asked: Option<usize>) -> usize {
    asked.filter(|&n| n > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// A size in bytes: a number with an optional K, M, G or T (powers of 1024; a trailing B or iB
/// is allowed), at least `limits::DEDUP_MEMORY_MIN`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (num, shift) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a size such as 512M or 2G"))?;
    let bytes = v * (1u64 << shift) as f64;
    let min = crawlsift_common::limits::DEDUP_MEMORY_MIN;
    if !bytes.is_finite() || bytes < min as f64 {
        return Err(format!("{s:?}: at least {} MiB", min >> 20));
    }
    Ok(bytes.min(usize::MAX as f64) as usize)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn memory_sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("20000000"), Ok(20_000_000));
        assert!(parse_size("1K").is_err()); // below the minimum
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-3G").is_err());
        assert!(parse_size("").is_err());
    }
}
