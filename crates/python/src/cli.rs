//! `cli(args)`: a crawlsift command line run in this process, exactly as the binary runs it (the
//! same parsing, outputs, messages on stderr and exit statuses), with the GIL released. The shard
//! and merge steps of a distributed dedup are built on it in the Python wrapper.

use pyo3::prelude::*;

/// Runs `crawlsift ARGS...` (without the program name) and returns its exit status: 0 clean,
/// 1 fatal, 2 usage error, 3 finished with problems in the input, as `crawlsift --help` lists.
#[pyfunction]
pub fn cli(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| crawlsift_cli::run(std::iter::once("crawlsift".to_string()).chain(args)))
}
