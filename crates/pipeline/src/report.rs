//! `report.json` of a dedup run: the typed [`DedupReport`] (field order is output order) and
//! [`build_report`], which fills it from the run's parts ([`ReportParts`]). To report something
//! new, add a field to the struct (or to one of its parts) and fill it in `build_report`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crawlsift_dedup::{probability, ClusterStats, Clustering, DedupConfig};
use crawlsift_reader::{FileReport, RecordError};
use serde::Serialize;

use crate::dedup::StageTimes;
use crate::inputs::{
    add_counts, errors_by_name, not_an_archive, InputSet, ReadTally, SKIP_NOT_ARCHIVE,
};
use crate::lines::rounded;

/// Everything `report.json` is built from.
pub struct ReportParts<'a> {
    /// Per input, its summary if it was read.
    pub reports: &'a [Option<Result<FileReport, String>>],
    /// The inputs.
    pub inputs: &'a InputSet,
    /// How reading went.
    pub tally: &'a ReadTally,
    /// Records that gave no document, by reason.
    pub skipped: &'a BTreeMap<String, u64>,
    /// The clustering.
    pub clustering: &'a Clustering,
    /// Documents clustered.
    pub documents: usize,
    /// Dedup parameters.
    pub cfg: &'a DedupConfig,
    /// Worker threads.
    pub threads: usize,
    /// Busy time per stage.
    pub times: &'a StageTimes,
    /// Wall time of the timed steps.
    pub timings: Timings,
    /// Input bytes.
    pub input_bytes: u64,
    /// Index memory per document (bytes).
    pub index_bytes: f64,
    /// Peak resident memory, if known ([`peak_rss_bytes`]).
    pub peak_memory_bytes: Option<u64>,
}

/// Wall time of a run's steps.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    /// Reading, extracting and fingerprinting (from the start of the run).
    pub read_done: Duration,
    /// Clustering.
    pub cluster: Duration,
    /// Writing the outputs.
    pub write: Duration,
    /// The whole run.
    pub total: Duration,
}

/// `report.json`.
#[derive(Debug, Serialize)]
pub struct DedupReport<'a> {
    /// Records read.
    pub records: u64,
    /// Records by type name.
    pub records_by_type: BTreeMap<String, u64>,
    /// Record errors by kind name.
    pub record_errors: BTreeMap<String, u64>,
    /// Records that gave no document, by reason.
    pub skipped: &'a BTreeMap<String, u64>,
    /// Documents clustered.
    pub documents: usize,
    /// Documents too short to judge.
    pub too_short: u64,
    /// Documents mostly of template text.
    pub boilerplate: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Duplicates by kind.
    pub duplicates: Duplicates,
    /// Distinct texts sharing an Adler-32 with another.
    pub adler32_collisions: u64,
    /// Every counter of the clustering.
    pub cluster_stats: &'a ClusterStats,
    /// Dedup parameters.
    pub parameters: &'a DedupConfig,
    /// What counts as a duplicate and how close the clusters are.
    pub verification: Verification,
    /// Band probabilities ([`probability::candidate_bounds`]).
    pub candidate_probabilities: probability::CandidateBounds,
    /// Worker threads.
    pub threads: usize,
    /// Wall and busy times.
    pub seconds: Seconds,
    /// Rates over the whole run.
    pub throughput: Throughput,
    /// Peak resident memory in bytes, if known.
    pub peak_memory_bytes: Option<u64>,
    /// Index memory per document (bytes).
    pub index_bytes_per_document: f64,
    /// Inputs skipped, by kind: `not_archive` (no WARC, ARC or TREC record in it), `duplicate`
    /// (the same file as an earlier input, read once).
    pub skipped_inputs: &'a BTreeMap<&'static str, u64>,
    /// Inputs that hold no archive (a README, an image): skipped, not counted as record errors.
    pub inputs_not_archives: &'a [String],
    /// Per input.
    pub files: Vec<FileLine<'a>>,
}

/// Duplicates by kind.
#[derive(Debug, Serialize)]
pub struct Duplicates {
    /// Same normalized text.
    pub exact: u64,
    /// Verified near-duplicates.
    pub near: u64,
}

/// Wall and busy times in seconds (rounded to milliseconds).
#[derive(Debug, Serialize)]
pub struct Seconds {
    /// Reading, extracting and fingerprinting.
    pub read_extract_fingerprint: f64,
    /// Clustering.
    pub cluster: f64,
    /// Writing.
    pub write: f64,
    /// The whole run.
    pub total: f64,
    /// Busy time per stage, summed over its threads.
    pub busy: Busy,
}

/// Busy seconds per stage.
#[derive(Debug, Serialize)]
pub struct Busy {
    /// Reading.
    pub read: f64,
    /// Extracting.
    pub extract: f64,
    /// Fingerprinting.
    pub fingerprint: f64,
}

/// Rates over the whole run.
#[derive(Debug, Serialize)]
pub struct Throughput {
    /// Documents per second.
    pub documents_per_second: f64,
    /// Input megabytes (10^6) per second.
    pub input_mb_per_second: f64,
}

/// One input in the report.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum FileLine<'a> {
    /// An input that was read.
    Read {
        /// Its name.
        file: &'a str,
        /// Records read.
        records: u64,
        /// Bytes consumed.
        bytes: u64,
        /// Record errors by kind.
        errors: BTreeMap<String, u64>,
        /// The first few errors.
        error_examples: &'a [RecordError],
    },
    /// An input that holds no archive: skipped.
    Skipped {
        /// Its name.
        file: &'a str,
        /// The kind of skip (`not_archive`).
        skipped: &'static str,
        /// What the reader found at its start.
        error_examples: &'a [RecordError],
    },
    /// An input that failed (or was not read).
    Failed {
        /// Its name.
        file: &'a str,
        /// Why.
        error: &'a str,
    },
}

/// Builds `report.json` from a run's parts.
pub fn build_report<'a>(p: &ReportParts<'a>) -> DedupReport<'a> {
    let mut total = FileReport::default();
    let mut files = Vec::new();
    for (fi, r) in p.reports.iter().enumerate() {
        let file = p.inputs.name(fi as u32);
        files.push(match r {
            Some(Ok(r)) if not_an_archive(r) => FileLine::Skipped {
                file,
                skipped: SKIP_NOT_ARCHIVE,
                error_examples: &r.error_examples,
            },
            Some(Ok(r)) => {
                add_counts(&mut total, r);
                FileLine::Read {
                    file,
                    records: r.records,
                    bytes: r.bytes_in,
                    errors: errors_by_name(r),
                    error_examples: &r.error_examples,
                }
            }
            Some(Err(e)) => FileLine::Failed { file, error: e },
            None => FileLine::Failed {
                file,
                error: "not read",
            },
        });
    }
    let record_errors = errors_by_name(&total);
    let st = &p.clustering.stats;
    let secs = |d: Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    let ns = |a: &AtomicU64| (a.load(Ordering::Relaxed) as f64 / 1e9 * 1000.0).round() / 1000.0;
    let t = &p.timings;
    let total_secs = t.total.as_secs_f64().max(1e-9);
    DedupReport {
        records: total.records,
        records_by_type: total.records_by_kind,
        record_errors,
        skipped: p.skipped,
        documents: p.documents,
        too_short: st.too_short,
        boilerplate: st.boilerplate,
        clusters: st.clusters,
        duplicates: Duplicates {
            exact: st.exact_duplicates,
            near: st.near_duplicates,
        },
        adler32_collisions: st.adler32_collisions,
        cluster_stats: st,
        parameters: p.cfg,
        verification: Verification::of(p.cfg, p.clustering),
        candidate_probabilities: probability::candidate_bounds(p.cfg, st),
        threads: p.threads,
        seconds: Seconds {
            read_extract_fingerprint: secs(t.read_done),
            cluster: secs(t.cluster),
            write: secs(t.write),
            total: secs(t.total),
            busy: Busy {
                read: ns(&p.times.read_ns),
                extract: ns(&p.times.extract_ns),
                fingerprint: ns(&p.times.fingerprint_ns),
            },
        },
        throughput: Throughput {
            documents_per_second: p.documents as f64 / total_secs,
            input_mb_per_second: p.input_bytes as f64 / 1e6 / total_secs,
        },
        peak_memory_bytes: p.peak_memory_bytes,
        index_bytes_per_document: p.index_bytes,
        skipped_inputs: &p.tally.skipped_inputs,
        inputs_not_archives: &p.tally.not_archives,
        files,
    }
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// How pairs are verified, and how similar the clustered documents are.
#[derive(Debug, Serialize)]
pub struct Verification {
    /// Share of words (Dice of the word multisets outside template lines) near-duplicates have.
    pub threshold: f64,
    /// Fewest words of a document judged for near-duplicates.
    pub min_words: usize,
    /// Site-template lines found.
    pub template_lines: u64,
    /// Share of all profiled words that are in template lines.
    pub template_word_share: f64,
    /// The lowest similarity of a member to its representative, over all clusters.
    pub lowest_similarity: Option<f64>,
    /// Per cluster (in `clusters.jsonl` order), the lowest similarity of a member to its
    /// representative.
    pub lowest_similarity_per_cluster: Vec<f64>,
}

impl Verification {
    fn of(cfg: &DedupConfig, c: &Clustering) -> Self {
        let per: Vec<f64> = c
            .clusters
            .iter()
            .map(|cl| rounded(cl.lowest_similarity))
            .collect();
        Self {
            threshold: cfg.threshold,
            min_words: cfg.min_words,
            template_lines: c.stats.template_lines,
            template_word_share: rounded(c.stats.template_word_share as f32),
            lowest_similarity: per.iter().copied().reduce(f64::min),
            lowest_similarity_per_cluster: per,
        }
    }
}
