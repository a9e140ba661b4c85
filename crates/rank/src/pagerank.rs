//! PageRank by power iteration, step for step as `networkx.pagerank` (3.x, its SciPy code)
//! computes it on a `DiGraph` without weights:
//!
//! ```text
//! x = 1/n for every vertex; p = 1/n (uniform personalization, also the dangling distribution)
//! repeat:  x' = d * (x·A + (Σ x[dangling]) * p) + (1 - d) * p
//!          stop when Σ |x' - x| < n * tolerance
//! ```
//!
//! where `A[i][j] = 1 / outdeg(i)` for an edge i → j (a self-loop is an out-edge like any
//! other, as networkx counts it) and the dangling vertices are those without out-edges. Each
//! vertex's `x·A` term adds `x[i] * (1 / outdeg(i))` over its predecessors i in ascending order,
//! the order of SciPy's sparse product, so values agree with networkx's to the last bits or
//! nearly. One thread, in a fixed order: the same bits every run.
//!
//! Memory: the graph's in-adjacency, 3 f64 arrays of n (x, x' and 1 / outdeg), 24 bytes a
//! vertex, and the dangling vertices' ids (4 bytes each); each iteration reads every edge once.

use crate::error::RankError;
use crate::graph::Graph;

/// PageRank of every vertex (they sum to 1) and the number of iterations it took: networkx's
/// `pagerank(G, alpha=damping, tol=tolerance, max_iter=max_iterations)`. An empty graph has
/// no ranks (and took no iteration). Errors: a damping outside [0, 1] or a tolerance that is
/// negative or not finite ([`RankError::InvalidParameter`]); no convergence within
/// `max_iterations` ([`RankError::NotConverged`], where networkx raises
/// `PowerIterationFailedConvergence`).
pub fn pagerank(
    graph: &Graph,
    damping: f64,
    tolerance: f64,
    max_iterations: usize,
) -> Result<(Vec<f64>, usize), RankError> {
    if !(0.0..=1.0).contains(&damping) {
        return Err(RankError::InvalidParameter(format!(
            "pagerank damping {damping} is not in [0, 1]"
        )));
    }
    check_tolerance("pagerank", tolerance)?;
    let n = graph.vertices();
    if n == 0 {
        return Ok((Vec::new(), 0));
    }
    let n_f = n as f64;
    let p = 1.0 / n_f;
    let inverse_out: Vec<f64> = (0..n as u32)
        .map(|v| match graph.out_degree(v) {
            0 => 0.0,
            d => 1.0 / d as f64,
        })
        .collect();
    let dangling: Vec<u32> = (0..n as u32)
        .filter(|&v| graph.out_degree(v) == 0)
        .collect();
    let teleport = (1.0 - damping) * p;
    let needed = n_f * tolerance;
    let mut x = vec![p; n];
    let mut next = vec![0.0; n];
    let mut change = f64::INFINITY;
    for iteration in 1..=max_iterations {
        let dangling_mass: f64 = dangling.iter().fold(0.0, |s, &v| s + x[v as usize]);
        let spread = dangling_mass * p;
        for (j, out) in next.iter_mut().enumerate() {
            let flow = graph
                .predecessors(j as u32)
                .iter()
                .fold(0.0, |s, &i| s + x[i as usize] * inverse_out[i as usize]);
            *out = damping * (flow + spread) + teleport;
        }
        change = next.iter().zip(&x).fold(0.0, |s, (a, b)| s + (a - b).abs());
        std::mem::swap(&mut x, &mut next);
        if change < needed {
            return Ok((x, iteration));
        }
    }
    Err(RankError::NotConverged {
        algorithm: "pagerank",
        iterations: max_iterations,
        change,
        needed,
    })
}

/// A tolerance must be finite and not negative.
pub(crate) fn check_tolerance(algorithm: &str, tolerance: f64) -> Result<(), RankError> {
    if tolerance.is_finite() && tolerance >= 0.0 {
        Ok(())
    } else {
        Err(RankError::InvalidParameter(format!(
            "{algorithm} tolerance {tolerance} is not a finite number >= 0"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::graph::tests::graph;

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} != {b:?}");
        }
    }

    #[test]
    fn a_cycle_ranks_all_equal_and_converges_at_once() {
        let g = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let (pr, iterations) = pagerank(&g, 0.85, 1e-12, 100).unwrap();
        assert_eq!(pr, vec![0.25; 4]);
        assert_eq!(iterations, 1);
    }

    #[test]
    fn a_star_ranks_its_centre_by_hand() {
        // Leaves 1..=3 link to the centre 0, which is dangling: its mass is spread uniformly.
        // By symmetry every leaf has r and the centre c = 1 - 3r, with
        // r = 0.85 * c / 4 + 0.15 / 4, so r = (0.85 + 0.15) / (4 + 3 * 0.85) = 1 / 6.55.
        let g = graph(4, &[(1, 0), (2, 0), (3, 0)]);
        let (pr, _) = pagerank(&g, 0.85, 1e-14, 1000).unwrap();
        let r = 1.0 / 6.55;
        close(&pr, &[1.0 - 3.0 * r, r, r, r]);
    }

    #[test]
    fn a_dangling_vertex_spreads_its_mass_uniformly() {
        // 0 -> 1, 1 dangling. r0 = 0.85 * r1 / 2 + 0.075, r1 = 0.85 * (r0 + r1 / 2) + 0.075.
        // With r0 + r1 = 1: r0 = 0.425 * r1 + 0.075, so r1 = 0.925 / 1.425.
        let g = graph(2, &[(0, 1)]);
        let (pr, _) = pagerank(&g, 0.85, 1e-14, 1000).unwrap();
        let r1 = 0.925 / 1.425;
        close(&pr, &[1.0 - r1, r1]);
    }

    #[test]
    fn a_self_loop_is_an_out_edge() {
        // 0 -> 0 and 0 -> 1, 1 -> 0: r1 = 0.85 * r0 / 2 + 0.075, r0 = 1 - r1,
        // so r1 = (0.425 + 0.075) / 1.425.
        let g = graph(2, &[(0, 0), (0, 1), (1, 0)]);
        let (pr, _) = pagerank(&g, 0.85, 1e-14, 1000).unwrap();
        let r1 = 0.5 / 1.425;
        close(&pr, &[1.0 - r1, r1]);
    }

    #[test]
    fn no_convergence_and_bad_parameters_are_errors() {
        let g = graph(3, &[(0, 1), (1, 2)]);
        assert!(matches!(
            pagerank(&g, 0.85, 0.0, 5),
            Err(RankError::NotConverged { iterations: 5, .. })
        ));
        for (d, t) in [
            (1.5, 1e-6),
            (-0.1, 1e-6),
            (f64::NAN, 1e-6),
            (0.85, f64::NAN),
        ] {
            assert!(matches!(
                pagerank(&g, d, t, 5),
                Err(RankError::InvalidParameter(_))
            ));
        }
        assert_eq!(
            pagerank(&graph(0, &[]), 0.85, 1e-6, 5).unwrap(),
            (vec![], 0)
        );
    }
}
