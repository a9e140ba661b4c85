//! HITS hubs and authorities by power iteration, step for step as networkx's power-iteration
//! HITS (`networkx.algorithms.link_analysis.hits_alg._hits_python`, 3.x) computes them on a
//! `DiGraph` without weights:
//!
//! ```text
//! h = 1/n for every vertex
//! repeat:  a = Aᵀ·h;  h' = A·a            (a[j] = Σ h[i] over edges i → j; h'[i] = Σ a[j] over i → j)
//!          h' /= max(h');  a /= max(a)     (as multiplication by 1 / max)
//!          stop when Σ |h' - h| < tolerance
//! then:    a /= Σ a;  h' /= Σ h'           (as multiplication by 1 / sum)
//! ```
//!
//! The stopping rule is networkx's: the L1 change of the hub vector, normalised by its maximum,
//! below `tolerance` itself (not n times it, unlike PageRank). networkx's public `hits` finds
//! the same vectors by a sparse SVD (ARPACK) instead; where the principal singular value is
//! simple both converge to one answer. Sums run in ascending vertex order, on one thread: the
//! same bits every run.
//!
//! A graph without edges has no hubs and no authorities (networkx divides by zero there): every
//! vertex gets 1/n of both, after no iteration.
//!
//! Memory: both adjacencies and 3 f64 arrays of n (h, h' and a), 24 bytes a vertex.

use crate::error::RankError;
use crate::graph::Graph;
use crate::pagerank::check_tolerance;

/// Hubs and authorities of every vertex (each vector sums to 1), with the iterations made.
#[derive(Debug, Clone, PartialEq)]
pub struct Hits {
    /// Hub value of each vertex: how good its links are.
    pub hubs: Vec<f64>,
    /// Authority value of each vertex: how well it is linked to by good hubs.
    pub authorities: Vec<f64>,
    /// Power iterations made.
    pub iterations: usize,
}

/// HITS as networkx's power iteration computes it, `_hits_python(G, max_iter=max_iterations,
/// tol=tolerance)`. Errors: a tolerance that is negative or not finite
/// ([`RankError::InvalidParameter`]); no convergence within `max_iterations`
/// ([`RankError::NotConverged`]).
pub fn hits(graph: &Graph, tolerance: f64, max_iterations: usize) -> Result<Hits, RankError> {
    check_tolerance("hits", tolerance)?;
    let n = graph.vertices();
    let uniform = 1.0 / n as f64;
    if graph.edges() == 0 {
        return Ok(Hits {
            hubs: vec![uniform; n],
            authorities: vec![uniform; n],
            iterations: 0,
        });
    }
    let mut h = vec![uniform; n];
    let mut next = vec![0.0; n];
    let mut a = vec![0.0; n];
    let mut change = f64::INFINITY;
    for iteration in 1..=max_iterations {
        for (j, auth) in a.iter_mut().enumerate() {
            *auth = graph
                .predecessors(j as u32)
                .iter()
                .fold(0.0, |s, &i| s + h[i as usize]);
        }
        for (i, hub) in next.iter_mut().enumerate() {
            *hub = graph
                .successors(i as u32)
                .iter()
                .fold(0.0, |s, &j| s + a[j as usize]);
        }
        // With an edge the maxima are positive: every source keeps a positive hub value.
        let (hub_max, authority_max) = (maximum(&next), maximum(&a));
        scale(&mut next, 1.0 / hub_max);
        scale(&mut a, 1.0 / authority_max);
        change = next.iter().zip(&h).fold(0.0, |s, (x, y)| s + (x - y).abs());
        std::mem::swap(&mut h, &mut next);
        if change < tolerance {
            let (authority_sum, hub_sum) = (total(&a), total(&h));
            scale(&mut a, 1.0 / authority_sum);
            scale(&mut h, 1.0 / hub_sum);
            return Ok(Hits {
                hubs: h,
                authorities: a,
                iterations: iteration,
            });
        }
    }
    Err(RankError::NotConverged {
        algorithm: "hits",
        iterations: max_iterations,
        change,
        needed: tolerance,
    })
}

fn maximum(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The sum in vertex order (as Python's `sum` adds).
fn total(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |s, v| s + v)
}

fn scale(values: &mut [f64], by: f64) {
    for v in values {
        *v *= by;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::graph::tests::graph;

    #[test]
    fn a_cycle_has_equal_hubs_and_authorities() {
        let g = graph(3, &[(0, 1), (1, 2), (2, 0)]);
        let r = hits(&g, 1e-12, 100).unwrap();
        for v in r.hubs.iter().chain(&r.authorities) {
            assert!((v - 1.0 / 3.0).abs() < 1e-15);
        }
    }

    #[test]
    fn a_star_has_its_leaves_as_hubs_and_its_centre_as_authority() {
        let g = graph(4, &[(1, 0), (2, 0), (3, 0)]);
        let r = hits(&g, 1e-12, 100).unwrap();
        assert_eq!(r.authorities, vec![1.0, 0.0, 0.0, 0.0]);
        assert_eq!(r.hubs, vec![0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
    }

    #[test]
    fn a_self_loop_makes_a_vertex_its_own_hub_and_authority() {
        // 0 -> 0 and 0 -> 1: A = [[1, 1], [0, 0]]; AᵀA = [[1, 1], [1, 1]], so the authorities
        // are equal; AAᵀ = [[2, 0], [0, 0]], so 0 is the only hub. Vertex 2 is isolated.
        let g = graph(3, &[(0, 0), (0, 1)]);
        let r = hits(&g, 1e-12, 100).unwrap();
        assert_eq!(r.authorities, vec![0.5, 0.5, 0.0]);
        assert_eq!(r.hubs, vec![1.0, 0.0, 0.0]);
    }

    #[test]
    fn no_edges_is_uniform_and_no_convergence_is_an_error() {
        let r = hits(&graph(2, &[]), 1e-8, 100).unwrap();
        assert_eq!(
            (r.hubs, r.authorities, r.iterations),
            (vec![0.5; 2], vec![0.5; 2], 0)
        );
        assert!(hits(&graph(0, &[]), 1e-8, 100).unwrap().hubs.is_empty());
        // The change must fall below the tolerance: zero is never met, even once the hubs of
        // a path stop moving (from the second iteration on).
        let g = graph(4, &[(0, 1), (1, 2), (2, 3)]);
        assert!(matches!(
            hits(&g, 0.0, 2),
            Err(RankError::NotConverged { iterations: 2, .. })
        ));
    }
}
