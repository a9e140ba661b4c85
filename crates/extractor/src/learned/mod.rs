//! The `learned` method: gradient-boosted trees in two stages score every text block of the page.
//! The first reads the block's [`features`] (text, tree position, neighbours, and the `blocks`
//! method's own decisions, so the model learns when to override those rules); the second reads
//! them and the block's [`context`]: the first stage's scores around it and over the page
//! (stacking). The blocks the second stage scores as content are kept, with a heading kept when
//! the text right after it is; on a page where it keeps nothing, the `blocks` method's choice
//! stands.
//!
//! The model (`model`) is Rust constants written by `scripts/train_extractor.py` from the
//! committed training table `scripts/extractor-model/blocks-by-column.tsv.xz`; there is no
//! runtime ML dependency. [`explain`](mod@explain) gives, per block, the features, score and
//! decision (`crawlsift extract --explain`, `--dump-blocks`).

pub mod context;
pub mod explain;
pub mod features;
mod forest;
// Generated constants: a threshold of 3.14 is a learned split, not an approximation of pi.
#[allow(clippy::approx_constant)]
mod model;

use crate::blocks;
use crate::dom::{Doc, Tag};
use context::{ContextScratch, NC};
use features::{FeatureScratch, RuleView, NF};
use forest::Forest;
use std::sync::LazyLock;

/// Reusable buffers of the method.
#[derive(Debug, Default)]
pub struct Scratch {
    rules: RuleView,
    region: Vec<usize>,
    kept: Vec<usize>,
    fs: FeatureScratch,
    feats: Vec<[f32; NF]>,
    first: Vec<f32>,
    words: Vec<f32>,
    keys: Vec<[u64; 2]>,
    cs: ContextScratch,
    context: Vec<[f32; NC]>,
    both: Vec<[f32; NF + NC]>,
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

/// One block as [`explain()`] reports it.
#[derive(Debug, Clone)]
pub struct BlockReport {
    /// The block's text.
    pub text: String,
    /// Its feature vector (names in [`features::NAMES`]).
    pub features: [f32; NF],
    /// The first stage's score (a logit).
    pub first_score: f32,
    /// Its context (names in [`context::NAMES`]).
    pub context: [f32; NC],
    /// The second stage's score (a logit: above the model's threshold is content).
    pub score: f32,
    /// Kept in the output.
    pub keep: bool,
    /// Why.
    pub why: Why,
}

/// One stage of the model: complete trees of depth [`model::DEPTH`] in heap order.
#[derive(Debug)]
struct Trees {
    count: usize,
    bias: f32,
    split_feature: &'static [u8],
    split_threshold: &'static [f32],
    leaf: &'static [f32],
}

// A model trained on another feature vector does not build.
const _: () = assert!(model::FIRST_FEATURES == NF);
const _: () = assert!(model::SECOND_FEATURES == NF + NC);

/// The two stages, laid out for scoring at first use.
static FIRST: LazyLock<Forest> = LazyLock::new(|| Forest::new(&model::FIRST));
static SECOND: LazyLock<Forest> = LazyLock::new(|| Forest::new(&model::SECOND));

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
            first_score: s.first[i],
            context: s.context[i],
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
    s.first.clear();
    FIRST.score(&s.feats, &mut s.first);
    s.words.clear();
    (s.words).extend(
        s.feats
            .iter()
            .map(|f| context::words_of(f[features::LOG_WORDS])),
    );
    s.keys.clear();
    s.keys.extend(s.feats.iter().map(|f| context::keys_of(f)));
    context::compute(&s.words, &s.keys, &s.first, &mut s.cs, &mut s.context);
    s.both.clear();
    for (f, c) in s.feats.iter().zip(&s.context) {
        let mut both = [0.0f32; NF + NC];
        both[..NF].copy_from_slice(f);
        both[NF..].copy_from_slice(c);
        s.both.push(both);
    }
    s.scores.clear();
    SECOND.score(&s.both, &mut s.scores);
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
