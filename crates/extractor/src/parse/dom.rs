//! The flat document model the methods work on: container elements (`Node`), text blocks
//! (`Block`), Finn token runs (`Chunk`), and how tag names and class/id values are classified.
//!
//! Nodes are stored in document (pre-)order with `parent < child`, so every aggregate over the tree
//! is one reverse pass over a vector: no recursion, whatever the nesting depth.

use crawlsift_common::limits::{EXTRACT_CLASS_WORD_MAX_BYTES, EXTRACT_ROLE_WORD_MAX_BYTES};

/// How the tree builder treats an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// Breaks text into blocks and gets a [`Node`].
    Block,
    /// Runs inside text (`a`, `span`, `b`, ...).
    Inline,
    /// Has no end tag (`br`, `img`, `meta`, ...).
    Void,
    /// Its content is never text of the page (`script`, `style`, `svg`, ...).
    Skip,
}

/// Tags the methods look at; every other name is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Tag {
    Root,
    Html,
    Head,
    Body,
    Title,
    A,
    Br,
    P,
    Div,
    H(u8),
    Li,
    Ul,
    Ol,
    Dl,
    Dt,
    Dd,
    Table,
    Tr,
    Td,
    Pre,
    Blockquote,
    Article,
    Main,
    Section,
    Nav,
    Aside,
    Header,
    Footer,
    Form,
    Figure,
    Figcaption,
    Option,
    Address,
    Menu,
    OtherBlock,
    Inline,
    Void,
    Skip,
}

impl Tag {
    /// Classifies a lowercase tag name.
    pub fn from_name(name: &[u8]) -> Tag {
        match name {
            b"html" => Tag::Html,
            b"head" => Tag::Head,
            b"body" => Tag::Body,
            b"title" => Tag::Title,
            b"a" => Tag::A,
            b"br" => Tag::Br,
            b"p" => Tag::P,
            b"div" => Tag::Div,
            b"h1" => Tag::H(1),
            b"h2" => Tag::H(2),
            b"h3" => Tag::H(3),
            b"h4" => Tag::H(4),
            b"h5" => Tag::H(5),
            b"h6" => Tag::H(6),
            b"li" => Tag::Li,
            b"ul" => Tag::Ul,
            b"ol" => Tag::Ol,
            b"dl" => Tag::Dl,
            b"dt" => Tag::Dt,
            b"dd" => Tag::Dd,
            b"table" => Tag::Table,
            b"tr" => Tag::Tr,
            b"td" | b"th" => Tag::Td,
            b"pre" => Tag::Pre,
            b"blockquote" => Tag::Blockquote,
            b"article" => Tag::Article,
            b"main" => Tag::Main,
            b"section" => Tag::Section,
            b"nav" => Tag::Nav,
            b"aside" => Tag::Aside,
            b"header" => Tag::Header,
            b"footer" => Tag::Footer,
            b"form" => Tag::Form,
            b"figure" => Tag::Figure,
            b"figcaption" => Tag::Figcaption,
            b"option" => Tag::Option,
            b"address" => Tag::Address,
            b"menu" => Tag::Menu,
            b"center" | b"details" | b"dialog" | b"dir" | b"fieldset" | b"frameset" | b"hgroup"
            | b"caption" | b"tbody" | b"thead" | b"tfoot" | b"summary" | b"legend" | b"frame"
            | b"noframes" | b"listing" | b"xmp" | b"plaintext" => Tag::OtherBlock,
            b"area" | b"base" | b"col" | b"embed" | b"hr" | b"img" | b"input" | b"link"
            | b"meta" | b"param" | b"source" | b"track" | b"wbr" | b"keygen" | b"basefont"
            | b"bgsound" => Tag::Void,
            b"script" | b"style" | b"noscript" | b"template" | b"svg" | b"math" | b"iframe"
            | b"object" | b"canvas" | b"select" | b"textarea" | b"button" | b"datalist"
            | b"noembed" | b"audio" | b"video" | b"map" | b"applet" => Tag::Skip,
            _ => Tag::Inline,
        }
    }

    /// The tree builder's view of this tag.
    pub fn kind(self) -> TagKind {
        match self {
            Tag::A | Tag::Inline | Tag::Title => TagKind::Inline,
            Tag::Br | Tag::Void => TagKind::Void,
            Tag::Skip => TagKind::Skip,
            _ => TagKind::Block,
        }
    }

    /// Whether an open `<p>` is closed when this start tag arrives (HTML's "close a p element").
    pub fn closes_p(self) -> bool {
        !matches!(
            self,
            Tag::Inline
                | Tag::A
                | Tag::Br
                | Tag::Void
                | Tag::Skip
                | Tag::Title
                | Tag::Td
                | Tag::Tr
                | Tag::Li
                | Tag::Dt
                | Tag::Dd
                | Tag::Option
        )
    }
}

/// Class/id hint bits of a node.
pub mod hint {
    /// Names boilerplate (nav, footer, comment, share, ad, cookie...).
    pub const NEG: u8 = 1;
    /// Names main content (article, content, post, entry, story...).
    pub const POS: u8 = 2;
    /// Names comment sections specifically (their text is never main text here).
    pub const COMMENT: u8 = 4;
    /// Hidden (`hidden` attribute, `display:none`, `aria-hidden=true`). Class names such as
    /// `hidden` are not trusted: CSS frameworks show them again at other screen sizes.
    pub const HIDDEN: u8 = 8;
    /// A header cell (`<th>`): not a hint of quality, kept for the structured output formats.
    pub const HEAD_CELL: u8 = 16;
}

/// The attributes the builder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attr {
    Other,
    Class,
    ClassName,
    Style,
    AriaHidden,
    AriaModal,
    Role,
    Href,
    Open,
    Hidden,
}

impl Attr {
    /// Whether its value is read.
    pub(crate) fn has_value(self) -> bool {
        matches!(
            self,
            Attr::Class
                | Attr::ClassName
                | Attr::Style
                | Attr::AriaHidden
                | Attr::AriaModal
                | Attr::Role
        )
    }
}

/// The attribute a name is (names are lower-cased by the lexer).
pub(crate) fn attr_kind(name: &[u8]) -> Attr {
    match name {
        b"class" => Attr::ClassName,
        b"id" => Attr::Class,
        b"role" => Attr::Role,
        b"style" => Attr::Style,
        b"aria-hidden" => Attr::AriaHidden,
        b"aria-modal" => Attr::AriaModal,
        b"href" => Attr::Href,
        b"open" => Attr::Open,
        b"hidden" => Attr::Hidden,
        _ => Attr::Other,
    }
}

/// Scores a class/id/role string: returns [`hint`] bits.
pub fn class_hints(value: &[u8]) -> u8 {
    let mut bits = 0;
    // Split into words at anything that is not a letter/digit, so `post-body`, `postBody`
    // (camel case is lowered first) and `post_body` all give `post`, `body`.
    for word in value.split(|c| !c.is_ascii_alphanumeric()) {
        if word.is_empty() || word.len() > EXTRACT_CLASS_WORD_MAX_BYTES {
            continue;
        }
        let mut buf = [0u8; EXTRACT_CLASS_WORD_MAX_BYTES];
        let w = &mut buf[..word.len()];
        w.copy_from_slice(word);
        w.make_ascii_lowercase();
        bits |= word_hint(w);
    }
    bits
}

/// Scores an ARIA `role` value (a space-separated token list): the landmark roles say what a
/// region is in the author's own words, so they are read as such, not as class-like words
/// (`contentinfo` is the page footer, not "content"). `dialog`/`alertdialog` regions are overlays
/// that are closed when the page loads (cookie, login, legal text), so they count as hidden.
pub fn role_hints(value: &[u8]) -> u8 {
    let mut bits = 0;
    for word in value.split(|c| c.is_ascii_whitespace()) {
        let mut buf = [0u8; EXTRACT_ROLE_WORD_MAX_BYTES];
        let Some(w) = buf.get_mut(..word.len()) else {
            continue;
        };
        w.copy_from_slice(word);
        w.make_ascii_lowercase();
        bits |= match &*w {
            b"dialog" | b"alertdialog" => hint::HIDDEN,
            b"navigation" | b"banner" | b"contentinfo" | b"complementary" | b"search" | b"menu"
            | b"menubar" | b"toolbar" => hint::NEG,
            b"main" | b"article" => hint::POS,
            b"comment" => hint::NEG | hint::COMMENT,
            _ => 0,
        };
    }
    bits
}

/// Whether an id names a segment of a page streamed by React (`S:` and a hexadecimal number):
/// the server sends each segment late as `<div hidden id="S:1">`, and an inline script of the
/// page (`$RC`, `$RS`) moves it into its place and shows it at once, so a reader sees its text
/// (often the page's whole main content: Next.js and other streaming frameworks) although the
/// markup says `hidden`. Its text is read where it stands.
pub fn streamed_segment(id: &[u8]) -> bool {
    match id.strip_prefix(b"S:") {
        Some(n) => !n.is_empty() && n.len() <= 16 && n.iter().all(u8::is_ascii_hexdigit),
        None => false,
    }
}

/// Whether a `role` value names a tab panel (WAI-ARIA `tabpanel`): one of a set of panels the page
/// shows one at a time (code in several languages, a product's description and specifications),
/// the others hidden until their tab is clicked. A reader gets every panel's text for a click, so
/// a hidden panel's text is read where it stands (what hides anything inside it still hides).
pub fn tab_panel(role: &[u8]) -> bool {
    role.split(|c| c.is_ascii_whitespace())
        .any(|w| w.eq_ignore_ascii_case(b"tabpanel"))
}

fn word_hint(w: &[u8]) -> u8 {
    use hint::*;
    // Whole words first.
    match w {
        b"ad" | b"ads" | b"advert" | b"adverts" | b"advertisement" | b"advertising" | b"banner"
        | b"nav" | b"navbar" | b"navigation" | b"menu" | b"menus" | b"footer" | b"sidebar"
        | b"aside" | b"share" | b"sharing" | b"social" | b"sponsor" | b"sponsored" | b"promo"
        | b"cookie" | b"cookies" | b"consent" | b"gdpr" | b"related" | b"recommended"
        | b"breadcrumb" | b"breadcrumbs" | b"masthead" | b"widget" | b"widgets" | b"popup"
        | b"modal" | b"newsletter" | b"subscribe" | b"subscription" | b"signup" | b"login"
        | b"skip" | b"pagination" | b"pager" | b"toolbar" | b"tags" | b"tagcloud" | b"outbrain"
        | b"taboola" | b"shoutbox" | b"skyscraper" | b"rss" | b"print" | b"sitemap"
        | b"copyright" | b"legal" | b"topbar" | b"dropdown" | b"trending" | b"popular"
        | b"most" | b"more" | b"teaser" | b"teasers" | b"promoted" | b"header" | b"hdr"
        | b"ftr" | b"sidenav" | b"subnav" | b"leftnav" | b"rightnav" | b"topnav" | b"tabs"
        | b"contentinfo" | b"byline" | b"author" | b"authors" | b"dateline" | b"timestamp"
        | b"tweet" | b"embed" | b"gallery" | b"slideshow" | b"carousel" => NEG,
        b"comment" | b"comments" | b"disqus" | b"respond" | b"replies" | b"reply"
        | b"discussion" | b"commentlist" => NEG | COMMENT,
        b"article" | b"content" | b"entry" | b"hentry" | b"main" | b"post" | b"story" | b"text"
        | b"body" | b"blog" | b"articlebody" | b"entrycontent" | b"postbody" | b"storybody"
        | b"maincontent" | b"article_body" | b"prose" | b"td-post-content" => POS,
        _ => {
            if w.starts_with(b"comment") {
                NEG | COMMENT
            } else if w.starts_with(b"sidebar")
                || w.starts_with(b"footer")
                || w.starts_with(b"social")
                || w.starts_with(b"share")
                || w.starts_with(b"advert")
                || w.starts_with(b"sponsor")
                || w.starts_with(b"cookie")
                || w.starts_with(b"breadcrumb")
                || w.starts_with(b"newsletter")
                || w.starts_with(b"related")
            {
                NEG
            } else if w.starts_with(b"article")
                || w.starts_with(b"content")
                || w.starts_with(b"story")
                || w.starts_with(b"entry")
            {
                POS
            } else {
                0
            }
        }
    }
}

/// Whether a `style` attribute hides its element: `display:none` or `visibility:hidden` in its
/// first 4096 bytes, whitespace and case ignored. Read without allocating (it runs on every
/// styled element): the last bytes seen, whitespace dropped and lowered, sit in a small window.
pub fn style_hides(style: &[u8]) -> bool {
    const NONE: &[u8] = b"display:none";
    const HIDDEN: &[u8] = b"visibility:hidden";
    let mut window = [0u8; HIDDEN.len()];
    let mut seen = 0usize;
    for &c in style.iter().take(4096) {
        if c.is_ascii_whitespace() {
            continue;
        }
        window.copy_within(1.., 0);
        window[HIDDEN.len() - 1] = c.to_ascii_lowercase();
        seen += 1;
        if (seen >= NONE.len() && window.ends_with(NONE))
            || (seen >= HIDDEN.len() && window == *HIDDEN)
        {
            return true;
        }
    }
    false
}

/// A container element.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// Its tag.
    pub tag: Tag,
    /// Its parent's index (the root is its own parent).
    pub parent: u32,
    /// Own [`hint`] bits.
    pub hints: u8,
    /// Hash of its `class` attribute (0 when it has none): elements made from one template
    /// (the posts of a forum thread, the cards of a listing) share it.
    pub class: u32,
    /// Index one past its last descendant node (set when it closes).
    pub end: u32,
}

/// A run of text between block boundaries, owned by the innermost open container.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// Byte range in [`Doc::text`].
    pub start: u32,
    /// End of the byte range.
    pub end: u32,
    /// Words in the block.
    pub words: u32,
    /// Words inside `<a>` elements.
    pub link_words: u32,
    /// Commas and sentence ends, a sign of prose.
    pub punct: u32,
    /// The owning container, as the methods were tuned on: when a block ends at its container's
    /// end tag, that container's parent.
    pub node: u32,
    /// The innermost container the text was in (what the block is: `h2`, `li`, `td`...).
    pub own: u32,
}

/// A Finn token run: the words of one stretch of text between two tags.
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    /// Tags seen before this chunk.
    pub tags_before: u32,
    /// Words in this chunk.
    pub words: u32,
    /// Byte offset in [`Doc::text`] where the chunk's text starts.
    pub start: u32,
    /// Byte offset where it ends.
    pub end: u32,
}

/// Emphasis in the text (`<b>`, `<strong>`, `<i>`, `<em>`): a byte range of [`Doc::text`],
/// which may begin on the space before its first word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Start of the byte range.
    pub start: u32,
    /// End of the byte range.
    pub end: u32,
    /// Strong (`b`, `strong`) rather than emphasised (`i`, `em`).
    pub strong: bool,
}

/// A parsed page.
#[derive(Debug, Default)]
pub struct Doc {
    /// All visible text: blocks separated by `\n`.
    pub text: String,
    /// The `<title>` text, whitespace collapsed.
    pub title: String,
    /// Containers in document order; index 0 is the root.
    pub nodes: Vec<Node>,
    /// Text blocks in document order.
    pub blocks: Vec<Block>,
    /// Token runs for the plateau method.
    pub chunks: Vec<Chunk>,
    /// Total tags seen.
    pub tags: u32,
    /// Emphasised ranges, ordered by start.
    pub marks: Vec<Mark>,
}

impl Doc {
    /// Empties the document, keeping its buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.title.clear();
        self.nodes.clear();
        self.blocks.clear();
        self.chunks.clear();
        self.tags = 0;
        self.marks.clear();
    }

    /// The text of a block.
    pub fn block_text(&self, b: &Block) -> &str {
        self.text
            .get(b.start as usize..b.end as usize)
            .unwrap_or("")
    }
}
