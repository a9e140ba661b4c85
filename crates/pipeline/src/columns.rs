//! Parquet outputs (`--format parquet`): the rows and columns of the JSON lines of `records`,
//! `extract` (archives), `documents` and the `--text` clean corpus, as a Parquet file.
//!
//! Each output has a [`Table`]: its columns in the order of the JSON keys, each a key of the JSON
//! lines with its type. The rows are the JSON lines themselves ([`ParquetLines::push_lines`]), so
//! both formats hold the same values: a JSON string is a UTF8 column, an integer a UInt64 column,
//! a fraction a Float64 column, `true`/`false` a Boolean column, and a key the line gives as
//! `null` or leaves out (`uoffset` when 0, the metadata `extract --with-metadata` did not find)
//! is a null. No output has a nested value (object or array). A key no column names, a value of
//! another type, or a null in a column every row has, is an error ([`ColumnsError`]), never a
//! silent drop.
//!
//! The file is written as [`crate::output::AtomicFile`] writes others: under a temporary name,
//! renamed into place by [`ParquetLines::commit`], removed if dropped before. Rows are held in
//! Arrow builders only until a row group is full ([`PARQUET_ROW_GROUP_ROWS`] rows or
//! [`PARQUET_ROW_GROUP_BYTES`] of JSON lines), then encoded and written, so memory stays bounded
//! whatever the output. Column chunks are zstd-compressed at level [`PARQUET_ZSTD_LEVEL`], with
//! Parquet's dictionary encoding. The bytes depend only on the rows: row groups close at the
//! same rows whatever the thread count, and the footer holds no time (its `created_by` is the
//! `parquet` crate's version).

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use crawlsift_common::fs::AtomicFile as Atomic;
use crawlsift_common::limits::{
    PARQUET_ROW_GROUP_BYTES, PARQUET_ROW_GROUP_ROWS, PARQUET_ZSTD_LEVEL,
};
use crawlsift_common::parallel::in_parallel;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::Value;

pub use crate::error::ColumnsError;
use crate::error::{Error, IoContext, Result};

/// How an output of JSON lines is written: as the lines, or as their rows in Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineFormat {
    /// JSON lines (compressed when the file name ends in `.gz` or `.zst`).
    #[default]
    Json,
    /// A Parquet file of the same rows and columns.
    Parquet,
}

impl FromStr for LineFormat {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "json" | "jsonl" => Ok(LineFormat::Json),
            "parquet" => Ok(LineFormat::Parquet),
            _ => Err(format!("unknown format {s:?}: json or parquet")),
        }
    }
}

impl LineFormat {
    /// The format a file's name asks for: Parquet when it ends in `.parquet`, JSON lines else.
    pub fn of_name(path: &Path) -> Self {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("parquet") => LineFormat::Parquet,
            _ => LineFormat::Json,
        }
    }
}

/// A column's type: the JSON values it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Strings: UTF8.
    Str,
    /// Non-negative integers: UInt64.
    UInt,
    /// Numbers with a fraction: Float64.
    Float,
    /// `true` or `false`: Boolean.
    Bool,
    /// An array or object (`--links`' `anchors`): its JSON text, UTF8 (DuckDB's `json()` and
    /// pyarrow's `json.loads` read it back).
    Json,
}

impl Kind {
    fn data_type(self) -> DataType {
        match self {
            Kind::Str | Kind::Json => DataType::Utf8,
            Kind::UInt => DataType::UInt64,
            Kind::Float => DataType::Float64,
            Kind::Bool => DataType::Boolean,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Str => "string",
            Kind::UInt => "non-negative integer",
            Kind::Float => "number",
            Kind::Bool => "boolean",
            Kind::Json => "array or object",
        }
    }
}

/// One column: the JSON key it holds, its type, and whether every row has a value.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The JSON key, and the column's name.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Whether every line has this key with a value that is not `null`.
    pub required: bool,
}

const fn req(name: &'static str, kind: Kind) -> Column {
    Column {
        name,
        kind,
        required: true,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Column {
    Column {
        name,
        kind,
        required: false,
    }
}

/// The columns of one output, in the order of its JSON keys.
#[derive(Debug)]
pub struct Table {
    /// The output's name, for errors.
    pub name: &'static str,
    /// Its columns.
    pub columns: &'static [Column],
}

use Kind::{Bool, Float, Json, Str, UInt};

/// `crawlsift records` ([`crate::lines::RecordLine`]).
pub const RECORDS: Table = Table {
    name: "records",
    columns: &[
        req("file", Str),
        req("offset", UInt),
        opt("uoffset", UInt),
        req("index", UInt),
        req("type", Str),
        req("id", Str),
        opt("url", Str),
        opt("date", Str),
        opt("date_raw", Str),
        opt("content_type", Str),
        opt("http_status", UInt),
        req("payload_length", UInt),
        opt("block_digest", Str),
        opt("payload_digest", Str),
    ],
};

/// `crawlsift extract` over archives: pages ([`crate::lines::PageLine`]) and, with `--feeds`,
/// feed items ([`crate::lines::FeedItemLine`], whose `item` is null on a page's row).
pub const EXTRACT: Table = Table {
    name: "extract",
    columns: &[
        req("file", Str),
        req("offset", UInt),
        opt("uoffset", UInt),
        req("id", Str),
        opt("date", Str),
        opt("date_raw", Str),
        opt("item", UInt),
        opt("url", Str),
        req("title", Str),
        opt("author", Str),
        opt("published", Str),
        opt("sitename", Str),
        opt("language", Str),
        opt("description", Str),
        opt("canonical", Str),
        req("text", Str),
        opt("content_type", Str),
        req("charset", Str),
        req("method", Str),
    ],
};

/// A dedup run's `documents` ([`crate::lines::DocumentLine`] and, for records that gave no page,
/// [`crate::lines::SkippedLine`], whose page columns are null).
pub const DOCUMENTS: Table = Table {
    name: "documents",
    columns: &[
        req("id", Str),
        opt("url", Str),
        req("file", Str),
        req("offset", UInt),
        opt("uoffset", UInt),
        opt("title", Str),
        opt("words", UInt),
        opt("exact_hash", Str),
        opt("simhash", Str),
        opt("cluster", UInt),
        opt("duplicate_of", Str),
        opt("too_short", Bool),
        opt("boilerplate", Bool),
        opt("template_share", Float),
        opt("skipped", Str),
    ],
};

/// The clean corpus of `--text` ([`crate::lines::TextLine`]).
pub const TEXT: Table = Table {
    name: "text",
    columns: &[
        req("id", Str),
        opt("url", Str),
        req("file", Str),
        req("offset", UInt),
        opt("uoffset", UInt),
        opt("date", Str),
        opt("date_raw", Str),
        req("title", Str),
        req("text", Str),
        opt("anchors", Json),
    ],
};

impl Table {
    /// The Arrow schema of the table.
    pub fn schema(&self) -> SchemaRef {
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| Field::new(c.name, c.kind.data_type(), !c.required))
            .collect();
        Arc::new(Schema::new(fields))
    }
}

/// A column's values of the row group being filled.
enum Builder {
    Str(StringBuilder),
    Json(StringBuilder),
    UInt(UInt64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
}

impl Builder {
    fn new(kind: Kind) -> Self {
        match kind {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Json => Builder::Json(StringBuilder::new()),
            Kind::UInt => Builder::UInt(UInt64Builder::new()),
            Kind::Float => Builder::Float(Float64Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
        }
    }

    /// Appends `v` (`null` for a missing key); `false` when it is of another type.
    fn push(&mut self, v: &Value) -> bool {
        match (self, v) {
            (Builder::Str(b) | Builder::Json(b), Value::Null) => b.append_null(),
            (Builder::Json(b), v @ (Value::Array(_) | Value::Object(_))) => {
                b.append_value(v.to_string())
            }
            (Builder::UInt(b), Value::Null) => b.append_null(),
            (Builder::Float(b), Value::Null) => b.append_null(),
            (Builder::Bool(b), Value::Null) => b.append_null(),
            (Builder::Str(b), Value::String(s)) => b.append_value(s),
            (Builder::UInt(b), Value::Number(n)) if n.is_u64() => {
                b.append_value(n.as_u64().unwrap_or(0))
            }
            (Builder::Float(b), Value::Number(n)) => b.append_option(n.as_f64()),
            (Builder::Bool(b), Value::Bool(x)) => b.append_value(*x),
            _ => return false,
        }
        true
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) | Builder::Json(b) => Arc::new(b.finish()),
            Builder::UInt(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
        }
    }
}

/// A Parquet file of a [`Table`]'s rows, given as JSON lines; it appears whole on
/// [`ParquetLines::commit`] or not at all. After an error the file is dropped, not committed.
pub struct ParquetLines {
    table: &'static Table,
    schema: SchemaRef,
    writer: ArrowWriter<BufWriter<Atomic>>,
    builders: Vec<Builder>,
    /// Per column, whether the current row gave it.
    seen: Vec<bool>,
    /// Rows and JSON bytes in the row group being filled.
    group_rows: usize,
    group_bytes: usize,
    /// Rows pushed in all.
    rows: u64,
    target: PathBuf,
}

/// Buffer between the Parquet writer and the file.
const PARQUET_BUFFER_BYTES: usize = 1 << 20;

impl ParquetLines {
    /// Creates the temporary file of `target` for the rows of `table`.
    pub fn create(target: &Path, table: &'static Table) -> Result<Self> {
        let file =
            Atomic::create(target).at(target, || format!("cannot create {}", target.display()))?;
        let zstd = ZstdLevel::try_new(PARQUET_ZSTD_LEVEL).map_err(|e| columns_error(target, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(zstd))
            .set_max_row_group_row_count(Some(PARQUET_ROW_GROUP_ROWS))
            .build();
        let schema = table.schema();
        let buf = BufWriter::with_capacity(PARQUET_BUFFER_BYTES, file);
        let writer = ArrowWriter::try_new(buf, schema.clone(), Some(props))
            .map_err(|e| columns_error(target, e))?;
        Ok(ParquetLines {
            table,
            schema,
            writer,
            builders: table.columns.iter().map(|c| Builder::new(c.kind)).collect(),
            seen: vec![false; table.columns.len()],
            group_rows: 0,
            group_bytes: 0,
            rows: 0,
            target: target.to_path_buf(),
        })
    }

    /// Appends the rows of `lines`: whole JSON lines, each ending in a newline (a last line
    /// without one is a row too).
    pub fn push_lines(&mut self, lines: &[u8]) -> Result<()> {
        let lines = lines.strip_suffix(b"\n").unwrap_or(lines);
        if lines.is_empty() {
            return Ok(());
        }
        for line in lines.split(|&b| b == b'\n') {
            self.push_line(line)
                .map_err(|e| columns_error(&self.target, e))?;
        }
        Ok(())
    }

    /// Appends one row, a JSON object of the table's keys.
    fn push_line(&mut self, line: &[u8]) -> std::result::Result<(), ColumnsError> {
        self.rows += 1;
        let row = self.rows;
        let object: serde_json::Map<String, Value> =
            serde_json::from_slice(line).map_err(|source| ColumnsError::NotJson { row, source })?;
        self.seen.fill(false);
        for (key, value) in &object {
            let Some(i) = self.table.columns.iter().position(|c| c.name == key) else {
                return Err(ColumnsError::UnknownKey {
                    row,
                    key: key.clone(),
                    table: self.table.name,
                });
            };
            self.push_value(row, i, value)?;
            self.seen[i] = true;
        }
        for i in 0..self.seen.len() {
            if !self.seen[i] {
                self.push_value(row, i, &Value::Null)?;
            }
        }
        self.group_rows += 1;
        self.group_bytes += line.len() + 1;
        if self.group_rows >= PARQUET_ROW_GROUP_ROWS || self.group_bytes >= PARQUET_ROW_GROUP_BYTES
        {
            self.write_group()?;
        }
        Ok(())
    }

    fn push_value(
        &mut self,
        row: u64,
        i: usize,
        value: &Value,
    ) -> std::result::Result<(), ColumnsError> {
        let column = self.table.columns[i];
        if column.required && value.is_null() {
            return Err(ColumnsError::Missing {
                row,
                column: column.name,
            });
        }
        if !self.builders[i].push(value) {
            return Err(ColumnsError::WrongType {
                row,
                column: column.name,
                value: value.to_string().chars().take(40).collect(),
                expected: column.kind.name(),
            });
        }
        Ok(())
    }

    /// Encodes and writes the rows held as one row group.
    fn write_group(&mut self) -> std::result::Result<(), ColumnsError> {
        if self.group_rows == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.writer.write(&batch)?;
        self.writer.flush()?;
        (self.group_rows, self.group_bytes) = (0, 0);
        Ok(())
    }

    /// Writes the last row group and the footer, and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        self.write_group().map_err(|e| columns_error(&target, e))?;
        let buf = self
            .writer
            .into_inner()
            .map_err(|e| columns_error(&target, e))?;
        let file = buf
            .into_inner()
            .map_err(|e| e.into_error())
            .at(&target, || format!("writing {}", target.display()))?;
        file.commit()
            .at(&target, || format!("writing {}", target.display()))
    }
}

/// The library's error for `e`, naming the file.
fn columns_error(path: &Path, e: impl Into<ColumnsError>) -> Error {
    Error::Columns {
        path: path.to_path_buf(),
        source: e.into(),
    }
}

/// Writes the Parquet file `target` of `table` from `items` items, `render` writing the JSON
/// lines of a range of them: up to `threads` ranges of `chunk` items are rendered at once, and
/// their rows go in in order, so the bytes do not depend on `threads`.
pub fn write_parquet_chunks(
    target: &Path,
    table: &'static Table,
    items: usize,
    (threads, chunk): (usize, usize),
    render: impl Fn(std::ops::Range<usize>, &mut Vec<u8>) -> Result<()> + Sync,
) -> Result<()> {
    let mut f = ParquetLines::create(target, table)?;
    let chunk = chunk.max(1);
    let starts: Vec<usize> = (0..items).step_by(chunk).collect();
    for group in starts.chunks(threads.max(1)) {
        let rendered = in_parallel(threads, group, |starts| {
            starts
                .iter()
                .map(|&a| {
                    let mut text = Vec::new();
                    render(a..(a + chunk).min(items), &mut text).map(|()| text)
                })
                .collect::<Vec<_>>()
        });
        for text in rendered.into_iter().flatten() {
            f.push_lines(&text?)?;
        }
    }
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn read_back(path: &Path) -> Vec<RecordBatch> {
        let file = std::fs::File::open(path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        reader.map(|b| b.unwrap()).collect()
    }

    #[test]
    fn rows_come_back_with_nulls_for_missing_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut f = ParquetLines::create(&path, &TEXT).unwrap();
        f.push_lines(
            b"{\"id\":\"a\",\"url\":null,\"file\":\"f\",\"offset\":7,\"date\":null,\"title\":\"\",\"text\":\"x\"}\n\
              {\"id\":\"b\",\"url\":\"u\",\"file\":\"f\",\"offset\":9,\"uoffset\":3,\"date\":\"d\",\"date_raw\":\"r\",\"title\":\"t\",\"text\":\"y\"}\n",
        )
        .unwrap();
        f.commit().unwrap();
        let batches = read_back(&path);
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, 2);
        let b = &batches[0];
        assert_eq!(b.schema().field(4).name(), "uoffset");
        let uoffset = b
            .column(4)
            .as_any()
            .downcast_ref::<arrow_array::UInt64Array>()
            .unwrap();
        assert!(uoffset.is_null(0));
        assert_eq!(uoffset.value(1), 3);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_row_that_does_not_fit_is_an_error_naming_the_file_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let bad: [&[u8]; 5] = [
            b"{\"id\":\"a\",\"file\":\"f\",\"offset\":1,\"title\":\"\",\"text\":\"\",\"extra\":1}",
            b"{\"id\":\"a\",\"file\":\"f\",\"offset\":-1,\"title\":\"\",\"text\":\"\"}",
            b"{\"id\":\"a\",\"file\":\"f\",\"offset\":1,\"title\":\"\"}",
            b"[1,2]",
            b"{\"id\":\"a\",\"file\":\"f\",\"offset\":1,\"title\":[],\"text\":\"\"}",
        ];
        for line in bad {
            let mut f = ParquetLines::create(&path, &TEXT).unwrap();
            let err = f.push_lines(line).unwrap_err();
            let text = crate::error_line(&err);
            assert!(
                text.contains("t.parquet") && text.contains("row 1"),
                "{text}"
            );
            drop(f);
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn row_groups_are_bounded_and_bytes_do_not_depend_on_threads() {
        let dir = tempfile::tempdir().unwrap();
        let items = PARQUET_ROW_GROUP_ROWS + 100;
        let render = |r: std::ops::Range<usize>, out: &mut Vec<u8>| -> Result<()> {
            for i in r {
                let line = serde_json::json!({"id": format!("r{i}"), "file": "f", "offset": i,
                    "title": "", "text": "some text"});
                serde_json::to_writer(&mut *out, &line)?;
                out.push(b'\n');
            }
            Ok(())
        };
        let mut files = Vec::new();
        for threads in [1, 3] {
            let path = dir.path().join(format!("t{threads}.parquet"));
            write_parquet_chunks(&path, &TEXT, items, (threads, 1000), render).unwrap();
            files.push(std::fs::read(&path).unwrap());
        }
        assert_eq!(files[0], files[1]);
        let path = dir.path().join("t1.parquet");
        let meta = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
            .unwrap()
            .metadata()
            .clone();
        assert_eq!(meta.num_row_groups(), 2);
        assert_eq!(
            meta.row_group(0).num_rows() as usize,
            PARQUET_ROW_GROUP_ROWS
        );
        assert_eq!(meta.file_metadata().num_rows() as usize, items);
        // An empty table is a valid file with no rows.
        let empty = dir.path().join("empty.parquet");
        write_parquet_chunks(&empty, &TEXT, 0, (2, 10), render).unwrap();
        assert!(read_back(&empty).iter().all(|b| b.num_rows() == 0));
    }

    #[test]
    fn formats_parse_and_follow_names() {
        assert_eq!("parquet".parse::<LineFormat>(), Ok(LineFormat::Parquet));
        assert_eq!("json".parse::<LineFormat>(), Ok(LineFormat::Json));
        assert!("csv".parse::<LineFormat>().is_err());
        assert_eq!(
            LineFormat::of_name(Path::new("a/t.PARQUET")),
            LineFormat::Parquet
        );
        assert_eq!(
            LineFormat::of_name(Path::new("t.jsonl.gz")),
            LineFormat::Json
        );
    }
}
