//! Random access through an index directory: the captures of a URL ([`IndexDir::captures`]), the
//! one closest to a time ([`closest`]), its record read from the original archive at its offset
//! ([`IndexDir::read`]), a revisit resolved to the record it refers to
//! ([`IndexDir::resolve_revisit`]), and the record as stored, decompressed ([`stored_record`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use crawlsift_common::limits::CDXJ_MEMBER_SCAN_BYTES;
use crawlsift_reader::{
    detect::detect_compression, Compression, ReaderConfig, Record, RecordKind, RecordReader,
};

use crate::error::CdxjError;
use crate::layout::INDEX;
use crate::line::{capture, Capture};
use crate::lookup::CdxjFile;
use crate::manifest::Manifest;
use crate::seek::SeekTable;
use crate::zipnum::{ZipNum, SUMMARY};
use crate::{surt, timestamp};

/// Revisits followed from one capture before giving up (a revisit of a revisit ... loop).
const MAX_REVISIT_HOPS: usize = 8;

/// An opened index directory.
pub struct IndexDir {
    dir: PathBuf,
    cdxj: Option<CdxjFile>,
    zipnum: Option<ZipNum>,
    /// The archives it covers.
    pub manifest: Manifest,
}

/// A record read from its archive.
pub struct Fetched {
    /// The record.
    pub record: Record,
    /// The record's bytes as stored in the archive (its gzip member); for a record found by its
    /// member's seek table (a file compressed whole), its own bytes, decompressed.
    pub stored: Bytes,
    /// The archive.
    pub path: PathBuf,
}

impl IndexDir {
    /// Opens `dir`: its `index.cdxj`, else its ZipNum files, and its `archives.jsonl`.
    pub fn open(dir: &Path) -> Result<IndexDir, CdxjError> {
        let plain = dir.join(INDEX);
        let (cdxj, zipnum) = if plain.exists() {
            (Some(CdxjFile::open(&plain)?), None)
        } else if dir.join(SUMMARY).exists() {
            (None, Some(ZipNum::open(dir)?))
        } else {
            return Err(CdxjError::io(
                &plain,
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no index here (nor index.idx)",
                ),
            ));
        };
        Ok(IndexDir {
            dir: dir.to_path_buf(),
            cdxj,
            zipnum,
            manifest: Manifest::load(dir)?,
        })
    }

    /// The captures of `url` (by its SURT key), in index order.
    pub fn captures(&self, url: &str) -> Result<Vec<Capture>, CdxjError> {
        self.captures_of_key(&surt::surt(url))
    }

    fn captures_of_key(&self, key: &str) -> Result<Vec<Capture>, CdxjError> {
        match (&self.cdxj, &self.zipnum) {
            (Some(f), _) => Ok(f.captures(key)?.into_iter().map(|c| c.1).collect()),
            (None, Some(z)) => z.captures(key),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// Reads the record of capture `c` from its archive.
    pub fn read(&self, c: &Capture) -> Result<Fetched, CdxjError> {
        let archive = self.manifest.find(&c.filename).ok_or_else(|| {
            CdxjError::Invalid(format!(
                "{}: archive {} is not listed in {}",
                self.dir.display(),
                c.filename,
                crate::manifest::MANIFEST
            ))
        })?;
        let path = &archive.path;
        let moved = |e: std::io::Error| {
            CdxjError::Invalid(format!(
                "{}: cannot open the archive indexed as {} ({e}); was it moved? Index it again \
                 where it is now",
                path.display(),
                c.filename
            ))
        };
        let file = std::fs::File::open(path).map_err(moved)?;
        if let Some(f) = self.read_by_table(c, path, &file) {
            return Ok(f);
        }
        // Only the record's bytes are copied out. A file that cannot be mapped reads as empty:
        // the offset is then past its end, which is the error given.
        let map = crawlsift_common::fs::map_open(&file);
        let empty: &[u8] = &[];
        let data: &[u8] = match &map {
            Ok(m) => m,
            Err(_) => empty,
        };
        let end = c
            .offset
            .checked_add(c.length)
            .filter(|&e| e <= data.len() as u64);
        let Some(end) = end.filter(|_| c.length > 0) else {
            return Err(not_a_record(
                path,
                c.offset,
                "the index points past the end of the file",
            ));
        };
        let stored = Bytes::copy_from_slice(&data[c.offset as usize..end as usize]);
        let matches = |r: &Record| {
            capture(r, c.offset, c.length, &c.filename)
                .is_ok_and(|x| x.key == c.key && x.timestamp == c.timestamp)
        };
        // The record at the line's offset, read as every record is read back.
        let first = crawlsift_reader::record_at(path, c.offset, 0).ok();
        let record = match first {
            Some(r) if matches(&r) => r,
            // In a file gzipped whole every record shares one member (and the line names the
            // member, as cdxj-indexer writes it): take the one this line is of.
            first => {
                let mut records = Vec::new();
                crawlsift_reader::read_bytes(
                    stored.clone(),
                    0,
                    &ReaderConfig::default(),
                    &mut |b| {
                        records.extend(b);
                        true
                    },
                );
                match records.iter().position(matches) {
                    Some(i) => records.swap_remove(i),
                    None => match first {
                        Some(r) => r,
                        None if !records.is_empty() => records.swap_remove(0),
                        None => return Err(not_a_record(path, c.offset, "no record starts there")),
                    },
                }
            }
        };
        Ok(Fetched {
            record,
            stored,
            path: path.clone(),
        })
    }

    /// The record of `c` read at its place in a member that holds many records, by the member's
    /// seek table ([`crate::seek`]): only that record is inflated and copied, from the last
    /// checkpoint before it. `None` where there is no table (a member of one record, an index
    /// made before tables), or nothing at its places matches the line: the caller reads the
    /// member as before.
    fn read_by_table(&self, c: &Capture, path: &Path, file: &std::fs::File) -> Option<Fetched> {
        let size = file.metadata().ok()?.len();
        let table = SeekTable::load(&self.dir, &c.filename, c.offset, size)?;
        let mut reader = RecordReader::new();
        if let Some(ix) = table.index.clone() {
            reader.add_seek_index(path, c.offset, ix);
        }
        for (uoffset, len) in table.places(&c.key, &c.timestamp) {
            let Ok(record) = reader.record_at(path, c.offset, uoffset) else {
                continue;
            };
            let matches = capture(&record, c.offset, c.length, &c.filename)
                .is_ok_and(|x| x.key == c.key && x.timestamp == c.timestamp);
            let len = len.and_then(|l| usize::try_from(l).ok());
            if let (true, Some(len)) = (matches, len) {
                let stored = reader.bytes_at(path, c.offset, uoffset, len).ok()?;
                return Some(Fetched {
                    record,
                    stored: Bytes::from(stored),
                    path: path.to_path_buf(),
                });
            }
        }
        None
    }

    /// For a revisit, the capture and record it refers to: by WARC-Refers-To-Target-URI and
    /// -Date when the record names them, else the latest earlier capture of the same URL with the
    /// same digest. Returns the capture and record reached (the ones given when they are no
    /// revisit, or the original is not indexed) and the revisits passed through.
    pub fn resolve_revisit(
        &self,
        c: &Capture,
        fetched: Fetched,
    ) -> Result<(Capture, Fetched, Vec<Capture>), CdxjError> {
        let (mut c, mut fetched) = (c.clone(), fetched);
        let mut via = Vec::new();
        for _ in 0..MAX_REVISIT_HOPS {
            if fetched.record.kind != RecordKind::Revisit {
                break;
            }
            let target_url = fetched.record.header("WARC-Refers-To-Target-URI");
            let target_date = fetched
                .record
                .header("WARC-Refers-To-Date")
                .and_then(timestamp::from_iso);
            let key = match target_url {
                Some(u) => surt::surt(u.trim().trim_start_matches('<').trim_end_matches('>')),
                None => c.key.clone(),
            };
            let candidates = self.captures_of_key(&key)?;
            let mut originals = candidates
                .iter()
                .filter(|o| o.mime.as_deref() != Some("warc/revisit") && *o != &c);
            let found = match (&target_date, &c.digest) {
                (Some(d), _) if candidates.iter().any(|o| &o.timestamp == d) => {
                    originals.rfind(|o| &o.timestamp == d)
                }
                (_, Some(digest)) => originals
                    .rfind(|o| o.digest.as_ref() == Some(digest) && o.timestamp <= c.timestamp),
                _ => None,
            };
            let Some(original) = found.cloned() else {
                break;
            };
            via.push(c);
            fetched = self.read(&original)?;
            c = original;
        }
        Ok((c, fetched, via))
    }
}

fn not_a_record(path: &Path, offset: u64, why: &str) -> CdxjError {
    CdxjError::Invalid(format!(
        "{}: byte {offset}: not a record ({why}); the archive changed since it was indexed?",
        path.display()
    ))
}

/// The capture closest in time to `at` (digits, 4 to 14 of them), or the latest; ties go to the
/// later line.
pub fn closest<'a>(captures: &'a [Capture], at: Option<&str>) -> Option<&'a Capture> {
    let target = at.and_then(timestamp::seconds);
    captures.iter().rev().min_by_key(|c| match target {
        Some(t) => timestamp::seconds(&c.timestamp).map_or(i64::MAX, |s| (s - t).abs()),
        None => -timestamp::seconds(&c.timestamp).unwrap_or(i64::MIN + 1),
    })
}

/// The record as stored, decompressed: the gzip member inflated (at most
/// `CDXJ_MEMBER_SCAN_BYTES`), an uncompressed record as it is.
pub fn stored_record(f: &Fetched) -> Result<Vec<u8>, CdxjError> {
    match detect_compression(&f.stored) {
        Compression::None => Ok(f.stored.to_vec()),
        Compression::Gzip => {
            let mut out = Vec::new();
            flate2::read::MultiGzDecoder::new(&f.stored[..])
                .take(CDXJ_MEMBER_SCAN_BYTES)
                .read_to_end(&mut out)
                .map_err(|e| CdxjError::Invalid(format!("{}: {e}", f.path.display())))?;
            Ok(out)
        }
        other => Err(CdxjError::Invalid(format!(
            "{}: the raw record of a {} archive is not available (decompress the archive)",
            f.path.display(),
            other.as_str()
        ))),
    }
}
