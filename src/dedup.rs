//! `crawlsift dedup`: the main job. Reads archives, extracts each page's main text, fingerprints
//! it and writes clusters of exact and near-duplicate documents, with a report.
//!
//! The work is `crawlsift_pipeline`'s; this module parses the arguments and runs the steps:
//! set up, open the output folder (resuming an unfinished run), read, cluster, write, report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context};
use clap::Args;
use crawlsift_common::limits;
use crawlsift_dedup::{Clusterer, Clustering, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_phrases::SketchConfig;
use crawlsift_pipeline::checkpoint::{Checkpoints, RunKey};
use crawlsift_pipeline::collect::Collected;
use crawlsift_pipeline::dedup::{read_documents, DedupHooks, DedupSettings, StageTimes};
use crawlsift_pipeline::html::{largest_pairs, write_html, zipf_curves, ZipfCurves};
use crawlsift_pipeline::output::{self, AtomicFile};
use crawlsift_pipeline::phrases::{analyze_run, with_phrases, PhraseReport};
use crawlsift_pipeline::report::{
    build_report, peak_rss_bytes, rfc3339, ReportParts, RunInfo, Timings,
};
use crawlsift_pipeline::verdict::Verdicts;
use crawlsift_pipeline::write::{
    write_outputs, TextSpill, CLUSTERS_FILE, DOCUMENTS_FILE, HTML_FILE, OUTPUT_FILES, REPORT_FILE,
};
use crawlsift_pipeline::{InputSet, ReadTally};
use crawlsift_reader::ReaderConfig;

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
    /// Near-duplicates share at least this much of their words: the Dice coefficient of their
    /// word multisets outside site-template lines, 2|A∩B| / (|A|+|B|), in (0, 1].
    #[arg(long, value_name = "SHARE", default_value_t = limits::DEDUP_THRESHOLD)]
    pub threshold: f64,
    /// Texts with fewer words are too short to judge: reported, and clustered only with their
    /// exact copies.
    #[arg(long, value_name = "WORDS", default_value_t = limits::DEDUP_MIN_WORDS)]
    pub min_words: usize,
    /// Also find phrase-level duplication: pages stitched from sentences of many other pages
    /// (`slice_and_dice.jsonl`, `popular_phrases.jsonl`, `phrases` in `report.json`).
    #[arg(long)]
    pub phrases: bool,
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
        let dedup = DedupConfig {
            threshold: args.threshold,
            min_words: args.min_words,
            ..DedupConfig::default()
        };
        // The configuration comes from the arguments alone: one the clusterer refuses is a usage
        // error.
        Clusterer::new(&dedup).map_err(|e| crate::UsageError(e.to_string()))?;
        let extractor = ExtractorBuilder::new().method(args.method);
        extractor
            .clone()
            .build()
            .context("extractor configuration")?;
        let reader = ReaderConfig {
            threads,
            ..ReaderConfig::default()
        };
        Ok(Setup {
            inputs,
            threads,
            dedup,
            extractor,
            reader,
            phrases: args.phrases.then(SketchConfig::default),
        })
    }
}

/// What clustering gave, with the time it took.
struct Clustered {
    clustering: Clustering,
    index_bytes: f64,
    took: Duration,
    /// The Zipf curves of the words before and after dedup, for `report.html`.
    zipf: ZipfCurves,
}

/// Runs `crawlsift dedup`.
pub fn run(args: DedupArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let started_at = unix_seconds();
    let setup = Setup::new(&args)?;
    let mut checkpoints = open_outputs(&args, &setup)?;
    let times = StageTimes::default();
    let collected = read(&args, &setup, &mut checkpoints, &times)?;
    if crate::cancelled() {
        drop(collected); // removes the text spill
        return interrupted(&args, &setup, checkpoints);
    }
    let Collected {
        clusterer,
        catalog,
        skipped,
        spill,
        reports,
        phrases,
    } = collected;
    let tally = setup.inputs.tally(&reports, args.quiet);
    let read_done = started.elapsed();
    let clustered = cluster(clusterer, setup.threads);
    let verdicts = Verdicts::new(&clustered.clustering, catalog.documents());

    // Everything below writes outputs: each appears whole or not at all.
    let write_start = Instant::now();
    let text = args.text.as_deref().zip(spill);
    write_outputs(
        &args.out,
        &clustered.clustering,
        &catalog,
        &setup.inputs,
        text,
        setup.threads,
    )?;
    let phrase_report = phrases
        .map(|store| {
            let c = &clustered.clustering;
            analyze_run(&args.out, &store, c, &catalog, &setup.inputs, setup.threads)
        })
        .transpose()?;
    let timings = Timings {
        read_done,
        cluster: clustered.took,
        write: write_start.elapsed(),
        total: started.elapsed(),
    };
    let parts = ReportParts {
        reports: &reports,
        inputs: &setup.inputs,
        tally: &tally,
        skipped: &skipped,
        clustering: &clustered.clustering,
        documents: catalog.documents(),
        cfg: &setup.dedup,
        threads: setup.threads,
        times: &times,
        timings,
        input_bytes: setup.inputs.total_bytes(),
        index_bytes: clustered.index_bytes,
        peak_memory_bytes: peak_rss_bytes(),
        run: &RunInfo {
            tool: format!("crawlsift {}", env!("CARGO_PKG_VERSION")),
            command_line: std::env::args().collect(),
            extraction_method: args.method.as_str().to_string(),
            started: rfc3339(started_at),
            ended: rfc3339(unix_seconds()),
        },
        catalog: &catalog,
        verdicts: &verdicts,
    };
    write_report(
        &args.out,
        &parts,
        &clustered.zipf,
        &setup.extractor,
        phrase_report.as_ref(),
    )?;
    checkpoints.finish()?;
    if !args.quiet {
        print_summary(&args, &parts);
    }
    // A Ctrl-C that comes once every input is read no longer stops anything: the outputs above
    // are whole, and the status says how the reading went.
    Ok(crate::exit_code(false, &tally))
}

/// Checks that every output can be written (the output folder, created if missing, then the
/// `--text` file) and opens the folder's checkpoints: an unfinished run with the same arguments is
/// resumed; anything else needs `--force`. All of this happens before any input is read, so an
/// output that cannot be written leaves nothing behind.
fn open_outputs(args: &DedupArgs, setup: &Setup) -> anyhow::Result<Checkpoints> {
    let made = !args.out.exists();
    output::writable_dir(&args.out)?;
    if let Some(text) = &args.text {
        // The text file may be inside the output folder, so it is checked second; a folder made
        // only now is removed again when the text file cannot be written.
        if let Err(e) = output::check_writable(text) {
            if made {
                let _ = std::fs::remove_dir(&args.out);
            }
            return Err(e);
        }
    }
    let mut key = RunKey::new(
        &setup.inputs,
        args.method.as_str(),
        &setup.dedup,
        args.text.is_some(),
    );
    key.phrases = setup.phrases.clone();
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
) -> anyhow::Result<Collected> {
    let progress = Progress::new(setup.inputs.total_bytes(), args.quiet);
    let spill = match &args.text {
        Some(_) => Some(TextSpill::create(&TextSpill::path_in(&args.out))?),
        None => None,
    };
    let settings = DedupSettings {
        inputs: &setup.inputs,
        reader: &setup.reader,
        extractor: &setup.extractor,
        dedup: &setup.dedup,
        threads: setup.threads,
        phrases: setup.phrases.as_ref(),
    };
    let hooks = DedupHooks {
        cancelled: &crate::cancelled,
        progress: &|bytes, docs| progress.update(bytes, docs),
        times,
    };
    let collected = read_documents(&settings, &hooks, checkpoints, spill);
    progress.finish();
    collected
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

/// Clusters every document on `threads` threads, then counts their words for the Zipf curves
/// (before the fingerprints are dropped).
fn cluster(clusterer: Clusterer, threads: usize) -> Clustered {
    let start = Instant::now();
    let index_bytes = clusterer.index_bytes_per_document();
    let clustering = clusterer.cluster_on(threads);
    let took = start.elapsed();
    let zipf = zipf_curves(
        &clusterer,
        &Verdicts::new(&clustering, clusterer.len()),
        threads,
    );
    Clustered {
        clustering,
        index_bytes,
        took,
        zipf,
    }
}

/// Writes `report.html` and then `report.json` (each whole or not at all; `report.json`, last,
/// says the run finished).
fn write_report(
    out: &Path,
    parts: &ReportParts<'_>,
    zipf: &ZipfCurves,
    extractor: &ExtractorBuilder,
    phrases: Option<&PhraseReport>,
) -> anyhow::Result<()> {
    let report = build_report(parts);
    let pairs = largest_pairs(parts, extractor);
    write_html(&out.join(HTML_FILE), parts, &report, zipf, &pairs)?;
    let mut f = AtomicFile::create(&out.join(REPORT_FILE))?;
    serde_json::to_writer_pretty(&mut f, &with_phrases(&report, phrases)?)?;
    f.write_all(b"\n")?;
    f.commit()
}

/// Seconds since the Unix epoch, now.
fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Refuses to overwrite an earlier run's outputs in `out` without `force`.
fn refuse_old_outputs(out: &Path, force: bool) -> anyhow::Result<()> {
    let existing: Vec<&str> = OUTPUT_FILES
        .iter()
        .copied()
        .filter(|f| out.join(f).exists())
        .collect();
    if !existing.is_empty() && !force {
        bail!(
            "{} already holds outputs of a run ({}); pass --force to overwrite them",
            out.display(),
            existing.join(", ")
        );
    }
    Ok(())
}

/// The closing summary on stderr.
fn print_summary(args: &DedupArgs, p: &ReportParts<'_>) {
    let st = &p.clustering.stats;
    let tally: &ReadTally = p.tally;
    eprintln!(
        "crawlsift dedup: {} documents from {} records in {:.1} s; {} clusters, {} duplicates ({} exact, {} near), {} too short to judge, {} mostly template text",
        p.documents,
        tally.records,
        p.timings.total.as_secs_f64(),
        st.clusters,
        st.exact_duplicates + st.near_duplicates,
        st.exact_duplicates,
        st.near_duplicates,
        st.too_short,
        st.boilerplate,
    );
    eprintln!("  clusters:  {}", args.out.join(CLUSTERS_FILE).display());
    eprintln!("  documents: {}", args.out.join(DOCUMENTS_FILE).display());
    eprintln!("  report:    {}", args.out.join(REPORT_FILE).display());
    eprintln!("  html:      {}", args.out.join(HTML_FILE).display());
    if let Some(t) = &args.text {
        eprintln!("  text:      {}", t.display());
    }
    if !tally.skipped_inputs.is_empty() {
        let kinds: Vec<String> = tally
            .skipped_inputs
            .iter()
            .map(|(k, n)| format!("{k}={n}"))
            .collect();
        eprintln!("  skipped inputs: {}", kinds.join(" "));
    }
}
