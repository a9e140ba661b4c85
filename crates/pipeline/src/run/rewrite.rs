//! `rewrite` ([`run`]): the archives written anew as WARC/1.1, one gzip member per record, every
//! record kept in input order ([`crate::warc_out`]), into `OUT/NAME.warc.gz` (an input's base name
//! without its format and compression extensions). With [`OutCompression::Zstd`], one zstd frame
//! per record into `OUT/NAME.warc.zst`, as IIPC's WARC zstd proposal gives it: with a dictionary
//! (the default), one is trained on samples of the whole collection's records
//! ([`train_dictionary`]) and every file starts with it, zstd-compressed, in a skippable frame
//! of magic 0x184D2A5D, so each file is read alone and each frame decodes at its offset. A response whose payload is byte-identical to
//! one written earlier in the run (the same SHA-1 of the HTTP body as stored, whatever digest the
//! record wrote) becomes a `revisit` of the `identical-payload-digest` profile referring to that
//! first response; near-duplicates never do (a revisit must replay the same bytes). ARC and TREC
//! inputs come out as WARC, files compressed whole come out a member per record, digests are
//! added where missing and kept where they match (a block digest that does not match is replaced
//! by the block's, and counted).
//!
//! Records are converted and compressed on the workers; the order-dependent choice of revisits
//! is made as they come back in input order, so the output is the same bytes for any thread
//! count. The table of payloads seen ([`PayloadTable`]) holds one entry per distinct response
//! payload (its digest, record id, URI and date: some 200 bytes) in memory up to
//! [`RewriteRequest::memory`], then in files of the output folder.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use crawlsift_common::limits::{
    ZSTD_DICTIONARY_BYTES, ZSTD_DICTIONARY_MIN_SAMPLES, ZSTD_DICTIONARY_SAMPLE_BYTES,
    ZSTD_DICTIONARY_SAMPLE_RECORD_BYTES,
};
use crawlsift_reader::{ReaderConfig, Record};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::output::{self, AtomicFile};
use crate::payloads::PayloadTable;
use crate::warc_out::{Original, OutRecord};

impl OutCompression {
    /// From the command line's flags: gzip, or zstd at `level` with or without a dictionary.
    pub fn of_flags(zstd: bool, level: i32, dictionary: bool) -> Self {
        match zstd {
            false => OutCompression::Gzip,
            true => OutCompression::Zstd { level, dictionary },
        }
    }
}

/// How a rewrite compresses its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutCompression {
    /// One gzip member per record (`.warc.gz`, WARC/1.1 Annex D), level 6.
    #[default]
    Gzip,
    /// One zstd frame per record (`.warc.zst`), at `level`, with a dictionary trained on the
    /// collection when `dictionary`.
    Zstd {
        /// zstd compression level (1 to 22).
        level: i32,
        /// Whether to train a dictionary and start each file with it.
        dictionary: bool,
    },
}

/// What a rewrite is asked to do.
#[derive(Debug, Clone)]
pub struct RewriteRequest {
    /// Archive files or directories (standard input is not taken: outputs are named by input).
    pub inputs: Vec<PathBuf>,
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Overwrite outputs of an earlier run.
    pub force: bool,
    /// How records are compressed.
    pub compression: OutCompression,
    /// Bytes the table of payloads written may hold in memory before it moves to a file in the
    /// output folder.
    pub memory: usize,
    /// A `dedup` run's `clusters.jsonl` over the same inputs: its near-duplicates are listed in
    /// the report.
    pub clusters: Option<PathBuf>,
    /// Whether to write [`REWRITE_REPORT`] into the output folder (what was done, as JSON).
    pub report: bool,
}

/// What a rewrite did.
#[derive(Debug, Default, Serialize)]
pub struct Rewritten {
    /// Records read.
    pub records: u64,
    /// Responses written as revisits of an earlier identical payload.
    pub revisits: u64,
    /// Digest headers added where the record had none.
    pub digests_added: u64,
    /// Records read whose block or payload digest did not match their bytes.
    pub digest_mismatches: u64,
    /// Bytes read (the inputs' sizes) and written.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Each input and the file written for it.
    pub files: BTreeMap<String, String>,
    /// `gzip` or `zstd`.
    pub compression: &'static str,
    /// Bytes of the zstd dictionary each file starts with (0: none).
    pub dictionary_bytes: u64,
    /// Why no dictionary was trained when one was asked for (too few samples).
    pub dictionary_note: Option<String>,
    /// Whether the table of payloads written moved to disk (past `memory`).
    pub payload_table_spilled: bool,
    /// The near-duplicates of `clusters` written whole (not as revisits), in input order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_duplicates: Option<Vec<NearDuplicate>>,
    /// How the reading went.
    #[serde(skip)]
    pub tally: ReadTally,
}

impl Rewritten {
    /// The summary line.
    pub fn summary(&self) -> String {
        let each = match (self.compression, self.dictionary_bytes) {
            ("zstd", 0) => "a zstd frame each".to_string(),
            ("zstd", n) => format!("a zstd frame each (dictionary of {n} bytes)"),
            _ => "a gzip member each".to_string(),
        };
        format!(
            "{} records of {} inputs written as WARC/1.1, {each}: {} revisits of \
             identical payloads, {} digests added, {} digest mismatches read; {} bytes in, {} out",
            self.records,
            self.files.len(),
            self.revisits,
            self.digests_added,
            self.digest_mismatches,
            self.bytes_in,
            self.bytes_out
        ) + if self.payload_table_spilled {
            " (the table of payloads written went to disk past --memory)"
        } else {
            ""
        }
    }
}

/// The output name of an input: its base name without format and compression extensions, then
/// `ext` (`.warc.gz`, `.warc.zst`); `-2`, `-3`, ... when an earlier input took that name.
fn out_names(inputs: &InputSet, ext: &str) -> Vec<String> {
    const DROP: [&str; 12] = [
        ".gz",
        ".lz4",
        ".zst",
        ".warc",
        ".arc",
        ".wet",
        ".wat",
        ".trec",
        ".trecweb",
        ".trectext",
        ".open",
        ".txt",
    ];
    let mut taken: HashMap<String, usize> = HashMap::new();
    (0..inputs.inputs.len() as u32)
        .map(|i| {
            let name = inputs.name(i);
            let mut stem = Path::new(name)
                .file_name()
                .map_or("input".into(), |n| n.to_string_lossy().into_owned());
            while let Some(s) = DROP.iter().find_map(|d| stem.strip_suffix(d)) {
                if s.is_empty() {
                    break;
                }
                stem = s.to_string();
            }
            let n = taken.entry(stem.clone()).or_default();
            *n += 1;
            match *n {
                1 => format!("{stem}{ext}"),
                k => format!("{stem}-{k}{ext}"),
            }
        })
        .collect()
}

/// One record converted and compressed on a worker.
struct Prepared {
    file: u32,
    record: OutRecord,
    /// The record as one gzip member or zstd frame, as it is (not as a revisit).
    member: Vec<u8>,
}

/// Compresses records one by one: a gzip member or a zstd frame each (one per worker thread:
/// a zstd compressor keeps its dictionary loaded).
enum Packer {
    Gzip,
    Zstd(Box<zstd::bulk::Compressor<'static>>),
}

impl Packer {
    fn new(compression: OutCompression, dictionary: &[u8]) -> std::io::Result<Packer> {
        Ok(match compression {
            OutCompression::Gzip => Packer::Gzip,
            OutCompression::Zstd { level, .. } => {
                let mut c = zstd::bulk::Compressor::with_dictionary(level, dictionary)?;
                c.include_checksum(true)?;
                Packer::Zstd(Box::new(c))
            }
        })
    }

    fn pack(&mut self, record: &OutRecord) -> std::io::Result<Vec<u8>> {
        match self {
            Packer::Gzip => record.gzip_member(),
            Packer::Zstd(c) => c.compress(&record.to_bytes()),
        }
    }
}

/// Trains the zstd dictionary of a rewrite on samples of the collection: the first records of
/// every input, as they will be written, up to [`ZSTD_DICTIONARY_SAMPLE_BYTES`] in all (an equal
/// share for each input) and [`ZSTD_DICTIONARY_SAMPLE_RECORD_BYTES`] of any one record.
/// `Ok(None)` with the reason when the samples are too few to train on. The same inputs give the
/// same dictionary.
pub fn train_dictionary(
    inputs: &InputSet,
    made: &[Option<String>],
) -> Result<std::result::Result<Vec<u8>, String>> {
    let share = (ZSTD_DICTIONARY_SAMPLE_BYTES / inputs.inputs.len().max(1)).max(1 << 18);
    let mut samples: Vec<Vec<u8>> = Vec::new();
    let mut total = 0usize;
    let cfg = ReaderConfig::default();
    for (i, input) in inputs.inputs.iter().enumerate() {
        if total >= ZSTD_DICTIONARY_SAMPLE_BYTES {
            break;
        }
        let mut taken = 0usize;
        let name = inputs.name(i as u32);
        let made = made[i].as_deref();
        // A file that cannot be read gives no samples; the rewrite itself reports it.
        let _ = crawlsift_reader::read_input(input, i as u32, &cfg, &mut |batch| {
            for rec in &batch {
                let mut bytes = OutRecord::from_record(rec, name, made).to_bytes();
                bytes.truncate(ZSTD_DICTIONARY_SAMPLE_RECORD_BYTES);
                taken += bytes.len();
                total += bytes.len();
                samples.push(bytes);
                if taken >= share || total >= ZSTD_DICTIONARY_SAMPLE_BYTES {
                    return false;
                }
            }
            true
        });
    }
    if samples.len() < ZSTD_DICTIONARY_MIN_SAMPLES {
        return Ok(Err(format!(
            "{} records to train a dictionary on (at least {ZSTD_DICTIONARY_MIN_SAMPLES} needed)",
            samples.len()
        )));
    }
    match zstd::dict::from_samples(&samples, ZSTD_DICTIONARY_BYTES) {
        Ok(dict) => Ok(Ok(dict)),
        Err(e) => Ok(Err(format!("zstd could not train a dictionary: {e}"))),
    }
}

/// The skippable frame a `.warc.zst` file with a dictionary starts with: magic 0x184D2A5D, the
/// length, then the dictionary compressed as one zstd frame.
fn dictionary_frame(dict: &[u8]) -> std::io::Result<Vec<u8>> {
    let packed = zstd::bulk::compress(dict, 19)?;
    let mut frame = crawlsift_reader::ZSTD_DICTIONARY_FRAME_MAGIC.to_vec();
    let len = u32::try_from(packed.len()).map_err(std::io::Error::other)?;
    frame.extend(len.to_le_bytes());
    frame.extend(packed);
    Ok(frame)
}

/// The file being written for one input.
struct Open {
    file: u32,
    out: AtomicFile,
    /// Bytes written to it so far (where the next record starts).
    at: u64,
}

/// A near-duplicate a rewrite kept whole: a revisit must replay the same bytes, so only exact
/// payload copies become revisits; `dedup`'s near-duplicates are listed in the report instead.
#[derive(Debug, Serialize)]
pub struct NearDuplicate {
    /// Its record id.
    pub id: String,
    /// Its cluster's representative (record id).
    pub representative: String,
    /// Its share of words in common with the representative, as `clusters.jsonl` gives it.
    pub similarity: f64,
    /// The file it was written to.
    pub file: String,
    /// Where its record starts there.
    pub offset: u64,
}

/// The near-duplicates of a `dedup` run's `clusters.jsonl`: record id to (representative,
/// similarity), members that joined as `near` only.
pub fn near_duplicates_of(clusters: &Path) -> Result<HashMap<String, (String, f64)>> {
    let mut near = HashMap::new();
    for c in crate::lines::read_clusters(clusters)? {
        for m in c.members.into_iter().filter(|m| m.kind == "near") {
            near.insert(m.id, (c.representative.clone(), m.similarity));
        }
    }
    Ok(near)
}

/// The report a rewrite writes in its output folder.
pub const REWRITE_REPORT: &str = "rewrite-report.json";

/// Rewrites every input (see the module doc).
pub fn run(req: &RewriteRequest, hooks: &Hooks<'_>) -> Result<Rewritten> {
    let inputs = InputSet::expand(&req.inputs)?;
    if inputs
        .inputs
        .iter()
        .any(|i| matches!(i, crawlsift_reader::Input::Stdin))
    {
        return Err(Error::Usage(
            "rewrite names its outputs after its inputs: give files, not standard input".into(),
        ));
    }
    output::writable_dir(&req.out)?;
    if let OutCompression::Zstd { level, .. } = req.compression {
        if !(1..=22).contains(&level) {
            return Err(Error::Usage(format!(
                "zstd level {level}: give a level from 1 to 22"
            )));
        }
    }
    let ext = match req.compression {
        OutCompression::Gzip => ".warc.gz",
        OutCompression::Zstd { .. } => ".warc.zst",
    };
    let names = out_names(&inputs, ext);
    let report = [REWRITE_REPORT.to_string()];
    let outputs = names.iter().chain(report.iter().filter(|_| req.report));
    output::refuse_existing(outputs.map(|n| req.out.join(n)), req.force)?;
    let cfg = ReaderConfig {
        threads: req.threads,
        verify_digests: true,
        ..ReaderConfig::default()
    };
    // Each input's modification time: the WARC-Date of its records that give none (TREC).
    let made: Vec<Option<String>> = inputs.inputs.iter().map(modified).collect();
    let mut done = Rewritten {
        compression: match req.compression {
            OutCompression::Gzip => "gzip",
            OutCompression::Zstd { .. } => "zstd",
        },
        ..Rewritten::default()
    };
    let dictionary = match req.compression {
        OutCompression::Zstd {
            dictionary: true, ..
        } => match train_dictionary(&inputs, &made)? {
            Ok(dict) => dict,
            Err(why) => {
                done.dictionary_note = Some(why);
                Vec::new()
            }
        },
        _ => Vec::new(),
    };
    done.dictionary_bytes = dictionary.len() as u64;
    let head = if dictionary.is_empty() {
        Vec::new()
    } else {
        dictionary_frame(&dictionary).map_err(|e| Error::io("compressing", &req.out, e))?
    };
    let compression = req.compression;
    let packer = || Packer::new(compression, &dictionary);
    let mut own = packer().map_err(|e| Error::io("starting zstd", &req.out, e))?;
    hooks.progress.start(inputs.total_bytes());
    let made = &made;
    let set = &inputs;
    let init = || packer().expect("the same settings made a packer above");
    let map = move |p: &mut Packer, batch: Vec<Record>| -> std::io::Result<Vec<Prepared>> {
        batch
            .iter()
            .map(|rec| {
                let made = made[rec.pos.file as usize].as_deref();
                let record = OutRecord::from_record(rec, set.name(rec.pos.file), made);
                let member = p.pack(&record)?;
                Ok(Prepared {
                    file: rec.pos.file,
                    record,
                    member,
                })
            })
            .collect()
    };
    let mut seen = PayloadTable::new(req.memory, &req.out);
    let near = match &req.clusters {
        Some(c) => near_duplicates_of(c)?,
        None => HashMap::new(),
    };
    let mut listed: Vec<NearDuplicate> = Vec::new();
    let mut open: Option<Open> = None;
    let out_dir = &req.out;
    let drain = |batch: std::io::Result<Vec<Prepared>>| -> Result<()> {
        let batch = batch.map_err(|e| Error::io("compressing a record", out_dir, e))?;
        let last = batch.last().map(|p| p.file);
        for p in batch {
            if open.as_ref().is_none_or(|o| o.file != p.file) {
                if let Some(o) = open.take() {
                    o.out.commit()?;
                }
                let target = out_dir.join(&names[p.file as usize]);
                done.files
                    .insert(set.name(p.file).to_string(), target.display().to_string());
                let mut out = AtomicFile::create_raw(&target)?;
                out.write_all(&head)
                    .map_err(|e| Error::io("writing", out_dir, e))?;
                done.bytes_out += head.len() as u64;
                open = Some(Open {
                    file: p.file,
                    out,
                    at: head.len() as u64,
                });
            }
            done.records += 1;
            done.digests_added += u64::from(p.record.digests_added);
            done.digest_mismatches += u64::from(p.record.digest_mismatch);
            let revisit = match &p.record.payload_digest {
                Some(d) => seen.get(d)?,
                None => None,
            };
            let bytes = match revisit {
                Some(original) => {
                    done.revisits += 1;
                    own.pack(&p.record.revisit_of(&original))
                        .map_err(|e| Error::io("compressing a record", out_dir, e))?
                }
                None => {
                    if let Some(d) = &p.record.payload_digest {
                        seen.insert(
                            d,
                            Original {
                                id: p.record.field("WARC-Record-ID").unwrap_or_default().into(),
                                uri: p.record.field("WARC-Target-URI").map(str::to_string),
                                date: p.record.field("WARC-Date").map(str::to_string),
                            },
                        )?;
                    }
                    p.member
                }
            };
            done.bytes_out += bytes.len() as u64;
            let o = open.as_mut().expect("opened above");
            if let Some((rep, sim)) = p.record.field("WARC-Record-ID").and_then(|id| near.get(id)) {
                listed.push(NearDuplicate {
                    id: p
                        .record
                        .field("WARC-Record-ID")
                        .unwrap_or_default()
                        .to_string(),
                    representative: rep.clone(),
                    similarity: *sim,
                    file: names[p.file as usize].clone(),
                    offset: o.at,
                });
            }
            o.at += bytes.len() as u64;
            o.out
                .write_all(&bytes)
                .map_err(|e| Error::io("writing", out_dir, e))?;
        }
        if let Some(f) = last {
            hooks.progress.update(set.bytes_before(f), done.records);
        }
        Ok(())
    };
    let reports = map_inputs(&inputs, &cfg, hooks.cancelled, "rewrite", init, map, drain)?;
    done.payload_table_spilled = seen.spilled();
    if req.clusters.is_some() {
        done.near_duplicates = Some(listed);
    }
    if let Some(o) = open.take() {
        if !(hooks.cancelled)() {
            o.out.commit()?;
        }
    }
    hooks.progress.finish();
    done.bytes_in = inputs.total_bytes();
    done.tally = inputs.tally(&reports, true);
    if req.report && !(hooks.cancelled)() {
        let mut f = AtomicFile::create(&req.out.join(REWRITE_REPORT))?;
        serde_json::to_writer_pretty(&mut f, &done)?;
        f.write_all(b"\n")
            .map_err(|e| Error::io("writing", &req.out, e))?;
        f.commit()?;
    }
    Ok(done)
}

/// When the input file was last modified, ISO 8601 in UTC.
fn modified(input: &crawlsift_reader::Input) -> Option<String> {
    let crawlsift_reader::Input::Path(p) = input else {
        return None;
    };
    let t = std::fs::metadata(p).ok()?.modified().ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(crate::report::rfc3339(secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Hooks;

    fn warc(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..n {
            // Each payload twice: records i and i + n / 2 hold the same page.
            let body = format!("<html><body>page {}</body></html>", i % (n / 2));
            let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
            out.extend(
                format!(
                    "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{i:08}>\r\n\
                     WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://e.example/{i}\r\n\
                     Content-Type: application/http; msgtype=response\r\n\
                     Content-Length: {}\r\n\r\n{http}\r\n\r\n",
                    http.len()
                )
                .into_bytes(),
            );
        }
        out
    }

    /// Past `memory`, the table of payloads moves to disk and the output is the same bytes.
    #[test]
    fn a_spilled_payload_table_writes_the_same_archive() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("crawl.warc");
        std::fs::write(&input, warc(400)).unwrap();
        let mut outs = Vec::new();
        for (name, memory) in [("big", usize::MAX), ("small", 4096)] {
            let req = RewriteRequest {
                inputs: vec![input.clone()],
                out: dir.path().join(name),
                threads: 2,
                force: false,
                compression: OutCompression::Gzip,
                memory,
                clusters: None,
                report: true,
            };
            let done = run(&req, &Hooks::silent()).unwrap();
            assert_eq!(done.revisits, 200);
            assert_eq!(done.payload_table_spilled, name == "small");
            outs.push(std::fs::read(dir.path().join(name).join("crawl.warc.gz")).unwrap());
        }
        assert_eq!(outs[0], outs[1]);
    }
}
