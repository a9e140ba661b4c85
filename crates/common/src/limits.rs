//! Every bound of crawlsift, in one place.
//!
//! Each constant says what it limits and why its value is what it is. Builders read these as
//! defaults; the CLI may override a few. No other module holds a magic number for a bound.

/// Largest WARC/ARC/TREC record header block (the lines before the body). Real headers are a few
/// KiB; 1 MiB leaves room for pathological but honest ones and stops a header that never ends.
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// Largest HTTP header block inside a record. Servers cap theirs at 8-64 KiB.
pub const MAX_HTTP_HEADER_BYTES: usize = 256 << 10;

/// Largest record body the reader materialises. A gzip member that inflates past this is stopped
/// (not allocated) and the record is counted as `too_large`. Common Crawl truncates payloads at
/// 1 MiB; other crawlers keep larger ones, so the bound is generous.
pub const MAX_RECORD_BYTES: usize = 256 << 20;

/// Largest inflate ratio a member may show before it is treated as a gzip bomb (with
/// [`MAX_RECORD_BYTES`] as the absolute bound). HTML compresses 5-15x; 1000x is only crafted input.
pub const MAX_INFLATE_RATIO: u64 = 1000;

/// Batches of records (or documents) travel between stages; this is how many records one batch
/// holds at most, which amortises channel costs without holding much memory.
pub const BATCH_RECORDS: usize = 256;

/// Capacity, in batches, of the channel from readers to extractor workers.
pub const RAW_QUEUE_CAP: usize = 8;

/// Capacity, in batches, of the channel from extractor workers to fingerprint workers.
pub const TEXT_QUEUE_CAP: usize = 8;

// --- reader (crates/reader) -------------------------------------------------------------------

// --- extractor (crates/extractor) -------------------------------------------------------------

// --- dedup (crates/dedup) ---------------------------------------------------------------------

// --- pipeline (src/) --------------------------------------------------------------------------
