//! The run's input list: expanded arguments with their sizes and the names outputs use for them.

use std::path::PathBuf;

use anyhow::Context;
use std::time::{Duration, Instant};

use crawlsift_reader::{FileReport, Input, ReaderConfig, Record};

use crate::pipeline::Producer;

/// Inputs in the order they are read; `file` indices in every `SourcePos` point into this list.
pub struct InputSet {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// Size in bytes of each input (0 for stdin and for files that cannot be measured).
    sizes: Vec<u64>,
    /// Running total of sizes before each input, for progress.
    before: Vec<u64>,
    names: Vec<String>,
    /// Whether each input was found by walking a directory (rather than named on the command line).
    from_dir: Vec<bool>,
}

/// How the reading of all inputs went, for the exit status and the summaries.
#[derive(Debug, Default)]
pub struct ReadTally {
    /// Inputs that could not be opened or read.
    pub failed_inputs: usize,
    /// Record-level errors over all inputs.
    pub record_errors: u64,
    /// Files found in a directory that hold no archive (a README, a checksum list): skipped.
    pub not_archives: Vec<String>,
    /// Records read.
    pub records: u64,
}

impl InputSet {
    /// Expands command-line arguments (files, directories, `-`).
    pub fn expand(args: &[PathBuf]) -> anyhow::Result<Self> {
        let mut inputs = Vec::new();
        let mut from_dir = Vec::new();
        for arg in args {
            let found = crawlsift_reader::expand_inputs(std::slice::from_ref(arg))
                .context("reading the input list")?;
            from_dir.extend(std::iter::repeat_n(arg.is_dir(), found.len()));
            inputs.extend(found);
        }
        if inputs.is_empty() {
            anyhow::bail!(
                "no input files found in {}",
                args.iter()
                    .map(|a| a.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let sizes: Vec<u64> = inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
                Input::Stdin => 0,
            })
            .collect();
        let before = sizes
            .iter()
            .scan(0u64, |acc, s| {
                let b = *acc;
                *acc += s;
                Some(b)
            })
            .collect();
        let names = inputs
            .iter()
            .map(|i| i.path().display().to_string())
            .collect();
        Ok(InputSet {
            inputs,
            sizes,
            before,
            names,
            from_dir,
        })
    }

    /// Tallies the reader's results (in input order), printing each failure and record error
    /// example to stderr with the file's name unless `quiet`. A file met while walking a directory
    /// that holds no archive at all is skipped with a notice, not counted as an error.
    pub fn tally(&self, reports: &[Result<FileReport, String>], quiet: bool) -> ReadTally {
        let mut t = ReadTally::default();
        for (fi, r) in reports.iter().enumerate() {
            let name = self.name(fi as u32);
            match r {
                Ok(r)
                    if r.records == 0
                        && r.format.is_none()
                        && self.from_dir.get(fi).copied().unwrap_or(false) =>
                {
                    t.not_archives.push(name.to_string());
                    if !quiet {
                        eprintln!("crawlsift: {name}: not an archive (no WARC, ARC or TREC record), skipped");
                    }
                }
                Ok(r) => {
                    t.records += r.records;
                    t.record_errors += r.error_count();
                    if !quiet {
                        for e in r.error_examples.iter() {
                            eprintln!("crawlsift: {name}: {e}");
                        }
                        let shown = r.error_examples.len() as u64;
                        if r.error_count() > shown {
                            eprintln!(
                                "crawlsift: {name}: {} more record errors",
                                r.error_count() - shown
                            );
                        }
                    }
                }
                Err(e) => {
                    t.failed_inputs += 1;
                    eprintln!("crawlsift: {e}");
                }
            }
        }
        t
    }

    /// Reads every input in order, sending record batches to `producer` (stopping when nobody
    /// listens any more). Returns each input's report, in input order, and the time spent reading
    /// (not waiting for a full channel). Run it on its own thread.
    pub fn read_all(
        &self,
        cfg: &ReaderConfig,
        mut producer: Producer<Vec<Record>>,
    ) -> (Vec<Result<FileReport, String>>, Duration) {
        let started = Instant::now();
        let mut waited = Duration::ZERO;
        let mut reports = Vec::with_capacity(self.inputs.len());
        let mut listening = true;
        for (fi, input) in self.inputs.iter().enumerate() {
            if !listening {
                break;
            }
            let r = crawlsift_reader::read_input(input, fi as u32, cfg, &mut |batch| {
                let w = Instant::now();
                listening = producer.send(batch);
                waited += w.elapsed();
                listening
            });
            reports.push(r.map_err(|e| e.to_string()));
        }
        (reports, started.elapsed().saturating_sub(waited))
    }

    /// Total input bytes (stdin counts 0).
    pub fn total_bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }

    /// Bytes of all inputs before input `file`.
    pub fn bytes_before(&self, file: u32) -> u64 {
        self.before.get(file as usize).copied().unwrap_or(0)
    }

    /// The name of input `file`, as given on the command line (or found in a directory).
    pub fn name(&self, file: u32) -> &str {
        self.names
            .get(file as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }
}
