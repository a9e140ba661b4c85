//! `report.json` of a dedup run: the typed [`DedupReport`] (field order is output order) and
//! [`build_report`], which fills it from the run's parts ([`ReportParts`]). To report something
//! new, add a field to the struct (or to one of its parts) and fill it in `build_report`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crawlsift_dedup::{probability, ClusterStats, Clustering, DedupConfig};
use crawlsift_reader::{FileReport, RecordError};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::flow::inputs::{
    add_counts, errors_by_name, not_an_archive, skip_kind, InputSet, ReadTally,
};
use crate::lines::rounded;
use crate::run::read::StageTimes;
use crate::site::site_of;
use crate::verdict::Verdicts;
use crawlsift_common::limits::{REPORT_CLUSTER_URLS, REPORT_LARGEST_CLUSTERS};

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
    /// What ran, and when.
    pub run: &'a RunInfo,
    /// Per-record metadata (URLs, positions).
    pub catalog: &'a Catalog,
    /// What clustering decided per document.
    pub verdicts: &'a Verdicts,
}

/// What ran, and when: the head of `report.json`.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// `crawlsift` and its version.
    pub tool: String,
    /// The command line, one argument per item.
    pub command_line: Vec<String>,
    /// The main-text extraction method (`blocks`, `plateau`, `full`).
    pub extraction_method: String,
    /// When the run started (UTC, RFC 3339).
    pub started: String,
    /// When the report was written (UTC, RFC 3339).
    pub ended: String,
}

/// `seconds` since the Unix epoch as an RFC 3339 UTC time, to the second.
pub fn rfc3339(seconds: u64) -> String {
    let (days, rem) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = crawlsift_reader::date::civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// One of the largest clusters.
#[derive(Debug, Serialize)]
pub struct LargeCluster<'a> {
    /// Its number in `clusters.jsonl`.
    pub cluster: usize,
    /// Its members, the representative included.
    pub size: usize,
    /// The representative's record id.
    pub representative: String,
    /// The representative's URL.
    pub representative_url: Option<String>,
    /// The representative's input and byte offset.
    pub file: &'a str,
    /// Byte offset of the representative's record.
    pub offset: u64,
    /// The other members' URLs (the first ones, in document order).
    pub member_urls: Vec<String>,
}

/// Documents and duplicates of one input or host.
#[derive(Debug, Default, Clone, Serialize)]
pub struct DuplicateRate {
    /// Documents.
    pub documents: u64,
    /// Of which duplicates (members of a cluster other than its representative).
    pub duplicates: u64,
    /// `duplicates / documents` (4 decimals).
    pub rate: f64,
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
    /// What ran, and when.
    #[serde(flatten)]
    pub run: &'a RunInfo,
    /// Records read.
    pub records: u64,
    /// Records by type name.
    pub records_by_type: BTreeMap<String, u64>,
    /// Record errors by kind name.
    pub record_errors: BTreeMap<String, u64>,
    /// Records whose written capture date is no valid date (`date` null, `date_raw` kept).
    pub invalid_dates: u64,
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
    /// The largest clusters, largest first (ties in cluster order).
    pub largest_clusters: Vec<LargeCluster<'a>>,
    /// Duplicate rate per input (by name).
    pub duplicate_rate_per_file: BTreeMap<&'a str, DuplicateRate>,
    /// Duplicate rate per host (the URL's host without `www.`; "" for documents without one).
    pub duplicate_rate_per_host: BTreeMap<String, DuplicateRate>,
    /// Plain words for the counters above.
    pub glossary: BTreeMap<&'static str, &'static str>,
}

/// Short explanations of the report's internal counters.
pub const GLOSSARY: [(&str, &str); 14] = [
    ("too_short", "documents with fewer than min_words words: only their exact copies are clustered with them"),
    ("boilerplate", "documents whose text is mostly phrases many other pages repeat (templates): not clustered"),
    ("exact", "duplicates whose normalised text is the same as their representative's"),
    ("near", "duplicates sharing at least threshold of their words (outside template lines) with their representative"),
    ("not_joined_to_representative", "near pairs left apart because the earlier page was itself a duplicate: a page joins only a representative, so clusters never grow by chains (the chain guard's refusals)"),
    ("popular_row_pairs", "pieces of the MinHash signature that many distinct texts share (template phrases): not used to find candidates"),
    ("popular_limit", "how many distinct texts must share a signature piece for it to count as a template phrase"),
    ("minhash_candidate_checks", "pairs looked at because their MinHash signatures agree in a band"),
    ("simhash_candidate_checks", "pairs looked at because their SimHashes agree in a block"),
    ("verified_pairs", "distinct candidate pairs whose words were compared"),
    ("template_lines", "lines found on pages of several classes of one site: that site's template, left out when pages are compared"),
    ("adler32_collisions", "distinct texts sharing a 32-bit checksum with another: harmless, counted to show the exact hash is needed"),
    ("short_near_pairs", "pairs of too-short texts that would be near-duplicates: not clustered, shown so min_words can be lowered"),
    ("bucket_comparisons_skipped", "comparisons inside very large LSH buckets left out by the per-bucket window"),
];

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
                skipped: skip_kind(r),
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
        invalid_dates: total.invalid_dates,
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
        largest_clusters: largest_clusters(p),
        duplicate_rate_per_file: rates(p, |fi, _| p.inputs.name(fi)),
        duplicate_rate_per_host: rates(p, |_, url| site_of(url)),
        glossary: GLOSSARY.into_iter().collect(),
        run: p.run,
    }
}

/// The [`REPORT_LARGEST_CLUSTERS`] largest clusters.
fn largest_clusters<'a>(p: &ReportParts<'a>) -> Vec<LargeCluster<'a>> {
    let mut order: Vec<usize> = (0..p.clustering.clusters.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(p.clustering.clusters[i].members.len()));
    order
        .into_iter()
        .take(REPORT_LARGEST_CLUSTERS)
        .map(|i| {
            let cl = &p.clustering.clusters[i];
            let rep = p.catalog.doc(cl.representative).origin;
            LargeCluster {
                cluster: i,
                size: cl.members.len(),
                representative: rep.id,
                representative_url: rep.url,
                file: p.inputs.name(rep.pos.file),
                offset: rep.pos.offset,
                member_urls: cl
                    .members
                    .iter()
                    .filter(|m| m.doc != cl.representative)
                    .filter_map(|m| p.catalog.doc(m.doc).origin.url.clone())
                    .take(REPORT_CLUSTER_URLS)
                    .collect(),
            }
        })
        .collect()
}

/// Documents and duplicates per key (`key` of a document's input and URL).
fn rates<'a, K: Ord>(
    p: &ReportParts<'a>,
    key: impl Fn(u32, Option<&str>) -> K,
) -> BTreeMap<K, DuplicateRate> {
    let mut out: BTreeMap<K, DuplicateRate> = BTreeMap::new();
    for d in 0..p.catalog.documents() as u32 {
        let meta = p.catalog.doc(d);
        let o = &meta.origin;
        let r = out.entry(key(o.pos.file, o.url.as_deref())).or_default();
        r.documents += 1;
        r.duplicates += u64::from(!p.verdicts.kept(d));
    }
    for r in out.values_mut() {
        r.rate = (r.duplicates as f64 / r.documents.max(1) as f64 * 10_000.0).round() / 10_000.0;
    }
    out
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    crawlsift_common::memory::peak_resident_bytes()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_478_399), "2026-11-23T23:59:59Z");
    }
}
