//! The text-reuse section of `report.html` (`dedup --reuse`): the counts of pairs and stories,
//! the pairs by the larger of their two shares (a chart), and the pairs sharing the longest
//! passages side by side, each document's text around its passages with the passages marked.

use std::fmt::Write as _;

use super::charts::{self, Bar};
use super::text::esc;
use crate::reuse::ReuseSummary;

/// Characters of context shown before the first passage and after the last.
const CONTEXT_CHARS: usize = 300;

/// Most characters of one side shown (the rest is cut, marked with an ellipsis).
const SIDE_CHARS: usize = 4000;

/// The section, from the reuse summary of the run.
pub fn section(s: &ReuseSummary) -> String {
    let mut h = String::new();
    h.push_str("<h2>Text reuse and stories</h2>");
    let _ = write!(
        h,
        "<table class=nums><tr><th>documents</th><th>candidate pairs</th><th>pairs sharing text</th>\
         <th>passages</th><th>stories</th><th>documents in stories</th></tr>\
         <tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
        s.documents, s.candidates, s.pairs, s.passages, s.stories, s.story_documents
    );
    let bars: Vec<Bar> = s
        .pairs_by_share
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            Bar::new(
                format!("{:.1}-{:.1}", i as f64 / 10.0, (i + 1) as f64 / 10.0),
                n,
            )
        })
        .collect();
    h.push_str("<div class=grid>");
    h.push_str(&charts::columns(
        "Pairs sharing text, by the larger share",
        "pairs per share of the more contained document's words inside the passages",
        &bars,
    ));
    h.push_str("</div>");
    if s.largest.is_empty() {
        h.push_str("<p>No pair of documents shares a passage.</p>");
    }
    for pair in &s.largest {
        let _ = write!(
            h,
            "<h3>Shares {:.4} and {:.4} &middot; {} passages</h3><div class=pair>",
            pair.shares[0],
            pair.shares[1],
            pair.passages[0].len()
        );
        for side in 0..2 {
            let _ = write!(
                h,
                "<div class=side><div class=label>{}</div><div class=text>{}</div></div>",
                esc(&pair.labels[side]),
                marked(&pair.texts[side], &pair.passages[side])
            );
        }
        h.push_str("</div>");
    }
    h
}

/// The text around `ranges` (character ranges) with each range inside `<mark>`, escaped.
fn marked(text: &str, ranges: &[[u32; 2]]) -> String {
    let mut r: Vec<[usize; 2]> = ranges
        .iter()
        .map(|x| [x[0] as usize, x[1] as usize])
        .collect();
    r.sort_unstable();
    let chars: Vec<char> = text.chars().collect();
    let first = r.first().map_or(0, |x| x[0]);
    let last = r.iter().map(|x| x[1]).max().unwrap_or(0);
    let start = first.saturating_sub(CONTEXT_CHARS);
    let end = (last + CONTEXT_CHARS)
        .min(start + SIDE_CHARS)
        .min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = start;
    let piece = |a: usize, b: usize| esc(&chars[a..b].iter().collect::<String>());
    for [s, e] in r {
        let (s, e) = (s.max(at).min(end), e.min(end));
        if e <= s {
            continue;
        }
        out.push_str(&piece(at, s));
        let _ = write!(out, "<mark>{}</mark>", piece(s, e));
        at = e;
    }
    out.push_str(&piece(at, end));
    if end < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_are_marked_escaped_and_cut_to_their_surroundings() {
        let text = format!("{}<b>shared words</b>{}", "x".repeat(500), "y".repeat(500));
        let m = marked(&text, &[[500, 519]]);
        assert!(m.starts_with('…') && m.ends_with('…'));
        assert!(
            m.contains("<mark>&lt;b&gt;shared words&lt;/b&gt;</mark>"),
            "{m}"
        );
        assert_eq!(m.matches('x').count(), CONTEXT_CHARS);
        // Overlapping and unordered ranges are marked once, in order.
        let m = marked("abcdefgh", &[[4, 6], [1, 3], [2, 5]]);
        assert_eq!(m, "a<mark>bc</mark><mark>de</mark><mark>f</mark>gh");
    }
}
