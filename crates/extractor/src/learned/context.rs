//! The second stage's view of a page: for every block, what the first stage's scores say about
//! the blocks around it and about the page as a whole (the neighbours' scores, a word-weighted
//! mean over a window, how much of the page the first stage keeps, where the block's score ranks).
//!
//! A block alone often cannot tell a forum post from a sidebar teaser, or a product's description
//! from a related product's blurb; its neighbours' scores and the page's overall picture can. This
//! is stacking: the second model is trained (by `examples/train_gbdt.rs`) on the first model's
//! out-of-fold scores passed through [`compute`], and at run time reads the same function's
//! output, so training and extraction share one rule.

/// Context features per block.
pub const NC: usize = 12;

/// Their names, in order (after the block's own features in `--explain` and the trainer).
pub const NAMES: [&str; NC] = [
    "first_score",
    "prev_score",
    "next_score",
    "prev2_score",
    "next2_score",
    "window_score",
    "page_kept_share",
    "page_max_score",
    "share_above",
    "page_log_kept_words",
    "max_neighbour_score",
    "min_neighbour_score",
];

/// The first-stage score above which a block counts as kept in `page_kept_share`.
pub const KEEP_AT: f32 = -0.25;
/// The score given to a neighbour beyond the page's first or last block.
const NONE: f32 = -6.0;
/// Blocks each side of the window of `window_score`.
const WINDOW: usize = 5;

/// A block's word count from its `log_words` feature (`ln(1 + words)`), the one way the trainer
/// (which has only the feature table) and the method derive it.
pub fn words_of(log_words: f32) -> f32 {
    (log_words.exp() - 1.0).max(0.0)
}

/// Reusable buffers.
#[derive(Debug, Default)]
pub struct ContextScratch {
    with_words: Vec<usize>,
    sorted: Vec<f32>,
    prefix_ws: Vec<f64>,
    prefix_w: Vec<f64>,
}

/// Fills `out` with one context vector per block from the blocks' word counts and first-stage
/// scores (`words.len() == scores.len()`). Only blocks with words are neighbours; a block without
/// words takes its context from the next block with words (or the last one).
pub fn compute(words: &[f32], scores: &[f32], s: &mut ContextScratch, out: &mut Vec<[f32; NC]>) {
    out.clear();
    let n = words.len().min(scores.len());
    s.with_words.clear();
    s.with_words.extend((0..n).filter(|&i| words[i] > 0.0));
    let m = s.with_words.len();
    if m == 0 {
        out.resize(n, [0.0; NC]);
        return;
    }
    let ss = |k: usize| scores[s.with_words[k]];
    let ww = |k: usize| f64::from(words[s.with_words[k]]);
    s.prefix_ws.clear();
    s.prefix_w.clear();
    let (mut a, mut b) = (0.0f64, 0.0f64);
    s.prefix_ws.push(0.0);
    s.prefix_w.push(0.0);
    let (mut total, mut kept, mut max) = (0.0f64, 0.0f64, f32::MIN);
    for k in 0..m {
        a += ww(k) * f64::from(ss(k));
        b += ww(k);
        s.prefix_ws.push(a);
        s.prefix_w.push(b);
        total += ww(k);
        if ss(k) > KEEP_AT {
            kept += ww(k);
        }
        max = max.max(ss(k));
    }
    s.sorted.clear();
    s.sorted.extend((0..m).map(ss));
    s.sorted.sort_by(|x, y| x.total_cmp(y));
    let kept_share = (kept / total.max(1.0)) as f32;
    let log_kept = (kept + 1.0).ln() as f32;
    let mut next = 0usize; // index into with_words of the first block with words at or after i
    for (i, &own) in scores.iter().enumerate().take(n) {
        while next < m && s.with_words[next] < i {
            next += 1;
        }
        let j = next.min(m - 1);
        let at = |k: isize| {
            if k >= 0 && (k as usize) < m {
                ss(k as usize)
            } else {
                NONE
            }
        };
        let jj = j as isize;
        let (lo, hi) = (j.saturating_sub(WINDOW), (j + WINDOW + 1).min(m));
        let window = ((s.prefix_ws[hi] - s.prefix_ws[lo])
            / (s.prefix_w[hi] - s.prefix_w[lo]).max(1.0)) as f32;
        let above = m - s.sorted.partition_point(|v| *v <= own);
        let (prev, nxt) = (at(jj - 1), at(jj + 1));
        out.push([
            own,
            prev,
            nxt,
            at(jj - 2),
            at(jj + 2),
            window,
            kept_share,
            max,
            above as f32 / m as f32,
            log_kept,
            prev.max(nxt),
            prev.min(nxt),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_window_and_page() {
        let words = [10.0, 0.0, 30.0, 20.0];
        let scores = [1.0, 5.0, -1.0, 0.5];
        let mut s = ContextScratch::default();
        let mut out = Vec::new();
        compute(&words, &scores, &mut s, &mut out);
        assert_eq!(out.len(), 4);
        // Block 0: no previous block; the next block with words is block 2.
        assert_eq!(out[0][0], 1.0);
        assert_eq!(out[0][1], NONE);
        assert_eq!(out[0][2], -1.0);
        assert_eq!(out[0][4], 0.5);
        // Block 1 has no words: it takes block 2's neighbours, keeps its own score.
        assert_eq!(out[1][0], 5.0);
        assert_eq!(out[1][1], 1.0);
        assert_eq!(out[1][2], 0.5);
        // Page: blocks 0 and 3 are kept (30 of 60 words); the best score 1.0.
        assert!((out[2][6] - 0.5).abs() < 1e-6);
        assert_eq!(out[2][7], 1.0);
        // Two of three blocks with words score above block 2's -1.0.
        assert!((out[2][8] - 2.0 / 3.0).abs() < 1e-6);
        // Window over all three: (10 - 30 + 10) / 60.
        assert!((out[3][5] - (-10.0 / 60.0)).abs() < 1e-6);
    }

    #[test]
    fn a_page_without_words_has_zero_context() {
        let mut out = Vec::new();
        compute(
            &[0.0, 0.0],
            &[1.0, 2.0],
            &mut ContextScratch::default(),
            &mut out,
        );
        assert_eq!(out, vec![[0.0; NC]; 2]);
        compute(&[], &[], &mut ContextScratch::default(), &mut out);
        assert!(out.is_empty());
    }
}
