//! `--format parquet` (issue #36) end to end: `records`, `extract`, and `dedup`'s documents and
//! `--text` corpus over `data/sample.warc.gz`, written as JSON lines and as Parquet by the same
//! command; the Parquet files are read back with the `parquet` crate and every row and value
//! compared with the JSON lines (a key a line leaves out is a null), their bytes are the same for
//! any thread count, and the usage errors are refused with status 2.

mod util;

use std::path::Path;

use arrow_array::RecordBatchReader;
use arrow_array::{Array, BooleanArray, Float64Array, RecordBatch, StringArray, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};
use util::*;

const SAMPLE: &str = "data/sample.warc.gz";

/// The rows of a Parquet file as JSON objects (every column, nulls included) and the columns.
fn parquet_rows(path: &Path) -> (Vec<Map<String, Value>>, Vec<String>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let schema = reader.schema();
    let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let mut rows = Vec::new();
    for batch in reader {
        let batch: RecordBatch = batch.unwrap();
        for r in 0..batch.num_rows() {
            let mut row = Map::new();
            for (c, name) in columns.iter().enumerate() {
                row.insert(name.clone(), value(batch.column(c).as_ref(), r));
            }
            rows.push(row);
        }
    }
    (rows, columns)
}

/// The value at `r` of a column, as JSON.
fn value(col: &dyn Array, r: usize) -> Value {
    if col.is_null(r) {
        return Value::Null;
    }
    let any = col.as_any();
    if let Some(a) = any.downcast_ref::<StringArray>() {
        Value::from(a.value(r))
    } else if let Some(a) = any.downcast_ref::<UInt64Array>() {
        Value::from(a.value(r))
    } else if let Some(a) = any.downcast_ref::<Float64Array>() {
        Value::from(a.value(r))
    } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
        Value::from(a.value(r))
    } else {
        panic!("unexpected column type {:?}", col.data_type())
    }
}

/// Asserts that the Parquet file holds the JSON lines' rows: as many, in order, every key of a
/// line a column of the same value, every other column null. Returns the row count.
fn assert_same_rows(json: &[Value], parquet: &Path) -> usize {
    let (rows, columns) = parquet_rows(parquet);
    assert_eq!(rows.len(), json.len(), "{}: row count", parquet.display());
    for (n, (line, row)) in json.iter().zip(&rows).enumerate() {
        let line = line.as_object().expect("a JSON line is an object");
        for key in line.keys() {
            assert!(
                columns.contains(key),
                "{}: `{key}` is no column",
                parquet.display()
            );
        }
        for name in &columns {
            let want = line.get(name).cloned().unwrap_or(Value::Null);
            // An array or object (`anchors`) is held as its JSON text.
            let got = match (&row[name], &want) {
                (Value::String(s), Value::Array(_) | Value::Object(_)) => {
                    serde_json::from_str(s).unwrap()
                }
                (got, _) => got.clone(),
            };
            assert_eq!(got, want, "{} row {n} column {name}", parquet.display());
        }
    }
    rows.len()
}

fn stdout_lines(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn records_and_extract_as_parquet_hold_the_json_lines_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();

    // records, with the digest columns filled.
    let json = stdout_lines(&crawlsift_ok(
        &["records", SAMPLE, "--verify-digests", "-j", "1"],
        0,
    ));
    assert!(json.len() > 10, "the sample has records");
    for threads in ["1", "2"] {
        let out = p(&format!("records-{threads}.parquet"));
        let args = ["records", SAMPLE, "--verify-digests", "-j", threads];
        crawlsift_ok(
            &[&args[..], &["--format", "parquet", "-o", &out]].concat(),
            0,
        );
        assert_eq!(assert_same_rows(&json, Path::new(&out)), json.len());
    }
    assert_eq!(
        std::fs::read(p("records-1.parquet")).unwrap(),
        std::fs::read(p("records-2.parquet")).unwrap(),
        "the same bytes whatever the thread count"
    );
    // The columns are those of the JSON lines, in their order.
    let (_, columns) = parquet_rows(Path::new(&p("records-1.parquet")));
    let first: Vec<&String> = json[0].as_object().unwrap().keys().collect();
    let in_order: Vec<&String> = columns.iter().filter(|c| first.contains(c)).collect();
    assert_eq!(in_order, first);

    // extract, with metadata and feed items (the union of both line kinds).
    for extra in [&[][..], &["--with-metadata", "--feeds"][..]] {
        let jsonl = p("extract.jsonl");
        let pq = p("extract.parquet");
        let base = [&["extract", SAMPLE, "--force"][..], extra].concat();
        crawlsift_ok(&[&base[..], &["-o", &jsonl]].concat(), 0);
        crawlsift_ok(
            &[&base[..], &["--format", "parquet", "-o", &pq]].concat(),
            0,
        );
        let lines = json_lines(Path::new(&jsonl));
        assert!(!lines.is_empty());
        assert_same_rows(&lines, Path::new(&pq));
    }
}

#[test]
fn dedup_documents_and_text_as_parquet_hold_the_json_lines_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    crawlsift_ok(
        &[
            "dedup",
            SAMPLE,
            "-o",
            &p("json"),
            "--text",
            &p("text.jsonl.gz"),
            "-q",
        ],
        0,
    );
    for threads in ["1", "2"] {
        let out = p(&format!("pq{threads}"));
        let text = p(&format!("text{threads}.parquet"));
        let args = [
            "dedup", SAMPLE, "-o", &out, "--text", &text, "-q", "-j", threads,
        ];
        crawlsift_ok(&[&args[..], &["--format", "parquet"]].concat(), 0);
        assert!(!Path::new(&out).join("documents.jsonl.gz").exists());
        let docs = json_lines(&dir.path().join("json/documents.jsonl.gz"));
        let n = assert_same_rows(&docs, &Path::new(&out).join("documents.parquet"));
        assert!(n > 10, "{n} documents");
        let texts = json_lines(Path::new(&p("text.jsonl.gz")));
        assert!(!texts.is_empty());
        assert_same_rows(&texts, Path::new(&text));
        // clusters.jsonl does not change with the format.
        assert_eq!(
            std::fs::read(dir.path().join("json/clusters.jsonl")).unwrap(),
            std::fs::read(Path::new(&out).join("clusters.jsonl")).unwrap()
        );
    }
    for f in ["pq1/documents.parquet", "text1.parquet"] {
        let other = f.replace('1', "2");
        assert_eq!(
            std::fs::read(p(f)).unwrap(),
            std::fs::read(p(&other)).unwrap(),
            "{f}: the same bytes whatever the thread count"
        );
    }
    // An earlier run's documents.parquet is an output of a run: kept without --force.
    let again = crawlsift(&["dedup", SAMPLE, "-o", &p("pq1"), "-q"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("documents.parquet"));
}

#[test]
fn parquet_where_it_cannot_go_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = crawlsift_ok(&["records", SAMPLE, "--format", "parquet"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o FILE.parquet"));
    let out = crawlsift_ok(&["extract", SAMPLE, "--format", "parquet"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o FILE.parquet"));
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<html><body><p>Some words here.</p></body></html>").unwrap();
    let out = crawlsift_ok(
        &[
            "extract",
            "--html",
            page.to_str().unwrap(),
            "--format",
            "parquet",
        ],
        2,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("not --html or --html-dir"));
    let out = crawlsift_ok(&["records", SAMPLE, "--format", "csv", "-o", "x"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("json or parquet"));
    // An existing file is kept without --force, and nothing is written beside it.
    let target = dir.path().join("r.parquet");
    std::fs::write(&target, "keep").unwrap();
    let t = target.to_str().unwrap();
    let out = crawlsift_ok(&["records", SAMPLE, "--format", "parquet", "-o", t], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    crawlsift_ok(
        &["records", SAMPLE, "--format", "parquet", "-o", t, "--force"],
        0,
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn merged_shards_write_the_single_runs_parquet_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    for name in ["a.warc.gz", "b.warc.gz"] {
        std::fs::copy(root().join(SAMPLE), dir.path().join(name)).unwrap();
    }
    let (a, b) = (p("a.warc.gz"), p("b.warc.gz"));
    let pq = ["--format", "parquet", "-q"];
    let single = [
        &[
            "dedup",
            &a,
            &b,
            "-o",
            &p("single"),
            "--text",
            &p("single.parquet"),
        ],
        &pq[..],
    ];
    crawlsift_ok(&single.concat(), 0);
    let mut shards = Vec::new();
    for i in 0..2 {
        let (out, spec) = (p(&format!("shard{i}")), format!("{i}/2"));
        let args = [
            "dedup",
            &a,
            &b,
            "-o",
            &out,
            "--text",
            "unused.parquet",
            "--shard",
            &spec,
        ];
        crawlsift_ok(&[&args[..], &pq[..]].concat(), 0);
        shards.push(out);
    }
    let (merged, text) = (p("merged"), p("merged.parquet"));
    let merge = [
        "merge", &shards[1], &shards[0], "-o", &merged, "--text", &text,
    ];
    crawlsift_ok(&[&merge[..], &pq[..]].concat(), 0);
    for (x, y) in [
        ("single/documents.parquet", "merged/documents.parquet"),
        ("single.parquet", "merged.parquet"),
    ] {
        assert_eq!(
            std::fs::read(p(x)).unwrap(),
            std::fs::read(p(y)).unwrap(),
            "{x} and {y}"
        );
    }
    let docs = parquet_rows(&dir.path().join("merged/documents.parquet")).0;
    let from_b =
        |r: &&Map<String, Value>| r["file"].as_str().is_some_and(|f| f.ends_with("b.warc.gz"));
    assert!(
        docs.iter().filter(from_b).count() * 2 == docs.len(),
        "both inputs' rows"
    );
}
