//! `rewrite` ([`run`]): the archives written anew as WARC/1.1, one gzip member per record, every
//! record kept in input order ([`crate::warc_out`]), into `OUT/NAME.warc.gz` (an input's base name
//! without its format and compression extensions). A response whose payload is byte-identical to
//! one written earlier in the run (the same SHA-1 of the HTTP body as stored, whatever digest the
//! record wrote) becomes a `revisit` of the `identical-payload-digest` profile referring to that
//! first response; near-duplicates never do (a revisit must replay the same bytes). ARC and TREC
//! inputs come out as WARC, files compressed whole come out a member per record, digests are
//! added where missing and kept where they match (a block digest that does not match is replaced
//! by the block's, and counted).
//!
//! Records are converted and compressed on the workers; the order-dependent choice of revisits
//! is made as they come back in input order, so the output is the same bytes for any thread
//! count. The table of payloads seen holds one entry per distinct response payload (its digest,
//! record id, URI and date: some 200 bytes).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use crawlsift_reader::{ReaderConfig, Record};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::output::{self, AtomicFile};
use crate::warc_out::{Original, OutRecord};

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
    /// How the reading went.
    #[serde(skip)]
    pub tally: ReadTally,
}

impl Rewritten {
    /// The summary line.
    pub fn summary(&self) -> String {
        format!(
            "{} records of {} inputs written as WARC/1.1, a gzip member each: {} revisits of \
             identical payloads, {} digests added, {} digest mismatches read; {} bytes in, {} out",
            self.records,
            self.files.len(),
            self.revisits,
            self.digests_added,
            self.digest_mismatches,
            self.bytes_in,
            self.bytes_out
        )
    }
}

/// The output name of an input: its base name without format and compression extensions, then
/// `.warc.gz`; `-2`, `-3`, ... when an earlier input took that name.
fn out_names(inputs: &InputSet) -> Vec<String> {
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
                1 => format!("{stem}.warc.gz"),
                k => format!("{stem}-{k}.warc.gz"),
            }
        })
        .collect()
}

/// One record converted and compressed on a worker.
struct Prepared {
    file: u32,
    record: OutRecord,
    /// The record as one gzip member, as it is (not as a revisit).
    member: Vec<u8>,
}

/// The file being written for one input.
struct Open {
    file: u32,
    out: AtomicFile,
}

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
    let names = out_names(&inputs);
    for n in &names {
        let target = req.out.join(n);
        if target.exists() && !req.force {
            return Err(Error::failed(format!(
                "{} already exists (--force overwrites it)",
                target.display()
            )));
        }
    }
    let cfg = ReaderConfig {
        threads: req.threads,
        verify_digests: true,
        ..ReaderConfig::default()
    };
    hooks.progress.start(inputs.total_bytes());
    // Each input's modification time: the WARC-Date of its records that give none (TREC).
    let made: Vec<Option<String>> = inputs.inputs.iter().map(modified).collect();
    let made = &made;
    let set = &inputs;
    let map = move |_: &mut (), batch: Vec<Record>| -> std::io::Result<Vec<Prepared>> {
        batch
            .iter()
            .map(|rec| {
                let made = made[rec.pos.file as usize].as_deref();
                let record = OutRecord::from_record(rec, set.name(rec.pos.file), made);
                let member = record.gzip_member()?;
                Ok(Prepared {
                    file: rec.pos.file,
                    record,
                    member,
                })
            })
            .collect()
    };
    let mut done = Rewritten::default();
    let mut seen: HashMap<String, Original> = HashMap::new();
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
                open = Some(Open {
                    file: p.file,
                    out: AtomicFile::create_raw(&target)?,
                });
            }
            done.records += 1;
            done.digests_added += u64::from(p.record.digests_added);
            done.digest_mismatches += u64::from(p.record.digest_mismatch);
            let revisit = p.record.payload_digest.as_ref().and_then(|d| seen.get(d));
            let bytes = match revisit {
                Some(original) => {
                    done.revisits += 1;
                    p.record
                        .revisit_of(original)
                        .gzip_member()
                        .map_err(|e| Error::io("compressing a record", out_dir, e))?
                }
                None => {
                    if let Some(d) = &p.record.payload_digest {
                        seen.insert(
                            d.clone(),
                            Original {
                                id: p.record.field("WARC-Record-ID").unwrap_or_default().into(),
                                uri: p.record.field("WARC-Target-URI").map(str::to_string),
                                date: p.record.field("WARC-Date").map(str::to_string),
                            },
                        );
                    }
                    p.member
                }
            };
            done.bytes_out += bytes.len() as u64;
            let o = open.as_mut().expect("opened above");
            o.out
                .write_all(&bytes)
                .map_err(|e| Error::io("writing", out_dir, e))?;
        }
        if let Some(f) = last {
            hooks.progress.update(set.bytes_before(f), done.records);
        }
        Ok(())
    };
    let reports = map_inputs(&inputs, &cfg, hooks.cancelled, "rewrite", || (), map, drain)?;
    if let Some(o) = open.take() {
        if !(hooks.cancelled)() {
            o.out.commit()?;
        }
    }
    hooks.progress.finish();
    done.bytes_in = inputs.total_bytes();
    done.tally = inputs.tally(&reports, true);
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
