/*!
The `crawlsift` Python package's native module (`crawlsift._crawlsift`), built by maturin from the
repository root (`pip install .`).

It gives Python the pieces a distributed job calls inside its own workers (a PySpark
`mapPartitions`, a Ray Data `map_batches`, a datatrove `PipelineStep`), with the CLI's semantics:

* [`records`]: `records(source)` (a path, a list of paths, a folder, a binary file object or
  bytes), an iterator of one dict per record with the fields of `crawlsift records`, its WARC
  and HTTP headers (and the payload bytes on request), read on a background thread;
* [`text`]: `extract(html)` (the main text, as `crawlsift extract`, with its options: method,
  output format, metadata; `NoTextError` for what gives none) and `fingerprint(text)` (the
  exact hash, SimHash and MinHash signature `crawlsift dedup` computes);
* [`cli`]: `shard()` and `merge()`, the two steps of a distributed dedup, called into the
  library (`crawlsift_pipeline::run`) as the CLI calls it, raising `CrawlsiftError` and its
  subclasses (defined there, once) when a run cannot finish.

The Python-side wrapper, type hints and tests live in `python/`.
*/
#![deny(missing_docs)]

mod cli;
mod records;
mod text;

use pyo3::prelude::*;

/// The module Python imports as `crawlsift._crawlsift`.
#[pymodule]
fn _crawlsift(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<records::Records>()?;
    m.add_function(wrap_pyfunction!(records::records, m)?)?;
    m.add_class::<records::RecordReader>()?;
    m.add_function(wrap_pyfunction!(records::record_at, m)?)?;
    m.add_function(wrap_pyfunction!(text::extract, m)?)?;
    m.add_function(wrap_pyfunction!(text::fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(text::reuse, m)?)?;
    m.add_function(wrap_pyfunction!(text::kernel_similarity, m)?)?;
    m.add_function(wrap_pyfunction!(cli::shard, m)?)?;
    m.add_function(wrap_pyfunction!(cli::merge, m)?)?;
    cli::add_exceptions(m)?;
    text::add_no_text(m)?;
    Ok(())
}
