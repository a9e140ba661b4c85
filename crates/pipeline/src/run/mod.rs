//! Every run of the library, each one call: a plain request (inputs, outputs, options) and
//! [`Hooks`] (progress, cancellation, notes) in, an outcome out, a typed [`Error`](crate::Error)
//! when it cannot finish. The command line and the Python package are callers of these:
//!
//! * [`dedup::run`] (`crawlsift dedup`, also a shard of a run with `shard`, and `--against`
//!   through [`against`]), [`merge::run`] (the shards' merge), both ending in [`conclude`];
//! * [`index::run`] (`crawlsift index`: the CDXJ half and the fingerprint half, [`segment`]);
//! * [`read`]: the threads of a dedup run's reading, shared by the three.

pub mod against;
pub mod conclude;
pub mod dedup;
pub mod extract;
pub mod index;
pub mod merge;
pub mod read;
pub mod records;
pub mod segment;
pub mod stats;

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

/// The worker thread count: `asked`, or all cores.
pub fn threads(asked: Option<usize>) -> usize {
    asked.filter(|&n| n > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}
