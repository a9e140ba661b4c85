//! Per-input checkpoints of a dedup run (`crawlsift dedup`), so a killed run resumes where it stopped.
//!
//! When an input has been read to its end and every one of its records has reached the collector,
//! the collector writes `OUT/.checkpoint/NNNNNN.ckpt`: the input's summary (one JSON line) and,
//! per record, its identity and outcome (skip reason, or title and fingerprint, and the text when
//! `--text` is wanted), each as a little-endian `u32` length and the entry in `postcard`'s binary
//! form (fingerprints as raw bytes: hex in JSON cost the writer thread more than the fsync). A run started again with the same arguments finds `OUT/.checkpoint/run.json` equal to
//! its own [`RunKey`], replays the checkpointed inputs instead of reading them, and reads the rest:
//! the outputs are the same bytes as an uninterrupted run's. A finished run removes the folder.
//! Every checkpoint file is written whole or not at all (temporary name, fsync, rename). Writing
//! (serialising a few MB and the fsync) happens on a background thread, one file after another,
//! so the collector does not stall the pipeline on the disk; an input whose checkpoint was not yet
//! written when a run is killed is simply read again.

use crate::error::{fail, Because, Error, IoContext, Result};
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use crawlsift_common::SourcePos;
use crawlsift_dedup::{DedupConfig, Fingerprint};
use crawlsift_reader::FileReport;
use serde::{Deserialize, Serialize};

use crate::flow::inputs::InputSet;
use crate::output::AtomicFile;

/// The folder inside `--out` that holds checkpoints.
pub const CHECKPOINT_DIR: &str = ".checkpoint";

/// The layout of checkpoint entries. 2: fingerprints carry the wide bytes of their MinHash rows
/// (`Fingerprint::minhash_wide`). 3: phrase sketches keep their shingles as bytes and their words
/// in one string. 4: entries carry their `uoffset`. 5: entries carry their page's links (`dedup
/// --links`). A run whose `run.json` names another layout (or none: 1) is not resumed.
pub const CHECKPOINT_FORMAT: u32 = 5;

/// What makes two runs the same run: everything that changes the outputs (not `--threads`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunKey {
    /// crawlsift's version: fingerprints of another version are not mixed in.
    pub version: String,
    /// [`CHECKPOINT_FORMAT`] of the run that wrote the checkpoints (1 when not written).
    #[serde(default = "first_format")]
    pub format: u32,
    /// Inputs in order, with size and modification time (None for stdin).
    pub inputs: Vec<(String, Option<(u64, u128)>)>,
    /// The main-text method.
    pub method: String,
    /// Dedup parameters.
    pub dedup: DedupConfig,
    /// Whether texts are kept for `--text`.
    pub keep_text: bool,
    /// The phrase sketch settings of `--phrases` (entries then hold sketches).
    #[serde(default)]
    pub phrases: Option<crawlsift_phrases::SketchConfig>,
    /// Whether entries hold their page's links (`--links`).
    #[serde(default)]
    pub links: bool,
}

fn first_format() -> u32 {
    1
}

impl RunKey {
    /// The key of a run over `inputs` with these settings.
    pub fn new(inputs: &InputSet, method: &str, dedup: &DedupConfig, keep_text: bool) -> Self {
        RunKey {
            version: env!("CARGO_PKG_VERSION").to_string(),
            format: CHECKPOINT_FORMAT,
            inputs: (0..inputs.inputs.len() as u32)
                .map(|i| (inputs.name(i).to_string(), inputs.identity(i)))
                .collect(),
            method: method.to_string(),
            dedup: dedup.clone(),
            keep_text,
            phrases: None,
            links: false,
        }
    }
}

/// One record's outcome, as the collector saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// File, offset, ordinal.
    pub pos: (u32, u64, u64),
    /// Where the record starts in the decoded bytes of its member or frame (see
    /// [`crawlsift_reader::Record::uoffset`]).
    pub uoffset: u64,
    /// Record id.
    pub id: String,
    /// Target URL.
    pub url: Option<String>,
    /// Why it is not a page, if it is not.
    pub skipped: Option<String>,
    /// The page's title.
    pub title: String,
    /// The page's fingerprint.
    pub fp: Option<Fingerprint>,
    /// The page's text, kept only for `--text`.
    pub text: Option<String>,
    /// The page's phrase sketch, made only for `--phrases`.
    pub phrases: Option<crawlsift_phrases::Sketch>,
    /// The page's text-reuse fingerprints and kernels, made only for `--reuse` by the workers;
    /// not kept in checkpoints (a replayed entry keeps its text, and the collector makes them
    /// again).
    #[serde(skip)]
    pub reuse: Option<crawlsift_reuse::TextSketch>,
    /// The page's links, read only for `--links`.
    pub links: Option<crate::links::PageLinks>,
    /// The record's capture date as it gives it, for the lines of `--text`.
    pub date: Option<String>,
    /// How far its input had been read ([`crawlsift_reader::Record::read_to`]), for progress;
    /// not kept in checkpoints.
    #[serde(skip)]
    pub read_to: u64,
}

impl Entry {
    /// The record's position.
    pub fn source_pos(&self) -> SourcePos {
        SourcePos {
            file: self.pos.0,
            offset: self.pos.1,
            index: self.pos.2,
        }
    }
}

/// The checkpoints of one output folder.
pub struct Checkpoints {
    dir: PathBuf,
    done: Vec<bool>,
    /// In a merge of shards, the checkpoint folder holding each input (empty otherwise).
    sources: Vec<Option<PathBuf>>,
    /// The checkpoint being written in the background, if any.
    writing: Option<std::thread::JoinHandle<Result<()>>>,
}

impl Checkpoints {
    /// Whether `out` holds an unfinished run with exactly this key (so this run resumes it).
    pub fn resumable(out: &Path, key: &RunKey) -> bool {
        let theirs: Option<RunKey> = fs::read(out.join(CHECKPOINT_DIR).join("run.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        theirs.as_ref() == Some(key)
    }

    /// Opens (or starts) the checkpoints of a run with `key` in `out`. Checkpoints of a run with
    /// other arguments are refused unless `force`, which discards them. Returns whether this run
    /// resumes an earlier one.
    pub fn open(out: &Path, key: &RunKey, force: bool) -> Result<(Self, bool)> {
        let dir = out.join(CHECKPOINT_DIR);
        let key_path = dir.join("run.json");
        let mut resuming = false;
        if key_path.exists() {
            if Self::resumable(out, key) {
                resuming = true;
            } else if force {
                fs::remove_dir_all(&dir).at(&dir, || format!("removing {}", dir.display()))?;
            } else {
                fail!(
                    "{} holds an unfinished run with other arguments or changed inputs; run that \
                     command again to finish it, or pass --force to discard it",
                    out.display()
                );
            }
        }
        fs::create_dir_all(&dir).at(&dir, || format!("cannot create {}", dir.display()))?;
        remove_stale_temporaries(out);
        remove_stale_temporaries(&dir);
        if !resuming {
            let mut f = AtomicFile::create(&key_path)?;
            serde_json::to_writer_pretty(&mut f, key)?;
            f.commit()?;
        }
        let done = (0..key.inputs.len())
            .map(|i| key.inputs[i].1.is_some() && dir.join(file_name(i as u32)).exists())
            .collect();
        Ok((
            Checkpoints {
                dir,
                done,
                sources: Vec::new(),
                writing: None,
            },
            resuming,
        ))
    }

    /// The checkpoints of a merge: input `i`'s are in the output folder `shards[i]` of the shard
    /// that read it (`None`: no shard has it, as for an input that could not be read). Read-only:
    /// nothing is saved, and [`finish`](Self::finish) leaves the shards' folders as they are.
    pub fn of_shards(shards: Vec<Option<PathBuf>>) -> Self {
        Checkpoints {
            dir: PathBuf::new(),
            done: shards.iter().map(Option::is_some).collect(),
            sources: shards
                .into_iter()
                .map(|d| d.map(|d| d.join(CHECKPOINT_DIR)))
                .collect(),
            writing: None,
        }
    }

    /// The checkpoint file of input `file`.
    fn path(&self, file: u32) -> PathBuf {
        match self.sources.get(file as usize) {
            Some(Some(dir)) => dir.join(file_name(file)),
            _ => self.dir.join(file_name(file)),
        }
    }

    /// Whether input `file` is checkpointed.
    pub fn has(&self, file: u32) -> bool {
        self.done.get(file as usize).copied().unwrap_or(false)
    }

    /// How many inputs are checkpointed.
    pub fn count(&self) -> usize {
        self.done.iter().filter(|d| **d).count()
    }

    /// Writes input `file`'s checkpoint, its summary and then one line per record, on a background
    /// thread once the previous checkpoint is written. An error writing the previous one is
    /// returned here (or by [`finish`](Self::finish)).
    pub fn save(&mut self, file: u32, summary: &FileReport, entries: Vec<Entry>) -> Result<()> {
        let previous = self.writing.take();
        let path = self.dir.join(file_name(file));
        let summary = summary.clone();
        let write = move || -> Result<()> {
            if let Some(p) = previous {
                join_writer(p)?;
            }
            let mut f = AtomicFile::create(&path)?;
            serde_json::to_writer(&mut f, &summary)?;
            f.write_all(b"\n")?;
            let mut buf = Vec::new();
            for e in &entries {
                buf.clear();
                let buf = postcard::to_io(e, &mut buf)
                    .because(|| "encoding a checkpoint entry".into())?;
                let len = u32::try_from(buf.len())
                    .map_err(|_| Error::failed("a checkpoint entry over 4 GB"))?;
                f.write_all(&len.to_le_bytes())?;
                f.write_all(buf)?;
            }
            f.commit()
        };
        self.writing = Some(
            std::thread::Builder::new()
                .name("checkpoint".into())
                .spawn(write)
                .because(|| "starting the checkpoint writer".into())?,
        );
        if let Some(d) = self.done.get_mut(file as usize) {
            *d = true;
        }
        Ok(())
    }

    /// Waits until every checkpoint asked for is written.
    pub fn flush(&mut self) -> Result<()> {
        match self.writing.take() {
            Some(w) => join_writer(w),
            None => Ok(()),
        }
    }

    /// Reads input `file`'s checkpoint, calling `each` on every record in order.
    pub fn load(&self, file: u32, each: &mut dyn FnMut(Entry) -> Result<()>) -> Result<FileReport> {
        let path = self.path(file);
        let bad = || {
            format!(
                "damaged checkpoint {} (remove the folder {} to start over)",
                path.display(),
                path.parent().unwrap_or(&self.dir).display()
            )
        };
        // Where in the file the damage was found, and what was wrong there.
        let damaged = |at: u64, e: Box<dyn std::error::Error + Send + Sync>| {
            Error::damaged(bad(), &path, at, Some(e))
        };
        let file = fs::File::open(&path).at(&path, bad)?;
        let size = file.metadata().at(&path, bad)?.len();
        let mut r = BufReader::new(file);
        let mut line = String::new();
        r.read_line(&mut line).map_err(|e| damaged(0, e.into()))?;
        let summary: FileReport = serde_json::from_str(&line).map_err(|e| damaged(0, e.into()))?;
        let mut buf = Vec::new();
        let mut at = line.len() as u64;
        loop {
            let mut len = [0u8; 4];
            match r.read_exact(&mut len) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(damaged(at, e.into())),
            }
            // A damaged length cannot ask for more than the file holds.
            let len = u64::from(u32::from_le_bytes(len));
            if len > size {
                return Err(damaged(at, "an entry longer than the file".into()));
            }
            buf.resize(len as usize, 0);
            r.read_exact(&mut buf).map_err(|e| damaged(at, e.into()))?;
            each(postcard::from_bytes(&buf).map_err(|e| damaged(at, e.into()))?)?;
            at += 4 + len;
        }
        Ok(summary)
    }

    /// Removes the checkpoints of a finished run (a merge keeps its shards' folders).
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        if !self.sources.is_empty() {
            return Ok(());
        }
        fs::remove_dir_all(&self.dir).at(&self.dir, || format!("removing {}", self.dir.display()))
    }
}

impl Drop for Checkpoints {
    /// A run that stops on an error still lets the checkpoint being written finish (or fail and
    /// remove its temporary file) before the process exits.
    fn drop(&mut self) {
        if let Some(w) = self.writing.take() {
            let _ = w.join();
        }
    }
}

fn join_writer(w: std::thread::JoinHandle<Result<()>>) -> Result<()> {
    w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// Removes temporary files a killed run left in `dir` (ours are named `.NAME.tmp-PID`).
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            && name.contains(".tmp-")
            && e.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = fs::remove_file(e.path());
        }
    }
}

fn file_name(file: u32) -> String {
    format!("{file:06}.ckpt")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(dir: &Path) -> RunKey {
        RunKey {
            version: "test".into(),
            format: CHECKPOINT_FORMAT,
            inputs: vec![(dir.join("a.warc").display().to_string(), Some((1, 2)))],
            method: "blocks".into(),
            dedup: DedupConfig::default(),
            keep_text: true,
            phrases: None,
            links: true,
        }
    }

    fn entries() -> Vec<Entry> {
        let mut fper = crawlsift_dedup::fingerprint::Fingerprinter::new(&DedupConfig::default());
        let fp = fper.fingerprint("one line of words\nand a second line of other words");
        vec![
            Entry {
                pos: (0, 0, 0),
                uoffset: 0,
                id: "<urn:uuid:1>".into(),
                url: Some("http://example.com/".into()),
                skipped: None,
                title: "Title \u{e9}".into(),
                fp: Some(fp),
                text: Some("one line of words".into()),
                phrases: None,
                reuse: None,
                links: Some({
                    let mut l = crate::links::PageLinks::new("http://example.com/".into());
                    l.push("http://example.com/b", "B \u{e9}", true);
                    l.push("http://example.org/", "", false);
                    l
                }),
                date: Some("2020-01-02T03:04:05Z".into()),
                read_to: 0,
            },
            Entry {
                pos: (0, 812, 1),
                uoffset: 4321,
                id: "<urn:uuid:2>".into(),
                url: None,
                skipped: Some("not a page".into()),
                title: String::new(),
                fp: None,
                text: None,
                phrases: None,
                reuse: None,
                links: None,
                date: None,
                read_to: 0,
            },
        ]
    }

    fn load_all(c: &Checkpoints) -> Result<Vec<Entry>> {
        let mut got = Vec::new();
        c.load(0, &mut |e| {
            got.push(e);
            Ok(())
        })?;
        Ok(got)
    }

    #[test]
    fn entries_come_back_as_saved_and_damage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (mut c, resuming) = Checkpoints::open(dir.path(), &key(dir.path()), false).unwrap();
        assert!(!resuming);
        let summary = FileReport {
            records: 2,
            ..FileReport::default()
        };
        c.save(0, &summary, entries()).unwrap();
        c.flush().unwrap();
        let got = load_all(&c).unwrap();
        assert_eq!(got.len(), 2);
        for (a, b) in got.iter().zip(entries()) {
            assert_eq!(
                (a.pos, &a.id, &a.url, &a.title),
                (b.pos, &b.id, &b.url, &b.title)
            );
            assert_eq!((&a.skipped, &a.fp, &a.text), (&b.skipped, &b.fp, &b.text));
            assert_eq!(a.links, b.links);
        }

        let path = dir.path().join(CHECKPOINT_DIR).join(file_name(0));
        let whole = fs::read(&path).unwrap();
        // Cut inside the last entry, then a length that claims more than the file holds.
        fs::write(&path, &whole[..whole.len() - 3]).unwrap();
        assert!(load_all(&c).is_err());
        let first_line = whole.iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut lying = whole[..first_line].to_vec();
        lying.extend_from_slice(&u32::MAX.to_le_bytes());
        fs::write(&path, &lying).unwrap();
        let err = load_all(&c).unwrap_err();
        assert!(format!("{err:#}").contains("damaged checkpoint"), "{err:#}");
    }

    #[test]
    fn checkpoints_of_an_older_layout_are_not_resumed() {
        let dir = tempfile::tempdir().unwrap();
        let ours = key(dir.path());
        let (c, _) = Checkpoints::open(dir.path(), &ours, false).unwrap();
        drop(c);
        assert!(Checkpoints::resumable(dir.path(), &ours));
        // The same run.json without a format, as the first layout wrote it.
        let path = dir.path().join(CHECKPOINT_DIR).join("run.json");
        let mut json: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        json.as_object_mut().unwrap().remove("format");
        fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
        assert!(!Checkpoints::resumable(dir.path(), &ours));
        assert!(Checkpoints::open(dir.path(), &ours, false).is_err());
    }
}
