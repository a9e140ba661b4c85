//! What the kept text blocks are: headings, paragraphs, list items, table cells, quotes and code,
//! with their emphasis, so that the output formats ([`crate::format`]) can write Markdown and
//! TEI-like XML from the same choice of blocks the plain text comes from.
//!
//! A block's kind is that of the nearest container above it that says one (`<h2>`, `<li>`,
//! `<td>`, `<pre>`, `<blockquote>`), looking at most `MAX_KIND_DEPTH` containers up and never
//! past a list, table or sectioning element: the paragraphs of an article laid out in one table
//! cell are paragraphs, not cells.

use crate::dom::{hint, Doc, Tag};

/// How many containers above a block are looked at for its kind.
const MAX_KIND_DEPTH: usize = 4;

/// What a part of the main text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// A heading of this level (1-6).
    Heading(u8),
    /// A paragraph (or any other block of text).
    Paragraph,
    /// An item of the list whose container is node `list`.
    Item {
        /// The list's node index: consecutive items of one list are written together.
        list: u32,
        /// An `<ol>`.
        ordered: bool,
    },
    /// A table cell.
    Cell {
        /// The table's node index.
        table: u32,
        /// The row's node index.
        row: u32,
        /// The cell's node index: a cell may hold several blocks.
        cell: u32,
        /// A header cell (`<th>`).
        head: bool,
    },
    /// A quotation (`<blockquote>`).
    Quote,
    /// Preformatted text (`<pre>`).
    Code,
}

/// Emphasis inside a [`Part`]'s text: a byte range of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emphasis {
    /// Start of the byte range (at a word).
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
    /// Strong (`b`, `strong`) rather than emphasised (`i`, `em`).
    pub strong: bool,
}

/// One kept block of the main text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it is.
    pub kind: PartKind,
    /// Its text, one line.
    pub text: String,
    /// Its emphasised ranges, in order, not overlapping.
    pub emphasis: Vec<Emphasis>,
}

/// The kind of the block owned by container `node`.
fn kind_of(doc: &Doc, node: u32) -> PartKind {
    let mut n = node as usize;
    for _ in 0..MAX_KIND_DEPTH {
        let Some(x) = doc.nodes.get(n) else { break };
        match x.tag {
            Tag::H(level) => return PartKind::Heading(level),
            Tag::Pre => return PartKind::Code,
            Tag::Blockquote => return PartKind::Quote,
            Tag::Li => {
                let list = x.parent;
                let ordered = doc
                    .nodes
                    .get(list as usize)
                    .is_some_and(|l| l.tag == Tag::Ol);
                return PartKind::Item { list, ordered };
            }
            Tag::Td => return cell(doc, n, x.hints & hint::HEAD_CELL != 0),
            Tag::Root
            | Tag::Body
            | Tag::Article
            | Tag::Main
            | Tag::Section
            | Tag::Table
            | Tag::Tr
            | Tag::Ul
            | Tag::Ol
            | Tag::Dl => break,
            _ => {}
        }
        n = x.parent as usize;
    }
    PartKind::Paragraph
}

/// The cell kind of `<td>` node `td`: its row and table.
fn cell(doc: &Doc, td: usize, head: bool) -> PartKind {
    let mut row = u32::MAX;
    let mut n = doc.nodes.get(td).map_or(0, |x| x.parent as usize);
    for _ in 0..MAX_KIND_DEPTH {
        let Some(x) = doc.nodes.get(n) else { break };
        match x.tag {
            Tag::Tr if row == u32::MAX => row = n as u32,
            Tag::Table => {
                return PartKind::Cell {
                    table: n as u32,
                    row: if row == u32::MAX { td as u32 } else { row },
                    cell: td as u32,
                    head,
                }
            }
            Tag::Root => break,
            _ => {}
        }
        n = x.parent as usize;
    }
    PartKind::Paragraph
}

/// The parts of the byte ranges `ranges` of `doc.text` (each inside one block, in order), with
/// the block index each belongs to.
pub fn parts(doc: &Doc, ranges: impl Iterator<Item = (usize, usize, usize)>) -> Vec<Part> {
    let mut out = Vec::new();
    for (block, start, end) in ranges {
        let Some(b) = doc.blocks.get(block) else {
            continue;
        };
        let Some(text) = doc.text.get(start..end) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let first = doc.marks.partition_point(|m| (m.start as usize) < start);
        let mut emphasis: Vec<Emphasis> = Vec::new();
        for m in doc.marks.get(first..).unwrap_or_default() {
            if m.start as usize >= end {
                break;
            }
            let s = m.start as usize - start;
            let e = (m.end as usize).min(end) - start;
            let Some(inner) = text.get(s..e) else {
                continue;
            };
            let lead = inner.len() - inner.trim_start().len();
            let trail = inner.len() - inner.trim_end().len();
            let (s, e) = (s + lead, e - trail);
            if s >= e || emphasis.last().is_some_and(|p| p.end > s) {
                continue;
            }
            emphasis.push(Emphasis {
                start: s,
                end: e,
                strong: m.strong,
            });
        }
        out.push(Part {
            kind: kind_of(doc, b.own),
            text: text.to_string(),
            emphasis,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_parts(html: &str) -> Vec<Part> {
        let mut doc = Doc::default();
        crate::html::parse(html, &mut doc);
        let ranges: Vec<_> = doc
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (i, b.start as usize, b.end as usize))
            .collect();
        parts(&doc, ranges.into_iter())
    }

    #[test]
    fn kinds_and_emphasis() {
        let p = all_parts(
            "<h2>Title <i>here</i></h2><p>Some <b>bold</b> and <em>soft</em> words.</p>\
             <ol><li>one</li><li><p>two</p></li></ol><table><tr><th>k</th><td>v</td></tr></table>\
             <blockquote>q</blockquote><pre>x = 1</pre>",
        );
        let kinds: Vec<_> = p.iter().map(|p| p.kind).collect();
        assert_eq!(kinds[0], PartKind::Heading(2));
        assert_eq!(kinds[1], PartKind::Paragraph);
        assert!(matches!(kinds[2], PartKind::Item { ordered: true, .. }));
        assert_eq!(kinds[2], kinds[3]);
        assert!(matches!(kinds[4], PartKind::Cell { head: true, .. }));
        assert!(matches!(kinds[5], PartKind::Cell { head: false, .. }));
        assert_eq!(&kinds[6..], [PartKind::Quote, PartKind::Code]);
        let e = &p[1].emphasis;
        assert_eq!(e.len(), 2);
        assert_eq!(
            (&p[1].text[e[0].start..e[0].end], e[0].strong),
            ("bold", true)
        );
        assert_eq!(
            (&p[1].text[e[1].start..e[1].end], e[1].strong),
            ("soft", false)
        );
        assert_eq!(&p[0].text[p[0].emphasis[0].start..], "here");
    }

    #[test]
    fn paragraphs_in_a_layout_cell_stay_paragraphs() {
        let p = all_parts(
            "<table><tr><td><div><article><p>one</p><p>two</p></article></div></td></tr></table>",
        );
        assert!(p.iter().all(|p| p.kind == PartKind::Paragraph), "{p:?}");
    }
}
