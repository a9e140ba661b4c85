//! The second stage's view of a page: for every block, what the first stage's scores say about
//! the blocks around it and about the page as a whole (the neighbours' scores, a word-weighted
//! mean over a window, how much of the page the first stage keeps, where the block's score ranks),
//! about the other blocks of its container, and about the blocks that repeat its piece of markup
//! (its template: the posts of a thread, the items of a list).
//!
//! A block alone often cannot tell a forum post from a sidebar teaser, or a product's description
//! from a related product's blurb; its neighbours' scores and the page's overall picture can. This
//! is stacking: the second model is trained (by `examples/train_gbdt.rs`) on the first model's
//! out-of-fold scores passed through [`compute`], and at run time reads the same function's
//! output, so training and extraction share one rule.

/// Context features per block.
pub const NC: usize = 16;

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
    "container_score",
    "container_log_blocks",
    "template_score",
    "template_log_blocks",
];

/// The first-stage score above which a block counts as kept in `page_kept_share`.
pub const KEEP_AT: f32 = -0.25;
/// The score given to a neighbour beyond the page's first or last block.
const NONE: f32 = -6.0;
/// Blocks each side of the window of `window_score`.
const WINDOW: usize = 5;

use super::features;
use crawlsift_common::fnv;

/// A block's word count from its `log_words` feature (`ln(1 + words)`), the one way the trainer
/// (which has only the feature table) and the method derive it.
pub fn words_of(log_words: f32) -> f32 {
    (log_words.exp() - 1.0).max(0.0)
}

/// A block's container and template keys from its features ([`features::CONTAINER`],
/// [`features::TEMPLATE`]): blocks with equal keys share a container, or a piece of markup.
pub fn keys_of(f: &[f32]) -> [u64; 2] {
    let hash = |it: &mut dyn Iterator<Item = usize>| {
        it.fold(fnv::OFFSET, |h, i| {
            // Each feature's bits as one unit.
            fnv::step(h, u64::from(f.get(i).copied().unwrap_or(0.0).to_bits()))
        })
    };
    [
        hash(&mut features::CONTAINER.iter().copied()),
        hash(&mut features::TEMPLATE.clone()),
    ]
}

/// Reusable buffers.
#[derive(Debug, Default)]
pub struct ContextScratch {
    by_key: Vec<(u64, usize)>,
    group: Vec<(f32, f32)>,
    with_words: Vec<usize>,
    sorted: Vec<f32>,
    prefix_ws: Vec<f64>,
    prefix_w: Vec<f64>,
}

/// Fills `out` with one context vector per block from the blocks' word counts, [`keys_of`] and
/// first-stage scores (all of one length). Only blocks with words are neighbours; a block without
/// words takes its context from the next block with words (or the last one), and its container's
/// and template's from the blocks with words of the same key (its own score if none).
pub fn compute(
    words: &[f32],
    keys: &[[u64; 2]],
    scores: &[f32],
    s: &mut ContextScratch,
    out: &mut Vec<[f32; NC]>,
) {
    out.clear();
    let n = words.len().min(scores.len()).min(keys.len());
    s.with_words.clear();
    s.with_words.extend((0..n).filter(|&i| words[i] > 0.0));
    let m = s.with_words.len();
    if m == 0 {
        out.resize(n, [0.0; NC]);
        return;
    }
    groups(words, keys, scores, s);
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
        let (cm, cn) = group_of(s, 0, keys[i][0], own);
        let (tm, tn) = group_of(s, 1, keys[i][1], own);
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
            cm,
            cn,
            tm,
            tn,
        ]);
    }
}

/// Fills `s.group` (two halves: containers, templates) with each key's word-weighted mean score
/// and `ln(1 + blocks)` over the blocks with words, and `s.by_key` with the sorted keys.
fn groups(words: &[f32], keys: &[[u64; 2]], scores: &[f32], s: &mut ContextScratch) {
    s.by_key.clear();
    s.group.clear();
    for kind in [0, 1] {
        let start = s.by_key.len();
        (s.by_key).extend(s.with_words.iter().map(|&i| (keys[i][kind], i)));
        s.by_key[start..].sort_unstable();
        let mut a = start;
        while a < s.by_key.len() {
            let key = s.by_key[a].0;
            let b = a + s.by_key[a..].partition_point(|e| e.0 == key);
            let (mut ws, mut w) = (0.0f64, 0.0f64);
            for &(_, i) in &s.by_key[a..b] {
                ws += f64::from(words[i]) * f64::from(scores[i]);
                w += f64::from(words[i]);
            }
            let v = ((ws / w.max(1.0)) as f32, ((b - a) as f32 + 1.0).ln());
            s.group.extend(std::iter::repeat_n(v, b - a));
            a = b;
        }
    }
}

/// The (mean score, log blocks) of `key`'s group of `kind`, or (`own`, 0) when no block with
/// words has it.
fn group_of(s: &ContextScratch, kind: usize, key: u64, own: f32) -> (f32, f32) {
    let m = s.with_words.len();
    let part = &s.by_key[kind * m..(kind + 1) * m];
    let at = part.partition_point(|e| e.0 < key);
    match part.get(at) {
        Some(e) if e.0 == key => s.group[kind * m + at],
        _ => (own, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_window_and_page() {
        let words = [10.0, 0.0, 30.0, 20.0];
        let scores = [1.0, 5.0, -1.0, 0.5];
        // Blocks 0 and 3 share a container; blocks 1 (no words) and 2 a template.
        let keys = [[1, 7], [2, 9], [3, 9], [1, 8]];
        let mut s = ContextScratch::default();
        let mut out = Vec::new();
        compute(&words, &keys, &scores, &mut s, &mut out);
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
        // Container of blocks 0 and 3: (10 * 1.0 + 20 * 0.5) / 30, two blocks.
        assert!((out[0][12] - 20.0 / 30.0).abs() < 1e-6);
        assert_eq!(out[3][12], out[0][12]);
        assert!((out[0][13] - 3f32.ln()).abs() < 1e-6);
        // Block 1's container has no block with words: its own score, no blocks.
        assert_eq!((out[1][12], out[1][13]), (5.0, 0.0));
        // Block 1's template is block 2's: -1.0, one block.
        assert_eq!(out[1][14], -1.0);
        assert!((out[1][15] - 2f32.ln()).abs() < 1e-6);
    }

    #[test]
    fn a_page_without_words_has_zero_context() {
        let mut out = Vec::new();
        let mut s = ContextScratch::default();
        compute(
            &[0.0, 0.0],
            &[[0, 0], [0, 0]],
            &[1.0, 2.0],
            &mut s,
            &mut out,
        );
        assert_eq!(out, vec![[0.0; NC]; 2]);
        compute(&[], &[], &[], &mut s, &mut out);
        assert!(out.is_empty());
    }
}
