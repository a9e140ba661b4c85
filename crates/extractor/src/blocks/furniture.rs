//! Rules 12-16 of the `blocks` method: page furniture that sits on every page of a site (a
//! cookie/consent notice, the caption of a sign-up/search/login box, the copyright line and the
//! footer lines after it, a diagnostics line, a short block repeated verbatim), dropped from
//! whatever rules 1-11 kept, article or whole-page fallback. Each is judged on text and
//! structure, since class names may be hashed (CSS modules).

use super::{tune, Scratch};
use crate::dom::{Doc, Tag};

/// Rules 12-16, applied to whatever rules 1-11 kept (an article region or a whole-page
/// fallback): page furniture that sits on every page of a site, article or not, never becomes
/// main text. On a page without an article (search, tag, login, soft-404) it would otherwise be
/// all that is left, and every such page of a site would read the same.
pub(super) fn drop_furniture(doc: &Doc, s: &mut Scratch, out: &mut Vec<usize>) {
    let n = doc.nodes.len();
    // Rule 13: which containers hold a `<form>` (a sign-up, search or login box).
    s.keep.clear();
    s.keep.resize(n, false);
    for i in (1..n).rev() {
        let p = doc.nodes[i].parent as usize;
        if doc.nodes[i].tag == Tag::Form || s.keep[i] {
            s.keep[p] = true;
        }
    }
    // Rule 14: the page's last copyright line ends its content: it and the short lines after it
    // (address, "page generated") are the footer, whatever the markup calls them.
    let mut legal_from = usize::MAX;
    if let Some(pos) = out
        .iter()
        .rposition(|&bi| is_legal_line(doc.block_text(&doc.blocks[bi])))
    {
        let tail_ok = doc.blocks[out[pos]].words <= tune::MAX_FURNITURE_LINE_WORDS
            && out[pos + 1..]
                .iter()
                .all(|&bi| doc.blocks[bi].words <= tune::MAX_FOOTER_TAIL_WORDS);
        if out.len() - pos <= tune::MAX_LEGAL_TAIL_BLOCKS && tail_ok {
            legal_from = pos;
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    let picked = std::mem::take(out);
    for (pos, &bi) in picked.iter().enumerate() {
        let b = &doc.blocks[bi];
        let text = doc.block_text(b).trim();
        let drop = pos >= legal_from
            || is_consent_notice(text, b.words)
            || is_diagnostics_line(text, b.words)
            || in_form_box(doc, s, b.node as usize)
            // Rule 16: a short block repeated verbatim (a breadcrumb's last item and the
            // heading, a heading shown twice) says nothing new the second time.
            || (b.words <= tune::MAX_HEADING_WORDS && seen.contains(&text));
        if b.words <= tune::MAX_HEADING_WORDS && seen.len() < 64 {
            seen.push(text);
        }
        if !drop {
            out.push(bi);
        }
    }
}

/// Rule 12: a cookie/consent notice: a short block that speaks of cookies and of consenting,
/// accepting or agreeing (GDPR/ePrivacy banners). Whatever its markup, it is on every page.
fn is_consent_notice(text: &str, words: u32) -> bool {
    if words > tune::MAX_CONSENT_WORDS || text.len() > 2000 {
        return false;
    }
    // Most blocks do not mention cookies: skip lowering them. Only ASCII letters and the Kelvin
    // sign lower to the letters of "cookie" (the "i" of a lowered "İ" is followed by a dot).
    if !contains_ascii_ci(text, b"cookie") && !text.contains('\u{212a}') {
        return false;
    }
    let t = text.to_lowercase();
    t.contains("cookie")
        && [
            "consent",
            "accept all",
            "accept cookies",
            "agree to",
            "by continuing",
            "by using",
            "cookie settings",
            "cookie policy",
            "cookie preferences",
        ]
        .iter()
        .any(|w| t.contains(w))
}

/// Rule 14: a copyright/legal line: it starts with ©, "(c)", "Copyright" or "All rights
/// reserved", the way site footers write it.
fn is_legal_line(text: &str) -> bool {
    let t = text.trim_start();
    if t.starts_with('©') || t.starts_with("&copy") {
        return true;
    }
    // Only `a`, `c` and `(` themselves lower to the first letter of the openings below.
    if !t.starts_with(['a', 'A', 'c', 'C', '(']) {
        return false;
    }
    // Its first 60 characters, matched without lowering them (this runs on many blocks of
    // every page): no non-ASCII character lowers to these phrases or to a digit (the Kelvin sign
    // lowers to `k`, which they lack; a lowered "İ" is an `i` followed by a dot).
    let head = t
        .char_indices()
        .nth(60)
        .map_or(t, |(end, _)| t.get(..end).unwrap_or(t));
    let opens = |w: &[u8]| {
        head.as_bytes()
            .get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w))
    };
    // "Copyright" or "(c)" opens a legal line when a year or the reservation follows; a
    // sentence about copyright law does not carry one.
    let marked = head.bytes().any(|c| c.is_ascii_digit()) || contains_ascii_ci(head, b"all rights");
    opens(b"all rights reserved") || ((opens(b"copyright") || opens(b"(c) ")) && marked)
}

/// Rule 15: a diagnostics line left by the site software ("Page generated in 0.54s",
/// "Served by node 7 in 12 ms"): a short line naming generation/serving and a number.
fn is_diagnostics_line(text: &str, words: u32) -> bool {
    // The number first: most short lines have none, and it is one pass where the phrases are
    // seven.
    if words > tune::MAX_FURNITURE_LINE_WORDS
        || text.len() > 400
        || !text.bytes().any(|c| c.is_ascii_digit())
    {
        return false;
    }
    // Matched without lowering: no non-ASCII character lowers to these phrases' letters (the
    // "i" of a lowered "İ" is followed by a dot), so this is what lowering first would find.
    [
        &b"generated in"[..],
        b"rendered in",
        b"served in",
        b"served by",
        b"processing time",
        b"query time",
        b"queries in",
    ]
    .iter()
    .any(|w| contains_ascii_ci(text, w))
}

/// Whether `hay` holds `needle` (ASCII, starting with a lowercase letter), ignoring ASCII case.
fn contains_ascii_ci(hay: &str, needle: &[u8]) -> bool {
    let (hay, Some(&first)) = (hay.as_bytes(), needle.first()) else {
        return needle.is_empty();
    };
    let mut at = 0;
    while let Some(i) = hay
        .get(at..)
        .and_then(|h| memchr::memchr2(first, first.to_ascii_uppercase(), h))
    {
        let start = at + i;
        if hay
            .get(start..start + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return true;
        }
        at = start + 1;
    }
    false
}

/// Rule 13: the block sits in a small box that holds a `<form>` (newsletter sign-up, search,
/// login): the box's text is the form's caption, not content. The box must be small, so a
/// page-wide `<form>` (ASP.NET) is not a box.
fn in_form_box(doc: &Doc, s: &Scratch, mut i: usize) -> bool {
    for _ in 0..3 {
        if i == 0 || i >= doc.nodes.len() {
            return false;
        }
        if s.keep[i] && s.words[i] <= tune::MAX_FORM_BOX_WORDS {
            return true;
        }
        if doc.nodes[i].tag == Tag::Form {
            return s.words[i] <= tune::MAX_FORM_BOX_WORDS;
        }
        i = doc.nodes[i].parent as usize;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::tests::{blocks, PROSE};
    use super::is_legal_line;

    #[test]
    fn legal_lines_open_with_the_mark_in_any_case() {
        for yes in [
            "Copyright 2020 Acme",
            "COPYRIGHT (C) ACME, ALL RIGHTS RESERVED",
            "(c) 1999 the authors",
            "All Rights Reserved.",
            "© Acme",
        ] {
            assert!(is_legal_line(yes), "{yes}");
        }
        let late = format!("Copyright law {} all rights", "x".repeat(60));
        for no in [
            "Copyright law protects the work",
            "copyr\u{130}ght 2020",
            "(c)2020 without a space",
            late.as_str(),
            "A line about 2020",
        ] {
            assert!(!is_legal_line(no), "{no}");
        }
    }

    const FURNITURE: &str = "<div class=x9f><p>We use cookies to improve your experience. By clicking Accept all you consent to this.</p></div>\
        <div class=k3a><h3>Newsletter</h3><p>Get the best stories delivered to your inbox every morning, free.</p><form><input type=email></form></div>";
    const FOOTER: &str = "<div class=q7z><p>&copy; 2026 Example Media Group. All rights reserved. Reproduction is prohibited.</p>\
        <p>Example 5 Main Street, Suite 3</p><p>Page generated in 0.541s on node e0fd</p></div>";

    #[test]
    fn furniture_is_dropped_on_a_page_without_an_article() {
        // A category page with hashed class names: heading, link list, furniture.
        let html = format!(
            "<body>{FURNITURE}<ol class=b1><li><a href=/>Home</a></li><li>Pets - latest</li></ol>\
             <div class=c2><h1>Pets - latest</h1><ul><li><a href=/a>A story title here</a></li><li><a href=/b>Another story</a></li></ul></div>{FOOTER}</body>"
        );
        let out = blocks(&html);
        assert_eq!(out, "Pets - latest", "{out}");
    }

    #[test]
    fn consent_notice_is_dropped_but_text_about_cookies_stays() {
        let out = blocks(&format!(
            "<body>{FURNITURE}<article>{PROSE}</article></body>"
        ));
        assert!(!out.contains("We use cookies"), "{out}");
        let html = format!("<body><article>{PROSE}<p>Bake the cookies for ten minutes, then let them cool, and accept that some will break.</p></article></body>");
        assert!(blocks(&html).contains("Bake the cookies"));
    }

    #[test]
    fn sign_up_box_caption_is_dropped() {
        let out = blocks(&format!(
            "<body><article>{PROSE}</article>{FURNITURE}</body>"
        ));
        assert!(out.contains("for years."), "{out}");
        assert!(
            !out.contains("Newsletter") && !out.contains("inbox"),
            "{out}"
        );
    }

    #[test]
    fn last_copyright_line_and_what_follows_are_dropped() {
        let html = format!("<body><div class=p4>{PROSE}{FOOTER}</div></body>");
        let out = blocks(&html);
        assert!(out.ends_with("for years."), "{out}");
        // A copyright line followed by much more text is not the footer.
        let html = format!("<body><div class=p4><p>Copyright law, said the judge, protects the work.</p>{PROSE}</div></body>");
        assert!(blocks(&html).contains("Copyright law"));
    }

    #[test]
    fn diagnostics_lines_are_dropped() {
        let html = format!("<body><div>{PROSE}<p>Page generated in 0.12s by server 7</p></div><div><a href=/>x</a></div></body>");
        let out = blocks(&html);
        assert!(
            out.contains("for years.") && !out.contains("generated"),
            "{out}"
        );
    }

    #[test]
    fn a_block_repeated_verbatim_is_kept_once() {
        let html = format!(
            "<body><div class=p4><p>Budget news</p><h2>Budget news</h2>{PROSE}</div></body>"
        );
        let out = blocks(&html);
        assert_eq!(out.matches("Budget news").count(), 1, "{out}");
    }
}
