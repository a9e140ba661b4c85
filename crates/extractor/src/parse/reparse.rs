//! The page as it is parsed a second time, where the first parse read less than a reader sees
//! ([`super::html::parse_with`]): a `<title>` never closed, which swallows the rest of the page
//! in a browser's tokenizer, is closed at the next tag (as libxml2's recovering parser does); a
//! hidden wrapper holding the page a script reveals is shown; `<noscript>` content is shown, as a
//! browser without scripts shows it. Each second parse runs only on the pages that need it.

/// A hidden element with at least this many words, and more than the rest of the page shows
/// outside links, is shown by a second parse (see [`super::html::parse_with`]).
pub const HIDDEN_WRAPPER_MIN_WORDS: u64 = 50;

/// Below this many words of visible text, a page's `<noscript>` content is read (see
/// [`super::html::parse_with`]).
pub const NOSCRIPT_FALLBACK_WORDS: u64 = 50;

/// What one parse tells `parse_reading_links` (in [`super::html`]) about a second one.
pub(crate) struct Parsed {
    /// The title was left open at the end.
    pub(crate) title_unclosed: bool,
    /// The largest hidden element: its ordinal and words ([`HiddenWrapper::largest`]).
    pub(crate) largest_hidden: Option<(u32, u64)>,
}

/// A page's largest hidden element, for the second parse that shows it: pages whose
/// whole content a script reveals (shop apps that lock a page until they run, loaders) hold it in
/// one `display:none` wrapper, and a reader of the page sees it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct HiddenWrapper {
    /// The ordinal, among the hidden elements met outside any skipped one, of the one shown
    /// (`u32::MAX`: none).
    reveal: u32,
    /// Hidden elements met so far outside any skipped one.
    met: u32,
    /// One of them is open and its words are being counted: its ordinal and the count.
    open: Option<(u32, u64)>,
    /// The open one holds an `<h1>` (outside its own hidden descendants).
    open_h1: bool,
    /// The largest so far holding an `<h1>`: ordinal and words (words inside its own hidden or
    /// skipped descendants are not counted: they would stay hidden).
    largest: Option<(u32, u64)>,
    /// An `<h1>` is shown.
    shown_h1: bool,
}

impl HiddenWrapper {
    /// For a parse that shows the `reveal`-th hidden element (`u32::MAX`: none).
    pub(crate) fn showing(reveal: u32) -> Self {
        HiddenWrapper {
            reveal,
            ..HiddenWrapper::default()
        }
    }

    /// A hidden element opens outside any skipped one: whether it is the one shown; if not, its
    /// words are counted until [`Self::closed`], unless an `<h1>` is already shown (then none can
    /// be chosen, and most pages skip the counting).
    pub(crate) fn shows_next(&mut self) -> bool {
        let ordinal = self.met;
        self.met = self.met.saturating_add(1);
        if ordinal == self.reveal {
            return true;
        }
        if !self.shown_h1 {
            self.open = Some((ordinal, 0));
        }
        false
    }

    /// An `<h1>` opens, `skip_depth` skipped elements deep, itself `hidden` or not.
    pub(crate) fn h1(&mut self, skip_depth: u32, hidden: bool) {
        match skip_depth {
            0 if !hidden => self.shown_h1 = true,
            1 => self.open_h1 |= self.open.is_some(),
            _ => {}
        }
    }

    /// A hidden element's words are being counted.
    pub(crate) fn counting(&self) -> bool {
        self.open.is_some()
    }

    /// Text directly inside the hidden element being counted (none: nothing is counted).
    pub(crate) fn count(&mut self, text: &str) {
        if let Some((_, words)) = &mut self.open {
            *words += text.split_whitespace().count() as u64;
        }
    }

    /// The outermost skipped element closes.
    pub(crate) fn closed(&mut self) {
        let h1 = std::mem::take(&mut self.open_h1);
        if let Some((k, words)) = self.open.take() {
            if h1 && self.largest.is_none_or(|(_, w)| words > w) {
                self.largest = Some((k, words));
            }
        }
    }

    /// The largest hidden element holding an `<h1>`, when no `<h1>` is shown.
    pub(crate) fn largest(&self) -> Option<(u32, u64)> {
        self.largest.filter(|_| !self.shown_h1)
    }
}

/// `html` with every `<noscript` and `</noscript` tag opening renamed to `div`, or `None` when
/// there is none.
pub(crate) fn show_noscript(html: &str) -> Option<String> {
    const OPEN: &[u8] = b"<noscript";
    const CLOSE: &[u8] = b"</noscript";
    let bytes = html.as_bytes();
    let mut out = String::new();
    let (mut at, mut copied) = (0, 0);
    while let Some(k) = memchr::memchr(b'<', bytes.get(at..)?) {
        let i = at + k;
        let len = [OPEN, CLOSE].into_iter().find_map(|t| {
            let tail = bytes.get(i..i + t.len())?;
            let next = bytes.get(i + t.len()).copied().unwrap_or(b'>');
            (tail.eq_ignore_ascii_case(t) && !next.is_ascii_alphanumeric()).then_some(t.len())
        });
        if let Some(len) = len {
            out.push_str(html.get(copied..i)?);
            out.push_str(if len == CLOSE.len() { "</div" } else { "<div" });
            copied = i + len;
        }
        at = i + 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(html.get(copied..)?);
    Some(out)
}

/// `html` with `</title>` inserted before the first `<` after the first `<title...>` tag, or
/// `None` when there is no such tag.
pub(crate) fn close_title(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let mut at = 0;
    let open = loop {
        let i = at + memchr::memchr(b'<', bytes.get(at..)?)?;
        if bytes
            .get(i + 1..i + 6)
            .is_some_and(|n| n.eq_ignore_ascii_case(b"title"))
            && bytes
                .get(i + 6)
                .is_some_and(|&c| c == b'>' || c.is_ascii_whitespace() || c == b'/')
        {
            break i;
        }
        at = i + 1;
    };
    let gt = open + memchr::memchr(b'>', &bytes[open..])?;
    let lt = memchr::memchr(b'<', &bytes[gt..]).map_or(bytes.len(), |k| gt + k);
    let mut out = String::with_capacity(html.len() + 8);
    out.push_str(html.get(..lt)?);
    out.push_str("</title>");
    out.push_str(html.get(lt..)?);
    Some(out)
}
