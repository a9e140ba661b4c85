//! Union-find over document or text indices, for grouping (same texts, classes).

/// Union-find whose root is always the lowest index of its set.
pub(super) struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    pub(super) fn new(n: usize) -> Self {
        Self {
            parent: (0..n as u32).collect(),
        }
    }

    pub(super) fn find(&mut self, mut x: u32) -> u32 {
        let mut root = x;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[x as usize] != root {
            let next = self.parent[x as usize];
            self.parent[x as usize] = root;
            x = next;
        }
        root
    }

    /// Joins two roots; the lower index stays root.
    pub(super) fn union(&mut self, ra: u32, rb: u32) {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[hi as usize] = lo;
    }
}
