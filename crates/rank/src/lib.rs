/*!
Link analysis over a graph in Common Crawl's cc-webgraph text layout (issue #37): PageRank,
HITS and harmonic centrality (exact, or HyperBall's estimate), computed as networkx computes them, and written as
cc-webgraph writes its ranks file.

* [`read_graph`] ([`layout`]): `DIR/vertices.txt.gz` (`ID<TAB>NAME`, ids 0..n-1 in order) and
  `DIR/edges.txt.gz` (`SRC<TAB>DST`, sorted by (SRC, DST), no duplicates, self-loops allowed)
  into a [`Graph`] ([`graph`]: CSR in both directions, u32 ids and offsets, 8(n + 1) + 8m bytes
  for n vertices and m edges, plus the names). A line breaking the layout is an error naming
  its file and line.
* [`pagerank()`] ([`pagerank`](mod@pagerank)): networkx's `pagerank` (uniform teleport, dangling
  mass spread uniformly, stop when the L1 change < n × tolerance).
* [`hits()`] ([`hits`](mod@hits)): networkx's power-iteration HITS (max-normalised steps,
  sum-normalised result, stop when the hubs' L1 change < tolerance).
* [`harmonic()`] ([`harmonic`](mod@harmonic)): Σ 1 / d(y, x) over the y reaching x, by one
  breadth-first search per vertex in parallel (n searches: exact, so capped at
  `limits::RANK_HARMONIC_EXACT_MAX_VERTICES`); [`harmonic_estimate`] ([`hyperball`]):
  HyperBall's estimate of the same values for graphs of any size (webgraph-algo).
* [`write_ranks`], [`write_hits`] ([`write`](mod@write)): `DIR/ranks.txt.gz` in cc-webgraph's format
  (`#harmonicc_pos #harmonicc_val #pr_pos #pr_val #host_rev`) and `DIR/hits.txt.gz`, each
  appearing whole or not at all.

Every result is the same bits for any thread count. Errors are [`RankError`]s; nothing panics
on input.

```
use crawlsift_rank::{harmonic, pagerank, Graph, Names};

let names: Names = ["com.example", "org.example", "net.example"].into_iter().collect();
let graph = Graph::from_edges(names, &[(0, 1), (1, 2), (2, 0)]).unwrap();
let (ranks, _iterations) = pagerank(&graph, 0.85, 1e-12, 100).unwrap();
assert!(ranks.iter().all(|r| (r - 1.0 / 3.0).abs() < 1e-12));
assert_eq!(harmonic(&graph, 2).unwrap(), vec![1.5; 3]);
```
*/

#![deny(missing_docs)]

pub mod collapse;
pub mod error;
pub mod graph;
pub mod harmonic;
pub mod hits;
pub mod hyperball;
pub mod layout;
pub mod pagerank;
pub mod write;

pub use collapse::{collapse, movement, Collapsed, Movement};
pub use error::{Fault, RankError};
pub use graph::{Graph, Names};
pub use harmonic::harmonic;
pub use hits::{hits, Hits};
pub use hyperball::harmonic_estimate;
pub use layout::{read_graph, read_vertices, EDGES_FILE, VERTICES_FILE};
pub use pagerank::pagerank;
pub use write::{rank_order, write_hits, write_ranks, HITS_FILE, RANKS_FILE};
