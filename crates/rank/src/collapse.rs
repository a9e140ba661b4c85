//! Duplicates collapsed into their representative before ranking: mirrors and copies multiply
//! the votes a page casts and split the votes it gets. Given each vertex's representative (a
//! `dedup` cluster's representative, or itself), [`collapse`] makes the graph of the
//! representatives: a link from any copy is a link from the representative, a link to any copy a
//! link to the representative, and the edges stay a set, so a target linked from several copies
//! of one page gets one vote from it, not one per copy; a link between two copies of one page
//! disappears. Vertices keep their relative order (ids are renumbered densely), so the ranks of
//! the two graphs compare vertex by vertex ([`movement`]).

use crate::error::RankError;
use crate::graph::{Graph, Names};

/// The collapsed graph and, for each vertex of the original, its vertex there (its
/// representative's).
pub struct Collapsed {
    /// The graph of the representatives.
    pub graph: Graph,
    /// Original vertex id → collapsed vertex id.
    pub into: Vec<u32>,
}

/// The graph with every vertex `v` merged into `representative[v]` (which must be a vertex that
/// is its own representative: chains are refused as an error).
pub fn collapse(graph: &Graph, representative: &[u32]) -> Result<Collapsed, RankError> {
    let n = graph.vertices();
    if representative.len() != n {
        return Err(RankError::InvalidParameter(format!(
            "{} representatives for {n} vertices",
            representative.len()
        )));
    }
    let mut new_id = vec![u32::MAX; n];
    let mut names = Names::new();
    for v in 0..n {
        if representative[v] as usize == v {
            new_id[v] = names.len() as u32;
            names.push(graph.names().get(v).unwrap_or(""));
        }
    }
    let mut into = vec![0u32; n];
    for v in 0..n {
        let r = representative[v] as usize;
        if r >= n || representative[r] as usize != r {
            return Err(RankError::InvalidParameter(format!(
                "vertex {v}'s representative {r} is not its own representative"
            )));
        }
        into[v] = new_id[r];
    }
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(graph.edges());
    for v in 0..n as u32 {
        let s = into[v as usize];
        for &d in graph.successors(v) {
            let t = into[d as usize];
            if s != t {
                edges.push((s, t));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    Ok(Collapsed {
        graph: Graph::from_edges(names, &edges)?,
        into,
    })
}

/// How far ranks moved from one graph to its collapsed graph, over the original vertices that
/// are their own representatives.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Movement {
    /// Vertices compared.
    pub vertices: usize,
    /// Spearman's rank correlation of their values before and after.
    pub spearman: f64,
    /// Mean absolute change of their rank position (1 = highest).
    pub mean_position_change: f64,
    /// Of the ten highest before, how many are among the ten highest after.
    pub top10_kept: usize,
}

/// Compares `before` (values of the original vertices) with `after` (values of the collapsed
/// vertices), through `into`.
pub fn movement(before: &[f64], after: &[f64], into: &[u32], kept: &[bool]) -> Movement {
    let ids: Vec<usize> = (0..before.len()).filter(|&v| kept[v]).collect();
    let a: Vec<f64> = ids.iter().map(|&v| before[v]).collect();
    let b: Vec<f64> = ids.iter().map(|&v| after[into[v] as usize]).collect();
    let (ra, rb) = (positions(&a), positions(&b));
    let n = ids.len();
    let spearman = if n < 2 {
        1.0
    } else {
        let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y) * (x - y)).sum();
        let nf = n as f64;
        1.0 - 6.0 * d2 / (nf * (nf * nf - 1.0))
    };
    let mean = if n == 0 {
        0.0
    } else {
        ra.iter().zip(&rb).map(|(x, y)| (x - y).abs()).sum::<f64>() / n as f64
    };
    let top = |r: &[f64]| -> Vec<usize> { (0..n).filter(|&i| r[i] <= 10.0).collect() };
    let (ta, tb) = (top(&ra), top(&rb));
    Movement {
        vertices: n,
        spearman,
        mean_position_change: mean,
        top10_kept: ta.iter().filter(|i| tb.contains(i)).count(),
    }
}

/// Each value's rank position, 1 for the highest, ties by index (as the ranks file orders them).
fn positions(values: &[f64]) -> Vec<f64> {
    let order = crate::write::rank_order(values);
    let mut pos = vec![0.0; values.len()];
    for (p, &v) in order.iter().enumerate() {
        pos[v as usize] = (p + 1) as f64;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::tests::graph;

    #[test]
    fn copies_vote_once_and_get_their_representatives_votes() {
        // 0 and 1 are copies (representative 0); both link to 2; 3 links to the copy 1; 0 -> 1
        // is a link between copies.
        let g = graph(4, &[(0, 1), (0, 2), (1, 2), (3, 1)]);
        let c = collapse(&g, &[0, 0, 2, 3]).unwrap();
        assert_eq!(c.into, vec![0, 0, 1, 2]);
        assert_eq!(c.graph.vertices(), 3);
        assert_eq!(c.graph.successors(0), &[1]);
        assert_eq!(c.graph.successors(2), &[0]);
        assert_eq!(c.graph.edges(), 2);
        assert_eq!(c.graph.names().get(1), Some("v2"));
        assert!(collapse(&g, &[1, 0, 2, 3]).is_err(), "a chain is refused");
        assert!(collapse(&g, &[0, 0]).is_err());
    }

    #[test]
    fn movement_is_zero_for_the_same_order_and_counts_top_ten_changes() {
        let before = [0.4, 0.3, 0.2, 0.1];
        let m = movement(&before, &before, &[0, 1, 2, 3], &[true; 4]);
        assert_eq!(
            (m.spearman, m.mean_position_change, m.top10_kept),
            (1.0, 0.0, 4)
        );
        let reversed = [0.1, 0.2, 0.3, 0.4];
        let m = movement(&before, &reversed, &[0, 1, 2, 3], &[true; 4]);
        assert_eq!(m.spearman, -1.0);
        assert_eq!(m.mean_position_change, 2.0);
    }
}
