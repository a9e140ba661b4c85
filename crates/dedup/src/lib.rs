/*!
Exact and near-duplicate detection for document texts.

`crawlsift-dedup` turns a document's main text (UTF-8) into a small, serializable [`Fingerprint`]
and clusters fingerprints into groups of exact and near-duplicate documents. It knows nothing of
archives or HTML: its input is text, its output plain data.

* [`normalize`]: case folding, NFKC, punctuation and space normalization, word splitting.
* [`exact`]: 128-bit hash of the normalized text (and Adler-32, for the report).
* [`rabin`]: 64-bit Rabin fingerprints of words and circular k-word shingles.
* [`minhash`]: b-bit MinHash signatures and LSH band keys.
* [`simhash`]: Charikar SimHash and its pigeonhole blocks.
* [`cluster`]: popular (template) phrases, candidates, verification, chain-guarded union-find.
* [`probability`]: miss and false-candidate probabilities of the banding schemes.
* [`profile`]: the words and lines of a document, and the share of words two documents have in
  common, on which every candidate pair is verified.

Fingerprinting is per document and runs on any number of threads (one [`Fingerprinter`] each);
clustering runs once, on fingerprints added in document order, and gives the same clusters
whatever thread computed which fingerprint.

```
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprinter, MatchKind};

let cfg = DedupConfig { min_words: 8, ..DedupConfig::default() };
let mut fpr = Fingerprinter::new(&cfg);
let article = "The harbour council met on Tuesday to discuss the new ferry timetable, which \
               residents say leaves the island without an evening service for most of the week.";
let texts = [
    article.to_string(),
    article.to_uppercase(),                    // same words: exact duplicate after normalization
    "A recipe for plum cake: butter, sugar, three eggs, flour and a pound of ripe plums.".into(),
    "Sign in".into(),                          // too short to judge
];
let mut clusterer = Clusterer::new(&cfg).expect("valid config");
for t in &texts {
    clusterer.add(fpr.fingerprint(t));
}
let result = clusterer.finish().expect("held in memory: nothing spills");
assert_eq!(result.clusters.len(), 1);
assert_eq!(result.clusters[0].representative, 0);
assert_eq!(result.clusters[0].members[1].kind, MatchKind::Exact);
assert_eq!(result.too_short, vec![3]);
assert!(result.boilerplate.is_empty());
```
*/

#![deny(missing_docs)]

pub mod cluster;
mod encoding;
pub mod error;
pub mod exact;
pub mod fingerprint;
pub mod minhash;
pub mod normalize;
pub mod probability;
pub mod profile;
pub mod rabin;
pub mod simhash;

pub use cluster::{Cluster, ClusterStats, Clusterer, Clustering, MatchKind, Member};
pub use error::{DedupError, SpillError};
pub use fingerprint::{DedupConfig, Fingerprint, Fingerprinter};
