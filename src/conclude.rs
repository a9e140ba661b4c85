//! The end of a dedup run, shared by `crawlsift dedup` and `crawlsift merge`: from the collected
//! documents to clusters, the output files, the reports and the closing summary. A merge gives it
//! what it replayed from the shards, a single run what it read: the same steps make the same bytes.

use crate::ExitCode;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::bail;
use crawlsift_dedup::{Clusterer, Clustering, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_pipeline::against::search_against;
use crawlsift_pipeline::checkpoint::Checkpoints;
use crawlsift_pipeline::collect::Collected;
use crawlsift_pipeline::dedup::StageTimes;
use crawlsift_pipeline::html::{largest_pairs, write_html, zipf_curves, ZipfCurves};
use crawlsift_pipeline::output::AtomicFile;
use crawlsift_pipeline::phrases::analyze_run;
use crawlsift_pipeline::report::{
    build_report, peak_rss_bytes, rfc3339, ReportParts, RunInfo, Timings,
};
use crawlsift_pipeline::verdict::Verdicts;
use crawlsift_pipeline::write::{
    write_outputs, CLUSTERS_FILE, DOCUMENTS_FILE, HTML_FILE, OUTPUT_FILES, REPORT_FILE,
};
use crawlsift_pipeline::{InputSet, ReadTally};
use crawlsift_store::Index;

/// Where a run writes and how it talks.
pub(crate) struct RunOutputs<'a> {
    /// The subcommand (`dedup` or `merge`), for the summary.
    pub command: &'static str,
    /// The output folder.
    pub out: &'a Path,
    /// The clean corpus file (`--text`), if asked for.
    pub text: Option<&'a Path>,
    /// `--drop-popular-phrases`: the clean corpus loses sentences earlier kept documents hold.
    pub drop_repeats: bool,
    /// No summary on stderr.
    pub quiet: bool,
    /// The main-text method the documents were extracted with.
    pub method: Method,
}

/// The settings the end of a run needs.
pub(crate) struct RunContext<'a> {
    /// The inputs, in order.
    pub inputs: &'a InputSet,
    /// Threads for clustering and writing.
    pub threads: usize,
    /// Fingerprinting and clustering settings.
    pub dedup: &'a DedupConfig,
    /// The extractor settings (for the report's side-by-side pairs).
    pub extractor: &'a ExtractorBuilder,
    /// The index this run's documents are searched in (`dedup --against`).
    pub against: Option<&'a Index>,
}

/// Clusters what was collected, writes every output and the reports, removes the run's
/// checkpoints and prints the summary; returns the exit status.
#[allow(clippy::too_many_arguments)]
pub(crate) fn conclude(
    run: &RunOutputs<'_>,
    ctx: &RunContext<'_>,
    collected: Collected,
    checkpoints: Checkpoints,
    times: &StageTimes,
    started: Instant,
    started_at: u64,
) -> anyhow::Result<ExitCode> {
    let Collected {
        clusterer,
        catalog,
        skipped,
        spill,
        reports,
        phrases,
    } = collected;
    let tally = ctx.inputs.tally(&reports, run.quiet);
    let read_done = started.elapsed();
    let against = match ctx.against {
        Some(ix) => {
            let how = (ctx.dedup.threshold, ctx.threads);
            Some(search_against(
                ix, &clusterer, &catalog, ctx.inputs, how, run.out,
            )?)
        }
        None => None,
    };
    // Sections of report.json beyond the run's own: each named, in a fixed order.
    let mut sections: Vec<(&str, serde_json::Value)> = Vec::new();
    if let Some(a) = &against {
        sections.push(("against", serde_json::to_value(a)?));
    }
    let clustered = cluster(clusterer, ctx.threads)?;
    let verdicts = Verdicts::new(&clustered.clustering, catalog.documents());

    // Everything below writes outputs: each appears whole or not at all.
    let write_start = Instant::now();
    let text = run.text.zip(spill);
    let dropped = write_outputs(
        run.out,
        &clustered.clustering,
        &catalog,
        ctx.inputs,
        text,
        run.drop_repeats,
        ctx.threads,
    )?;
    if let Some(d) = dropped {
        sections.push(("drop_popular_phrases", serde_json::to_value(&d)?));
    }
    if let Some(store) = phrases {
        let c = &clustered.clustering;
        let report = analyze_run(run.out, &store, c, &catalog, ctx.inputs, ctx.threads)?;
        sections.push(("phrases", serde_json::to_value(&report)?));
    }
    let timings = Timings {
        read_done,
        cluster: clustered.took,
        write: write_start.elapsed(),
        total: started.elapsed(),
    };
    let parts = ReportParts {
        reports: &reports,
        inputs: ctx.inputs,
        tally: &tally,
        skipped: &skipped,
        clustering: &clustered.clustering,
        documents: catalog.documents(),
        cfg: ctx.dedup,
        threads: ctx.threads,
        times,
        timings,
        input_bytes: ctx.inputs.total_bytes(),
        index_bytes: clustered.index_bytes,
        peak_memory_bytes: peak_rss_bytes(),
        run: &RunInfo {
            tool: format!("crawlsift {}", env!("CARGO_PKG_VERSION")),
            command_line: std::env::args().collect(),
            extraction_method: run.method.as_str().to_string(),
            started: rfc3339(started_at),
            ended: rfc3339(unix_seconds()),
        },
        catalog: &catalog,
        verdicts: &verdicts,
    };
    write_report(run.out, &parts, &clustered.zipf, ctx.extractor, &sections)?;
    checkpoints.finish()?;
    if !run.quiet {
        print_summary(run, &parts);
        if let Some(a) = &against {
            eprintln!("  against:   {}", a.summary(run.out));
        }
    }
    // A Ctrl-C that comes once every input is read no longer stops anything: the outputs above
    // are whole, and the status says how the reading went.
    Ok(crate::exit_code(false, &tally))
}

/// What clustering gave, with the time it took.
struct Clustered {
    clustering: Clustering,
    index_bytes: f64,
    took: Duration,
    /// The Zipf curves of the words before and after dedup, for `report.html`.
    zipf: ZipfCurves,
}

/// Clusters every document on `threads` threads, then counts their words for the Zipf curves
/// (before the fingerprints are dropped); fails when spilled word profiles could not be written or
/// read back.
fn cluster(clusterer: Clusterer, threads: usize) -> anyhow::Result<Clustered> {
    let start = Instant::now();
    let index_bytes = clusterer.index_bytes_per_document();
    let clustering = clusterer.cluster_on(threads)?;
    let took = start.elapsed();
    let zipf = zipf_curves(
        &clusterer,
        &Verdicts::new(&clustering, clusterer.len()),
        threads,
    )?;
    Ok(Clustered {
        clustering,
        index_bytes,
        took,
        zipf,
    })
}

/// Writes `report.html` and then `report.json` (with `sections` added at its end) (each whole or not at all; `report.json`, last,
/// says the run finished).
fn write_report(
    out: &Path,
    parts: &ReportParts<'_>,
    zipf: &ZipfCurves,
    extractor: &ExtractorBuilder,
    sections: &[(&str, serde_json::Value)],
) -> anyhow::Result<()> {
    let report = build_report(parts);
    let pairs = largest_pairs(parts, extractor);
    write_html(&out.join(HTML_FILE), parts, &report, zipf, &pairs)?;
    let mut json = serde_json::to_value(&report)?;
    if let Some(obj) = json.as_object_mut() {
        for (name, value) in sections {
            obj.insert((*name).to_string(), value.clone());
        }
    }
    let mut f = AtomicFile::create(&out.join(REPORT_FILE))?;
    serde_json::to_writer_pretty(&mut f, &json)?;
    f.write_all(b"\n")?;
    f.commit()
}

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Refuses to overwrite an earlier run's outputs in `out` without `force`.
pub(crate) fn refuse_old_outputs(out: &Path, force: bool) -> anyhow::Result<()> {
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
fn print_summary(run: &RunOutputs<'_>, p: &ReportParts<'_>) {
    let st = &p.clustering.stats;
    let tally: &ReadTally = p.tally;
    eprintln!(
        "crawlsift {}: {} documents from {} records in {:.1} s; {} clusters, {} duplicates ({} exact, {} near), {} too short to judge, {} mostly template text",
        run.command,
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
    eprintln!("  clusters:  {}", run.out.join(CLUSTERS_FILE).display());
    eprintln!("  documents: {}", run.out.join(DOCUMENTS_FILE).display());
    eprintln!("  report:    {}", run.out.join(REPORT_FILE).display());
    eprintln!("  html:      {}", run.out.join(HTML_FILE).display());
    if let Some(t) = run.text {
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
