//! Text on the page of `report.html`: HTML escaping, labels cut to a width, and the word-level
//! differences of a cluster's representative and member (every word from a page escaped).

use std::fmt::Write as _;

use crawlsift_common::limits::REPORT_DIFF_WORDS;

/// `s` with `&`, `<`, `>`, `"` and `'` escaped.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// `s` cut to `max` characters, an ellipsis marking the cut.
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut o: String = s.chars().take(max.saturating_sub(1)).collect();
    o.push('…');
    o
}

/// Word-level differences of `a` and `b` (their first [`REPORT_DIFF_WORDS`] words), as HTML:
/// words only in `a` in `<del>`, only in `b` in `<ins>`, the rest plain; all escaped.
pub fn word_diff(a: &str, b: &str) -> [String; 2] {
    let wa: Vec<&str> = a.split_whitespace().take(REPORT_DIFF_WORDS).collect();
    let wb: Vec<&str> = b.split_whitespace().take(REPORT_DIFF_WORDS).collect();
    let (n, m) = (wa.len(), wb.len());
    // lcs[i][j]: longest common subsequence of wa[i..] and wb[j..].
    let mut lcs = vec![0u16; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * (m + 1) + j] = if wa[i] == wb[j] {
                lcs[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut oa, mut ob) = (String::new(), String::new());
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && wa[i] == wb[j] {
            oa.push_str(&esc(wa[i]));
            ob.push_str(&esc(wb[j]));
            oa.push(' ');
            ob.push(' ');
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j]) {
            let _ = write!(ob, "<ins>{}</ins> ", esc(wb[j]));
            j += 1;
        } else {
            let _ = write!(oa, "<del>{}</del> ", esc(wa[i]));
            i += 1;
        }
    }
    for (o, words, all) in [(&mut oa, n, a), (&mut ob, m, b)] {
        if all.split_whitespace().nth(words).is_some() {
            o.push_str("<i>[…]</i>");
        }
    }
    [oa, ob]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_text_is_escaped_and_differences_marked() {
        let [a, b] = word_diff("the <b>cat</b> sat", "the <script>x</script> sat down");
        assert_eq!(a, "the <del>&lt;b&gt;cat&lt;/b&gt;</del> sat ");
        assert_eq!(
            b,
            "the <ins>&lt;script&gt;x&lt;/script&gt;</ins> sat <ins>down</ins> "
        );
        assert_eq!(esc("a&'\""), "a&amp;&#39;&quot;");
    }

    #[test]
    fn long_texts_are_cut_and_say_so() {
        let long = "w ".repeat(REPORT_DIFF_WORDS + 5);
        let [a, _] = word_diff(&long, "w");
        assert!(a.ends_with("<i>[…]</i>"));
    }
}
