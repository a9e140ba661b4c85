//! A dedup run ([`run`]): set up and check everything, open the output folder (resuming an
//! unfinished run with the same key), read, and then either conclude (cluster, write, report:
//! [`super::conclude`]) or, for a shard, keep what was read for the merge ([`ShardDone`]).

use std::path::PathBuf;
use std::time::Instant;

use crawlsift_common::budget::MemoryBudget;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_dedup::{Clusterer, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_phrases::SketchConfig;
use crawlsift_reader::{Input, ReaderConfig};
use crawlsift_reuse::ReuseConfig;

use super::against::open_index;
use super::conclude::{
    conclude, refuse_old_outputs, unix_seconds, Concluded, RunContext, RunOutputs,
};
use super::read::{read_documents_into, DedupHooks, DedupSettings, StageTimes};
use super::{Hooks, Judging};
use crate::checkpoint::{Checkpoints, RunKey};
use crate::collect::Collected;
use crate::columns::LineFormat;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::links::GRAPH_FILES;
use crate::output;
use crate::shard::{assign, ShardManifest, ShardSpec, SHARD_FORMAT};
use crate::write::TextSpill;

/// What a dedup run is asked to do.
#[derive(Debug, Clone)]
pub struct DedupRequest {
    /// Archive files or directories (recursed in sorted order); `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// The clean corpus file, if asked for (a shard keeps the texts, the merge writes it).
    pub text: Option<PathBuf>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The main-text method.
    pub method: Method,
    /// Overwrite the outputs (and discard the checkpoints) of an earlier run.
    pub force: bool,
    /// What makes two documents near-duplicates.
    pub judging: Judging,
    /// Read only this shard of the inputs and keep it for a merge.
    pub shard: Option<ShardSpec>,
    /// Also search this run's documents in the index of this folder.
    pub against: Option<PathBuf>,
    /// Also find phrase-level duplication.
    pub phrases: bool,
    /// With `text`: drop sentences an earlier kept document already holds.
    pub drop_popular_phrases: bool,
    /// Also find the passages documents share (`reuse.jsonl`) and the stories
    /// (`stories.jsonl`), in the same pass.
    pub reuse: bool,
    /// Also gather the web graph of the pages' links (the outputs of `crawlsift links`, and
    /// each kept document's incoming anchor texts in `text`), in the same pass.
    pub links: bool,
    /// The memory budget of what the run keeps per document and of clustering (bytes).
    pub memory: usize,
    /// No notes on stderr about inputs that are no archives (when found in a folder).
    pub quiet: bool,
    /// How `documents` is written: `documents.jsonl.gz`, or `documents.parquet` (the `--text`
    /// corpus follows its own name: Parquet when it ends in `.parquet`).
    pub format: LineFormat,
}

impl DedupRequest {
    /// A request with the defaults of `crawlsift dedup INPUTS --out OUT`.
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf) -> Self {
        DedupRequest {
            inputs,
            out,
            text: None,
            threads: super::threads(None),
            method: Method::default(),
            force: false,
            judging: Judging::default(),
            shard: None,
            against: None,
            phrases: false,
            drop_popular_phrases: false,
            reuse: false,
            links: false,
            memory: DEDUP_MEMORY_DEFAULT,
            quiet: false,
            format: LineFormat::Json,
        }
    }
}

/// How a dedup run ended.
#[derive(Debug)]
pub enum DedupOutcome {
    /// Every output is written.
    Finished(Box<Concluded>),
    /// A shard's documents are kept in its output folder for the merge.
    Shard(ShardDone),
    /// Stopped by the cancellation hook while reading: the checkpoints are kept, and the same
    /// request again finishes the run.
    Interrupted {
        /// Inputs whose checkpoint is written.
        checkpointed: usize,
        /// Inputs of the run.
        inputs: usize,
    },
}

/// What a shard kept.
#[derive(Debug)]
pub struct ShardDone {
    /// Which shard.
    pub spec: ShardSpec,
    /// Inputs read or found unreadable by this shard.
    pub inputs: usize,
    /// Inputs of the whole run.
    pub all_inputs: usize,
    /// Documents read.
    pub documents: usize,
    /// How the reading went.
    pub tally: ReadTally,
}

/// The checked settings of a run.
struct Setup {
    inputs: InputSet,
    dedup: DedupConfig,
    extractor: ExtractorBuilder,
    reader: ReaderConfig,
    phrases: Option<SketchConfig>,
    reuse: Option<ReuseConfig>,
}

impl Setup {
    /// Expands the inputs and checks every setting before any thread starts.
    fn new(req: &DedupRequest) -> Result<Self> {
        let inputs = InputSet::expand(&req.inputs)?;
        let dedup = req.judging.config()?;
        let extractor = ExtractorBuilder::new().method(req.method);
        extractor.clone().build()?;
        let reader = ReaderConfig {
            threads: req.threads,
            ..ReaderConfig::default()
        };
        if req.shard.is_some() && req.reuse {
            let why = "--reuse needs every document in one run: run it without --shard, or run \
                       crawlsift reuse over the inputs";
            return Err(Error::Usage(why.into()));
        }
        if req.shard.is_some() && req.links {
            let why = "--links needs every page in one run: run it without --shard, or run \
                       crawlsift links over the inputs";
            return Err(Error::Usage(why.into()));
        }
        if req.shard.is_some() && inputs.inputs.iter().any(|i| matches!(i, Input::Stdin)) {
            let why = "--shard reads files: standard input (-) cannot be split or merged";
            return Err(Error::Usage(why.into()));
        }
        Ok(Setup {
            inputs,
            dedup,
            extractor,
            reader,
            phrases: req.phrases.then(SketchConfig::default),
            reuse: req.reuse.then(ReuseConfig::default),
        })
    }

    /// For a shard, which inputs it reads.
    fn mine(&self, shard: Option<ShardSpec>) -> Option<Vec<bool>> {
        let spec = shard?;
        let sizes = self.inputs.list().sizes;
        let owner = assign(&sizes, spec.count);
        Some(owner.into_iter().map(|s| s == spec.index).collect())
    }

    /// What makes this run the same run as another (a resumed one, or another shard of it).
    fn key(&self, req: &DedupRequest) -> RunKey {
        // `--reuse` keeps the texts too: a replayed input's reuse sketches are made from them.
        let keep_text = req.text.is_some() || req.reuse;
        let mut key = RunKey::new(&self.inputs, req.method.as_str(), &self.dedup, keep_text);
        key.phrases = self.phrases.clone();
        key.links = req.links;
        key
    }
}

/// Runs a dedup: reads every input (or a shard's), then clusters and writes every output, or
/// keeps the shard for a merge.
pub fn run(req: &DedupRequest, hooks: &Hooks<'_>) -> Result<DedupOutcome> {
    let started = Instant::now();
    let started_at = unix_seconds();
    let setup = Setup::new(req)?;
    if req.shard.is_some() && req.against.is_some() {
        let why = "--against is the merge's to do: a shard only reads";
        return Err(Error::Usage(why.into()));
    }
    let against = req.against.as_deref();
    let against = against.map(|i| open_index(i, &setup.dedup)).transpose()?;
    let mut checkpoints = open_outputs(req, &setup, hooks)?;
    let times = StageTimes::default();
    let mine = setup.mine(req.shard);
    let collected = read(
        req,
        &setup,
        &mut checkpoints,
        &times,
        mine.as_deref(),
        hooks,
    )?;
    for line in collected.spilled() {
        (hooks.notice)(&line);
    }
    if (hooks.cancelled)() {
        drop(collected); // removes the text spill
        checkpoints.flush()?;
        return Ok(DedupOutcome::Interrupted {
            checkpointed: checkpoints.count(),
            inputs: setup.inputs.inputs.len(),
        });
    }
    if let (Some(spec), Some(mine)) = (req.shard, &mine) {
        return finish_shard(req, &setup, spec, mine, collected, checkpoints);
    }
    let outputs = RunOutputs {
        out: &req.out,
        text: req.text.as_deref(),
        drop_repeats: req.drop_popular_phrases,
        quiet: req.quiet,
        format: req.format,
        method: req.method,
    };
    let ctx = RunContext {
        inputs: &setup.inputs,
        threads: req.threads,
        dedup: &setup.dedup,
        extractor: &setup.extractor,
        against: against.as_ref(),
    };
    let run = (started, started_at);
    let done = conclude(&outputs, &ctx, collected, checkpoints, &times, run)?;
    Ok(DedupOutcome::Finished(Box::new(done)))
}

/// Checks that every output can be written (the output folder, created if missing, then the
/// text file) and opens the folder's checkpoints: an unfinished run with the same key is
/// resumed; anything else needs `force`. All of this happens before any input is read, so an
/// output that cannot be written leaves nothing behind.
fn open_outputs(req: &DedupRequest, setup: &Setup, hooks: &Hooks<'_>) -> Result<Checkpoints> {
    let made = !req.out.exists();
    output::writable_dir(&req.out)?;
    if let Some(text) = req.text.as_ref().filter(|_| req.shard.is_none()) {
        // The text file may be inside the output folder, so it is checked second; a folder made
        // only now is removed again when the text file cannot be written.
        if let Err(e) = output::check_writable(text) {
            if made {
                let _ = std::fs::remove_dir(&req.out);
            }
            return Err(e);
        }
    }
    let key = setup.key(req);
    if !Checkpoints::resumable(&req.out, &key) {
        refuse_old_outputs(&req.out, req.force)?;
        if req.links {
            let graph = GRAPH_FILES.iter().map(|f| req.out.join(f));
            output::refuse_existing(graph, req.force)?;
        }
    }
    let (checkpoints, resuming) = Checkpoints::open(&req.out, &key, req.force)?;
    if resuming {
        (hooks.notice)(&format!(
            "resuming an unfinished run: {} of {} inputs are checkpointed",
            checkpoints.count(),
            setup.inputs.inputs.len()
        ));
    }
    Ok(checkpoints)
}

/// Reads, extracts and fingerprints every input, telling `hooks` the progress.
fn read(
    req: &DedupRequest,
    setup: &Setup,
    checkpoints: &mut Checkpoints,
    times: &StageTimes,
    only: Option<&[bool]>,
    hooks: &Hooks<'_>,
) -> Result<Collected> {
    hooks.progress.start(setup.inputs.total_bytes());
    let spill = match &req.text {
        Some(_) => Some(TextSpill::create(
            &TextSpill::path_in(&req.out),
            setup.inputs.list().names,
        )?),
        None => None,
    };
    let settings = DedupSettings {
        inputs: &setup.inputs,
        reader: &setup.reader,
        extractor: &setup.extractor,
        dedup: &setup.dedup,
        threads: req.threads,
        only,
        phrases: setup.phrases.as_ref(),
        reuse: setup.reuse.as_ref().map(|c| (c, req.out.as_path())),
        links: req.links,
    };
    let read_hooks = DedupHooks {
        cancelled: hooks.cancelled,
        progress: &|bytes, docs| hooks.progress.update(bytes, docs),
        times,
    };
    let clusterer = Clusterer::new(&setup.dedup)?;
    // A shard writes whole fingerprints into its segments and `against` searches with them:
    // those keep every word profile in memory; a run that only clusters spills past `memory`.
    let spill_to = (req.shard.is_none() && req.against.is_none()).then_some(req.out.as_path());
    let held = (clusterer, MemoryBudget::new(req.memory, spill_to));
    let collected = read_documents_into(&settings, &read_hooks, checkpoints, spill, held, None);
    hooks.progress.finish();
    collected
}

/// Ends a shard: its inputs' checkpoints stay in its output folder, and `shard.json` says which
/// inputs it read (or could not read) for the merge.
fn finish_shard(
    req: &DedupRequest,
    setup: &Setup,
    spec: ShardSpec,
    mine: &[bool],
    collected: Collected,
    mut checkpoints: Checkpoints,
) -> Result<DedupOutcome> {
    let reports = &collected.reports;
    let (mut held, mut failed) = (Vec::new(), Vec::new());
    for (f, r) in reports.iter().enumerate() {
        match r {
            Some(Ok(_)) if checkpoints.has(f as u32) => held.push(f as u32),
            Some(Err(e)) => failed.push((f as u32, e.clone())),
            Some(Ok(_)) | None if mine[f] => {
                let name = setup.inputs.name(f as u32);
                return Err(Error::failed(format!("input {name} was not checkpointed")));
            }
            _ => {}
        }
    }
    let tally = setup.inputs.tally(reports, req.quiet);
    let documents = collected.catalog.documents();
    drop(collected); // removes the text spill: the texts are in the checkpoints
    checkpoints.flush()?;
    let manifest = ShardManifest {
        format: SHARD_FORMAT,
        key: setup.key(req),
        shard: spec,
        inputs: setup.inputs.list(),
        held,
        failed,
    };
    manifest.write(&req.out)?;
    Ok(DedupOutcome::Shard(ShardDone {
        spec,
        inputs: manifest.held.len() + manifest.failed.len(),
        all_inputs: mine.len(),
        documents,
        tally,
    }))
}
