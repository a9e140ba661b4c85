//! The html5gum [`Emitter`] of the tree builder: turns the tokenizer's low-level calls into a few
//! events for a [`Sink`], copying as little as it can.
//!
//! It keeps html5gum's `CallbackEmitter` semantics (event order, empty names and values not
//! reported, naive state switching for raw-text elements, no parse errors) with three savings:
//! text is handed over as the tokenizer's own slices instead of being gathered first (the sink
//! keeps its state across pieces, so pieces and the whole read the same), except where the sink
//! asks for it whole or a piece ends inside a character; attribute values are gathered only when the sink wants them (not `href`,
//! `src` or inline data); and attributes of end tags, which change nothing, are not reported.

use html5gum::{naive_next_state, Emitter, State};

/// How the sink wants the text that follows, until the next token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextMode {
    /// Not at all (script, style, hidden subtrees).
    Drop,
    /// In pieces, as the tokenizer reads them.
    Pieces,
    /// Whole: every character between two tokens in one call.
    Whole,
}

/// What the tree builder hears from the tokenizer.
pub(crate) trait Sink {
    /// A start tag's (lowercase) name; its attributes follow.
    fn start_tag(&mut self, name: &[u8]);
    /// An attribute of the current start tag; returns whether its value is wanted.
    fn attribute(&mut self, name: &[u8]) -> bool;
    /// Whether the value of an attribute with this (lowercase) name may be wanted: such values
    /// are never decoded by the fast lexer (`crate::lexer`), which leaves them to html5gum.
    fn reads_value(&self, name: &[u8]) -> bool;
    /// The (non-empty) value of the attribute last reported as wanted.
    fn attribute_value(&mut self, value: &[u8]);
    /// The current start tag ends.
    fn start_tag_end(&mut self, self_closing: bool);
    /// An end tag.
    fn end_tag(&mut self, name: &[u8]);
    /// A doctype.
    fn doctype(&mut self);
    /// How the next text is wanted.
    fn text_mode(&self) -> TextMode;
    /// Text (a piece or the whole, as [`Sink::text_mode`] asked).
    fn text(&mut self, text: &str);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagType {
    None,
    Start,
    End,
}

/// The buffers of the token being read; they outlive one [`Events`], which the fast lexer and
/// each html5gum run it hands over to borrow in turn.
#[derive(Debug)]
pub(crate) struct EmitState {
    tag_type: TagType,
    self_closing: bool,
    tag_name: Vec<u8>,
    last_start_tag: Vec<u8>,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    /// The sink wants the value of the attribute being read.
    value_wanted: bool,
    /// Text gathered for [`TextMode::Whole`], or pieces from the first one that is not valid
    /// UTF-8 on its own (the tokenizer can split a character after a `&` or `<`), so that the
    /// lossy decoding sees what it would see on the whole run.
    text: Vec<u8>,
    /// A token was just emitted and the tokenizer is back in the data state with nothing read
    /// ahead: html5gum's iterator stops here so that the fast lexer can take over.
    clean: bool,
}

impl Default for EmitState {
    fn default() -> Self {
        EmitState {
            tag_type: TagType::None,
            self_closing: false,
            tag_name: Vec::new(),
            last_start_tag: Vec::new(),
            attr_name: Vec::new(),
            attr_value: Vec::new(),
            value_wanted: false,
            text: Vec::new(),
            clean: false,
        }
    }
}

/// The emitter: a sink and the token buffers.
pub(crate) struct Events<'a, S: Sink> {
    sink: &'a mut S,
    st: &'a mut EmitState,
}

impl<'a, S: Sink> Events<'a, S> {
    pub(crate) fn new(sink: &'a mut S, st: &'a mut EmitState) -> Self {
        st.clean = false;
        Events { sink, st }
    }

    /// Text known to be valid UTF-8 (a slice of the page), as [`Emitter::emit_string`] takes it.
    #[inline]
    pub(crate) fn emit_str(&mut self, s: &str) {
        match self.sink.text_mode() {
            TextMode::Drop => {}
            TextMode::Pieces if self.st.text.is_empty() => self.sink.text(s),
            TextMode::Pieces | TextMode::Whole => self.st.text.extend_from_slice(s.as_bytes()),
        }
    }

    /// Whether the sink may want the value of an attribute named `name` (lowercase).
    pub(crate) fn reads_value(&self, name: &[u8]) -> bool {
        self.sink.reads_value(name)
    }

    fn flush_text(&mut self) {
        if !self.st.text.is_empty() {
            self.sink.text(&String::from_utf8_lossy(&self.st.text));
            self.st.text.clear();
        }
    }

    fn flush_open_start_tag(&mut self) {
        if self.st.tag_type == TagType::Start && !self.st.tag_name.is_empty() {
            self.sink.start_tag(&self.st.tag_name);
            self.st.value_wanted = false;
            self.st.last_start_tag.clear();
            let st = &mut *self.st;
            std::mem::swap(&mut st.last_start_tag, &mut st.tag_name);
        }
    }

    fn flush_attribute_name(&mut self) {
        if !self.st.attr_name.is_empty() {
            self.st.value_wanted = self.sink.attribute(&self.st.attr_name);
            self.st.attr_name.clear();
        }
    }

    fn flush_attribute(&mut self) {
        self.flush_attribute_name();
        if !self.st.attr_value.is_empty() {
            self.sink.attribute_value(&self.st.attr_value);
            self.st.attr_value.clear();
        }
    }
}

impl<S: Sink> Emitter for Events<'_, S> {
    /// Yielded at each clean point (see [`EmitState`]).
    type Token = ();

    /// Parse errors are not wanted: html5gum then skips its per-character validity checks.
    #[inline]
    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.st.last_start_tag.clear();
        self.st
            .last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_text();
    }

    fn emit_error(&mut self, _: html5gum::Error) {}

    fn pop_token(&mut self) -> Option<Self::Token> {
        std::mem::take(&mut self.st.clean).then_some(())
    }

    #[inline]
    fn emit_string(&mut self, s: &[u8]) {
        match self.sink.text_mode() {
            TextMode::Drop => {}
            TextMode::Pieces if self.st.text.is_empty() => match std::str::from_utf8(s) {
                Ok(s) => self.sink.text(s),
                Err(_) => self.st.text.extend_from_slice(s),
            },
            TextMode::Pieces | TextMode::Whole => self.st.text.extend_from_slice(s),
        }
    }

    fn init_start_tag(&mut self) {
        self.st.tag_name.clear();
        self.st.tag_type = TagType::Start;
        self.st.self_closing = false;
    }

    fn init_end_tag(&mut self) {
        self.st.tag_name.clear();
        self.st.tag_type = TagType::End;
    }

    fn init_comment(&mut self) {
        self.flush_text();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_attribute();
        self.flush_text();
        match self.st.tag_type {
            TagType::Start => {
                self.flush_open_start_tag();
                self.sink.start_tag_end(self.st.self_closing);
            }
            TagType::End => {
                self.st.last_start_tag.clear();
                self.sink.end_tag(&self.st.tag_name);
            }
            TagType::None => {}
        }
        let next = naive_next_state(&self.st.last_start_tag);
        self.st.clean = next.is_none();
        next
    }

    fn emit_current_comment(&mut self) {
        self.st.clean = true;
    }

    fn emit_current_doctype(&mut self) {
        self.sink.doctype();
        self.st.clean = true;
    }

    fn set_self_closing(&mut self) {
        if self.st.tag_type != TagType::End {
            self.st.self_closing = true;
        }
    }

    fn set_force_quirks(&mut self) {}

    #[inline]
    fn push_tag_name(&mut self, s: &[u8]) {
        self.st.tag_name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _: &[u8]) {}

    fn push_doctype_name(&mut self, _: &[u8]) {}

    fn init_doctype(&mut self) {
        self.flush_text();
    }

    fn init_attribute(&mut self) {
        self.flush_open_start_tag();
        self.flush_attribute();
    }

    #[inline]
    fn push_attribute_name(&mut self, s: &[u8]) {
        if self.st.tag_type == TagType::Start {
            self.st.attr_name.extend_from_slice(s);
        }
    }

    #[inline]
    fn push_attribute_value(&mut self, s: &[u8]) {
        self.flush_attribute_name();
        if self.st.value_wanted && self.st.tag_type == TagType::Start {
            self.st.attr_value.extend_from_slice(s);
        }
    }

    fn set_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.st.tag_type == TagType::End
            && !self.st.last_start_tag.is_empty()
            && self.st.last_start_tag == self.st.tag_name
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        false
    }
}

/// Two sinks fed by one tokenizer run, each hearing what it would hear alone: an attribute's
/// value goes only to the sinks that wanted it, and text only to those that do not drop it (a
/// sink that asked for pieces may get the whole, which reads the same). The extractor's tree
/// builder and the link collector ([`crate::links`]) share a page's one parse this way.
pub(crate) struct Tee<'a, A: Sink, B: Sink> {
    pub(crate) a: &'a mut A,
    pub(crate) b: &'a mut B,
    /// Which of the two wanted the value of the attribute last reported.
    wants: (bool, bool),
}

impl<'a, A: Sink, B: Sink> Tee<'a, A, B> {
    pub(crate) fn new(a: &'a mut A, b: &'a mut B) -> Self {
        Tee {
            a,
            b,
            wants: (false, false),
        }
    }
}

impl<A: Sink, B: Sink> Sink for Tee<'_, A, B> {
    fn start_tag(&mut self, name: &[u8]) {
        self.a.start_tag(name);
        self.b.start_tag(name);
    }

    fn attribute(&mut self, name: &[u8]) -> bool {
        self.wants = (self.a.attribute(name), self.b.attribute(name));
        self.wants.0 || self.wants.1
    }

    fn reads_value(&self, name: &[u8]) -> bool {
        self.a.reads_value(name) || self.b.reads_value(name)
    }

    fn attribute_value(&mut self, value: &[u8]) {
        if self.wants.0 {
            self.a.attribute_value(value);
        }
        if self.wants.1 {
            self.b.attribute_value(value);
        }
    }

    fn start_tag_end(&mut self, self_closing: bool) {
        self.a.start_tag_end(self_closing);
        self.b.start_tag_end(self_closing);
    }

    fn end_tag(&mut self, name: &[u8]) {
        self.a.end_tag(name);
        self.b.end_tag(name);
    }

    fn doctype(&mut self) {
        self.a.doctype();
        self.b.doctype();
    }

    fn text_mode(&self) -> TextMode {
        match (self.a.text_mode(), self.b.text_mode()) {
            (TextMode::Whole, _) | (_, TextMode::Whole) => TextMode::Whole,
            (TextMode::Drop, TextMode::Drop) => TextMode::Drop,
            _ => TextMode::Pieces,
        }
    }

    fn text(&mut self, text: &str) {
        // A sink's mode changes only at tags, so it is the one the text was gathered under.
        if self.a.text_mode() != TextMode::Drop {
            self.a.text(text);
        }
        if self.b.text_mode() != TextMode::Drop {
            self.b.text(text);
        }
    }
}
