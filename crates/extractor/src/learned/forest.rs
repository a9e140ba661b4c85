//! Scoring with one stage of the model: the generated [`Trees`] are laid out once, at first use,
//! as one fixed-size record per tree (its inner nodes' features and thresholds side by side, then
//! its leaves). Blocks are scored [`LANES`] at a time, their features laid out column by column:
//! every inner node of a tree compares one column with its threshold, and each block's path is
//! then picked among those comparisons by masks, so there are no branches and no chains of
//! dependent loads. Where the processor has AVX2 the picking and the leaf lookups are vector
//! instructions (a third less CPU for `extract` than the node-by-node walk it replaced);
//! elsewhere the same walk is written lane by lane.
//!
//! The sum for a row is the stage's bias plus its trees' leaves added in tree order, exactly as
//! the trainer adds them, so a score has the same bits whatever the batch, thread or processor.

use super::model::DEPTH;
use super::Trees;

/// Inner nodes of a complete tree of depth [`DEPTH`] (one slot more, unused, keeps the arrays a
/// power of two).
const NODES: usize = 1 << DEPTH;
const INNER: usize = NODES - 1;
/// Features a padded row holds (a power of two at least the widest stage's).
pub const WIDTH: usize = 64;
/// Blocks scored together, tree by tree, one to a lane of the comparisons.
const LANES: usize = 8;

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
    ///
    /// [`LANES`] rows at a time are laid out feature by feature, so that every node of a tree
    /// compares one column of the batch with its threshold: each lane's path down the tree is then
    /// chosen among the fifteen comparisons by masks, with no dependent loads (see [`walk`]). In
    /// AVX2 instructions where the processor has them, else lane by lane; the bits are the same.
    pub fn score<const N: usize>(&self, rows: &[[f32; N]], out: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, just checked.
            unsafe { self.score_avx2(rows, out) };
            return;
        }
        self.score_lanes(rows, out);
    }

    /// [`Forest::score`] in AVX2 instructions, eight rows to a register: the walk of
    /// [`walk`] with vector blends, and each lane's leaf read by two in-register permutes of
    /// the tree's sixteen leaves instead of eight loads. The same comparisons and the same
    /// additions in the same order as the portable walk, so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn score_avx2<const N: usize>(&self, rows: &[[f32; N]], out: &mut Vec<f32>) {
        use std::arch::x86_64::*;
        const { assert!(N < WIDTH && LANES == 8 && DEPTH == 4) };
        let mut cols = [[0.0f32; LANES]; WIDTH];
        let mut lane_sums = [0.0f32; LANES];
        for batch in rows.chunks(LANES) {
            lay_out(batch, &mut cols);
            let mut sum = _mm256_set1_ps(self.bias);
            for tree in &self.trees {
                let c = |n: usize| {
                    let col = &cols[usize::from(tree.feature[n]) & (WIDTH - 1)];
                    // SAFETY: `col` is eight floats.
                    let x = unsafe { _mm256_loadu_ps(col.as_ptr()) };
                    _mm256_cmp_ps::<_CMP_GT_OQ>(x, _mm256_set1_ps(tree.threshold[n]))
                };
                // `_mm256_blendv_ps(a, b, m)` is `b` where `m` is set: the right child's.
                let pick = |m, left, right| _mm256_blendv_ps(left, right, m);
                let b0 = c(0);
                let b1 = pick(b0, c(1), c(2));
                let b2 = pick(b0, pick(b1, c(3), c(4)), pick(b1, c(5), c(6)));
                let b3 = pick(
                    b0,
                    pick(b1, pick(b2, c(7), c(8)), pick(b2, c(9), c(10))),
                    pick(b1, pick(b2, c(11), c(12)), pick(b2, c(13), c(14))),
                );
                let bit = |m: __m256, v: i32| {
                    _mm256_and_si256(_mm256_castps_si256(m), _mm256_set1_epi32(v))
                };
                let low = _mm256_or_si256(_mm256_or_si256(bit(b1, 4), bit(b2, 2)), bit(b3, 1));
                // SAFETY: `leaf` is sixteen floats.
                let (left, right) = unsafe {
                    let p = tree.leaf.as_ptr();
                    (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(LANES)))
                };
                let leaf = pick(
                    b0,
                    _mm256_permutevar8x32_ps(left, low),
                    _mm256_permutevar8x32_ps(right, low),
                );
                sum = _mm256_add_ps(sum, leaf);
            }
            // SAFETY: `lane_sums` is eight floats.
            unsafe { _mm256_storeu_ps(lane_sums.as_mut_ptr(), sum) };
            out.extend_from_slice(&lane_sums[..batch.len()]);
        }
    }

    /// [`Forest::score`] lane by lane, in portable Rust: the walk of [`walk`], each lane's leaf
    /// read from the tree.
    #[inline(always)]
    fn score_lanes<const N: usize>(&self, rows: &[[f32; N]], out: &mut Vec<f32>) {
        const { assert!(N < WIDTH) };
        let mut cols = [[0.0f32; LANES]; WIDTH];
        for batch in rows.chunks(LANES) {
            lay_out(batch, &mut cols);
            let mut sum = [self.bias; LANES];
            for tree in &self.trees {
                let leaf = walk(tree, &cols);
                for (sum, k) in sum.iter_mut().zip(leaf) {
                    *sum += tree.leaf[k as usize & (NODES - 1)];
                }
            }
            out.extend_from_slice(&sum[..batch.len()]);
        }
    }
}

/// Writes the rows of `batch` (at most [`LANES`]) into `cols`, row `l` in lane `l` of each of
/// its features' columns. Columns past `N` stay as they were made: 0. Lanes past the batch keep
/// an earlier batch's rows, whose sums are never read.
#[inline(always)]
fn lay_out<const N: usize>(batch: &[[f32; N]], cols: &mut [[f32; LANES]; WIDTH]) {
    for (l, row) in batch.iter().enumerate() {
        for (col, &x) in cols.iter_mut().zip(row) {
            col[l] = x;
        }
    }
}

/// For every lane, `a`'s value where `mask` is all ones and `b`'s where it is zero.
#[inline(always)]
fn select(mask: [u32; LANES], a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
    std::array::from_fn(|l| (a[l] & mask[l]) | (b[l] & !mask[l]))
}

/// Each lane's leaf of `tree`: all fifteen inner nodes compare their column with their
/// threshold (all ones where the row goes right), then each level's turn is picked among its
/// nodes' comparisons by the turns above it. A leaf's index is its path's turns, root first,
/// as bits from 8 down to 1: the heap order the trainer writes.
#[inline(always)]
fn walk(tree: &Tree, cols: &[[f32; LANES]; WIDTH]) -> [u32; LANES] {
    // The picking below is written out for four levels.
    const { assert!(DEPTH == 4) };
    let c: [[u32; LANES]; INNER] = std::array::from_fn(|n| {
        let col = &cols[usize::from(tree.feature[n]) & (WIDTH - 1)];
        let t = tree.threshold[n];
        std::array::from_fn(|l| u32::from(col[l] > t).wrapping_neg())
    });
    let b0 = c[0];
    let b1 = select(b0, c[2], c[1]);
    let b2 = select(b0, select(b1, c[6], c[5]), select(b1, c[4], c[3]));
    let b3 = select(
        b0,
        select(b1, select(b2, c[14], c[13]), select(b2, c[12], c[11])),
        select(b1, select(b2, c[10], c[9]), select(b2, c[8], c[7])),
    );
    std::array::from_fn(|l| (b0[l] & 8) | (b1[l] & 4) | (b2[l] & 2) | (b3[l] & 1))
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

    /// Rows whose every feature is one of the stage's own thresholds, or just above or below
    /// one: the ties where `>` and `>=` part ways.
    fn tie_rows<const N: usize>(trees: &Trees, n: usize) -> Vec<[f32; N]> {
        let t = trees.split_threshold;
        (0..n)
            .map(|r| {
                std::array::from_fn(|f| {
                    let x = t[(r * 131 + f * 17) % t.len()];
                    match (r + f) % 3 {
                        0 => x,
                        1 => f32::from_bits(x.to_bits().wrapping_add(1)),
                        _ => f32::from_bits(x.to_bits().wrapping_sub(1)),
                    }
                })
            })
            .collect()
    }

    #[test]
    fn both_stages_score_as_the_plain_walk_in_any_batch() {
        fn check<const N: usize>(trees: &Trees) {
            let forest = Forest::new(trees);
            // 37 rows: whole batches and a partial one.
            for rows in [rows::<N>(37), tie_rows::<N>(trees, 37)] {
                let mut out = Vec::new();
                forest.score(&rows, &mut out);
                assert_eq!(out.len(), rows.len());
                for (row, got) in rows.iter().zip(&out) {
                    assert_eq!(got.to_bits(), reference(trees, row).to_bits());
                }
                // The portable walk, which a processor without AVX2 takes, gives the same bits.
                let mut lanes = Vec::new();
                forest.score_lanes(&rows, &mut lanes);
                assert_eq!(
                    lanes.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                );
                let mut one = Vec::new();
                forest.score(&rows[5..6], &mut one);
                assert_eq!(one[0].to_bits(), out[5].to_bits());
            }
        }
        check::<{ model::FIRST_FEATURES }>(&model::FIRST);
        check::<{ model::SECOND_FEATURES }>(&model::SECOND);
    }
}
