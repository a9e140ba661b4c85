//! The end of a dedup run, shared by [`super::dedup`] and [`super::merge`]: from the collected
//! documents to clusters, the output files and the reports. A merge gives it what it replayed
//! from the shards, a single run what it read: the same steps make the same bytes.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crawlsift_common::budget::MemoryBudget;
use crawlsift_dedup::{ClusterStats, Clusterer, Clustering, DedupConfig};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_store::Index;

use super::against::{search_against, AgainstCounts};
use super::read::StageTimes;
use crate::checkpoint::Checkpoints;
use crate::collect::Collected;
use crate::columns::LineFormat;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::html::{largest_pairs, write_html, zipf_curves, ZipfCurves};
use crate::output::AtomicFile;
use crate::phrases::analyze_run;
use crate::report::{build_report, peak_rss_bytes, rfc3339, ReportParts, RunInfo, Timings};
use crate::reuse::ReuseSummary;
use crate::verdict::Verdicts;
use crate::write::{
    documents_file, write_outputs, CleanCorpus, CLUSTERS_FILE, HTML_FILE, OUTPUT_FILES, REPORT_FILE,
};

/// What a finished run did, for its caller's summary.
#[derive(Debug)]
pub struct Concluded {
    /// How the reading went.
    pub tally: ReadTally,
    /// Documents clustered.
    pub documents: usize,
    /// The clustering's counters.
    pub stats: ClusterStats,
    /// Matches in the index of `against`, when asked for.
    pub against: Option<AgainstCounts>,
    /// The run's whole time.
    pub took: Duration,
    /// The per-record file's name in the output folder (`documents.jsonl.gz` or
    /// `documents.parquet`).
    pub documents_file: &'static str,
}

impl Concluded {
    /// The closing summary of a finished `command` (`dedup`, `merge`) writing into `out` (and the
    /// clean corpus into `text`), a line each, without line ends.
    pub fn summary_lines(&self, command: &str, out: &Path, text: Option<&Path>) -> Vec<String> {
        let (st, tally) = (&self.stats, &self.tally);
        let mut lines = vec![format!(
            "crawlsift {command}: {} documents from {} records in {:.1} s; {} clusters, {} \
             duplicates ({} exact, {} near), {} too short to judge, {} mostly template text",
            self.documents,
            tally.records,
            self.took.as_secs_f64(),
            st.clusters,
            st.exact_duplicates + st.near_duplicates,
            st.exact_duplicates,
            st.near_duplicates,
            st.too_short,
            st.boilerplate,
        )];
        let files = [
            ("clusters: ", Some(out.join(CLUSTERS_FILE))),
            ("documents:", Some(out.join(self.documents_file))),
            ("report:   ", Some(out.join(REPORT_FILE))),
            ("html:     ", Some(out.join(HTML_FILE))),
            ("text:     ", text.map(Path::to_path_buf)),
        ];
        for (label, path) in files {
            if let Some(p) = path {
                lines.push(format!("  {label} {}", p.display()));
            }
        }
        if !tally.skipped_inputs.is_empty() {
            let kinds: Vec<String> = tally
                .skipped_inputs
                .iter()
                .map(|(k, n)| format!("{k}={n}"))
                .collect();
            lines.push(format!("  skipped inputs: {}", kinds.join(" ")));
        }
        if let Some(a) = &self.against {
            lines.push(format!("  against:   {}", a.summary(out)));
        }
        lines
    }
}

/// Where a run writes and how it talks.
pub struct RunOutputs<'a> {
    /// The output folder.
    pub out: &'a Path,
    /// The clean corpus file (`--text`), if asked for.
    pub text: Option<&'a Path>,
    /// `--drop-popular-phrases`: the clean corpus loses sentences earlier kept documents hold.
    pub drop_repeats: bool,
    /// No notes on stderr about inputs that are no archives.
    pub quiet: bool,
    /// The main-text method the documents were extracted with.
    pub method: Method,
    /// How `documents` is written.
    pub format: LineFormat,
}

/// The settings the end of a run needs.
pub struct RunContext<'a> {
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

/// Clusters what was collected, writes every output and the reports and removes the run's
/// checkpoints; `started` is when the run started (its instant and Unix time).
pub(crate) fn conclude(
    run: &RunOutputs<'_>,
    ctx: &RunContext<'_>,
    collected: Collected,
    checkpoints: Checkpoints,
    times: &StageTimes,
    (started, started_at): (Instant, u64),
) -> Result<Concluded> {
    let Collected {
        clusterer,
        budget,
        catalog,
        skipped,
        spill,
        reports,
        phrases,
        reuse,
        links,
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
    // The web graph (`--links`) is numbered on a thread of its own while the documents are
    // clustered.
    let (clustered, links) = std::thread::scope(|s| {
        let numbering = links.map(|g| s.spawn(move || g.finish(ctx.threads)));
        let clustered = cluster(clusterer, &budget, ctx.threads);
        let links = numbering.map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        (clustered, links)
    });
    let clustered = clustered?;
    let verdicts = Verdicts::new(&clustered.clustering, catalog.documents());

    // Everything below writes outputs: each appears whole or not at all.
    let write_start = Instant::now();
    let (dropped, graph) = std::thread::scope(|s| {
        let text = run.text.zip(spill).map(|(path, spill)| CleanCorpus {
            path,
            spill,
            graph: links.as_ref().map(|l| &l.graph),
        });
        let graph = links.as_ref().map(|l| s.spawn(|| l.write(run.out)));
        let dropped = write_outputs(
            (run.out, run.format),
            &clustered.clustering,
            &catalog,
            ctx.inputs,
            text,
            run.drop_repeats,
            ctx.threads,
        );
        let graph = graph.map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        (dropped, graph.transpose())
    });
    let dropped = dropped?;
    if let Some(g) = graph? {
        sections.push(("links", serde_json::to_value(&g)?));
    }
    if let Some(d) = dropped {
        sections.push(("drop_popular_phrases", serde_json::to_value(&d)?));
    }
    if let Some(store) = phrases {
        let c = &clustered.clustering;
        let report = analyze_run(run.out, &store, c, &catalog, ctx.inputs, ctx.threads)?;
        sections.push(("phrases", serde_json::to_value(&report)?));
    }
    let reuse = match reuse {
        Some(gatherer) => {
            let mut summary = ReuseSummary::default();
            gatherer.finish(ctx.threads, ctx.inputs, &mut summary)?;
            sections.push(("reuse", serde_json::to_value(&summary)?));
            Some(summary)
        }
        None => None,
    };
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
    let html = HtmlParts {
        zipf: &clustered.zipf,
        extractor: ctx.extractor,
        reuse: reuse.as_ref(),
    };
    write_report(run.out, &parts, &html, &sections)?;
    checkpoints.finish()?;
    // A Ctrl-C that comes once every input is read no longer stops anything: the outputs above
    // are whole, and the tally says how the reading went.
    let took = parts.timings.total;
    let (documents, stats) = (parts.documents, clustered.clustering.stats.clone());
    Ok(Concluded {
        tally,
        documents,
        stats,
        against,
        took,
        documents_file: documents_file(run.format),
    })
}

/// What clustering gave, with the time it took.
struct Clustered {
    clustering: Clustering,
    index_bytes: f64,
    took: Duration,
    /// The Zipf curves of the words before and after dedup, for `report.html`.
    zipf: ZipfCurves,
}

/// Clusters every document on `threads` threads within what `budget` leaves, then counts their words for the Zipf curves
/// (before the fingerprints are dropped); fails when spilled word profiles could not be written or
/// read back.
fn cluster(clusterer: Clusterer, budget: &MemoryBudget, threads: usize) -> Result<Clustered> {
    let start = Instant::now();
    let index_bytes = clusterer.index_bytes_per_document();
    let clustering = clusterer.cluster_within(threads, budget)?;
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

/// What `report.html` shows beside the report's figures.
struct HtmlParts<'a> {
    zipf: &'a ZipfCurves,
    /// To read the largest clusters' texts again.
    extractor: &'a ExtractorBuilder,
    reuse: Option<&'a ReuseSummary>,
}

/// Writes `report.html` and then `report.json` (with `sections` added at its end) (each whole or not at all; `report.json`, last,
/// says the run finished).
fn write_report(
    out: &Path,
    parts: &ReportParts<'_>,
    html: &HtmlParts<'_>,
    sections: &[(&str, serde_json::Value)],
) -> Result<()> {
    let report = build_report(parts);
    let pairs = largest_pairs(parts, html.extractor);
    write_html(
        &out.join(HTML_FILE),
        parts,
        &report,
        html.zipf,
        &pairs,
        html.reuse,
    )?;
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
pub(crate) fn refuse_old_outputs(out: &Path, force: bool) -> Result<()> {
    let existing: Vec<&str> = OUTPUT_FILES
        .iter()
        .copied()
        .filter(|f| out.join(f).exists())
        .collect();
    if !existing.is_empty() && !force {
        return Err(Error::OutputsExist {
            dir: out.to_path_buf(),
            files: existing.iter().map(|f| f.to_string()).collect(),
        });
    }
    Ok(())
}
