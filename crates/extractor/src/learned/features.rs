//! The feature vector of each text block, for the `learned` method and its training table.
//!
//! Every feature is read from the flat [`Doc`] in a few linear passes (no recursion): the block's
//! own text (length, link density, punctuation), its place in the tree (own tag, the tags and
//! class/id hints of its ancestors, depth), its place in the page, its neighbours (previous and
//! next block, its container's totals and siblings) and what the rule-based `blocks` method
//! decided for it (inside its region, kept after its furniture rules, under furniture names), so
//! that the model learns when to override the rules (stacking).

use crate::dom::{hint, Doc, Tag};

/// Number of features per block.
pub const NF: usize = 44;

/// Index of `log_words` (`ln(1 + words)`) in [`NAMES`].
pub const LOG_WORDS: usize = 0;
/// The features that are the same for every block of one container (`node_log_words`,
/// `node_link_density`, `node_children`): equal values mark blocks of one container.
pub const CONTAINER: [usize; 3] = [35, 36, 37];
/// The features that describe a block's place in the template (`own_h` to `hint_comment`, and
/// `depth`): equal values mark blocks that repeat one piece of markup, as posts or items do.
pub const TEMPLATE: std::ops::RangeInclusive<usize> = 8..=28;

/// Feature names, in vector order (the training table's header and `--explain`'s labels).
pub const NAMES: [&str; NF] = [
    "log_words",
    "log_chars",
    "link_density",
    "punct_per_word",
    "chars_per_word",
    "digit_share",
    "upper_share",
    "ends_sentence",
    "own_h",
    "own_p",
    "own_li",
    "own_td",
    "own_pre",
    "own_dt_dd",
    "own_blockquote",
    "own_div",
    "in_li",
    "in_table",
    "in_nav",
    "in_header",
    "in_footer",
    "in_aside",
    "in_form",
    "in_article_main",
    "in_figure",
    "hint_neg",
    "hint_pos",
    "hint_comment",
    "depth",
    "pos_block",
    "pos_text",
    "prev_log_words",
    "prev_link_density",
    "next_log_words",
    "next_link_density",
    "node_log_words",
    "node_link_density",
    "node_children",
    "page_log_words",
    "rule_region",
    "rule_kept",
    "rule_furniture",
    "rule_distance",
    "rule_page_kept_share",
];

/// What the `blocks` method decided, per block, as [`compute`] reads it.
#[derive(Debug, Default)]
pub struct RuleView {
    /// Inside the region its rules 1-11 chose (before the furniture rules).
    pub region: Vec<bool>,
    /// Kept in its final output.
    pub kept: Vec<bool>,
    /// Under an element its rules treat as furniture.
    pub furniture: Vec<bool>,
}

/// Reusable per-node buffers.
#[derive(Debug, Default)]
pub struct FeatureScratch {
    words: Vec<u32>,
    links: Vec<u32>,
    children: Vec<u32>,
    flags: Vec<u32>,
    hints: Vec<u8>,
    depth: Vec<u16>,
    /// Each block's start in the text and its characters, whitespace runs counted as one.
    collapsed: Vec<(usize, u32)>,
}

// Ancestor flags (own node included).
const F_LI: u32 = 1;
const F_TABLE: u32 = 2;
const F_NAV: u32 = 4;
const F_HEADER: u32 = 8;
const F_FOOTER: u32 = 16;
const F_ASIDE: u32 = 32;
const F_FORM: u32 = 64;
const F_ARTICLE: u32 = 128;
const F_FIGURE: u32 = 256;

fn tag_flag(tag: Tag) -> u32 {
    match tag {
        Tag::Li | Tag::Ul | Tag::Ol | Tag::Dl => F_LI,
        Tag::Table | Tag::Tr | Tag::Td => F_TABLE,
        Tag::Nav | Tag::Menu => F_NAV,
        Tag::Header => F_HEADER,
        Tag::Footer | Tag::Address => F_FOOTER,
        Tag::Aside => F_ASIDE,
        Tag::Form => F_FORM,
        Tag::Article | Tag::Main => F_ARTICLE,
        Tag::Figure | Tag::Figcaption => F_FIGURE,
        _ => 0,
    }
}

/// Bytes and characters of `text` with every run of whitespace counted as one.
fn collapsed(text: &str) -> (usize, usize) {
    let (mut bytes, mut chars, mut in_space) = (0, 0, false);
    for c in text.chars() {
        let space = c.is_whitespace();
        if !(space && in_space) {
            bytes += if space { 1 } else { c.len_utf8() };
            chars += 1;
        }
        in_space = space;
    }
    (bytes, chars)
}

fn ln1(x: f32) -> f32 {
    (1.0 + x).ln()
}

fn ratio(a: u32, b: u32) -> f32 {
    if b == 0 {
        0.0
    } else {
        a as f32 / b as f32
    }
}

fn b2f(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Fills `out` with one feature vector per block of `doc` (`out.len() == doc.blocks.len()`).
pub fn compute(doc: &Doc, rules: &RuleView, s: &mut FeatureScratch, out: &mut Vec<[f32; NF]>) {
    out.clear();
    let n = doc.nodes.len();
    let nb = doc.blocks.len();
    if nb == 0 || n == 0 {
        return;
    }
    for v in [&mut s.words, &mut s.links, &mut s.children, &mut s.flags] {
        v.clear();
        v.resize(n, 0);
    }
    s.hints.clear();
    s.hints.resize(n, 0);
    s.depth.clear();
    s.depth.resize(n, 0);
    for b in &doc.blocks {
        let i = (b.node as usize).min(n - 1);
        s.words[i] += b.words;
        s.links[i] += b.link_words;
    }
    for i in (1..n).rev() {
        let p = (doc.nodes[i].parent as usize).min(i - 1);
        s.words[p] += s.words[i];
        s.links[p] += s.links[i];
        s.children[p] += 1;
    }
    for i in 0..n {
        let node = &doc.nodes[i];
        let (pf, ph, pd) = if i == 0 {
            (0, 0, 0)
        } else {
            let p = (node.parent as usize).min(i - 1);
            (s.flags[p], s.hints[p], s.depth[p])
        };
        s.flags[i] = pf | tag_flag(node.tag);
        s.hints[i] = ph | (node.hints & (hint::NEG | hint::POS | hint::COMMENT));
        s.depth[i] = pd.saturating_add(1);
    }
    let page_words = s.words[0];
    // Lengths and places are read as if every run of whitespace were one character, as the text
    // was before `<pre>` kept its line breaks and indentation: the features, and so the model's
    // decisions, do not depend on how a page indents its code.
    s.collapsed.clear();
    let mut at = 0usize;
    for b in &doc.blocks {
        let (bytes, chars) = collapsed(doc.block_text(b));
        s.collapsed.push((at, chars as u32));
        at += bytes + 1;
    }
    let text_len = at.saturating_sub(1).max(1) as f32;
    let kept_words: u32 = (doc.blocks.iter().zip(&rules.kept))
        .filter(|(_, &k)| k)
        .map(|(b, _)| b.words)
        .sum();
    let kept_share = ratio(kept_words, page_words);
    // Distance (in blocks) to the nearest block the rules kept, capped.
    const CAP: usize = 20;
    let mut dist = vec![CAP; nb];
    let mut last: Option<usize> = None;
    for (bi, d) in dist.iter_mut().enumerate() {
        if rules.kept.get(bi).copied().unwrap_or(false) {
            last = Some(bi);
        }
        if let Some(l) = last {
            *d = (bi - l).min(CAP);
        }
    }
    last = None;
    for bi in (0..nb).rev() {
        if rules.kept.get(bi).copied().unwrap_or(false) {
            last = Some(bi);
        }
        if let Some(l) = last {
            dist[bi] = dist[bi].min((l - bi).min(CAP));
        }
    }
    for (bi, b) in doc.blocks.iter().enumerate() {
        let text = doc.block_text(b);
        let (start, chars) = s.collapsed.get(bi).copied().unwrap_or((0, 0));
        let (mut digits, mut upper, mut alpha) = (0u32, 0u32, 0u32);
        for c in text.chars() {
            if c.is_numeric() {
                digits += 1;
            } else if c.is_alphabetic() {
                alpha += 1;
                if c.is_uppercase() {
                    upper += 1;
                }
            }
        }
        let own = (b.own as usize).min(n - 1);
        let node = (b.node as usize).min(n - 1);
        let own_tag = doc.nodes[own].tag;
        let fl = s.flags[own] | s.flags[node];
        let hi = s.hints[own] | s.hints[node];
        let ends = text
            .trim_end()
            .ends_with(['.', '!', '?', '。', ':', ';', '"', '\u{201d}']);
        let neighbour = |k: Option<usize>| match k.and_then(|k| doc.blocks.get(k)) {
            Some(o) => (ln1(o.words as f32), ratio(o.link_words, o.words)),
            None => (0.0, 0.0),
        };
        let (pw, pl) = neighbour(bi.checked_sub(1));
        let (nw, nl) = neighbour(Some(bi + 1));
        let get = |v: &Vec<bool>| b2f(v.get(bi).copied().unwrap_or(false));
        let f = [
            ln1(b.words as f32),
            ln1(chars as f32),
            ratio(b.link_words, b.words),
            ratio(b.punct, b.words),
            ratio(chars, b.words.max(1)).min(30.0),
            ratio(digits, chars),
            ratio(upper, alpha),
            b2f(ends),
            match own_tag {
                Tag::H(l) => f32::from(l),
                _ => 0.0,
            },
            b2f(own_tag == Tag::P),
            b2f(own_tag == Tag::Li),
            b2f(own_tag == Tag::Td),
            b2f(own_tag == Tag::Pre),
            b2f(matches!(own_tag, Tag::Dt | Tag::Dd)),
            b2f(own_tag == Tag::Blockquote),
            b2f(matches!(own_tag, Tag::Div | Tag::Section)),
            b2f(fl & F_LI != 0),
            b2f(fl & F_TABLE != 0),
            b2f(fl & F_NAV != 0),
            b2f(fl & F_HEADER != 0),
            b2f(fl & F_FOOTER != 0),
            b2f(fl & F_ASIDE != 0),
            b2f(fl & F_FORM != 0),
            b2f(fl & F_ARTICLE != 0),
            b2f(fl & F_FIGURE != 0),
            b2f(hi & hint::NEG != 0),
            b2f(hi & hint::POS != 0),
            b2f(hi & hint::COMMENT != 0),
            f32::from(s.depth[own].min(255)),
            bi as f32 / nb as f32,
            start as f32 / text_len,
            pw,
            pl,
            nw,
            nl,
            ln1(s.words[node] as f32),
            ratio(s.links[node], s.words[node]),
            ln1(s.children[node] as f32),
            ln1(page_words as f32),
            get(&rules.region),
            get(&rules.kept),
            get(&rules.furniture),
            dist[bi] as f32,
            kept_share,
        ];
        out.push(f);
    }
}
