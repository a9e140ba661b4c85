//! Seed-and-extend alignment of two documents' words, as the PAN text-alignment systems do it
//! (Potthast et al., "Overview of the 5th International Competition on Plagiarism Detection",
//! CLEF 2013): *seeds* are the runs of [`ReuseConfig::seed_words`] words found in both documents
//! (a run repeated more than [`ReuseConfig::max_seed_repeats`] times in either is left out);
//! seeds are chained into passages, in text order on both sides, while the next seed is at most
//! [`ReuseConfig::gap_words`] words further in each document and its diagonal drifts by at most
//! as many words (the edits of a lightly rewritten copy); chains are then merged across gaps of
//! the same size (*extension*), and kept when at least [`ReuseConfig::min_passage_words`] words
//! of each document are inside their seeds. Where passages overlap by half on either side (text
//! repeated in one document), the one with more seeded words is kept.
//!
//! Words masked out in either document (its site's template) give no seed.

use serde::Serialize;

use crate::words::{shingle, Words};
use crate::ReuseConfig;

/// A passage two documents share: its word ranges (indexes into each document's words, end
/// exclusive) and character ranges (Unicode scalar values into each main text, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Passage {
    /// Words of the first document.
    pub a_words: [u32; 2],
    /// Words of the second document.
    pub b_words: [u32; 2],
    /// Characters of the first document's text.
    pub a_chars: [u32; 2],
    /// Characters of the second document's text.
    pub b_chars: [u32; 2],
}

/// A chain of seeds being built: where it starts, its last seed, and the words its seeds cover.
#[derive(Debug, Clone, Copy)]
struct Chain {
    a0: u32,
    b0: u32,
    a1: u32,
    b1: u32,
    li: u32,
    lj: u32,
    a_cov: u32,
    b_cov: u32,
}

/// The seed shingles of one side: (hash, first word), sorted, masked words left out.
fn seed_table(w: &Words, k: usize, mask: &[bool]) -> Vec<(u64, u32)> {
    if w.len() < k {
        return Vec::new();
    }
    let mut masked_run = 0usize; // masked words among the last k
    let mut out = Vec::with_capacity(w.len());
    for i in 0..w.len() {
        if mask.get(i).copied().unwrap_or(false) {
            masked_run = k;
        } else {
            masked_run = masked_run.saturating_sub(1);
        }
        if i + 1 >= k && masked_run == 0 {
            let s = i + 1 - k;
            out.push((shingle(&w.hashes[s..=i]), s as u32));
        }
    }
    out.sort_unstable();
    out
}

/// The seeds of two documents: (word in a, word in b) of every shared shingle, each repeated at
/// most `repeats` times on either side; sorted.
fn seeds(ta: &[(u64, u32)], tb: &[(u64, u32)], repeats: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let (mut x, mut y) = (0, 0);
    while x < ta.len() && y < tb.len() {
        let (ha, hb) = (ta[x].0, tb[y].0);
        if ha < hb {
            x += 1;
        } else if hb < ha {
            y += 1;
        } else {
            let xe = x + ta[x..].partition_point(|e| e.0 == ha);
            let ye = y + tb[y..].partition_point(|e| e.0 == ha);
            if xe - x <= repeats && ye - y <= repeats {
                for ea in &ta[x..xe] {
                    for eb in &tb[y..ye] {
                        out.push((ea.1, eb.1));
                    }
                }
            }
            (x, y) = (xe, ye);
        }
    }
    out.sort_unstable();
    out
}

/// Chains sorted seeds into passages (word ranges and covered words, not yet filtered).
fn chain(seeds: &[(u32, u32)], k: u32, gap: u32) -> Vec<Chain> {
    let mut open: Vec<Chain> = Vec::new();
    let mut done: Vec<Chain> = Vec::new();
    let mut at = None;
    for &(i, j) in seeds {
        // Chains that no later seed can reach are done (checked once per word of `a`).
        if at != Some(i) {
            at = Some(i);
            let mut n = 0;
            while n < open.len() {
                if open[n].li + k + gap < i {
                    done.push(open.remove(n));
                } else {
                    n += 1;
                }
            }
        }
        let mut best: Option<(u32, usize)> = None;
        for (n, c) in open.iter().enumerate() {
            if i <= c.li || j <= c.lj || i - c.li > gap + k || j - c.lj > gap + k {
                continue;
            }
            let drift = (i - c.li).abs_diff(j - c.lj);
            if drift <= gap && best.is_none_or(|(d, _)| drift < d) {
                best = Some((drift, n));
            }
        }
        match best {
            Some((_, n)) => {
                let c = &mut open[n];
                c.a_cov += (i - c.li).min(k);
                c.b_cov += (j - c.lj).min(k);
                (c.li, c.lj) = (i, j);
                (c.a1, c.b1) = (i + k, j + k);
            }
            None => open.push(Chain {
                a0: i,
                b0: j,
                a1: i + k,
                b1: j + k,
                li: i,
                lj: j,
                a_cov: k,
                b_cov: k,
            }),
        }
    }
    done.extend(open);
    done
}

/// Merges chains that follow each other within `gap` words on both sides (in order), so a copy
/// broken by a longer edit is one passage.
fn extend(mut chains: Vec<Chain>, gap: u32) -> Vec<Chain> {
    chains.sort_unstable_by_key(|c| (c.a0, c.b0, c.a1, c.b1));
    let mut out: Vec<Chain> = Vec::with_capacity(chains.len());
    'next: for c in chains {
        for q in out.iter_mut().rev() {
            if q.a1 + gap < c.a0 {
                break;
            }
            let follows = c.a0 >= q.a0
                && c.b0 >= q.b0
                && c.a1 > q.a1
                && c.b1 > q.b1
                && c.a0 <= q.a1 + gap
                && c.b0 <= q.b1 + gap;
            if follows {
                q.a_cov += c.a_cov.saturating_sub(q.a1.saturating_sub(c.a0));
                q.b_cov += c.b_cov.saturating_sub(q.b1.saturating_sub(c.b0));
                (q.a1, q.b1) = (c.a1, c.b1);
                continue 'next;
            }
        }
        out.push(c);
    }
    out
}

/// A document ready to be aligned: its words and its seed shingles (sorted, masked words left
/// out), made once however many partners it has.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    /// The words.
    pub words: Words,
    table: Vec<(u64, u32)>,
}

impl Prepared {
    /// Prepares `words`, `mask` marking (by index) words that give no seed (a shorter mask
    /// leaves the rest unmasked).
    pub fn new(words: Words, mask: &[bool], cfg: &ReuseConfig) -> Prepared {
        let table = seed_table(&words, cfg.seed_words.max(1), mask);
        Prepared { words, table }
    }

    /// Bytes held, roughly (for caches).
    pub fn weight(&self) -> usize {
        self.words.len() * 32
    }
}

/// The passages `a` and `b` share, in order of their place in `a`, then in `b`. `a_mask` and
/// `b_mask` mark words (by index) that give no seed; shorter masks leave the rest unmasked.
pub fn align_words(
    a: &Words,
    b: &Words,
    a_mask: &[bool],
    b_mask: &[bool],
    cfg: &ReuseConfig,
) -> Vec<Passage> {
    let a = Prepared::new(a.clone(), a_mask, cfg);
    let b = Prepared::new(b.clone(), b_mask, cfg);
    align_prepared(&a, &b, cfg)
}

/// [`align_words`] on prepared documents (made with the same `cfg`).
pub fn align_prepared(pa: &Prepared, pb: &Prepared, cfg: &ReuseConfig) -> Vec<Passage> {
    let (a, b) = (&pa.words, &pb.words);
    let k = cfg.seed_words.max(1);
    let seeds = seeds(&pa.table, &pb.table, cfg.max_seed_repeats);
    let gap = cfg.gap_words as u32;
    let chains = extend(chain(&seeds, k as u32, gap), gap);
    let min = cfg.min_passage_words as u32;
    let mut kept: Vec<Chain> = chains
        .into_iter()
        .filter(|c| c.a_cov.min(c.a1 - c.a0) >= min && c.b_cov.min(c.b1 - c.b0) >= min)
        .collect();
    // Each stretch of either document is aligned once: the passages with the most seeded words
    // are kept first, and one that overlaps a kept passage by half its length on either side
    // (text repeated in one document, aligned twice) goes.
    kept.sort_unstable_by_key(|c| (std::cmp::Reverse(c.a_cov + c.b_cov), c.a0, c.b0, c.a1, c.b1));
    let mut chosen: Vec<Chain> = Vec::with_capacity(kept.len());
    for c in kept {
        let overlaps = |x0: u32, x1: u32, y0: u32, y1: u32| {
            2 * x1.min(y1).saturating_sub(x0.max(y0)) >= (x1 - x0)
        };
        if !chosen
            .iter()
            .any(|o| overlaps(c.a0, c.a1, o.a0, o.a1) || overlaps(c.b0, c.b1, o.b0, o.b1))
        {
            chosen.push(c);
        }
    }
    let mut out: Vec<Passage> = chosen.iter().map(|c| passage(a, b, c)).collect();
    out.sort_unstable();
    out
}

fn passage(a: &Words, b: &Words, c: &Chain) -> Passage {
    let (a1, b1) = (c.a1.min(a.len() as u32), c.b1.min(b.len() as u32));
    Passage {
        a_words: [c.a0, a1],
        b_words: [c.b0, b1],
        a_chars: [a.chars[c.a0 as usize].0, a.chars[a1 as usize - 1].1],
        b_chars: [b.chars[c.b0 as usize].0, b.chars[b1 as usize - 1].1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` distinct words, `tag` telling texts apart.
    fn text(tag: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{tag}{i}")).collect()
    }

    fn words(parts: &[&[String]]) -> Words {
        Words::of(&parts.concat().join(" "), usize::MAX)
    }

    #[test]
    fn a_pasted_passage_is_found_at_its_place_in_both_documents() {
        let shared = text("s", 40);
        let a = words(&[&text("a", 100), &shared, &text("b", 30)]);
        let b = words(&[&text("c", 7), &shared]);
        let p = align_words(&a, &b, &[], &[], &ReuseConfig::default());
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].a_words, p[0].b_words), ([100, 140], [7, 47]));
        assert_eq!(
            p[0].b_chars[0] as usize,
            (0..7).map(|i| format!("c{i} ").len()).sum::<usize>()
        );
    }

    #[test]
    fn light_edits_keep_one_passage_and_short_or_unrelated_runs_give_none() {
        let mut edited = text("s", 60);
        for i in [10, 25, 26, 41] {
            edited[i] = format!("x{i}");
        }
        edited.insert(50, "inserted".into());
        let a = words(&[&text("a", 20), &text("s", 60)]);
        let b = words(&[&edited, &text("b", 20)]);
        let cfg = ReuseConfig::default();
        let p = align_words(&a, &b, &[], &[], &cfg);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].a_words, p[0].b_words), ([20, 80], [0, 61]));
        // A shared run shorter than the minimum is no passage.
        let short = text("s", cfg.min_passage_words - 1);
        let c = words(&[&text("d", 50), &short, &text("e", 50)]);
        assert!(align_words(&a, &c, &[], &[], &cfg).is_empty());
        assert!(align_words(&a, &words(&[&text("z", 90)]), &[], &[], &cfg).is_empty());
    }

    #[test]
    fn text_repeated_in_one_document_is_aligned_once_and_masked_words_give_no_seed() {
        let shared = text("s", 30);
        let a = words(&[&shared, &text("a", 5)]);
        let b = words(&[&shared, &text("b", 50), &shared]);
        let cfg = ReuseConfig::default();
        let p = align_words(&a, &b, &[], &[], &cfg);
        assert_eq!(p.len(), 1, "{p:?}");
        let mask: Vec<bool> = (0..a.len()).map(|i| i < 30).collect();
        assert!(align_words(&a, &b, &mask, &[], &cfg).is_empty());
    }
}
