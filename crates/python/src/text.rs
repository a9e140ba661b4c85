//! `extract(html)` and `fingerprint(text)`: one document's main text and its dedup fingerprint,
//! computed exactly as `crawlsift extract` and `crawlsift dedup` compute them (the same
//! extractor, the same default [`DedupConfig`]), so fingerprints made in Python workers can be
//! compared with, and clustered beside, the CLI's.

use crawlsift_dedup::{DedupConfig, Fingerprinter};
use crawlsift_extractor::{ExtractorBuilder, Method};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// A document's bytes: `bytes` as they are, `str` as UTF-8.
#[derive(FromPyObject)]
pub enum Body {
    /// Raw bytes (the charset is sniffed as for a record's body).
    Bytes(Vec<u8>),
    /// Text (encoded as UTF-8 before extraction).
    Text(String),
}

/// The main text of one HTML (or plain-text, or feed) document, as `crawlsift extract` gives it:
/// a dict with `title`, `text`, `charset` and `method`. `content_type` is the HTTP
/// `Content-Type` (its `charset` parameter is honoured); `method` is `blocks` (default),
/// `plateau` or `full`. A document that gives no text (an image, an empty page) raises
/// `ValueError` naming why.
#[pyfunction]
#[pyo3(signature = (html, content_type = None, method = "blocks"))]
pub fn extract<'py>(
    py: Python<'py>,
    html: Body,
    content_type: Option<&str>,
    method: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let method: Method = method
        .parse()
        .map_err(|e| PyValueError::new_err(format!("{e}")))?;
    let bytes = match html {
        Body::Bytes(b) => b,
        Body::Text(s) => s.into_bytes(),
    };
    let mut ex = ExtractorBuilder::new()
        .method(method)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let charset = content_type.and_then(charset_param);
    let got = py
        .detach(|| ex.extract(&bytes, content_type, charset.as_deref()))
        .map_err(|skip| PyValueError::new_err(format!("no text: {skip}")))?;
    let d = PyDict::new(py);
    d.set_item("title", got.title)?;
    d.set_item("text", got.text)?;
    d.set_item("charset", got.charset)?;
    d.set_item("method", got.method.as_str())?;
    Ok(d)
}

/// The `charset` parameter of a `Content-Type` value, if it has one.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

/// The fingerprint `crawlsift dedup` computes for a document's text, with its default settings:
/// a dict with `words` (normalised words), `exact` (XXH3-128 of the normalised text, 32 hex
/// digits), `simhash` (64-bit int), `minhash` (the b-bit MinHash signature, one byte per
/// permutation) and `adler32`.
#[pyfunction]
pub fn fingerprint<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let fp = py.detach(|| Fingerprinter::new(&DedupConfig::default()).fingerprint(text));
    let d = PyDict::new(py);
    d.set_item("words", fp.words)?;
    d.set_item("exact", format!("{:032x}", fp.exact))?;
    d.set_item("simhash", fp.simhash)?;
    d.set_item("minhash", PyBytes::new(py, &fp.minhash))?;
    d.set_item("adler32", fp.adler32)?;
    Ok(d)
}
