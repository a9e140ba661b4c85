//! The graph in memory: vertex names and compressed sparse rows (CSR) for both directions.
//!
//! Memory, for n vertices and m edges: each direction is an offsets array of n + 1 u32 and a
//! targets array of m u32, 4(n + 1) + 4m bytes; both directions together 8(n + 1) + 8m bytes.
//! Names are one string of all their bytes and n + 1 u64 ends (8 bytes a vertex beside the
//! name's bytes). So a host graph of 100 million vertices and 1.5 billion edges holds about
//! 12.8 GB of adjacency. Ids and offsets are u32, so a graph holds at most 2^32 - 1 vertices and
//! 2^32 - 1 edges; a larger one is refused with [`RankError::TooLarge`].
//!
//! Successors and predecessors of a vertex are both in ascending id order: out-lists because
//! edges arrive sorted by (SRC, DST), in-lists because they are filled in that same order.

use crate::error::{Fault, RankError};

/// The names of a graph's vertices (index = vertex id), held as one string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    text: String,
    /// `ends[v]` is where name v ends in `text`; name v starts at `ends[v - 1]` (0 for v = 0).
    ends: Vec<u64>,
}

impl Names {
    /// No names.
    pub fn new() -> Names {
        Names::default()
    }

    /// Appends the name of the next vertex.
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len() as u64);
    }

    /// Vertices named.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no vertex is named.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The name of vertex `v`, or `None` past the last one.
    pub fn get(&self, v: usize) -> Option<&str> {
        let end = *self.ends.get(v)? as usize;
        let start = if v == 0 { 0 } else { self.ends[v - 1] as usize };
        self.text.get(start..end)
    }

    /// The names in vertex order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|v| self.get(v).unwrap_or(""))
    }

    /// Bytes held: the names' bytes and 8 a vertex.
    pub fn bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 8
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Names {
        let mut names = Names::new();
        for name in iter {
            names.push(name.as_ref());
        }
        names
    }
}

/// One direction of adjacency: the neighbours of v are `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a as usize..b as usize],
            _ => &[],
        }
    }

    fn bytes(&self) -> usize {
        (self.offsets.capacity() + self.targets.capacity()) * 4
    }
}

/// A directed graph: named vertices 0..n-1, edges without duplicates (self-loops allowed), held
/// as CSR out- and in-adjacency (see the module documentation for its memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    names: Names,
    out: Csr,
    inc: Csr,
}

/// The largest vertex or edge count the u32 arrays hold.
pub(crate) const MAX_COUNT: u64 = u32::MAX as u64;

impl Graph {
    /// The graph of `names.len()` vertices and `edges` (source, destination), which must be
    /// sorted by (source, destination) without duplicates and name vertices below
    /// `names.len()`: the contract of `edges.txt.gz`. A broken edge is named by its index.
    pub fn from_edges(names: Names, edges: &[(u32, u32)]) -> Result<Graph, RankError> {
        let mut builder = Builder::new(names)?;
        for (index, &(src, dst)) in edges.iter().enumerate() {
            builder
                .push(u64::from(src), u64::from(dst))
                .map_err(|fault| match fault {
                    Pushed::Fault(fault) => RankError::Edge { index, fault },
                    Pushed::TooMany => too_many_edges(),
                })?;
        }
        Ok(builder.finish())
    }

    /// Vertices (n).
    pub fn vertices(&self) -> usize {
        self.names.len()
    }

    /// Edges (m).
    pub fn edges(&self) -> usize {
        self.out.targets.len()
    }

    /// The vertices `v` links to, ascending. Empty for a vertex out of range.
    pub fn successors(&self, v: u32) -> &[u32] {
        self.out.neighbours(v)
    }

    /// The vertices linking to `v`, ascending. Empty for a vertex out of range.
    pub fn predecessors(&self, v: u32) -> &[u32] {
        self.inc.neighbours(v)
    }

    /// Edges out of `v` (a self-loop counts once).
    pub fn out_degree(&self, v: u32) -> usize {
        self.successors(v).len()
    }

    /// Edges into `v` (a self-loop counts once).
    pub fn in_degree(&self, v: u32) -> usize {
        self.predecessors(v).len()
    }

    /// The vertices' names.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Bytes the graph holds: 8(n + 1) + 8m for adjacency, and the names.
    pub fn bytes(&self) -> usize {
        self.out.bytes() + self.inc.bytes() + self.names.bytes()
    }
}

pub(crate) fn too_many_edges() -> RankError {
    RankError::TooLarge {
        what: "edges",
        max: MAX_COUNT,
    }
}

/// Why an edge was not taken.
pub(crate) enum Pushed {
    Fault(Fault),
    TooMany,
}

/// Builds the out-adjacency as sorted edges arrive, then the in-adjacency from it.
pub(crate) struct Builder {
    names: Names,
    n: u32,
    out: Csr,
    last: Option<(u32, u32)>,
}

impl Builder {
    pub(crate) fn new(names: Names) -> Result<Builder, RankError> {
        if names.len() as u64 > MAX_COUNT {
            return Err(RankError::TooLarge {
                what: "vertices",
                max: MAX_COUNT,
            });
        }
        let n = names.len() as u32;
        let mut offsets = Vec::with_capacity(names.len() + 1);
        offsets.push(0);
        Ok(Builder {
            names,
            n,
            out: Csr {
                offsets,
                targets: Vec::new(),
            },
            last: None,
        })
    }

    /// Takes the next edge, which must come after the last one.
    pub(crate) fn push(&mut self, src: u64, dst: u64) -> Result<(), Pushed> {
        let n = u64::from(self.n);
        for id in [src, dst] {
            if id >= n {
                return Err(Pushed::Fault(Fault::VertexOutOfRange { id, vertices: n }));
            }
        }
        let (src, dst) = (src as u32, dst as u32);
        if let Some((prev_src, prev_dst)) = self.last {
            if (src, dst) <= (prev_src, prev_dst) {
                return Err(Pushed::Fault(Fault::Unsorted {
                    src,
                    dst,
                    prev_src,
                    prev_dst,
                }));
            }
        }
        if self.out.targets.len() as u64 >= MAX_COUNT {
            return Err(Pushed::TooMany);
        }
        // Close the lists of every vertex before src: they are complete.
        let m = self.out.targets.len() as u32;
        while self.out.offsets.len() <= src as usize {
            self.out.offsets.push(m);
        }
        self.out.targets.push(dst);
        self.last = Some((src, dst));
        Ok(())
    }

    /// The graph: the out-lists closed, the in-lists filled by a counting sort over the out-lists
    /// in source order (so each in-list is ascending).
    pub(crate) fn finish(mut self) -> Graph {
        let n = self.n as usize;
        let m = self.out.targets.len() as u32;
        while self.out.offsets.len() <= n {
            self.out.offsets.push(m);
        }
        self.out.targets.shrink_to_fit();
        let mut offsets = vec![0u32; n + 1];
        for &dst in &self.out.targets {
            offsets[dst as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets[..n].to_vec();
        let mut targets = vec![0u32; m as usize];
        for src in 0..n {
            let (a, b) = (self.out.offsets[src], self.out.offsets[src + 1]);
            for &dst in &self.out.targets[a as usize..b as usize] {
                let slot = &mut next[dst as usize];
                targets[*slot as usize] = src as u32;
                *slot += 1;
            }
        }
        Graph {
            names: self.names,
            out: self.out,
            inc: Csr { offsets, targets },
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn names(n: usize) -> Names {
        (0..n).map(|v| format!("v{v}")).collect()
    }

    /// A graph of `n` vertices named `v0`, `v1`, ... and `edges`, for the ranks' tests.
    pub(crate) fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        Graph::from_edges(names(n), edges).unwrap()
    }

    #[test]
    fn both_directions_are_ascending_with_self_loops_once() {
        let g = Graph::from_edges(names(4), &[(0, 1), (0, 2), (2, 0), (2, 2), (3, 2)]).unwrap();
        assert_eq!((g.vertices(), g.edges()), (4, 5));
        assert_eq!(g.successors(0), &[1, 2]);
        assert_eq!(g.successors(1), &[] as &[u32]);
        assert_eq!(g.successors(2), &[0, 2]);
        assert_eq!(g.predecessors(2), &[0, 2, 3]);
        assert_eq!(g.predecessors(0), &[2]);
        assert_eq!((g.out_degree(2), g.in_degree(2)), (2, 3));
        assert_eq!(g.successors(99), &[] as &[u32]);
        assert_eq!(g.names().get(3), Some("v3"));
        assert_eq!(g.names().get(4), None);
    }

    #[test]
    fn unsorted_duplicate_and_out_of_range_edges_are_errors() {
        let bad = |edges: &[(u32, u32)]| Graph::from_edges(names(3), edges).unwrap_err();
        assert!(matches!(
            bad(&[(0, 1), (0, 1)]),
            RankError::Edge {
                index: 1,
                fault: Fault::Unsorted { .. }
            }
        ));
        assert!(matches!(
            bad(&[(1, 0), (0, 2)]),
            RankError::Edge {
                index: 1,
                fault: Fault::Unsorted { .. }
            }
        ));
        assert!(matches!(
            bad(&[(0, 3)]),
            RankError::Edge {
                index: 0,
                fault: Fault::VertexOutOfRange { id: 3, vertices: 3 }
            }
        ));
    }

    #[test]
    fn empty_graph_and_graph_without_edges() {
        let g = Graph::from_edges(Names::new(), &[]).unwrap();
        assert_eq!((g.vertices(), g.edges()), (0, 0));
        let g = Graph::from_edges(names(2), &[]).unwrap();
        assert_eq!(g.successors(1), &[] as &[u32]);
        assert_eq!(g.predecessors(1), &[] as &[u32]);
    }
}
