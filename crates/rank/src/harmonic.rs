//! Exact harmonic centrality: for each vertex x, the sum over the other vertices y of
//! 1 / d(y, x), where d(y, x) is the number of edges of a shortest path from y to x (a vertex
//! that cannot reach x adds nothing). It is `networkx.harmonic_centrality` on a `DiGraph`, and
//! what cc-webgraph's ranks file holds (there estimated by HyperBall over the transposed graph).
//!
//! Computed by one breadth-first search per vertex x over the in-adjacency (the edges walked
//! backwards), which finds every y reaching x level by level: x's value is
//! `Σ_d count(d) / d` over the levels d = 1, 2, ..., summed in that order. The cost is n
//! searches of O(n + m) steps each, O(n(n + m)) in all, so it is refused past
//! [`RANK_HARMONIC_EXACT_MAX_VERTICES`] vertices ([`RankError::TooLargeForExact`]); larger
//! graphs get HyperBall's estimate ([`crate::hyperball`], as cc-webgraph's ranks do).
//!
//! The vertices are cut into one contiguous run per thread
//! ([`crawlsift_common::parallel::in_parallel`]) and each vertex's value is computed by one
//! search alone, so the values are the same bits for any thread count. Memory: the graph's
//! in-adjacency, 8 bytes a vertex for the values, and 8 bytes a vertex for each thread's search
//! (a u32 visit mark and a u32 queue slot).

use crawlsift_common::limits::RANK_HARMONIC_EXACT_MAX_VERTICES;
use crawlsift_common::parallel::in_parallel;

use crate::error::RankError;
use crate::graph::Graph;

/// The harmonic centrality of every vertex, on up to `threads` threads (0 counts as 1).
pub fn harmonic(graph: &Graph, threads: usize) -> Result<Vec<f64>, RankError> {
    let n = graph.vertices();
    if n > RANK_HARMONIC_EXACT_MAX_VERTICES {
        return Err(RankError::TooLargeForExact {
            vertices: n,
            max: RANK_HARMONIC_EXACT_MAX_VERTICES,
        });
    }
    let targets: Vec<u32> = (0..n as u32).collect();
    let runs = in_parallel(threads.max(1), &targets, |run| {
        let mut search = Search::new(n);
        run.iter()
            .map(|&x| search.harmonic(graph, x))
            .collect::<Vec<f64>>()
    });
    Ok(runs.concat())
}

/// One thread's breadth-first search state, reused from one vertex to the next.
struct Search {
    /// `mark[y] == stamp` when y was reached in the current search.
    mark: Vec<u32>,
    stamp: u32,
    queue: Vec<u32>,
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            mark: vec![u32::MAX; n],
            stamp: 0,
            queue: Vec::with_capacity(n),
        }
    }

    /// Σ 1 / d(y, x) over the y that reach x, by levels.
    fn harmonic(&mut self, graph: &Graph, x: u32) -> f64 {
        // A vertex id is below u32::MAX, so stamps 0..n never meet the initial marks.
        self.stamp = x;
        self.queue.clear();
        self.queue.push(x);
        self.mark[x as usize] = self.stamp;
        let mut sum = 0.0;
        let mut level_start = 0;
        let mut distance = 0u32;
        while level_start < self.queue.len() {
            let level_end = self.queue.len();
            for k in level_start..level_end {
                let v = self.queue[k];
                for &y in graph.predecessors(v) {
                    let seen = &mut self.mark[y as usize];
                    if *seen != self.stamp {
                        *seen = self.stamp;
                        self.queue.push(y);
                    }
                }
            }
            distance += 1;
            let found = self.queue.len() - level_end;
            if found > 0 {
                sum += found as f64 / f64::from(distance);
            }
            level_start = level_end;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::graph::tests::graph;

    #[test]
    fn a_cycle_gives_every_vertex_the_same_value() {
        // In a 4-cycle each vertex is reached from the others at distances 1, 2 and 3.
        let g = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let h = harmonic(&g, 2).unwrap();
        assert_eq!(h, vec![1.0 + 0.5 + 1.0 / 3.0; 4]);
    }

    #[test]
    fn a_star_path_self_loop_and_isolated_vertex_by_hand() {
        // 1, 2, 3 -> 0 (the centre); 4 -> 1, so 4 reaches 0 at distance 2; 0 -> 0 adds nothing;
        // 5 is isolated.
        let g = graph(6, &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 1)]);
        let h = harmonic(&g, 1).unwrap();
        assert_eq!(h, vec![3.5, 1.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn any_thread_count_gives_the_same_bits() {
        let edges: Vec<(u32, u32)> = (0..40u32)
            .flat_map(|v| [(v, (v * 7 + 3) % 40), (v, (v * 13 + 5) % 40)])
            .filter(|&(a, b)| a != b || a % 5 == 0)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let g = graph(40, &edges);
        let one = harmonic(&g, 1).unwrap();
        for threads in [0, 2, 3, 8, 64] {
            assert_eq!(harmonic(&g, threads).unwrap(), one);
        }
        assert!(one.iter().all(|&v| v > 0.0));
    }
}
