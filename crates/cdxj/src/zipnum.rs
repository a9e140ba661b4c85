//! The ZipNum shared index pywb reads for large collections: `index.cdxj.gz` is the sorted lines
//! in gzip members of `CDXJ_ZIPNUM_LINES` lines; `index.idx` has one line per block,
//! `KEY TIMESTAMP<TAB>index<TAB>OFFSET<TAB>LENGTH<TAB>BLOCK` (the block's first line, where its
//! member is, its number from 1); `index.loc` maps the part name `index` to `index.cdxj.gz`.
//! A lookup binary-searches the summary (one line per block, so small) and inflates only the blocks that can hold the key.
//! A WACZ holds the same blocks with another summary, the `cdxj-gzip-1.0` one py-wacz writes and
//! ReplayWeb.page reads ([`write_wacz`]).

use std::cmp::Ordering;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crawlsift_common::limits::{CDXJ_MAX_CAPTURES, CDXJ_MAX_LINE_BYTES, CDXJ_ZIPNUM_LINES};

use crate::error::CdxjError;
use crate::layout::INDEX;
use crate::line::Capture;
use crate::lookup::{cmp_prefix, first_at_or_after, line_at};
use crate::merge::checked_lines;
use crate::write::Atomic;

pub use crate::layout::{BLOCKS, LOC, SUMMARY};
/// The part name the summary and location file use.
const PART: &str = "index";

/// One gzip block written: its first line's key and timestamp, where its member starts in the
/// blocks file and its length.
struct Block<'a> {
    key: &'a str,
    ts: &'a str,
    offset: u64,
    length: u64,
}

/// Writes the lines of the index `src` (checked as [`checked_lines`] checks them) to `blocks` as
/// gzip members of `CDXJ_ZIPNUM_LINES` lines, giving each block to `each` in order. Gives the
/// blocks written. `blocks` is committed once every block is written and `each` has taken it.
fn write_blocks(
    src: &Path,
    blocks_path: &Path,
    mut each: impl FnMut(&Block) -> Result<(), CdxjError>,
) -> Result<u64, CdxjError> {
    let data = std::fs::read(src).map_err(|e| CdxjError::io(src, e))?;
    let mut blocks = Atomic::create(blocks_path)?;
    let mut block: Vec<&str> = Vec::with_capacity(CDXJ_ZIPNUM_LINES);
    let (mut offset, mut number) = (0u64, 0u64);
    let mut flush = |block: &mut Vec<&str>, blocks: &mut Atomic| -> Result<(), CdxjError> {
        let Some(first) = block.first() else {
            return Ok(());
        };
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for l in block.iter() {
            gz.write_all(l.as_bytes())
                .and_then(|_| gz.write_all(b"\n"))
                .map_err(|e| CdxjError::io(blocks_path, e))?;
        }
        let bytes = gz.finish().map_err(|e| CdxjError::io(blocks_path, e))?;
        blocks.write(&bytes)?;
        number += 1;
        let mut fields = first.splitn(3, ' ');
        each(&Block {
            key: fields.next().unwrap_or(""),
            ts: fields.next().unwrap_or(""),
            offset,
            length: bytes.len() as u64,
        })?;
        offset += bytes.len() as u64;
        block.clear();
        Ok(())
    };
    for l in checked_lines(src, &data) {
        block.push(l?.1);
        if block.len() == CDXJ_ZIPNUM_LINES {
            flush(&mut block, &mut blocks)?;
        }
    }
    flush(&mut block, &mut blocks)?;
    blocks.commit()?;
    Ok(number)
}

/// Writes the ZipNum files of `dir/index.cdxj` beside it.
pub fn write(dir: &Path) -> Result<(), CdxjError> {
    let mut summary = Atomic::create(&dir.join(SUMMARY))?;
    let mut number = 0u64;
    write_blocks(&dir.join(INDEX), &dir.join(BLOCKS), |b| {
        number += 1;
        let line = format!(
            "{} {}\t{PART}\t{}\t{}\t{number}\n",
            b.key, b.ts, b.offset, b.length
        );
        summary.write(line.as_bytes())
    })?;
    summary.commit()?;
    let mut loc = Atomic::create(&dir.join(LOC))?;
    loc.write(format!("{PART}\t{BLOCKS}\n").as_bytes())?;
    loc.commit()
}

/// Writes the compressed index of a WACZ as py-wacz's `wacz create` (cdxj-indexer's
/// `CompressedWriter`) writes it and ReplayWeb.page reads it: the lines of the index `src` in the
/// same gzip blocks as [`write`]'s, to `blocks` (`indexes/index.cdx.gz` in the package), and the
/// summary `summary` (`indexes/index.idx`) in the `cdxj-gzip-1.0` format: a line
/// `!meta 0 {"format": "cdxj-gzip-1.0", "filename": NAME}` naming the blocks file, then a line
/// `KEY TIMESTAMP {"offset": N, "length": N}` a block (pywb's tab-separated summary would make a
/// WACZ reader look for a blocks file named after its part, `index`). Gives the blocks written.
pub fn write_wacz(src: &Path, blocks: &Path, summary: &Path) -> Result<u64, CdxjError> {
    let name = blocks
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let meta = serde_json::json!({"format": "cdxj-gzip-1.0", "filename": name});
    let mut out = Atomic::create(summary)?;
    out.write(format!("!meta 0 {}\n", json_spaced(&meta)).as_bytes())?;
    let n = write_blocks(src, blocks, |b| {
        let at = serde_json::json!({"offset": b.offset, "length": b.length});
        out.write(format!("{} {} {}\n", b.key, b.ts, json_spaced(&at)).as_bytes())
    })?;
    out.commit()?;
    Ok(n)
}

/// A flat JSON object as Python's `json.dumps` writes it (`{"a": 1, "b": "c"}`), which is what
/// py-wacz writes in a summary.
fn json_spaced(v: &serde_json::Value) -> String {
    let Some(map) = v.as_object() else {
        return v.to_string();
    };
    let fields: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{}: {v}", serde_json::Value::from(k.as_str())))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// A ZipNum index, its summary in memory.
pub struct ZipNum {
    dir: PathBuf,
    summary: Vec<u8>,
}

impl ZipNum {
    /// Opens the ZipNum files of `dir`.
    pub fn open(dir: &Path) -> Result<ZipNum, CdxjError> {
        let p = dir.join(SUMMARY);
        let summary = std::fs::read(&p).map_err(|e| CdxjError::io(&p, e))?;
        Ok(ZipNum {
            dir: dir.to_path_buf(),
            summary,
        })
    }

    /// The captures of `key`, as [`crate::CdxjFile::captures`] finds them (offsets are of the
    /// lines in the uncompressed index).
    pub fn captures(&self, key: &str) -> Result<Vec<Capture>, CdxjError> {
        let sp = self.dir.join(SUMMARY);
        let prefix = format!("{key} ");
        // Blocks whose first line is below the key may hold it: start at the last of them.
        let mut at = first_at_or_after(&sp, &self.summary, prefix.as_bytes())?;
        if at > 0 {
            let before = self.summary[..at - 1]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            at = before;
        }
        let blocks_path = self.dir.join(BLOCKS);
        let mut file =
            std::fs::File::open(&blocks_path).map_err(|e| CdxjError::io(&blocks_path, e))?;
        let mut out = Vec::new();
        while at < self.summary.len() && out.len() < CDXJ_MAX_CAPTURES {
            let (line, next) = line_at(&sp, &self.summary, at)?;
            let bad = |m: &str| CdxjError::damaged(&sp, at as u64, m);
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() < 4 {
                return Err(bad("summary line has fewer than 4 tab-separated fields"));
            }
            if cmp_prefix(f[0].as_bytes(), prefix.as_bytes()) == Ordering::Greater
                && !f[0].starts_with(&prefix)
            {
                break;
            }
            let off: u64 = f[2].parse().map_err(|_| bad("bad block offset"))?;
            let len: u64 = f[3].parse().map_err(|_| bad("bad block length"))?;
            if len > (CDXJ_ZIPNUM_LINES * CDXJ_MAX_LINE_BYTES) as u64 {
                return Err(bad("block length too large"));
            }
            let text = read_block(&mut file, &blocks_path, off, len)?;
            let mut past = false;
            for l in text.split('\n').filter(|l| !l.is_empty()) {
                if l.starts_with(&prefix) {
                    let c =
                        Capture::parse(l).map_err(|m| CdxjError::damaged(&blocks_path, off, m))?;
                    out.push(c);
                } else if cmp_prefix(l.as_bytes(), prefix.as_bytes()) == Ordering::Greater {
                    past = true;
                    break;
                }
            }
            if past {
                break;
            }
            at = next;
        }
        Ok(out)
    }
}

/// Inflates the block at `off..off + len` of the blocks file.
fn read_block(
    file: &mut std::fs::File,
    path: &Path,
    off: u64,
    len: u64,
) -> Result<String, CdxjError> {
    use std::io::Seek;
    // The summary is input: a length past the file's end allocates nothing.
    let size = file.metadata().map_err(|e| CdxjError::io(path, e))?.len();
    if off.checked_add(len).is_none_or(|end| end > size) {
        return Err(CdxjError::damaged(
            path,
            off,
            format!("block of {len} bytes past the end of the {size}-byte file"),
        ));
    }
    let mut raw = vec![0u8; len as usize];
    file.seek(std::io::SeekFrom::Start(off))
        .and_then(|_| file.read_exact(&mut raw))
        .map_err(|e| CdxjError::damaged(path, off, format!("block cannot be read: {e}")))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&raw[..])
        .take((CDXJ_ZIPNUM_LINES * CDXJ_MAX_LINE_BYTES) as u64)
        .read_to_string(&mut text)
        .map_err(|e| CdxjError::damaged(path, off, format!("block does not inflate: {e}")))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::CdxjFile;

    /// The WACZ summary: the `!meta` line naming the blocks file, then one line a block with the
    /// block's first key and timestamp and where its member is; the members, inflated one by one
    /// from those places, are the index's lines in order.
    #[test]
    fn wacz_summary_locates_every_block() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..7_000)
            .map(|i| format!("com,example)/p{i:05} 20240101000000 {{\"offset\": \"{i}\"}}\n"))
            .collect();
        let src = dir.path().join(INDEX);
        std::fs::write(&src, &text).unwrap();
        let (blocks, summary) = (
            dir.path().join("index.cdx.gz"),
            dir.path().join("index.idx"),
        );
        assert_eq!(write_wacz(&src, &blocks, &summary).unwrap(), 3);
        let summary = std::fs::read_to_string(&summary).unwrap();
        let blocks = std::fs::read(&blocks).unwrap();
        let mut lines = summary.lines();
        assert_eq!(
            lines.next(),
            Some(r#"!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}"#)
        );
        let (mut at, mut all) = (0usize, String::new());
        for l in lines {
            let (prefix, json) = l.split_at(l.find(" {").unwrap());
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                json,
                format!(" {{\"offset\": {at}, \"length\": {}}}", v["length"])
            );
            let len = v["length"].as_u64().unwrap() as usize;
            let mut block = String::new();
            flate2::read::GzDecoder::new(&blocks[at..at + len])
                .read_to_string(&mut block)
                .unwrap();
            assert!(block.starts_with(&format!("{prefix} {{")), "{prefix}");
            assert!(block.lines().count() <= CDXJ_ZIPNUM_LINES);
            all.push_str(&block);
            at += len;
        }
        assert_eq!(at, blocks.len());
        assert_eq!(all, text);
        // A damaged index (out of order) is an error, not a package with a bad summary.
        std::fs::write(&src, "org,b)/ 2024 {}\ncom,a)/ 2024 {}\n").unwrap();
        let (b2, s2) = (dir.path().join("b2.gz"), dir.path().join("s2.idx"));
        assert!(write_wacz(&src, &b2, &s2).is_err());
        assert!(!s2.exists() && !b2.exists());
    }

    /// Keys captured many times across block edges are found in full, as in the plain index.
    #[test]
    fn round_trip_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        let mut keys = Vec::new();
        for k in 0..700 {
            let key = format!("com,example)/p{k:04}");
            // 1 to 20 captures a key: 7,000 or so lines, several blocks.
            for t in 0..(k % 20 + 1) {
                text.push_str(&format!(
                    "{key} 2024{t:02}01000000 {{\"length\": \"1\", \"offset\": \"{t}\", \"filename\": \"a.warc\"}}\n"
                ));
            }
            keys.push(key);
        }
        std::fs::write(dir.path().join(INDEX), &text).unwrap();
        write(dir.path()).unwrap();
        let summary = std::fs::read_to_string(dir.path().join(SUMMARY)).unwrap();
        assert!(summary.lines().count() >= 2, "{summary}");
        let plain = CdxjFile::open(&dir.path().join(INDEX)).unwrap();
        let z = ZipNum::open(dir.path()).unwrap();
        for key in keys
            .iter()
            .map(String::as_str)
            .chain(["a", "com,example)/p", "zz"])
        {
            let want: Vec<Capture> = plain
                .captures(key)
                .unwrap()
                .into_iter()
                .map(|c| c.1)
                .collect();
            assert_eq!(z.captures(key).unwrap(), want, "{key}");
        }
        // A damaged summary line is an error, not a panic.
        std::fs::write(
            dir.path().join(SUMMARY),
            "com,example)/p0001 2024\tindex\tx\n",
        )
        .unwrap();
        let z = ZipNum::open(dir.path()).unwrap();
        assert!(z.captures("com,example)/p0001").is_err());
        // A block said to run past the end of the file is damage, found before reading it.
        std::fs::write(
            dir.path().join(SUMMARY),
            "com,example)/p0001 2024\tindex\t10\t100000000\t1\n",
        )
        .unwrap();
        let z = ZipNum::open(dir.path()).unwrap();
        let e = z.captures("com,example)/p0001").unwrap_err().to_string();
        assert!(e.contains("past the end"), "{e}");
    }
}
