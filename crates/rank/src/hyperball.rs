//! Harmonic centrality estimated by HyperBall (Boldi and Vigna, "In-Core Computation of
//! Geometric Centralities with HyperBall", 2013), for graphs too large for one breadth-first
//! search per vertex ([`crate::harmonic`]): what cc-webgraph's ranks file holds. The
//! implementation is webgraph-algo's, by the authors of the algorithm and of the `webgraph`
//! crate the page graph is written for.
//!
//! HyperBall keeps for each vertex a HyperLogLog counter of the vertices within distance t of
//! it, for t = 1, 2, ... (each counter the register-wise maximum of its successors'), and adds
//! (|ball(t)| - |ball(t - 1)|) / t to the vertex's sum at each step, until no counter changes.
//! It computes the *positive* centrality (distances from the vertex), so it runs on the
//! transposed graph to give harmonic centrality (distances to it), with the graph itself as the
//! transpose's transpose for its systolic steps. With 2^`log2m` registers a counter, each ball
//! size has a relative standard error of about 1.04 / √(2^`log2m`) (9.2% at the default 7), and
//! the sums, which add many balls, are closer than that (a test measures it against the exact
//! values).
//!
//! Deterministic: without weights the counters start from each vertex's own id (no random
//! draw), a counter is a maximum of registers (the same in any order), and each vertex's sum is
//! added by one thread in step order, so the values are the same bits for any thread count (a
//! test checks). Memory: two arrays of n counters of 2^`log2m` registers of 5 to 6 bits (about
//! 190 bytes a vertex at the default), and both adjacencies as 8-byte ids, 16(n + m) bytes.

use dsi_progress_logger::no_logging;
use rand::SeedableRng;
use webgraph::graphs::csr_graph::CsrGraph;
use webgraph::traits::SequentialLabeling;
use webgraph_algo::distances::hyperball::HyperBallBuilder;

use crate::error::RankError;
use crate::graph::Graph;

/// The default base-2 logarithm of the registers a counter has.
pub const DEFAULT_LOG2M: u32 = 7;

/// The registers a counter may have, as base-2 logarithms: 16 to 65,536.
pub const LOG2M_RANGE: std::ops::RangeInclusive<u32> = 4..=16;

/// The relative standard error of one HyperLogLog count with 2^`log2m` registers.
pub fn relative_standard_error(log2m: u32) -> f64 {
    1.04 / f64::from(1u32 << log2m.min(30)).sqrt()
}

/// HyperBall's estimate of every vertex's harmonic centrality, with counters of 2^`log2m`
/// registers, on up to `threads` threads (0 counts as 1).
pub fn harmonic_estimate(graph: &Graph, log2m: u32, threads: usize) -> Result<Vec<f64>, RankError> {
    if !LOG2M_RANGE.contains(&log2m) {
        return Err(RankError::InvalidParameter(format!(
            "HyperBall registers: 2^{log2m} (from 2^{} to 2^{})",
            LOG2M_RANGE.start(),
            LOG2M_RANGE.end()
        )));
    }
    let n = graph.vertices();
    if n == 0 {
        return Ok(Vec::new());
    }
    let backward = csr(graph, Graph::predecessors);
    let forward = csr(graph, Graph::successors);
    let dcf = backward.build_dcf();
    let fail = |e: anyhow::Error| RankError::HyperBall(format!("{e:#}"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| RankError::HyperBall(e.to_string()))?;
    pool.install(|| {
        let mut hb =
            HyperBallBuilder::with_hyper_log_log(&backward, Some(&forward), &dcf, log2m, None)
                .map_err(fail)?
                .sum_of_inverse_distances(true)
                .build(no_logging![]);
        // The generator seeds counters only for weighted vertices; there are none here.
        let rng = rand::rngs::SmallRng::seed_from_u64(0);
        hb.run_until_done(rng, no_logging![]).map_err(fail)?;
        let values = hb.harmonic_centralities().map_err(fail)?;
        Ok(values.iter().map(|&x| f64::from(x)).collect())
    })
}

/// One direction of `graph`'s adjacency as webgraph's CSR graph (8-byte ids, as its random
/// access takes them).
fn csr(graph: &Graph, adjacent: fn(&Graph, u32) -> &[u32]) -> CsrGraph {
    let n = graph.vertices();
    let mut dcf = Vec::with_capacity(n + 1);
    let mut succ = Vec::with_capacity(graph.edges());
    dcf.push(0usize);
    for v in 0..n as u32 {
        succ.extend(adjacent(graph, v).iter().map(|&x| x as usize));
        dcf.push(succ.len());
    }
    // SAFETY: `dcf` starts at 0, never decreases and ends at `succ.len()`, and every successor
    // is a vertex below n (the graph's lists hold its own ids).
    unsafe { CsrGraph::from_parts(dcf.into_boxed_slice(), succ.into_boxed_slice()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Names;

    /// A random graph of `n` vertices and about `n * degree` edges (a fixed xorshift stream).
    fn random_graph(n: u32, degree: u32, seed: u64) -> Graph {
        let mut x = seed;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut edges: Vec<(u32, u32)> = (0..n * degree)
            .map(|_| {
                (
                    (next() % u64::from(n)) as u32,
                    (next() % u64::from(n)) as u32,
                )
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let names: Names = (0..n).map(|i| format!("v{i}")).collect();
        Graph::from_edges(names, &edges).unwrap()
    }

    #[test]
    fn the_estimate_is_near_the_exact_values_and_the_same_for_any_thread_count() {
        let g = random_graph(3_000, 3, 7);
        let exact = crate::harmonic(&g, 2).unwrap();
        let one = harmonic_estimate(&g, DEFAULT_LOG2M, 1).unwrap();
        let three = harmonic_estimate(&g, DEFAULT_LOG2M, 3).unwrap();
        assert_eq!(one.len(), exact.len());
        assert!(one
            .iter()
            .zip(&three)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        let (mut err, mut weight) = (0.0, 0.0);
        for (e, x) in exact.iter().zip(&one) {
            err += (e - x).abs();
            weight += e;
        }
        let rse = relative_standard_error(DEFAULT_LOG2M);
        assert!(err / weight < rse, "mean relative error {}", err / weight);
        // More registers, closer values.
        let fine = harmonic_estimate(&g, 10, 2).unwrap();
        let fine_err: f64 = exact.iter().zip(&fine).map(|(e, x)| (e - x).abs()).sum();
        assert!(fine_err < err, "{fine_err} vs {err}");
    }

    #[test]
    fn small_and_degenerate_graphs() {
        let names: Names = ["a", "b", "c"].into_iter().collect();
        // a -> b -> c: c is reached from b (1) and a (1/2), b from a (1), a from nobody.
        let g = Graph::from_edges(names, &[(0, 1), (1, 2)]).unwrap();
        let hc = harmonic_estimate(&g, 10, 2).unwrap();
        for (got, want) in hc.iter().zip([0.0, 1.0, 1.5]) {
            assert!((got - want).abs() < 0.1, "{hc:?}");
        }
        let empty = Graph::from_edges(Names::new(), &[]).unwrap();
        assert!(harmonic_estimate(&empty, 7, 1).unwrap().is_empty());
        assert!(matches!(
            harmonic_estimate(&g, 3, 1),
            Err(RankError::InvalidParameter(_))
        ));
    }
}
