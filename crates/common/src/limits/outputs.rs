//! The bounds of links and ranks, remote inputs and Parquet outputs (part of [`super`]: every bound
//! of crawlsift, in one namespace).

// --- links (crates/extractor/src/links.rs, crates/links) ----------------------------------------

/// Most links read from one page: a page of more is a link farm or a sitemap dump, and its first
/// ones are kept.
pub const LINKS_MAX_PER_PAGE: usize = 10_000;

/// Most characters of one link's anchor text kept (the start of a longer one).
pub const LINKS_MAX_ANCHOR_CHARS: usize = 256;

/// Pages queued for the thread that gathers the web graph (`links`, `dedup --links`): a page's
/// links are some KiB, so the queue holds a few MiB while the thread catches up.
pub const LINKS_QUEUE_CAP: usize = 1024;

/// Most incoming anchor texts a clean-corpus line carries (`dedup --links --text`), the most
/// given first: a site's home page is given thousands of texts, and its line would grow without
/// bound; `anchors.jsonl.gz` keeps them all.
pub const LINKS_TEXT_MAX_ANCHORS: usize = 100;

// --- link analysis (crates/rank) -----------------------------------------------------------------

/// Longest line of a graph's `vertices.txt.gz` or `edges.txt.gz` (cc-webgraph's text layout),
/// newline included: a vertex name is a URL or a reversed host name, some KiB at most in real
/// crawls; a longer line is damage or hostile input, reported with its file and line, and never
/// held whole.
pub const RANK_MAX_LINE_BYTES: usize = 1 << 20;

/// Most vertices whose harmonic centrality is computed exactly (one breadth-first search per
/// vertex: n searches of O(n + m) steps each, so 100,000 vertices of 10 edges each are about
/// 10^11 steps, minutes on two cores). A larger graph is refused with an error saying so: its
/// harmonic centrality needs HyperBall's approximate counters (as cc-webgraph runs it), which
/// crawlsift does not have yet.
pub const RANK_HARMONIC_EXACT_MAX_VERTICES: usize = 100_000;

// --- remote inputs (crates/reader/src/remote/, input lists in crates/reader/src/input.rs) ------

/// Longest wait for a TCP (and TLS) connection to a remote input's server; then it is retried.
pub const REMOTE_CONNECT_TIMEOUT_SECS: u64 = 20;

/// Longest wait for one read of a remote input's socket; then the connection counts as dropped
/// and is resumed. 60 s outlasts an overloaded server's pauses without hanging on a dead one.
pub const REMOTE_READ_TIMEOUT_SECS: u64 = 60;

/// Attempts at a remote input from one position (after drops, timeouts, 5xx/429 answers) before
/// it fails; a byte read resets the count, so a file making progress is resumed as often as needed.
pub const REMOTE_ATTEMPTS: u32 = 5;

/// Wait before the first retry, doubled before each next one up to [`REMOTE_BACKOFF_MAX_MS`].
pub const REMOTE_BACKOFF_FIRST_MS: u64 = 200;

/// Longest wait between two attempts at a remote input.
pub const REMOTE_BACKOFF_MAX_MS: u64 = 5_000;

/// Validity of a signed S3 request: each is signed just before it is made; an hour allows for skew.
pub const REMOTE_SIGNED_URL_SECS: u64 = 3600;

/// Largest answer read whole (an S3 listing page of 1,000 keys is ~300 KB): a larger is refused.
pub const REMOTE_SMALL_BODY_BYTES: u64 = 8 << 20;

/// Objects one `s3://BUCKET/PREFIX/` may list, and inputs one `--input-list` may name: ten times
/// Common Crawl's largest crawl (~100,000 WARC files), so a hostile listing or list is refused.
pub const REMOTE_MAX_LISTED: usize = 1_000_000;

/// Longest `--input-list` line: far beyond any path or URL, it stops a file without newlines.
pub const INPUT_LIST_MAX_LINE_BYTES: usize = 64 << 10;
// --- Parquet outputs (crates/pipeline/src/columns.rs) ---------------------------------------------

/// Most rows in one row group of a Parquet output (`--format parquet`): the rows of a group are
/// held in memory (as Arrow columns, then encoded) until the group is written.
pub const PARQUET_ROW_GROUP_ROWS: usize = 65_536;

/// Most bytes of JSON lines (the rows as their JSON lines measure them) in one row group of a
/// Parquet output: with long texts (`extract`, `--text`) a group closes before
/// [`PARQUET_ROW_GROUP_ROWS`] rows, so a group holds about this much text, whatever the rows.
pub const PARQUET_ROW_GROUP_BYTES: usize = 64 << 20;

/// zstd level of Parquet outputs' column chunks: zstd's default, as for `.zst` outputs.
pub const PARQUET_ZSTD_LEVEL: i32 = 3;
