//! HTML to [`Doc`]: tokenizes as WHATWG's tokenizer does (entities, NUL bytes, raw-text elements,
//! unclosed tags) with a fast lexer for plain text and tags that hands the rest to html5gum
//! (`crate::lexer`), and builds the flat model with a bounded open-element stack from the events.
//!
//! Tree building is a small subset of the HTML algorithm: `<p>`, `<li>`, `<dt>`/`<dd>`, `<tr>`,
//! `<td>` and `<option>` close their open predecessor; end tags pop to their match; unmatched end tags
//! are ignored. The stack is capped at [`MAX_DOM_DEPTH`]: deeper start tags are only counted, so an
//! end-tag lookup scans at most that many entries and time stays linear on any nesting.

use crawlsift_common::limits::MAX_DOM_DEPTH;

use crate::chars::{class_at, span_end, Class};
use crate::dom::{
    attr_kind, class_hints, hint, role_hints, streamed_segment, style_hides, tab_panel, Attr,
    Block, Chunk, Doc, Mark, Node, Tag, TagKind,
};
use crate::emit::{Sink, Tee, TextMode};
use crate::links::Collector;
use crate::parse::reparse::{close_title, show_noscript, HiddenWrapper, Parsed};
pub use crate::parse::reparse::{HIDDEN_WRAPPER_MIN_WORDS, NOSCRIPT_FALLBACK_WORDS};

/// Longest title kept, in bytes.
const MAX_TITLE_BYTES: usize = 4096;

#[derive(Debug, Clone, Copy)]
struct Entry {
    name: u64,
    tag: Tag,
    /// Node index created for this entry, or `u32::MAX`.
    node: u32,
    skip: bool,
}

/// Builds a [`Doc`] from tokenizer events.
struct Builder<'d> {
    doc: &'d mut Doc,
    stack: Vec<Entry>,
    overflow: u32,
    skip_depth: u32,
    /// Open `<svg>` and `<math>` elements (foreign content).
    foreign: u32,
    /// Stack index of the live `<a href>`, or `usize::MAX`. HTML closes an open `<a>` when the
    /// next `<a>` starts, so at most one is live: an unclosed `<a name=x>` anchor (common on old
    /// pages) must not turn the rest of the page into link text.
    live_link: usize,
    in_title: bool,
    /// The title was still open at the end of input (its `</title>` is missing).
    title_unclosed: bool,
    // The start tag being read.
    cur_href: bool,
    cur_open: bool,
    /// The start tag has the `hidden` attribute.
    cur_hidden_attr: bool,
    /// Its id names a segment of a streamed React page ([`streamed_segment`]).
    cur_segment: bool,
    /// Its role is a tab panel ([`tab_panel`]).
    cur_tab_panel: bool,
    cur_name: u64,
    cur_tag: Tag,
    cur_hints: u8,
    cur_class: u32,
    cur_attr: Attr,
    // The block being filled.
    blk_start: Option<u32>,
    blk_words: u32,
    blk_links: u32,
    blk_punct: u32,
    pending_space: bool,
    pending_newline: bool,
    /// Open `<pre>` elements: their whitespace is kept as written.
    pre_depth: u32,
    /// The whitespace met since the last word inside a `<pre>` (line breaks and indentation),
    /// written before the next word of the block instead of one space; bounded by
    /// [`PRE_SPACE_MAX_BYTES`].
    pre_space: String,
    /// The last whitespace kept in a `<pre>` was a `\r` (a `\n` right after it is the same break).
    pre_cr: bool,
    // The Finn chunk being filled.
    chunk_start: Option<u32>,
    chunk_words: u32,
    /// Open emphasis elements: stack index, text position where each began, strong or not.
    emphasis: Vec<(usize, u32, bool)>,
    /// The node of the element being closed while its block ends, or `u32::MAX`.
    closing: u32,
    /// What beyond the blocks is built.
    wants: Wants,
    /// The hidden elements met outside any skipped element, and the words of each as it would
    /// show ([`HiddenWrapper`]).
    hidden: HiddenWrapper,
}

/// What [`parse_with`] builds besides the text, blocks and nodes every method reads: each costs
/// time on every page, so a caller that does not read it leaves it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wants {
    /// The Finn token runs ([`Doc::chunks`]) the `plateau` method reads.
    pub chunks: bool,
    /// The emphasised ranges ([`Doc::marks`]) the structured formats read.
    pub marks: bool,
}

impl Wants {
    /// Everything.
    pub const ALL: Wants = Wants {
        chunks: true,
        marks: true,
    };
    /// Only what every method reads.
    pub const NONE: Wants = Wants {
        chunks: false,
        marks: false,
    };
}

/// Whether a tag name is emphasis, and which: `Some(true)` strong, `Some(false)` emphasised.
fn emphasis_kind(name: u64) -> Option<bool> {
    if name == name_key(b"b") || name == name_key(b"strong") {
        Some(true)
    } else if name == name_key(b"i") || name == name_key(b"em") {
        Some(false)
    } else {
        None
    }
}

/// Whether an element is `<svg>` or `<math>`, whose content is foreign (not HTML). Both are
/// [`Tag::Skip`] elements, so the names are hashed only for those, not for every tag.
fn is_foreign_root(tag: Tag, key: u64) -> bool {
    tag == Tag::Skip && (key == name_key(b"svg") || key == name_key(b"math"))
}

fn name_key(name: &[u8]) -> u64 {
    // FNV-1a: distinct short tag names do not collide in practice, and a collision only makes an
    // end tag close the wrong inline element.
    crawlsift_common::fnv::hash(name.iter().map(u8::to_ascii_lowercase))
}

/// Parses `html` into `doc` (which is cleared first), building everything ([`Wants::ALL`]).
pub fn parse(html: &str, doc: &mut Doc) {
    parse_with(html, doc, Wants::ALL);
}

/// Parses `html` into `doc` (which is cleared first), building what `wants` names besides the
/// text, blocks and nodes; [`Doc::chunks`] and [`Doc::marks`] stay empty when not wanted.
///
/// Pages the first parse reads less of than a reader sees are parsed a second time
/// (`parse_reading_links` says which and how).
pub fn parse_with(html: &str, doc: &mut Doc, wants: Wants) {
    parse_reading_links(html, doc, wants, None);
}

/// [`parse_with`], where `links` also hears the first parse (of `html` as written).
///
/// A `<title>` without `</title>` swallows the rest of the page in a browser's tokenizer (its text
/// is raw until the end tag). Such pages are truncated or broken captures whose body is still
/// wanted, so they are parsed a second time with the title ended at the next tag, as libxml2's
/// recovering parser does. The second parse runs only on those pages.
///
/// A page that shows no `<h1>`, whose largest hidden element (`display:none`, `hidden`,
/// `aria-hidden`) holding one would show at least [`HIDDEN_WRAPPER_MIN_WORDS`] words and more
/// than the rest of the page shows outside links, is parsed again with that element shown: its
/// content is the page a script reveals (shop apps that lock a page until they run, loaders), not
/// a menu, a drawer or a consent dialog beside it. Hidden elements inside it stay hidden.
///
/// A page whose visible text is under [`NOSCRIPT_FALLBACK_WORDS`] words and that has `<noscript>`
/// elements is parsed again as a browser without scripts shows it, with their content visible:
/// pages built by scripts (forums, shops) often keep their whole text there for such readers.
/// The second parse is kept when it has at least that many words more (real text, not a
/// one-line notice to enable scripts).
pub(crate) fn parse_reading_links(
    html: &str,
    doc: &mut Doc,
    wants: Wants,
    links: Option<&mut Collector>,
) {
    let mut parsed = parse_once(html, doc, wants, links, u32::MAX);
    let patched = if parsed.title_unclosed {
        close_title(html)
    } else {
        None
    };
    let html = match &patched {
        Some(p) => {
            parsed = parse_once(p, doc, wants, None, u32::MAX);
            p.as_str()
        }
        None => html,
    };
    let words = |d: &Doc| d.blocks.iter().map(|b| u64::from(b.words)).sum::<u64>();
    if let Some((k, hidden)) = parsed.largest_hidden {
        // Menus and footers are what is left shown around a hidden page: its words outside links.
        let prose = |d: &Doc| {
            d.blocks
                .iter()
                .map(|b| u64::from(b.words.saturating_sub(b.link_words)))
                .sum::<u64>()
        };
        if hidden >= HIDDEN_WRAPPER_MIN_WORDS && hidden > prose(doc) {
            let mut other = Doc::default();
            parse_once(html, &mut other, wants, None, k);
            if words(&other) > words(doc) {
                std::mem::swap(doc, &mut other);
            }
        }
    }
    let before = words(doc);
    if before < NOSCRIPT_FALLBACK_WORDS {
        if let Some(shown) = show_noscript(html) {
            let mut other = Doc::default();
            parse_with(&shown, &mut other, wants);
            if words(&other) >= before + NOSCRIPT_FALLBACK_WORDS {
                std::mem::swap(doc, &mut other);
            }
        }
    }
}

/// The most whitespace kept between two words of a `<pre>` (line breaks and indentation).
const PRE_SPACE_MAX_BYTES: usize = 256;

/// One parse (that `links` hears too), showing the `reveal`-th hidden element
/// ([`HiddenWrapper::reveal`]; `u32::MAX`: none).
fn parse_once(
    html: &str,
    doc: &mut Doc,
    wants: Wants,
    links: Option<&mut Collector>,
    reveal: u32,
) -> Parsed {
    doc.clear();
    doc.nodes.push(Node {
        tag: Tag::Root,
        parent: 0,
        hints: 0,
        class: 0,
        end: 0,
    });
    let mut b = Builder {
        doc,
        stack: Vec::with_capacity(64),
        overflow: 0,
        skip_depth: 0,
        foreign: 0,
        live_link: usize::MAX,
        in_title: false,
        title_unclosed: false,
        cur_href: false,
        cur_open: false,
        cur_hidden_attr: false,
        cur_segment: false,
        cur_tab_panel: false,
        cur_name: 0,
        cur_tag: Tag::Inline,
        cur_hints: 0,
        cur_class: 0,
        cur_attr: Attr::Other,
        blk_start: None,
        blk_words: 0,
        blk_links: 0,
        blk_punct: 0,
        pending_space: false,
        pending_newline: false,
        pre_depth: 0,
        pre_space: String::new(),
        pre_cr: false,
        chunk_start: None,
        chunk_words: 0,
        emphasis: Vec::new(),
        closing: u32::MAX,
        wants,
        hidden: HiddenWrapper::showing(reveal),
    };
    match links {
        Some(c) => crate::lexer::run(html, &mut Tee::new(&mut b, c)),
        None => crate::lexer::run(html, &mut b),
    }
    b.finish();
    Parsed {
        title_unclosed: b.title_unclosed,
        largest_hidden: b.hidden.largest(),
    }
}

impl Sink for Builder<'_> {
    fn start_tag(&mut self, name: &[u8]) {
        self.cur_name = name_key(name);
        self.cur_tag = Tag::from_name(name);
        self.cur_hints = 0;
        self.cur_class = 0;
        self.cur_attr = Attr::Other;
        self.cur_href = false;
        self.cur_open = false;
        self.cur_hidden_attr = false;
        self.cur_segment = false;
        self.cur_tab_panel = false;
    }

    fn attribute(&mut self, name: &[u8]) -> bool {
        self.cur_attr = attr_kind(name);
        match self.cur_attr {
            Attr::Href => self.cur_href = true,
            Attr::Open => self.cur_open = true,
            Attr::Hidden => self.cur_hidden_attr = true,
            _ => {}
        }
        match self.cur_attr {
            // Class names matter only on containers (block elements get nodes).
            Attr::Class | Attr::ClassName => self.cur_tag.kind() == TagKind::Block,
            attr => attr.has_value(),
        }
    }

    fn reads_value(&self, name: &[u8]) -> bool {
        attr_kind(name).has_value()
    }

    fn attribute_value(&mut self, value: &[u8]) {
        match self.cur_attr {
            Attr::Class | Attr::ClassName if self.cur_tag.kind() != TagKind::Block => {}
            Attr::Class => {
                self.cur_hints |= class_hints(value);
                self.cur_segment = streamed_segment(value);
            }
            Attr::ClassName => {
                self.cur_hints |= class_hints(value);
                // Folded to 32 bits; never 0, which means "no class".
                self.cur_class = (name_key(value) as u32) | 1;
            }
            Attr::Style => {
                if style_hides(value) {
                    self.cur_hints |= hint::HIDDEN;
                }
            }
            Attr::AriaHidden | Attr::AriaModal => {
                if value.eq_ignore_ascii_case(b"true") {
                    self.cur_hints |= hint::HIDDEN;
                }
            }
            Attr::Role => {
                self.cur_hints |= role_hints(value);
                self.cur_tab_panel = tab_panel(value);
            }
            Attr::Other | Attr::Href | Attr::Open | Attr::Hidden => {}
        }
    }

    fn start_tag_end(&mut self, self_closing: bool) {
        self.open_element(self_closing);
    }

    fn end_tag(&mut self, name: &[u8]) {
        self.close_element(name);
    }

    fn doctype(&mut self) {
        self.tag_token();
    }

    #[inline]
    fn text_mode(&self) -> TextMode {
        if self.skip_depth == 1 && self.hidden.counting() {
            // A hidden element's own words are counted (`add_text`).
            TextMode::Pieces
        } else if self.skip_depth > 0 {
            TextMode::Drop
        } else if self.in_title {
            // Title words are split per call, so the title is read whole.
            TextMode::Whole
        } else {
            TextMode::Pieces
        }
    }

    fn text(&mut self, text: &str) {
        self.add_text(text);
    }
}

impl Builder<'_> {
    fn container(&self) -> u32 {
        for e in self.stack.iter().rev() {
            if e.node != u32::MAX {
                return e.node;
            }
        }
        0
    }

    /// A tag is a Finn token: it ends the current word run.
    fn tag_token(&mut self) {
        self.flush_chunk();
        self.doc.tags = self.doc.tags.saturating_add(1);
    }

    #[inline]
    fn flush_chunk(&mut self) {
        if self.chunk_words > 0 {
            if let Some(start) = self.chunk_start {
                let end = self.doc.text.len() as u32;
                self.doc.chunks.push(Chunk {
                    tags_before: self.doc.tags,
                    words: self.chunk_words,
                    start,
                    end,
                });
            }
        }
        self.chunk_words = 0;
        self.chunk_start = None;
    }

    fn end_block(&mut self) {
        if let Some(start) = self.blk_start.take() {
            let end = self.doc.text.len() as u32;
            if self.blk_words > 0 {
                let node = self.container();
                self.doc.blocks.push(Block {
                    start,
                    end,
                    words: self.blk_words,
                    link_words: self.blk_links,
                    punct: self.blk_punct,
                    node,
                    own: if self.closing == u32::MAX {
                        node
                    } else {
                        self.closing
                    },
                });
                self.doc.text.push('\n');
            } else {
                self.doc.text.truncate(start as usize);
            }
        }
        self.blk_words = 0;
        self.blk_links = 0;
        self.blk_punct = 0;
        self.pending_space = false;
        self.pending_newline = false;
    }

    fn open_element(&mut self, self_closing: bool) {
        self.tag_token();
        let tag = self.cur_tag;
        let kind = tag.kind();
        if kind == TagKind::Void {
            if self.skip_depth == 0 {
                match tag {
                    Tag::Br if self.blk_start.is_some() => {
                        self.pending_newline = true;
                    }
                    _ => {
                        // `<hr>` and other void blocks are not distinguished: images and inputs
                        // do not break text.
                    }
                }
            }
            return;
        }
        // In SVG and MathML a self-closing tag (`<path/>`) closes its element at once; left open,
        // a drawing's thousands would fill the stack and swallow the end tags after it.
        let foreign_root = is_foreign_root(tag, self.cur_name);
        if self_closing && (self.foreign > 0 || foreign_root) {
            return;
        }
        if self.skip_depth == 0 && kind == TagKind::Block {
            self.implied_ends(tag);
            self.end_block();
        }
        if self.stack.len() >= MAX_DOM_DEPTH {
            self.overflow = self.overflow.saturating_add(1);
            return;
        }
        // A `<dialog>` is not shown until it is opened (`open` attribute).
        let closed_dialog = self.cur_name == name_key(b"dialog") && !self.cur_open;
        // A streamed segment's `hidden` is lifted by the page's own script as soon as it arrives.
        let hidden_attr = self.cur_hidden_attr && !self.cur_segment;
        if hidden_attr {
            self.cur_hints |= hint::HIDDEN;
        }
        // A tab panel's hiding is lifted by a click on its tab.
        if self.cur_tab_panel {
            self.cur_hints &= !hint::HIDDEN;
        }
        let mut hidden = (self.cur_hints & hint::HIDDEN != 0 || closed_dialog)
            && tag != Tag::Body
            && tag != Tag::Html;
        if hidden && kind != TagKind::Skip && self.skip_depth == 0 && self.hidden.shows_next() {
            hidden = false;
            self.cur_hints &= !hint::HIDDEN;
        }
        if tag == Tag::H(1) {
            self.hidden.h1(self.skip_depth, hidden);
        }
        let skip = kind == TagKind::Skip || hidden;
        let mut node = u32::MAX;
        if kind == TagKind::Block && self.skip_depth == 0 && !skip {
            node = self.doc.nodes.len() as u32;
            let parent = self.container();
            let head_cell = if tag == Tag::Td && self.cur_name == name_key(b"th") {
                hint::HEAD_CELL
            } else {
                0
            };
            self.doc.nodes.push(Node {
                tag,
                parent,
                hints: self.cur_hints | head_cell,
                class: self.cur_class,
                end: node + 1,
            });
        }
        if skip {
            self.skip_depth += 1;
        } else if tag == Tag::Title {
            self.in_title = true;
        }
        if tag == Tag::A && !skip {
            // Only `<a href>` is a link; `<a name>` is an anchor.
            self.live_link = if self.cur_href {
                self.stack.len()
            } else {
                usize::MAX
            };
        }
        if self.wants.marks && kind == TagKind::Inline && !skip && self.skip_depth == 0 {
            if let Some(strong) = emphasis_kind(self.cur_name) {
                let at = self.doc.text.len() as u32;
                self.emphasis.push((self.stack.len(), at, strong));
            }
        }
        if tag == Tag::Pre && !skip {
            self.pre_depth += 1;
        }
        self.foreign += u32::from(foreign_root);
        self.stack.push(Entry {
            name: self.cur_name,
            tag,
            node,
            skip,
        });
    }

    /// Closes elements that HTML closes implicitly before `tag` opens.
    fn implied_ends(&mut self, tag: Tag) {
        let target: &[Tag] = match tag {
            Tag::Li => &[Tag::Li],
            Tag::Dt | Tag::Dd => &[Tag::Dt, Tag::Dd],
            Tag::Tr => &[Tag::Tr, Tag::Td],
            Tag::Td => &[Tag::Td],
            Tag::Option => &[Tag::Option],
            _ if tag.closes_p() => &[Tag::P],
            _ => return,
        };
        // Look down through inline elements and (for list items) the item's own content, but not
        // past an element that starts a new scope for it.
        let mut found = None;
        for (i, e) in self.stack.iter().enumerate().rev() {
            if target.contains(&e.tag) {
                found = Some(i);
                break;
            }
            let stop = match tag {
                Tag::Li => matches!(e.tag, Tag::Ul | Tag::Ol | Tag::Menu | Tag::Table | Tag::Td),
                Tag::Dt | Tag::Dd => matches!(e.tag, Tag::Dl | Tag::Table | Tag::Td),
                Tag::Tr | Tag::Td => matches!(e.tag, Tag::Table),
                Tag::Option => true,
                _ => e.tag.kind() == TagKind::Block || e.skip,
            };
            if stop {
                break;
            }
        }
        if let Some(i) = found {
            self.pop_to(i);
        }
    }

    fn pop_to(&mut self, i: usize) {
        while self.stack.len() > i {
            let Some(e) = self.stack.pop() else { break };
            if is_foreign_root(e.tag, e.name) {
                self.foreign = self.foreign.saturating_sub(1);
            }
            if e.skip {
                self.skip_depth = self.skip_depth.saturating_sub(1);
                if self.skip_depth == 0 {
                    self.hidden.closed();
                }
            } else if e.tag == Tag::Title {
                self.in_title = false;
            } else if e.tag == Tag::Pre {
                self.pre_depth = self.pre_depth.saturating_sub(1);
            }
            if self.stack.len() == self.live_link {
                self.live_link = usize::MAX;
            }
            while self
                .emphasis
                .last()
                .is_some_and(|&(at, _, _)| at >= self.stack.len())
            {
                if let Some((_, start, strong)) = self.emphasis.pop() {
                    let end = self.doc.text.len() as u32;
                    if end > start {
                        self.doc.marks.push(Mark { start, end, strong });
                    }
                }
            }
            if e.tag.kind() == TagKind::Block && self.skip_depth == 0 {
                self.closing = e.node;
                self.end_block();
                self.closing = u32::MAX;
            }
            if e.node != u32::MAX {
                let end = self.doc.nodes.len() as u32;
                if let Some(n) = self.doc.nodes.get_mut(e.node as usize) {
                    n.end = end;
                }
            }
        }
    }

    fn close_element(&mut self, name: &[u8]) {
        self.tag_token();
        let tag = Tag::from_name(name);
        if tag == Tag::Br {
            if self.skip_depth == 0 && self.blk_start.is_some() {
                self.pending_newline = true;
            }
            return;
        }
        if self.overflow > 0 {
            self.overflow -= 1;
            if tag.kind() == TagKind::Block && self.skip_depth == 0 {
                self.end_block();
            }
            return;
        }
        if matches!(tag, Tag::Html | Tag::Body | Tag::Head) || tag.kind() == TagKind::Void {
            return;
        }
        let key = name_key(name);
        let mut found = None;
        for (i, e) in self.stack.iter().enumerate().rev() {
            if e.name == key {
                found = Some(i);
                break;
            }
            let boundary = match tag.kind() {
                TagKind::Inline => e.tag.kind() == TagKind::Block,
                TagKind::Skip => false,
                _ => {
                    matches!(e.tag, Tag::Td | Tag::Table)
                        && !matches!(tag, Tag::Td | Tag::Tr | Tag::Table | Tag::OtherBlock)
                }
            };
            if boundary {
                break;
            }
        }
        match found {
            Some(i) => self.pop_to(i),
            None => {
                if tag.kind() == TagKind::Block && self.skip_depth == 0 {
                    self.end_block();
                }
            }
        }
    }

    fn add_text(&mut self, s: &str) {
        if self.skip_depth > 0 {
            if self.skip_depth == 1 {
                self.hidden.count(s);
            }
            return;
        }
        if self.in_title {
            if self.doc.title.len() < MAX_TITLE_BYTES {
                for w in s.split(|c: char| c.is_whitespace() || c.is_control()) {
                    if w.is_empty() || self.doc.title.len() + w.len() >= MAX_TITLE_BYTES {
                        continue;
                    }
                    if !self.doc.title.is_empty() {
                        self.doc.title.push(' ');
                    }
                    self.doc.title.push_str(w);
                }
            }
            return;
        }
        // Words are copied in spans: words with one ASCII space between them read the same in
        // the page and in the text, so a span is copied at once.
        let mut i = 0;
        while i < s.len() {
            match class_at(s, i) {
                (Class::Space, n) => {
                    self.pending_space = true;
                    if self.pre_depth > 0 && self.blk_start.is_some() {
                        self.keep_pre_space(s.get(i..i + n).unwrap_or(" "));
                    }
                    i += n;
                }
                (Class::Control, n) => i += n,
                (Class::Word | Class::Punct, _) => {
                    let start = i;
                    let (end, words, punct) = span_end(s, i);
                    i = end;
                    self.words(s.get(start..i).unwrap_or(""), words, punct);
                }
            }
        }
    }

    /// Keeps a whitespace character of a `<pre>` as written (a line break as `\n`, whatever it
    /// was written as; other space characters as they are).
    fn keep_pre_space(&mut self, ws: &str) {
        for c in ws.chars() {
            let after_cr = std::mem::replace(&mut self.pre_cr, c == '\r');
            if self.pre_space.len() >= PRE_SPACE_MAX_BYTES {
                continue;
            }
            match c {
                '\n' if after_cr => {}
                '\r' | '\n' => self.pre_space.push('\n'),
                c if c.is_whitespace() => self.pre_space.push(c),
                _ => {}
            }
        }
    }

    /// Appends `span`: `words` runs of word characters with one space between them. The first
    /// starts a block or a word as the pending state says, or continues the last word.
    fn words(&mut self, span: &str, words: u32, punct: u32) {
        let text = &mut self.doc.text;
        let pos = text.len() as u32;
        let mut first_new = true;
        if self.blk_start.is_none() {
            self.blk_start = Some(pos);
        } else if self.pending_newline {
            text.push('\n');
        } else if self.pending_space {
            if self.pre_space.is_empty() {
                text.push(' ');
            } else {
                text.push_str(&self.pre_space);
            }
        } else {
            first_new = false;
        }
        self.pending_space = false;
        self.pending_newline = false;
        self.pre_space.clear();
        self.pre_cr = false;
        let new_words = words - 1 + u32::from(first_new);
        if new_words > 0 {
            self.blk_words += new_words;
            if self.live_link != usize::MAX {
                self.blk_links += new_words;
            }
            if self.wants.chunks && self.chunk_start.is_none() {
                // The first new word: this span's first, or the one after its first space.
                let skip = if first_new {
                    0
                } else {
                    span.find(' ').map_or(0, |k| k + 1)
                };
                self.chunk_start = Some((text.len() + skip) as u32);
            }
            self.chunk_words += new_words;
        }
        self.blk_punct += punct;
        text.push_str(span);
    }

    fn finish(&mut self) {
        self.title_unclosed = self.in_title;
        self.flush_chunk();
        self.pop_to(0);
        self.end_block();
        let end = self.doc.nodes.len() as u32;
        if let Some(root) = self.doc.nodes.first_mut() {
            root.end = end;
        }
        while self.doc.text.ends_with('\n') {
            self.doc.text.pop();
        }
        self.doc.marks.sort_by_key(|m| m.start);
    }
}

#[cfg(test)]
mod tests;
