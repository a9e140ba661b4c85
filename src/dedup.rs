//! `crawlsift dedup`: the main job. Reads archives, extracts each page's main text, fingerprints
//! it and writes clusters of exact and near-duplicate documents, with a report.
//!
//! The work is `crawlsift_pipeline`'s; this module parses the arguments and runs the steps:
//! set up, open the output folder (resuming an unfinished run), read, cluster, write, report.

use crate::ExitCode;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use crawlsift_common::limits::DEDUP_MEMORY_DEFAULT;
use crawlsift_dedup::{Clusterer, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_phrases::SketchConfig;
use crawlsift_pipeline::against::open_index;
use crawlsift_pipeline::checkpoint::{Checkpoints, RunKey};
use crawlsift_pipeline::collect::Collected;
use crawlsift_pipeline::dedup::{read_documents_into, DedupHooks, DedupSettings, StageTimes};
use crawlsift_pipeline::output;
use crawlsift_pipeline::shard::{assign, ShardManifest, ShardSpec, SHARD_FORMAT};
use crawlsift_pipeline::write::TextSpill;
use crawlsift_pipeline::InputSet;
use crawlsift_reader::{Input, ReaderConfig};
use crawlsift_store::Index;

use crate::conclude::{conclude, refuse_old_outputs, unix_seconds, RunContext, RunOutputs};
use crate::progress::Progress;

/// Arguments of `crawlsift dedup`.
#[derive(Args, Debug)]
pub struct DedupArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Also write the clean corpus: every unique document and one representative per cluster.
    #[arg(long, value_name = "FILE.jsonl.gz")]
    pub text: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Overwrite outputs of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// What makes two documents near-duplicates.
    #[command(flatten)]
    pub judging: crate::JudgingArgs,
    /// Read only shard I of N (0 <= I < N) of the inputs (split by file, the same way in every
    /// shard) and keep its documents and fingerprints in --out for `crawlsift merge`, which
    /// writes the outputs; with --text the shard keeps the texts (the merge writes the file).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<ShardSpec>,
    /// Also report which documents duplicate documents of this index (made by `crawlsift
    /// index`; its archives are not read): `against.jsonl`, and counts in `report.json`.
    #[arg(long, value_name = "IDX")]
    pub against: Option<PathBuf>,
    /// Also find phrase-level duplication: pages stitched from sentences of many other pages
    /// (`slice_and_dice.jsonl`, `popular_phrases.jsonl`, `phrases` in `report.json`).
    #[arg(long)]
    pub phrases: bool,
    /// With --text: drop from the kept texts the sentences (5 words or more) an earlier kept
    /// document already holds; `report.json` counts them (`drop_popular_phrases`).
    #[arg(long, requires = "text")]
    pub drop_popular_phrases: bool,
    /// Memory for what the run keeps per document and for clustering (e.g. 512M, 2G; default
    /// 2G): past half of it, word profiles go to a temporary file in the output folder, and
    /// clustering steps work in parts within the rest. The outputs are the same bytes whatever it
    /// is. (A shard, or a run with --against, keeps its profiles in memory.)
    #[arg(long, value_name = "SIZE", value_parser = memory_arg)]
    pub memory: Option<usize>,
}

/// A size in bytes: a number with an optional K, M, G or T (powers of 1024; a trailing B or iB
/// is allowed), at least `limits::DEDUP_MEMORY_MIN`.
pub(crate) fn memory_arg(s: &str) -> Result<usize, String> {
    let t = s.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (num, shift) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a size such as 512M or 2G"))?;
    let bytes = v * (1u64 << shift) as f64;
    let min = crawlsift_common::limits::DEDUP_MEMORY_MIN;
    if !bytes.is_finite() || bytes < min as f64 {
        return Err(format!("{s:?}: at least {} MiB", min >> 20));
    }
    Ok(bytes.min(usize::MAX as f64) as usize)
}

/// The checked settings of a run.
struct Setup {
    inputs: InputSet,
    threads: usize,
    dedup: DedupConfig,
    extractor: ExtractorBuilder,
    reader: ReaderConfig,
    phrases: Option<SketchConfig>,
}

impl Setup {
    /// Expands the inputs and checks every configuration before any thread starts.
    fn new(args: &DedupArgs) -> anyhow::Result<Self> {
        let inputs = InputSet::expand(&args.inputs)?;
        let threads = crate::threads(args.threads);
        let dedup = args.judging.config()?;
        let extractor = ExtractorBuilder::new().method(args.method);
        extractor
            .clone()
            .build()
            .context("extractor configuration")?;
        let reader = ReaderConfig {
            threads,
            ..ReaderConfig::default()
        };
        if args.shard.is_some() && inputs.inputs.iter().any(|i| matches!(i, Input::Stdin)) {
            return Err(crate::UsageError(
                "--shard reads files: standard input (-) cannot be split or merged".into(),
            )
            .into());
        }
        Ok(Setup {
            inputs,
            threads,
            dedup,
            extractor,
            reader,
            phrases: args.phrases.then(SketchConfig::default),
        })
    }

    /// What the end of the run needs of these settings.
    fn context<'a>(&'a self, against: Option<&'a Index>) -> RunContext<'a> {
        RunContext {
            inputs: &self.inputs,
            threads: self.threads,
            dedup: &self.dedup,
            extractor: &self.extractor,
            against,
        }
    }

    /// For a shard, which inputs it reads.
    fn mine(&self, shard: Option<ShardSpec>) -> Option<Vec<bool>> {
        let spec = shard?;
        let sizes = self.inputs.list().sizes;
        Some(
            assign(&sizes, spec.count)
                .into_iter()
                .map(|s| s == spec.index)
                .collect(),
        )
    }
}

/// Runs `crawlsift dedup`.
pub fn run(args: DedupArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let started_at = unix_seconds();
    let setup = Setup::new(&args)?;
    if args.shard.is_some() && args.against.is_some() {
        let why = "--against is the merge's to do: a shard only reads";
        return Err(crate::UsageError(why.into()).into());
    }
    let against = args.against.as_deref();
    let against = against.map(|i| open_index(i, &setup.dedup)).transpose()?;
    let mut checkpoints = open_outputs(&args, &setup)?;
    let times = StageTimes::default();
    let mine = setup.mine(args.shard);
    let collected = read(&args, &setup, &mut checkpoints, &times, mine.as_deref())?;
    tell_spilled("dedup", &collected, args.quiet);
    if crate::cancelled() {
        drop(collected); // removes the text spill
        return interrupted(&args, &setup, checkpoints);
    }
    if let (Some(spec), Some(mine)) = (args.shard, &mine) {
        return finish_shard(&args, &setup, spec, mine, collected, checkpoints);
    }
    let run = RunOutputs {
        command: "dedup",
        out: &args.out,
        text: args.text.as_deref(),
        drop_repeats: args.drop_popular_phrases,
        quiet: args.quiet,
        method: args.method,
    };
    conclude(
        &run,
        &setup.context(against.as_ref()),
        collected,
        checkpoints,
        &times,
        started,
        started_at,
    )
}

/// Checks that every output can be written (the output folder, created if missing, then the
/// `--text` file) and opens the folder's checkpoints: an unfinished run with the same arguments is
/// resumed; anything else needs `--force`. All of this happens before any input is read, so an
/// output that cannot be written leaves nothing behind.
fn open_outputs(args: &DedupArgs, setup: &Setup) -> anyhow::Result<Checkpoints> {
    let made = !args.out.exists();
    output::writable_dir(&args.out)?;
    if let Some(text) = args.text.as_ref().filter(|_| args.shard.is_none()) {
        // The text file may be inside the output folder, so it is checked second; a folder made
        // only now is removed again when the text file cannot be written.
        if let Err(e) = output::check_writable(text) {
            if made {
                let _ = std::fs::remove_dir(&args.out);
            }
            return Err(e);
        }
    }
    let key = run_key(args, setup);
    if !Checkpoints::resumable(&args.out, &key) {
        refuse_old_outputs(&args.out, args.force)?;
    }
    let (checkpoints, resuming) = Checkpoints::open(&args.out, &key, args.force)?;
    if resuming && !args.quiet {
        eprintln!(
            "crawlsift dedup: resuming an unfinished run: {} of {} inputs are checkpointed",
            checkpoints.count(),
            setup.inputs.inputs.len()
        );
    }
    Ok(checkpoints)
}

/// Reads, extracts and fingerprints every input, with a progress bar.
fn read(
    args: &DedupArgs,
    setup: &Setup,
    checkpoints: &mut Checkpoints,
    times: &StageTimes,
    only: Option<&[bool]>,
) -> anyhow::Result<Collected> {
    let progress = Progress::new(setup.inputs.total_bytes(), args.quiet);
    let spill = match &args.text {
        Some(_) => Some(TextSpill::create(
            &TextSpill::path_in(&args.out),
            setup.inputs.list().names,
        )?),
        None => None,
    };
    let settings = DedupSettings {
        inputs: &setup.inputs,
        reader: &setup.reader,
        extractor: &setup.extractor,
        dedup: &setup.dedup,
        threads: setup.threads,
        only,
        phrases: setup.phrases.as_ref(),
    };
    let hooks = DedupHooks {
        cancelled: &crate::cancelled,
        progress: &|bytes, docs| progress.update(bytes, docs),
        times,
    };
    let mut clusterer = Clusterer::new(&setup.dedup)?;
    // A shard writes whole fingerprints into its segments and `--against` searches with them:
    // those keep every word profile in memory; a run that only clusters spills past `--memory`.
    let spill_to = (args.shard.is_none() && args.against.is_none()).then_some(args.out.as_path());
    clusterer.bound_memory(args.memory.unwrap_or(DEDUP_MEMORY_DEFAULT), spill_to);
    let collected = read_documents_into(&settings, &hooks, checkpoints, spill, clusterer, None);
    progress.finish();
    collected
}

/// Says on stderr (unless `quiet`) what went to disk past `--memory`.
pub(crate) fn tell_spilled(command: &str, collected: &Collected, quiet: bool) {
    for line in collected.spilled().iter().filter(|_| !quiet) {
        eprintln!("crawlsift {command}: {line}");
    }
}

/// Ends a run stopped by Ctrl-C: its checkpoints are written, and running again finishes it.
fn interrupted(
    args: &DedupArgs,
    setup: &Setup,
    mut checkpoints: Checkpoints,
) -> anyhow::Result<ExitCode> {
    checkpoints.flush()?;
    eprintln!(
        "crawlsift dedup: interrupted; {} of {} inputs are checkpointed in {}; run the same command again to finish",
        checkpoints.count(),
        setup.inputs.inputs.len(),
        args.out.display()
    );
    Ok(ExitCode::from(crate::EXIT_INTERRUPTED))
}

/// Ends a shard: its inputs' checkpoints stay in its output folder, and `shard.json` says which
/// inputs it read (or could not read) for `crawlsift merge`.
fn finish_shard(
    args: &DedupArgs,
    setup: &Setup,
    spec: ShardSpec,
    mine: &[bool],
    collected: Collected,
    mut checkpoints: Checkpoints,
) -> anyhow::Result<ExitCode> {
    let reports = &collected.reports;
    let (mut held, mut failed) = (Vec::new(), Vec::new());
    for (f, r) in reports.iter().enumerate() {
        match r {
            Some(Ok(_)) if checkpoints.has(f as u32) => held.push(f as u32),
            Some(Err(e)) => failed.push((f as u32, e.clone())),
            Some(Ok(_)) | None if mine[f] => {
                anyhow::bail!("input {} was not checkpointed", setup.inputs.name(f as u32))
            }
            _ => {}
        }
    }
    let tally = setup.inputs.tally(reports, args.quiet);
    let documents = collected.catalog.documents();
    drop(collected); // removes the text spill: the texts are in the checkpoints
    checkpoints.flush()?;
    let manifest = ShardManifest {
        format: SHARD_FORMAT,
        key: run_key(args, setup),
        shard: spec,
        inputs: setup.inputs.list(),
        held,
        failed,
    };
    manifest.write(&args.out)?;
    if !args.quiet {
        eprintln!(
            "crawlsift dedup: shard {spec}: {} of {} inputs, {documents} documents, kept in {}; \
             when every shard is done: crawlsift merge DIR_0 ... DIR_{} --out OUT",
            manifest.held.len() + manifest.failed.len(),
            mine.len(),
            args.out.display(),
            spec.count - 1
        );
    }
    Ok(crate::exit_code(false, &tally))
}

/// What makes this run the same run as another (a resumed one, or another shard of it).
fn run_key(args: &DedupArgs, setup: &Setup) -> RunKey {
    let mut key = RunKey::new(
        &setup.inputs,
        args.method.as_str(),
        &setup.dedup,
        args.text.is_some(),
    );
    key.phrases = setup.phrases.clone();
    key
}

#[cfg(test)]
mod tests {
    use super::memory_arg;

    #[test]
    fn memory_sizes_parse_in_powers_of_1024() {
        assert_eq!(memory_arg("2G"), Ok(2 << 30));
        assert_eq!(memory_arg("512m"), Ok(512 << 20));
        assert_eq!(memory_arg("1.5GiB"), Ok(3 << 29));
        assert_eq!(memory_arg("20000000"), Ok(20_000_000));
        assert!(memory_arg("1K").is_err()); // below the minimum
        assert!(memory_arg("lots").is_err());
        assert!(memory_arg("-3G").is_err());
        assert!(memory_arg("").is_err());
    }
}
