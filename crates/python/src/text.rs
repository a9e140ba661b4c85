//! `extract(html)` and `fingerprint(text)`: one document's main text (as a dict, or rendered in
//! one of the CLI's output formats) and its dedup fingerprint, computed exactly as `crawlsift
//! extract` and `crawlsift dedup` compute them (the same extractor and renderer, the same default
//! [`DedupConfig`]), so texts and fingerprints made in Python workers can be compared with, and
//! clustered beside, the CLI's.

use crawlsift_dedup::{DedupConfig, Fingerprinter};
use crawlsift_extractor::format::render;
use crawlsift_extractor::{ExtractorBuilder, Format, Method};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple, PyType};

/// A document's bytes: `bytes` as they are, `str` as UTF-8.
#[derive(FromPyObject)]
pub enum Body {
    /// Raw bytes (the charset is sniffed as for a record's body).
    Bytes(Vec<u8>),
    /// Text (encoded as UTF-8 before extraction).
    Text(String),
}

/// The exception `extract()` raises for a document that gives no text, made at module start as
/// `class NoTextError(CrawlsiftError, ValueError)` so that `except ValueError` still catches it.
static NO_TEXT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Adds `NoTextError` to the module (after `CrawlsiftError`, its base).
pub fn add_no_text(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let bases = PyTuple::new(
        py,
        [
            m.getattr("CrawlsiftError")?,
            py.get_type::<PyValueError>().into_any(),
        ],
    )?;
    let attrs = PyDict::new(py);
    attrs.set_item("__module__", "crawlsift._crawlsift")?;
    attrs.set_item(
        "__doc__",
        "The document gives no text (an image, a PDF, other binary content, an empty page); \
         the message says which. A subclass of CrawlsiftError and of ValueError.",
    )?;
    let ty = py
        .get_type::<PyType>()
        .call1(("NoTextError", bases, attrs))?
        .cast_into::<PyType>()?;
    m.add("NoTextError", &ty)?;
    let _ = NO_TEXT.set(py, ty.unbind());
    Ok(())
}

/// The output format of `format=`, spelled as `crawlsift extract --format` spells it.
fn parse_format(name: &str) -> PyResult<Format> {
    match name {
        "txt" => Ok(Format::Txt),
        "json" => Ok(Format::Json),
        "markdown" => Ok(Format::Markdown),
        "xml" => Ok(Format::Xml),
        _ => Err(PyValueError::new_err(format!(
            "unknown format {name:?}: expected txt, json, markdown or xml"
        ))),
    }
}

/// The main text of one HTML (or plain-text, or feed) document, as `crawlsift extract` gives it.
///
/// Without `format`, a dict with `title`, `text`, `charset` and `method` (and `metadata`, a dict
/// of `title`, `author`, `published`, `sitename`, `language`, `description` and `canonical`,
/// with `metadata=True`). With `format` (`txt`, `json`, `markdown` or `xml`), the string
/// `crawlsift extract --html FILE --format FORMAT` prints (`--with-metadata` when `metadata`).
/// `content_type` is the HTTP `Content-Type` (its `charset` parameter is honoured; a binary type
/// gives no text); `method` is `learned` (the CLI's default), `blocks`, `plateau` or `full`;
/// `url` is where the page was captured (the metadata may use it). A document that gives no text
/// (an image, a PDF, an empty page) raises `NoTextError` (a `ValueError`) naming why; an unknown
/// method or format raises `ValueError`.
#[pyfunction]
#[pyo3(signature = (html, content_type = None, method = "learned", *, format = None, metadata = false, url = None))]
pub fn extract<'py>(
    py: Python<'py>,
    html: Body,
    content_type: Option<&str>,
    method: &str,
    format: Option<&str>,
    metadata: bool,
    url: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let method: Method = method
        .parse()
        .map_err(|e| PyValueError::new_err(format!("{e}")))?;
    let format = format.map(parse_format).transpose()?;
    let bytes = match html {
        Body::Bytes(b) => b,
        Body::Text(s) => s.into_bytes(),
    };
    let mut ex = ExtractorBuilder::new()
        .method(method)
        .structure(format.is_some_and(Format::structured))
        .metadata(metadata)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let charset = content_type.and_then(charset_param);
    let got = py
        .detach(|| ex.extract_at(&bytes, content_type, charset.as_deref(), url))
        .map_err(|skip| no_text(py, format!("no text: {skip}")))?;
    if let Some(format) = format {
        let out = render(
            format,
            &got.title,
            &got.text,
            &got.parts,
            got.metadata.as_deref(),
            &[],
        );
        return Ok(PyString::new(py, &out).into_any());
    }
    let d = PyDict::new(py);
    d.set_item("title", &got.title)?;
    d.set_item("text", &got.text)?;
    d.set_item("charset", got.charset)?;
    d.set_item("method", got.method.as_str())?;
    if let Some(m) = got.metadata.as_deref() {
        let md = PyDict::new(py);
        for (k, v) in m.fields() {
            md.set_item(k, v)?;
        }
        d.set_item("metadata", md)?;
    }
    Ok(d.into_any())
}

/// A `NoTextError` with `msg` (a plain `ValueError` if the module has not made the class).
fn no_text(py: Python<'_>, msg: String) -> PyErr {
    match NO_TEXT.get(py) {
        Some(ty) => PyErr::from_type(ty.bind(py).clone(), msg),
        None => PyValueError::new_err(msg),
    }
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

/// The passages two texts share (`crawlsift reuse`'s alignment of one pair): a dict with
/// `a_share` and `b_share` (the share of each text's words inside the passages, 4 decimals as
/// `reuse.jsonl` writes them) and `passages`, each with `a_words`, `b_words` (word ranges over
/// each text's words: maximal runs of Unicode letters and digits) and `a_chars`, `b_chars`
/// (character ranges in each text), end exclusive. Raises `ValueError` for a
/// `min_passage_words` of 0.
#[pyfunction]
#[pyo3(signature = (a_text, b_text, min_passage_words = crawlsift_common::limits::REUSE_MIN_PASSAGE_WORDS))]
pub fn reuse<'py>(
    py: Python<'py>,
    a_text: &str,
    b_text: &str,
    min_passage_words: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg = crawlsift_reuse::ReuseConfig {
        min_passage_words,
        ..crawlsift_reuse::ReuseConfig::default()
    };
    cfg.check()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (passages, words) = py.detach(|| {
        let count = |t: &str| crawlsift_reuse::Words::of(t, cfg.max_words).hashes.len();
        let passages = crawlsift_reuse::reuse_with(a_text, b_text, &cfg);
        (passages, (count(a_text), count(b_text)))
    });
    let rounded = |x: f64| (x * 10_000.0).round() / 10_000.0;
    let d = PyDict::new(py);
    let a_share = crawlsift_reuse::share(words.0, passages.iter().map(|p| p.a_words));
    let b_share = crawlsift_reuse::share(words.1, passages.iter().map(|p| p.b_words));
    d.set_item("a_share", rounded(a_share))?;
    d.set_item("b_share", rounded(b_share))?;
    let list = pyo3::types::PyList::empty(py);
    for p in &passages {
        let pd = PyDict::new(py);
        pd.set_item("a_words", p.a_words.to_vec())?;
        pd.set_item("b_words", p.b_words.to_vec())?;
        pd.set_item("a_chars", p.a_chars.to_vec())?;
        pd.set_item("b_chars", p.b_chars.to_vec())?;
        list.append(pd)?;
    }
    d.set_item("passages", list)?;
    Ok(d)
}

/// The kernel similarity of two texts (`stories.jsonl`'s measure: character 3-gram kernels of
/// letters and digits, weighted by their commonality), in [0, 1]. Each kernel's commonality is
/// counted over `corpus` (texts, an iterable) and the two texts; without a corpus, over the two
/// alone. Scores of different corpora are not comparable: `stories.jsonl`'s come from the run's
/// whole corpus.
#[pyfunction]
#[pyo3(signature = (a_text, b_text, corpus = None))]
pub fn kernel_similarity(
    py: Python<'_>,
    a_text: &str,
    b_text: &str,
    corpus: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let mut texts: Vec<String> = Vec::new();
    if let Some(c) = corpus {
        if c.is_instance_of::<pyo3::types::PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "corpus is an iterable of texts, not one text",
            ));
        }
        for t in c.try_iter()? {
            texts.push(t?.extract::<String>()?);
        }
    }
    let max = crawlsift_common::limits::STORY_MAX_CHARS;
    Ok(py.detach(|| {
        crawlsift_reuse::kernel_similarity(a_text, b_text, texts.iter().map(|t| t.as_str()), max)
    }))
}
