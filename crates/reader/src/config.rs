//! [`ReaderConfig`]: how to read (threads, digest checks, buffer, range and batch sizes).

use crawlsift_common::limits::{
    BATCH_RECORDS, PARALLEL_MIN_FILE_BYTES, PARALLEL_RANGE_BYTES, READ_BUFFER_BYTES,
};

/// How to read. `Default` reads with all cores and the bounds from `crawlsift_common::limits`.
#[derive(Debug, Clone)]
pub struct ReaderConfig {
    /// Threads used to inflate one large multi-member gzip file (1 = sequential).
    pub threads: usize,
    /// Check `WARC-Block-Digest` / `WARC-Payload-Digest` and count results in the report.
    pub verify_digests: bool,
    /// Decoded bytes per batch buffer (tests drive this down to 1 to hit every boundary).
    pub buffer_bytes: usize,
    /// Compressed bytes per range of the parallel gzip reader.
    pub parallel_range_bytes: usize,
    /// Files smaller than this are read by one thread.
    pub parallel_min_file_bytes: usize,
    /// Records per batch handed to the sink (1 for a caller that wants only the first record:
    /// it then stops the reader before a whole batch is decoded).
    pub batch_records: usize,
    /// Keep every error in the report's examples (with its offset and message), not only the
    /// first `MAX_ERROR_EXAMPLES`: what a strict check lists. Bounded by the input, each error
    /// being at least one of its bytes.
    pub every_error: bool,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            verify_digests: false,
            buffer_bytes: READ_BUFFER_BYTES,
            parallel_range_bytes: PARALLEL_RANGE_BYTES,
            parallel_min_file_bytes: PARALLEL_MIN_FILE_BYTES,
            batch_records: BATCH_RECORDS,
            every_error: false,
        }
    }
}
