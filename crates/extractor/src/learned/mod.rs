//! The `learned` method: a small gradient-boosted tree model scores every text block of the page
//! from its [`features`] (text, tree position, neighbours, and the `blocks` method's own
//! decisions, so the model learns when to override those rules), and the blocks it scores as
//! content are kept, with a heading kept when the text right after it is; on a page where it keeps
//! nothing, the `blocks` method's choice stands.
//!
//! The model ([`model`]) is Rust constants written by `scripts/train_extractor.py` from the
//! committed training table `scripts/extractor-model/blocks-by-column.tsv.xz`; there is no runtime ML
//! dependency. [`explain`] gives, per block, the features, score and decision (`crawlsift extract
//! --explain`, `--dump-blocks`).

pub mod explain;
pub mod features;
// Generated constants: a threshold of 3.14 is a learned split, not an approximation of pi.
#[allow(clippy::approx_constant)]
mod model;

use crate::blocks;
use crate::dom::{Doc, Tag};
use features::{FeatureScratch, RuleView, NF};

/// Reusable buffers of the method.
#[derive(Debug, Default)]
pub struct Scratch {
    rules: RuleView,
    region: Vec<usize>,
    kept: Vec<usize>,
    fs: FeatureScratch,
    feats: Vec<[f32; NF]>,
    scores: Vec<f32>,
    keep: Vec<bool>,
    why: Vec<Why>,
}

/// Why a block was kept or dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The model scored it as content.
    Model,
    /// The model scored it as boilerplate.
    ModelDrop,
    /// A heading dropped by the model, kept because the text right after it is kept.
    Heading,
    /// The model kept nothing on the page: the `blocks` method's choice stands.
    Rules,
}

impl Why {
    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Why::Model => "model",
            Why::ModelDrop => "model",
            Why::Heading => "heading-before-kept-text",
            Why::Rules => "model-kept-nothing-rules-choice",
        }
    }
}

/// One block as [`explain`] reports it.
#[derive(Debug, Clone)]
pub struct BlockReport {
    /// The block's text.
    pub text: String,
    /// Its feature vector (names in [`features::NAMES`]).
    pub features: [f32; NF],
    /// The model's score (a logit: above the model's threshold is content).
    pub score: f32,
    /// Kept in the output.
    pub keep: bool,
    /// Why.
    pub why: Why,
}

// A model trained on another feature vector does not build.
const _: () = assert!(model::FEATURES == NF);

/// The model's logit for one feature vector: the sum of its trees' leaves.
pub fn score(f: &[f32; NF]) -> f32 {
    const INNER: usize = (1 << model::DEPTH) - 1;
    const LEAVES: usize = 1 << model::DEPTH;
    let mut sum = model::BIAS;
    for t in 0..model::TREES {
        let mut k = 0;
        for _ in 0..model::DEPTH {
            let i = t * INNER + k;
            let feature = model::SPLIT_FEATURE.get(i).copied().unwrap_or(0);
            let x = f.get(usize::from(feature)).copied().unwrap_or(0.0);
            let threshold = model::SPLIT_THRESHOLD
                .get(i)
                .copied()
                .unwrap_or(f32::INFINITY);
            k = 2 * k + 1 + usize::from(x > threshold);
        }
        sum += model::LEAF
            .get(t * LEAVES + k - INNER)
            .copied()
            .unwrap_or(0.0);
    }
    sum
}

/// The score above which a block is kept.
pub fn threshold() -> f32 {
    model::THRESHOLD
}

/// Selects the main-content blocks: returns the indices of the kept blocks in document order.
pub fn select(doc: &Doc, bs: &mut blocks::Scratch, s: &mut Scratch, out: &mut Vec<usize>) {
    decide(doc, bs, s);
    out.clear();
    out.extend((0..doc.blocks.len()).filter(|&i| s.keep[i]));
}

/// Every block of `doc` with its features, score and decision.
pub fn explain(doc: &Doc, bs: &mut blocks::Scratch, s: &mut Scratch) -> Vec<BlockReport> {
    decide(doc, bs, s);
    (doc.blocks.iter().enumerate())
        .map(|(i, b)| BlockReport {
            text: doc.block_text(b).to_string(),
            features: s.feats[i],
            score: s.scores[i],
            keep: s.keep[i],
            why: s.why[i],
        })
        .collect()
}

fn decide(doc: &Doc, bs: &mut blocks::Scratch, s: &mut Scratch) {
    let nb = doc.blocks.len();
    blocks::select_explained(doc, bs, &mut s.region, &mut s.rules.furniture, &mut s.kept);
    for (mark, list) in [
        (&mut s.rules.region, &s.region),
        (&mut s.rules.kept, &s.kept),
    ] {
        mark.clear();
        mark.resize(nb, false);
        for &i in list.iter() {
            if let Some(m) = mark.get_mut(i) {
                *m = true;
            }
        }
    }
    features::compute(doc, &s.rules, &mut s.fs, &mut s.feats);
    s.scores.clear();
    s.scores.extend(s.feats.iter().map(score));
    s.keep.clear();
    s.why.clear();
    for &sc in &s.scores {
        let keep = sc > model::THRESHOLD;
        s.keep.push(keep);
        s.why.push(if keep { Why::Model } else { Why::ModelDrop });
    }
    // A page where the model keeps nothing keeps what the rules chose: no text is a worse answer.
    if !s.keep.contains(&true) {
        for &i in &s.kept {
            if let (Some(k), Some(w)) = (s.keep.get_mut(i), s.why.get_mut(i)) {
                *k = true;
                *w = Why::Rules;
            }
        }
    }
    // A heading whose next block with words is kept introduces kept text: keep it too.
    let mut next_kept = false;
    for bi in (0..nb).rev() {
        let b = &doc.blocks[bi];
        if b.words == 0 {
            continue;
        }
        let heading = matches!(
            doc.nodes.get(b.own as usize).map(|n| n.tag),
            Some(Tag::H(_))
        );
        if heading && !s.keep[bi] && next_kept && b.link_words * 2 <= b.words {
            s.keep[bi] = true;
            s.why[bi] = Why::Heading;
        }
        next_kept = s.keep[bi];
    }
}

#[cfg(test)]
mod tests;
