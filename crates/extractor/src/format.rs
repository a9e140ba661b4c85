//! The output formats of a page's main text: plain text, JSON, Markdown (headings, lists,
//! tables, emphasis, quotes and code kept) and XML in the TEI-like shape trafilatura writes
//! (`<doc>` with the metadata as attributes, `<main>` holding `<head rend="h2">`, `<p>`,
//! `<list rend="ul"><item>`, `<table><row><cell role="head">`, `<quote>`, `<code>`, emphasis as
//! `<hi rend="#b">`/`<hi rend="#i">`, then `<comments/>`).
//!
//! The header is a list of named values (metadata, and in archives where the text came from):
//! a YAML front matter in text and Markdown, attributes of `<doc>` in XML, fields in JSON. Values
//! in front matter are written as JSON strings, which YAML reads as double-quoted strings.

use std::fmt::Write as _;

use crate::structure::{Part, PartKind};

/// An output format, chosen by name (`--format`), never guessed from a file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The main text, one block per line.
    #[default]
    Txt,
    /// One JSON object: the header's fields, `title` and `text`.
    Json,
    /// Markdown.
    Markdown,
    /// TEI-like XML.
    Xml,
}

impl Format {
    /// The format's name, as `--format` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Txt => "txt",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Xml => "xml",
        }
    }

    /// The file name extension of its files.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Txt => "txt",
            Format::Json => "json",
            Format::Markdown => "md",
            Format::Xml => "xml",
        }
    }

    /// Whether it needs the structure of the kept blocks ([`crate::Extracted::parts`]).
    pub fn structured(self) -> bool {
        matches!(self, Format::Markdown | Format::Xml)
    }
}

/// Named values written before (or around) the text, in order; empty values are left out.
pub type Header<'a> = [(&'a str, &'a str)];

/// The YAML front matter of `header`, or nothing when every value is empty.
fn front_matter(out: &mut String, header: &Header) {
    let fields: Vec<_> = header.iter().filter(|(_, v)| !v.is_empty()).collect();
    if fields.is_empty() {
        return;
    }
    out.push_str("---\n");
    for (k, v) in fields {
        let quoted = serde_json::to_string(v).unwrap_or_default();
        let _ = writeln!(out, "{k}: {quoted}");
    }
    out.push_str("---\n");
}

/// Plain text: the front matter when there is a header, then the text.
pub fn txt(text: &str, header: &Header) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    front_matter(&mut out, header);
    out.push_str(text);
    out
}

/// One JSON object: the header's non-empty fields, then `text`.
pub fn json(text: &str, header: &Header) -> String {
    let mut map = serde_json::Map::new();
    for (k, v) in header.iter().filter(|(_, v)| !v.is_empty()) {
        map.insert((*k).to_string(), serde_json::Value::from(*v));
    }
    map.insert("text".into(), serde_json::Value::from(text));
    serde_json::Value::Object(map).to_string()
}

/// Rows of a table being grouped: row node, all cells head cells, cells (cell node, its parts).
type Rows<'p> = Vec<(u32, bool, Vec<(u32, Vec<&'p Part>)>)>;

/// Consecutive parts that are written together: one block, a list, or a table.
enum Group<'p> {
    Single(&'p Part),
    List(&'p [Part], bool),
    /// Rows of cells, each cell the parts of one `<td>`; `head` per row.
    Table(Vec<(bool, Vec<Vec<&'p Part>>)>),
}

fn groups(parts: &[Part]) -> Vec<Group<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let run_end = |same: &dyn Fn(&PartKind) -> bool| {
            let mut j = i + 1;
            while j < parts.len() && same(&parts[j].kind) {
                j += 1;
            }
            j
        };
        match parts[i].kind {
            PartKind::Item { list, ordered } => {
                let j = run_end(&|k| matches!(k, PartKind::Item { list: l, .. } if *l == list));
                out.push(Group::List(&parts[i..j], ordered));
                i = j;
            }
            PartKind::Cell { table, .. } => {
                let j = run_end(&|k| matches!(k, PartKind::Cell { table: t, .. } if *t == table));
                let mut rows: Rows = Vec::new();
                for p in &parts[i..j] {
                    let PartKind::Cell {
                        row, cell, head, ..
                    } = p.kind
                    else {
                        continue;
                    };
                    if !matches!(rows.last(), Some(r) if r.0 == row) {
                        rows.push((row, true, Vec::new()));
                    }
                    let Some(r) = rows.last_mut() else { continue };
                    r.1 &= head;
                    if !matches!(r.2.last(), Some(c) if c.0 == cell) {
                        r.2.push((cell, Vec::new()));
                    }
                    if let Some(c) = r.2.last_mut() {
                        c.1.push(p);
                    }
                }
                if rows.iter().all(|r| r.2.len() < 2) {
                    // One column: a layout table; its blocks are paragraphs.
                    out.extend(parts[i..j].iter().map(Group::Single));
                } else {
                    out.push(Group::Table(
                        rows.into_iter()
                            .map(|(_, head, cells)| {
                                (head, cells.into_iter().map(|c| c.1).collect())
                            })
                            .collect(),
                    ));
                }
                i = j;
            }
            _ => {
                out.push(Group::Single(&parts[i]));
                i += 1;
            }
        }
    }
    out
}

/// A part's text in Markdown: `*`, `_`, `` ` `` and `\` escaped, emphasis marked.
fn md_inline(out: &mut String, p: &Part, in_cell: bool) {
    let esc = |out: &mut String, s: &str| {
        for c in s.chars() {
            if matches!(c, '*' | '_' | '`' | '\\') || (in_cell && c == '|') {
                out.push('\\');
            }
            out.push(c);
        }
    };
    let mut at = 0;
    for e in &p.emphasis {
        let (Some(before), Some(inner)) = (p.text.get(at..e.start), p.text.get(e.start..e.end))
        else {
            continue;
        };
        esc(out, before);
        let m = if e.strong { "**" } else { "*" };
        out.push_str(m);
        esc(out, inner);
        out.push_str(m);
        at = e.end;
    }
    esc(out, p.text.get(at..).unwrap_or(""));
}

/// Markdown: the front matter when there is a header, then the parts.
pub fn markdown(parts: &[Part], header: &Header) -> String {
    let mut out = String::new();
    front_matter(&mut out, header);
    let mut first = true;
    for g in groups(parts) {
        if !first {
            out.push('\n');
        }
        first = false;
        match g {
            Group::Single(p) => {
                match p.kind {
                    PartKind::Heading(level) => {
                        out.push_str(&"#".repeat(level.clamp(1, 6) as usize));
                        out.push(' ');
                        md_inline(&mut out, p, false);
                    }
                    PartKind::Quote => {
                        out.push_str("> ");
                        md_inline(&mut out, p, false);
                    }
                    PartKind::Code => {
                        out.push_str("```\n");
                        out.push_str(&p.text);
                        out.push_str("\n```");
                    }
                    _ => {
                        // A line that would read as Markdown syntax is escaped.
                        if p.text.starts_with(['#', '>', '-', '+', '=']) {
                            out.push('\\');
                        }
                        md_inline(&mut out, p, false);
                    }
                }
                out.push('\n');
            }
            Group::List(items, ordered) => {
                for (n, p) in items.iter().enumerate() {
                    if ordered {
                        let _ = write!(out, "{}. ", n + 1);
                    } else {
                        out.push_str("- ");
                    }
                    md_inline(&mut out, p, false);
                    out.push('\n');
                }
            }
            Group::Table(rows) => {
                let cols = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
                for (n, (_, cells)) in rows.iter().enumerate() {
                    out.push('|');
                    for c in 0..cols {
                        out.push(' ');
                        for (k, p) in cells.get(c).into_iter().flatten().enumerate() {
                            if k > 0 {
                                out.push(' ');
                            }
                            md_inline(&mut out, p, true);
                        }
                        out.push_str(" |");
                    }
                    out.push('\n');
                    if n == 0 {
                        out.push('|');
                        out.push_str(&"---|".repeat(cols));
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}

/// Text escaped for XML content and attribute values.
fn xml_escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Characters XML 1.0 cannot hold at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
}

/// A part's text in XML, emphasis as `<hi rend="#b">` / `<hi rend="#i">`.
fn xml_inline(out: &mut String, p: &Part) {
    let mut at = 0;
    for e in &p.emphasis {
        let (Some(before), Some(inner)) = (p.text.get(at..e.start), p.text.get(e.start..e.end))
        else {
            continue;
        };
        xml_escape(out, before);
        out.push_str(if e.strong {
            "<hi rend=\"#b\">"
        } else {
            "<hi rend=\"#i\">"
        });
        xml_escape(out, inner);
        out.push_str("</hi>");
        at = e.end;
    }
    xml_escape(out, p.text.get(at..).unwrap_or(""));
}

/// XML: `<doc>` with the header as attributes, the parts in `<main>`, then `<comments/>`.
pub fn xml(parts: &[Part], header: &Header) -> String {
    let mut out = String::from("<doc");
    for (k, v) in header.iter().filter(|(_, v)| !v.is_empty()) {
        let _ = write!(out, " {k}=\"");
        xml_escape(&mut out, v);
        out.push('"');
    }
    out.push_str(">\n  <main>\n");
    for g in groups(parts) {
        match g {
            Group::Single(p) => {
                let (open, close) = match p.kind {
                    PartKind::Heading(l) => (format!("<head rend=\"h{l}\">"), "</head>"),
                    PartKind::Quote => ("<quote>".to_string(), "</quote>"),
                    PartKind::Code => ("<code>".to_string(), "</code>"),
                    _ => ("<p>".to_string(), "</p>"),
                };
                out.push_str("    ");
                out.push_str(&open);
                xml_inline(&mut out, p);
                out.push_str(close);
                out.push('\n');
            }
            Group::List(items, ordered) => {
                let rend = if ordered { "ol" } else { "ul" };
                let _ = writeln!(out, "    <list rend=\"{rend}\">");
                for p in items {
                    out.push_str("      <item>");
                    xml_inline(&mut out, p);
                    out.push_str("</item>\n");
                }
                out.push_str("    </list>\n");
            }
            Group::Table(rows) => {
                out.push_str("    <table>\n");
                for (head, cells) in rows {
                    out.push_str("      <row>\n");
                    for c in cells {
                        out.push_str(if head {
                            "        <cell role=\"head\">"
                        } else {
                            "        <cell>"
                        });
                        for (k, p) in c.iter().enumerate() {
                            if k > 0 {
                                out.push(' ');
                            }
                            xml_inline(&mut out, p);
                        }
                        out.push_str("</cell>\n");
                    }
                    out.push_str("      </row>\n");
                }
                out.push_str("    </table>\n");
            }
        }
    }
    out.push_str("  </main>\n  <comments/>\n</doc>\n");
    out
}

/// One document in `format`: `origin` (where it came from: file, offset, URL...) first in the
/// header, then the metadata when read (else, in JSON, the title), then the text or its parts.
/// Text without parts (plain text, feed items) is written as paragraphs, one per line.
pub fn render(
    format: Format,
    title: &str,
    text: &str,
    parts: &[Part],
    metadata: Option<&crate::Metadata>,
    origin: &Header,
) -> String {
    let mut header: Vec<(&str, &str)> = origin.to_vec();
    match metadata {
        Some(m) => header.extend(m.fields()),
        None if format == Format::Json => header.push(("title", title)),
        None => {}
    }
    let lines: Vec<Part>;
    let parts = if parts.is_empty() && format.structured() {
        lines = text
            .lines()
            .map(|l| Part {
                kind: PartKind::Paragraph,
                text: l.to_string(),
                emphasis: Vec::new(),
            })
            .collect();
        &lines[..]
    } else {
        parts
    };
    match format {
        Format::Txt => txt(text, &header),
        Format::Json => json(text, &header),
        Format::Markdown => markdown(parts, &header),
        Format::Xml => xml(parts, &header),
    }
}
