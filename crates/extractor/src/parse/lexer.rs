//! The fast lane of tokenizing: plain text and ordinary tags are read here, and everything else
//! is handed to html5gum, which reads until the next point where the two agree again.
//!
//! Most of a page is text between tags and tags with attributes. This lexer reads them with a
//! few byte searches and makes the same [`Emitter`] calls html5gum's state machine would make
//! (names lowercased, `\r` read as the line feed html5gum turns it into, the self-closing flag,
//! the naive switch into raw-text states). html5gum gets the rest of the page, from the byte
//! where the lexer stopped, whenever the lexer meets something it does not decode itself:
//! character references (`&`), comments, doctypes, `<?`, a `<` that opens no tag, NUL bytes in
//! a tag, an attribute name starting with `=`, the end of input inside a tag, a value of an
//! attribute the sink reads that holds `&`, `\r` or NUL, and the content of raw-text elements
//! (`script`, `style`, `title`, ...). html5gum stops after the next token that leaves it in the
//! data state with nothing read ahead ([`EmitState`]), and the lexer goes on from there.
//!
//! A test compares the events of both lanes with those of html5gum alone.

use std::cell::Cell;

use html5gum::{Emitter, State, Tokenizer};

use crate::emit::{EmitState, Events, Sink};
use crate::input::Input;

/// Whitespace inside tags (`\r` is a line feed once html5gum has normalized newlines).
fn tag_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

/// A tag or attribute name read by the lexer: its byte range, and whether it holds an ASCII
/// capital (noted while it is read, so a name is lowered without a second pass over it).
#[derive(Debug, Clone, Copy)]
struct Name {
    start: usize,
    end: usize,
    upper: bool,
}

/// One attribute of a tag read by the lexer: its name and the byte range of its value.
#[derive(Debug, Clone, Copy)]
struct Attr {
    name: Name,
    value: Option<(usize, usize)>,
}

/// A tag read by the lexer.
struct TagRead {
    end_tag: bool,
    name: Name,
    self_closing: bool,
    /// Just past the closing `>`.
    next: usize,
}

/// Tokenizes `html` into `sink`.
pub(crate) fn run<S: Sink>(html: &str, sink: &mut S) {
    let bytes = html.as_bytes();
    let mut st = EmitState::default();
    let mut attrs: Vec<Attr> = Vec::new();
    let mut lower: Vec<u8> = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = bytes.get(pos..).unwrap_or_default();
        let Some(k) = memchr::memchr2(b'<', b'&', rest) else {
            Events::new(sink, &mut st).emit_str(html.get(pos..).unwrap_or_default());
            break;
        };
        let at = pos + k;
        if k > 0 {
            Events::new(sink, &mut st).emit_str(html.get(pos..at).unwrap_or_default());
        }
        let read = if bytes[at] == b'<' {
            read_tag(bytes, at, &mut attrs).filter(|t| {
                t.end_tag || values_plain(bytes, &attrs, &Events::new(sink, &mut st), &mut lower)
            })
        } else {
            None
        };
        pos = match read {
            Some(tag) => {
                let next_state =
                    emit_tag(bytes, &tag, &attrs, Events::new(sink, &mut st), &mut lower);
                match next_state {
                    Some(state) => hand_over(html, tag.next, Some(state), sink, &mut st),
                    None => tag.next,
                }
            }
            None => hand_over(html, at, None, sink, &mut st),
        };
    }
    Events::new(sink, &mut st).emit_eof();
}

/// Lets html5gum read from `at` (in `state`, else the data state) up to its next clean point;
/// returns where it stopped.
fn hand_over<S: Sink>(
    html: &str,
    at: usize,
    state: Option<State>,
    sink: &mut S,
    st: &mut EmitState,
) -> usize {
    let pos = Cell::new(at);
    let mut tok = Tokenizer::new_with_emitter(Input::new(html, &pos), Events::new(sink, st));
    if let Some(state) = state {
        tok.set_state(state);
    }
    // Every clean point lies past at least one byte read; stop at the first one.
    while tok.next().is_some() {
        if pos.get() > at {
            break;
        }
    }
    pos.get().max(at + 1)
}

/// Reads the tag whose `<` is at `at`, as html5gum's tag states would, or `None` if it is not
/// one the lexer reads (see the module comment). Attributes go to `attrs`.
fn read_tag(b: &[u8], at: usize, attrs: &mut Vec<Attr>) -> Option<TagRead> {
    attrs.clear();
    let end_tag = b.get(at + 1) == Some(&b'/');
    let start = at + 1 + usize::from(end_tag);
    if !b.get(start)?.is_ascii_alphabetic() {
        return None;
    }
    let mut j = start;
    let mut upper = false;
    while j < b.len() && !matches!(b[j], b'\t' | b'\n' | 0x0c | b'\r' | b' ' | b'/' | b'>' | 0) {
        upper |= b[j].is_ascii_uppercase();
        j += 1;
    }
    let name = Name {
        start,
        end: j,
        upper,
    };
    let mut self_closing = false;
    loop {
        // Before attribute name.
        while b.get(j).is_some_and(|&c| tag_space(c)) {
            j += 1;
        }
        match *b.get(j)? {
            b'>' => {
                j += 1;
                break;
            }
            b'/' => {
                // Self-closing start tag: `/>` ends the tag, any other `/` is dropped.
                if *b.get(j + 1)? == b'>' {
                    self_closing = true;
                    j += 2;
                    break;
                }
                j += 1;
                continue;
            }
            b'=' | 0 => return None,
            _ => {}
        }
        // Attribute name.
        let ns = j;
        let mut upper = false;
        while let Some(&c) = b
            .get(j)
            .filter(|&&c| !(tag_space(c) || matches!(c, b'/' | b'>' | b'=' | 0)))
        {
            upper |= c.is_ascii_uppercase();
            j += 1;
        }
        let name = Name {
            start: ns,
            end: j,
            upper,
        };
        // After attribute name.
        while b.get(j).is_some_and(|&c| tag_space(c)) {
            j += 1;
        }
        match *b.get(j)? {
            0 => return None,
            b'=' => j += 1,
            _ => {
                attrs.push(Attr { name, value: None });
                continue;
            }
        }
        // Before attribute value.
        while b.get(j).is_some_and(|&c| tag_space(c)) {
            j += 1;
        }
        let value = match *b.get(j)? {
            q @ (b'"' | b'\'') => {
                let vs = j + 1;
                let ve = vs + memchr::memchr(q, b.get(vs..)?)?;
                j = ve + 1;
                (vs, ve)
            }
            b'>' => {
                // A missing value ends the tag.
                attrs.push(Attr { name, value: None });
                j += 1;
                break;
            }
            _ => {
                let vs = j;
                while b.get(j).is_some_and(|&c| !(tag_space(c) || c == b'>')) {
                    j += 1;
                }
                b.get(j)?;
                (vs, j)
            }
        };
        attrs.push(Attr {
            name,
            value: Some(value),
        });
    }
    Some(TagRead {
        end_tag,
        name,
        self_closing,
        next: j,
    })
}

/// Whether every attribute value the sink may read is plain: no character reference, `\r` or
/// NUL, which html5gum would decode, normalize or replace.
fn values_plain<S: Sink>(
    b: &[u8],
    attrs: &[Attr],
    ev: &Events<'_, S>,
    lower: &mut Vec<u8>,
) -> bool {
    attrs.iter().all(|a| {
        let Some((vs, ve)) = a.value else {
            return true;
        };
        // The name first: most values (links, sources) are longer than their names and unread.
        !ev.reads_value(lowercase(b, a.name, lower))
            || memchr::memchr3(b'&', b'\r', 0, b.get(vs..ve).unwrap_or_default()).is_none()
    })
}

/// The bytes of `name` in `b` with ASCII capitals lowered (html5gum's rule for tag and attribute
/// names).
fn lowercase<'a>(b: &'a [u8], name: Name, buf: &'a mut Vec<u8>) -> &'a [u8] {
    let s = b.get(name.start..name.end).unwrap_or_default();
    if name.upper {
        buf.clear();
        buf.extend(s.iter().map(u8::to_ascii_lowercase));
        buf
    } else {
        s
    }
}

/// Makes html5gum's emitter calls for a tag; returns the state the tokenizer switches to.
fn emit_tag<S: Sink>(
    b: &[u8],
    tag: &TagRead,
    attrs: &[Attr],
    mut ev: Events<'_, S>,
    lower: &mut Vec<u8>,
) -> Option<State> {
    let slice = |(s, e): (usize, usize)| b.get(s..e).unwrap_or_default();
    if tag.end_tag {
        // Attributes of end tags change nothing in the emitter.
        ev.init_end_tag();
        ev.push_tag_name(lowercase(b, tag.name, lower));
    } else {
        ev.init_start_tag();
        ev.push_tag_name(lowercase(b, tag.name, lower));
        for a in attrs {
            ev.init_attribute();
            ev.push_attribute_name(lowercase(b, a.name, lower));
            if let Some(v) = a.value.map(slice).filter(|v| !v.is_empty()) {
                ev.push_attribute_value(v);
            }
        }
        if tag.self_closing {
            ev.set_self_closing();
        }
    }
    ev.emit_current_tag()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::TextMode;

    /// Records events; text between other events is joined.
    #[derive(Default)]
    struct Record {
        events: Vec<String>,
        text: String,
    }

    impl Record {
        fn push(&mut self, e: String) {
            if !self.text.is_empty() {
                let t = std::mem::take(&mut self.text);
                self.events.push(format!("text {t:?}"));
            }
            self.events.push(e);
        }
    }

    impl Sink for Record {
        fn start_tag(&mut self, name: &[u8]) {
            self.push(format!("start {}", String::from_utf8_lossy(name)));
        }
        fn attribute(&mut self, name: &[u8]) -> bool {
            self.push(format!("attr {}", String::from_utf8_lossy(name)));
            self.reads_value(name)
        }
        fn reads_value(&self, name: &[u8]) -> bool {
            name == b"class" || name == b"title"
        }
        fn attribute_value(&mut self, value: &[u8]) {
            self.push(format!("value {}", String::from_utf8_lossy(value)));
        }
        fn start_tag_end(&mut self, self_closing: bool) {
            self.push(format!("close {self_closing}"));
        }
        fn end_tag(&mut self, name: &[u8]) {
            self.push(format!("end {}", String::from_utf8_lossy(name)));
        }
        fn doctype(&mut self) {
            self.push("doctype".into());
        }
        fn text_mode(&self) -> TextMode {
            TextMode::Pieces
        }
        fn text(&mut self, text: &str) {
            // Newlines as html5gum normalizes them (the builder reads `\r` and `\n` alike); the
            // lexer's pieces end before `<` or `&`, so no CRLF pair is split between two.
            self.text
                .push_str(&text.replace("\r\n", "\n").replace('\r', "\n"));
        }
    }

    fn html5gum_alone(html: &str) -> Vec<String> {
        let mut rec = Record::default();
        let mut st = EmitState::default();
        let pos = Cell::new(0);
        for _ in Tokenizer::new_with_emitter(Input::new(html, &pos), Events::new(&mut rec, &mut st))
        {
        }
        rec.push("eof".into());
        rec.events
    }

    fn lexer(html: &str) -> Vec<String> {
        let mut rec = Record::default();
        run(html, &mut rec);
        rec.push("eof".into());
        rec.events
    }

    const TRICKY: &[&str] = &[
        "<p class=a>x &amp; y</p>",
        "<DIV CLASS='Big' ID=x>a<br/>b<img src=x.png alt=\"a>b\">c</DIV>",
        "<a href=\"/?a=1&b=2\" class=\"x&amp;y\">l</a>",
        "<p title=\"a\r\nb\" class=\"c\r\nd\">t</p>",
        "<script>if (a<b) document.write('</p>');</script><p>after</p>",
        "<script><!-- <script></script> --></script>x",
        "<style>p{}</style><title>T &amp; U</title><textarea><p></textarea>",
        "<!DOCTYPE html><!-- c --><!--><p>x<?php y ?><!x>",
        "a < b <= c </ d </3 x </> y",
        "<p a b=c d = 'e' f/ g/>h</p   ><p/x>",
        "<p =x>y</p><p \0a=b>z",
        "<p class=a\0b>z</p>",
        "text\r\nmore\rlines\0nul",
        "<p class=\"unterminated>text",
        "<p class=x",
        "<p class=",
        "<p ",
        "<",
        "</",
        "&",
        "<p a=>x</p><p a='x'b='y'>z</p>",
        "</p class=\"a>b\">x",
        "<plaintext><p>all text",
        "<xmp><b>x</b></xmp><iframe><p></iframe><noscript><p>n</p></noscript>",
        "<svg><title>t</title></svg><math/>",
        "<p>é&é<ü</p>",
        "<a\u{e9}b class=x>y</a\u{e9}b>",
    ];

    #[test]
    fn lexer_and_html5gum_give_the_same_events() {
        for html in TRICKY {
            assert_eq!(lexer(html), html5gum_alone(html), "{html:?}");
        }
    }

    #[test]
    fn random_markup_gives_the_same_events() {
        // Pieces that exercise every way out of the fast lane, glued at random.
        const PIECES: &[&str] = &[
            "<p",
            "<DIV",
            "</p",
            "</",
            "<",
            ">",
            "/>",
            "/",
            " ",
            "\r\n",
            "\r",
            "\n",
            "\t",
            "\0",
            "=",
            "\"",
            "'",
            "`",
            "&",
            "&amp;",
            "&amp",
            "&#38;",
            "&#x26",
            "&notin;",
            "&no",
            "class",
            "CLASS",
            "id=",
            "title=",
            "href=",
            "x",
            "é",
            "<!--",
            "-->",
            "--!>",
            "<!",
            "<?",
            "<script>",
            "</script>",
            "<!--<script>",
            "<style>",
            "</style",
            "<title>",
            "</title>",
            "<textarea>",
            "<plaintext>",
            "<br/>",
            "<a b=c>",
            "<x y='z'",
            "text ",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let len = 1 + next() % 24;
            let html: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            assert_eq!(lexer(&html), html5gum_alone(&html), "{html:?}");
        }
    }

    #[test]
    fn shared_pages_give_the_same_events() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("no shared data at {dir}; skipped");
            return;
        };
        let mut files = Vec::new();
        let mut stack: Vec<std::path::PathBuf> = entries.flatten().map(|e| e.path()).collect();
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                if let Ok(d) = std::fs::read_dir(&p) {
                    stack.extend(d.flatten().map(|e| e.path()));
                }
            } else if p.extension().is_some_and(|e| e == "html" || e == "htm") {
                files.push(p);
            }
        }
        files.sort();
        for p in files.iter().take(2000) {
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            let html = String::from_utf8_lossy(&bytes);
            let (a, b) = (lexer(&html), html5gum_alone(&html));
            if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                panic!(
                    "{}: event {i}: lexer {:?}, html5gum {:?}",
                    p.display(),
                    a.get(i.saturating_sub(2)..(i + 2).min(a.len())),
                    b.get(i.saturating_sub(2)..(i + 2).min(b.len()))
                );
            }
        }
    }
}
