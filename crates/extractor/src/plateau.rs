//! The `plateau` method: Body Text Extraction (Finn, Kushmerick & Smyth, 2001).
//!
//! The page is a sequence of tokens, each a tag or a word. Choose i <= j maximising
//! `tags before i + words in [i, j] + tags after j`. With tag = -1 and word = +1 this is the
//! maximum-sum contiguous range, found in one pass over prefix sums. Words come in runs between
//! tags ([`Chunk`]s), and an optimal range starts and ends on run boundaries, so the pass is over
//! runs: O(runs).

use crate::dom::{Chunk, Doc};

/// The byte range of [`Doc::text`] that the method keeps, or `None` for a page without words.
pub fn select(doc: &Doc) -> Option<(usize, usize)> {
    let chunks: &[Chunk] = &doc.chunks;
    if chunks.is_empty() {
        return None;
    }
    // P(k) = words before run k - tags before run k. A range of runs [a, b] scores
    // (words through b - tags through b) - P(a), since tags between runs count -1 each.
    let mut words_before: i64 = 0;
    let mut min_prefix = i64::MAX;
    let mut min_at = 0usize;
    let mut best = i64::MIN;
    let mut best_range = (0usize, 0usize);
    for (k, c) in chunks.iter().enumerate() {
        let p = words_before - i64::from(c.tags_before);
        if p < min_prefix {
            min_prefix = p;
            min_at = k;
        }
        words_before += i64::from(c.words);
        let end_score = words_before - i64::from(c.tags_before);
        let score = end_score - min_prefix;
        if score > best {
            best = score;
            best_range = (min_at, k);
        }
    }
    let (a, b) = best_range;
    let start = chunks[a].start as usize;
    let end = chunks[b].end as usize;
    (start <= end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::parse;

    #[test]
    fn keeps_the_dense_text_run_and_drops_tag_heavy_edges() {
        let nav = "<ul><li><a href=/>Home</a></li><li><a href=/a>About</a></li><li><a href=/b>News</a></li></ul>";
        let body = "<p>The quick brown fox jumps over the lazy dog and keeps running far away.</p>\
                    <p>Another sentence of <b>body</b> text follows here in the article.</p>";
        let html = format!("<html><body>{nav}<div>{body}</div>{nav}</body></html>");
        let mut d = Doc::default();
        parse(&html, &mut d);
        let (s, e) = select(&d).unwrap();
        let out = &d.text[s..e];
        assert!(out.starts_with("The quick brown fox"), "{out}");
        assert!(out.ends_with("in the article."), "{out}");
        assert!(!out.contains("Home"));
    }

    #[test]
    fn empty_page_selects_nothing() {
        let mut d = Doc::default();
        parse("<html><body><img></body></html>", &mut d);
        assert_eq!(select(&d), None);
    }
}
