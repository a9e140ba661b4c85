//! The counters of one clustering ([`ClusterStats`]), written to `report.json` as
//! `cluster_stats`: what each step found and how much work it did.

use serde::{Deserialize, Serialize};

/// Counters of one clustering, for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterStats {
    /// Documents added.
    pub documents: u64,
    /// Documents too short to judge.
    pub too_short: u64,
    /// Documents whose normalized text repeats an earlier one's.
    pub exact_duplicates: u64,
    /// Documents joined as near-duplicates.
    pub near_duplicates: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Candidate pair checks from MinHash bands (a pair sharing several bands counts each time).
    pub minhash_candidate_checks: u64,
    /// Candidate pair checks from SimHash blocks.
    pub simhash_candidate_checks: u64,
    /// Distinct candidate pairs whose words were compared.
    pub verified_pairs: u64,
    /// Candidate pairs whose share of words reached the threshold.
    pub near_pairs: u64,
    /// Near pairs not joined because the earlier document was not a representative: a document
    /// joins a cluster only as a near-duplicate of its representative, never through a chain.
    pub not_joined_to_representative: u64,
    /// Candidate pairs of the same class (share of words at least `same_class`).
    pub same_class_pairs: u64,
    /// Distinct lines found to be site template (on pages of `template_classes` classes).
    pub template_lines: u64,
    /// Words of all documents' profiles in template lines, over all their words.
    pub template_word_share: f64,
    /// Exact groups of too-short texts shown by several sites, not clustered.
    pub short_web_exact_groups: u64,
    /// Pairs of distinct too-short texts sharing at least `threshold` of their words (not
    /// clustered: a lower `min_words` would judge them).
    pub short_near_pairs: u64,
    /// Too-short texts in such pairs.
    pub short_near_documents: u64,
    /// Bucket comparisons skipped by the per-bucket window.
    pub bucket_comparisons_skipped: u64,
    /// Distinct texts whose Adler-32 equals that of another distinct text.
    pub adler32_collisions: u64,
    /// Documents not clustered because their text is mostly template phrases.
    pub boilerplate: u64,
    /// Distinct texts above which an LSH band key counts as a template phrase.
    pub popular_limit: u64,
    /// Row-pair values found popular (template phrases), over all row pairs.
    pub popular_row_pairs: u64,
    /// Groups of same texts (distinct texts nearly identical) in which popularity is counted.
    pub popular_groups: u64,
    /// Bits of a MinHash band key: 32 when every fingerprint kept its wide bytes (large inputs:
    /// `limits::DEDUP_WIDE_KEYS_FROM_BYTES`), else 16 (two 8-bit rows).
    #[serde(default)]
    pub band_key_bits: u32,
}
