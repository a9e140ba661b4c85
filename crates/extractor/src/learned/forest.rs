//! Scoring with one stage of the model: the generated [`Trees`] are laid out once, at first use,
//! as one fixed-size record per tree (its inner nodes' features and thresholds side by side, then
//! its leaves), and each row is copied into a zero-padded vector of [`WIDTH`] features. Every
//! index is then masked into a fixed-size array, so the walk down a tree has no bounds checks and
//! no branches, and blocks are scored [`BATCH`] at a time so their independent walks overlap.
//!
//! The sum for a row is the stage's bias plus its trees' leaves added in tree order, exactly as
//! the trainer adds them, so a score has the same bits whatever the batch or thread.

use super::model::DEPTH;
use super::Trees;

/// Inner nodes of a complete tree of depth [`DEPTH`] (one slot more, unused, keeps the arrays a
/// power of two).
const NODES: usize = 1 << DEPTH;
const INNER: usize = NODES - 1;
/// Features a padded row holds (a power of two at least the widest stage's).
pub const WIDTH: usize = 64;
/// Blocks scored together, tree by tree: their paths down one tree are independent, so the
/// processor follows them side by side instead of one long chain of dependent loads.
const BATCH: usize = 8;

/// One tree, laid out for the walk.
#[derive(Debug, Clone, Copy)]
struct Tree {
    feature: [u8; NODES],
    threshold: [f32; NODES],
    leaf: [f32; NODES],
}

/// One stage, laid out for scoring.
#[derive(Debug)]
pub struct Forest {
    bias: f32,
    trees: Vec<Tree>,
}

impl Forest {
    /// Lays out `trees`; a split on a feature beyond [`WIDTH`] reads 0, as a feature beyond a
    /// row always has.
    pub fn new(trees: &Trees) -> Forest {
        let nodes = (trees.split_feature.chunks_exact(INNER))
            .zip(trees.split_threshold.chunks_exact(INNER))
            .zip(trees.leaf.chunks_exact(NODES))
            .take(trees.count);
        let laid = nodes.map(|((feature, threshold), leaf)| {
            let mut t = Tree {
                feature: [WIDTH as u8 - 1; NODES],
                threshold: [f32::INFINITY; NODES],
                leaf: [0.0; NODES],
            };
            for (k, (&f, &x)) in feature.iter().zip(threshold).enumerate() {
                // The last padded column is always 0: a split on an unknown feature reads it.
                t.feature[k] = f.min(WIDTH as u8 - 1);
                t.threshold[k] = x;
            }
            t.leaf.copy_from_slice(leaf);
            t
        });
        Forest {
            bias: trees.bias,
            trees: laid.collect(),
        }
    }

    /// Appends to `out` the stage's logit for each row of `rows`.
    pub fn score<const N: usize>(&self, rows: &[[f32; N]], out: &mut Vec<f32>) {
        const { assert!(N < WIDTH) };
        let mut padded = [[0.0f32; WIDTH]; BATCH];
        for batch in rows.chunks(BATCH) {
            for (p, row) in padded.iter_mut().zip(batch) {
                p[..N].copy_from_slice(row);
            }
            let mut sum = [self.bias; BATCH];
            for tree in &self.trees {
                let mut k = [0usize; BATCH];
                for _ in 0..DEPTH {
                    for (k, row) in k.iter_mut().zip(&padded) {
                        let node = *k & (NODES - 1);
                        let x = row[usize::from(tree.feature[node]) & (WIDTH - 1)];
                        *k = 2 * *k + 1 + usize::from(x > tree.threshold[node]);
                    }
                }
                for (sum, k) in sum.iter_mut().zip(k) {
                    *sum += tree.leaf[k.wrapping_sub(INNER) & (NODES - 1)];
                }
            }
            out.extend_from_slice(&sum[..batch.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model;
    use super::*;

    /// The plain walk of the generated arrays the layout must agree with, bit for bit.
    fn reference<const N: usize>(trees: &Trees, row: &[f32; N]) -> f32 {
        let mut sum = trees.bias;
        for t in 0..trees.count {
            let mut k = 0;
            for _ in 0..DEPTH {
                let f = usize::from(trees.split_feature[t * INNER + k]);
                let x = row.get(f).copied().unwrap_or(0.0);
                k = 2 * k + 1 + usize::from(x > trees.split_threshold[t * INNER + k]);
            }
            sum += trees.leaf[t * NODES + k - INNER];
        }
        sum
    }

    /// Rows of a fixed pseudo-random sequence, spread over the thresholds' range.
    fn rows<const N: usize>(n: usize) -> Vec<[f32; N]> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                std::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 2000) as f32 / 100.0 - 5.0
                })
            })
            .collect()
    }

    #[test]
    fn both_stages_score_as_the_plain_walk_in_any_batch() {
        fn check<const N: usize>(trees: &Trees) {
            let forest = Forest::new(trees);
            // 37 rows: whole batches and a partial one.
            let rows = rows::<N>(37);
            let mut out = Vec::new();
            forest.score(&rows, &mut out);
            assert_eq!(out.len(), rows.len());
            for (row, got) in rows.iter().zip(&out) {
                assert_eq!(got.to_bits(), reference(trees, row).to_bits());
            }
            let mut one = Vec::new();
            forest.score(&rows[5..6], &mut one);
            assert_eq!(one[0].to_bits(), out[5].to_bits());
        }
        check::<{ model::FIRST_FEATURES }>(&model::FIRST);
        check::<{ model::SECOND_FEATURES }>(&model::SECOND);
    }
}
