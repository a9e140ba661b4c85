//! Tests of the HTML tree builder: text, blocks, nodes and what is hidden, on hostile input too.

use super::*;

fn doc(html: &str) -> Doc {
    let mut d = Doc::default();
    parse(html, &mut d);
    d
}

#[test]
fn entities_blocks_whitespace_and_title() {
    let d = doc(
        "<html><head><title> A &amp; B </title><style>p{}</style></head><body>\
                 <p>Fish &amp;   chips<br>and&nbsp;peas</p><div>two <b>words</b></div>\
                 <script>var x = '<p>no</p>';</script><!-- gone --><noscript>no</noscript>\
                 <template>no</template><svg><text>no</text></svg>tail</body></html>",
    );
    assert_eq!(d.title, "A & B");
    assert_eq!(d.text, "Fish & chips\nand peas\ntwo words\ntail");
    assert_eq!(d.blocks.len(), 3);
    assert_eq!(d.blocks[0].words, 5);
}

#[test]
fn a_page_whose_text_is_all_in_noscript_reads_as_without_scripts() {
    let post = "Hello everyone, I would like to ask for your advice on the setup of my home \
                server, which keeps dropping its network connection every night at three, and \
                nothing in the logs says why it happens or what I should look at next. I have \
                swapped the cable and the switch port already. Thanks for any ideas.";
    let page = format!(
        "<body><div id=app></div><NOSCRIPT ><div class=post><p>{post}</p></div></NOSCRIPT>\
         <noscript><img src=pixel.gif></noscript></body>"
    );
    let d = doc(&page);
    assert!(d.text.starts_with("Hello everyone") && d.text.ends_with("any ideas."));
    // A page with its own text keeps a notice in noscript hidden, however short the page.
    let d = doc(
        "<p>Short page text.</p><noscript><p>Please enable JavaScript to continue \
                 using this site.</p></noscript>",
    );
    assert_eq!(d.text, "Short page text.");
    // The same notice on a page with no text: too short to be the page's text.
    let d = doc("<div id=app></div><noscript>Please enable JavaScript.</noscript>");
    assert_eq!(d.text, "");
    // Tags that only begin with the name are left alone.
    assert_eq!(show_noscript("<noscripts>x</noscripts>"), None);
    assert_eq!(
        show_noscript("a<noscript>b</noscript>c").as_deref(),
        Some("a<div>b</div>c")
    );
}

#[test]
fn a_hidden_wrapper_holding_the_pages_h1_and_most_of_its_words_is_shown() {
    let body = "Meet the yin to your yang: a bold dark roast with a balanced blend of arabica \
                beans for smooth flavour and robusta for natural strength, certified fair trade \
                and organic, roasted in small batches every week and shipped the same day so \
                that it reaches you fresh, whole bean or ground.";
    let menu = "<ul><li><a href=/a>Coffee</a><li><a href=/b>Merch</a><li><a href=/c>About us</a>\
                </ul>";
    let wrapper = |style: &str, heading: &str, inner: &str| {
        format!(
            "<body>{menu}<main><div class=lockdown style='{style}'><{heading}>Dark Roast\
             </{heading}><p>{body}</p>{inner}</div></main><footer><p>Shipping.</p></footer></body>"
        )
    };
    // Shown, with what it hides inside still hidden and the menu and footer around it.
    let d = doc(&wrapper(
        "display:none",
        "h1",
        "<p style='display:none'>Sold out</p>",
    ));
    assert!(d.text.contains("Dark Roast\nMeet the yin"), "{}", d.text);
    assert!(d.text.contains("Coffee") && d.text.ends_with("Shipping."));
    assert!(!d.text.contains("Sold out"));
    // Not without an h1 inside it (a menu, a dialog, a drawer)...
    assert!(!doc(&wrapper("display:none", "h2", ""))
        .text
        .contains("Meet the yin"));
    // ...nor when the page shows an h1 of its own...
    let shown_h1 = wrapper("display:none", "h1", "").replace("<main>", "<main><h1>Shop</h1>");
    assert!(!doc(&shown_h1).text.contains("Meet the yin"));
    // ...nor when the page shows more words outside links than it holds...
    let other = body.replace("Meet the yin to your yang", "Our story began");
    let prose = format!("<p>{other} {other}</p>");
    let more_shown =
        wrapper("display:none", "h1", "").replace("<footer>", &format!("{prose}<footer>"));
    assert!(!doc(&more_shown).text.contains("Meet the yin"));
    // ...nor when it holds under HIDDEN_WRAPPER_MIN_WORDS words.
    let short = wrapper("display:none", "h1", "").replace(body, "Short.");
    assert!(!doc(&short).text.contains("Short."));
    // Visible, the same page reads the same words.
    let shown = doc(&wrapper(
        "color:red",
        "h1",
        "<p style='display:none'>Sold out</p>",
    ));
    assert_eq!(shown.text, d.text);
}

#[test]
fn hidden_elements_and_links() {
    let d = doc(
        "<div hidden>x</div><div style='display: none'>y</div><p>see <a href=#>this link</a></p>",
    );
    assert_eq!(d.text, "see this link");
    assert_eq!((d.blocks[0].words, d.blocks[0].link_words), (3, 2));
}

#[test]
fn what_is_not_wanted_is_not_built_and_the_rest_is_the_same() {
    let html = "<title>T</title><div class=post><p>One <b>bold</b> and <em>soft</em> word.</p>\
                <ul><li><a href=/>link</a> item</li></ul><table><tr><th>h</th><td>c</td></tr></table></div>";
    let all = doc(html);
    assert!(!all.chunks.is_empty() && all.marks.len() == 2);
    let mut lean = Doc::default();
    parse_with(html, &mut lean, Wants::NONE);
    assert!(lean.chunks.is_empty() && lean.marks.is_empty());
    assert_eq!(
        (&lean.text, &lean.title, lean.tags),
        (&all.text, &all.title, all.tags)
    );
    let blocks = |d: &Doc| -> Vec<_> {
        d.blocks
            .iter()
            .map(|b| {
                (
                    b.start,
                    b.end,
                    b.words,
                    b.link_words,
                    b.punct,
                    b.node,
                    b.own,
                )
            })
            .collect()
    };
    assert_eq!(blocks(&lean), blocks(&all));
    let nodes = |d: &Doc| -> Vec<_> {
        d.nodes
            .iter()
            .map(|n| (n.tag, n.parent, n.hints, n.class, n.end))
            .collect()
    };
    assert_eq!(nodes(&lean), nodes(&all));
}

#[test]
fn styles_hide_with_any_spacing_and_case() {
    let d = doc("<div style='DISPLAY :\tNone'>a</div><div style='color:red; visibility : HIDDEN'>b</div>\
                 <div style='display:block; color: none'>c</div><div style='visibility:visible'>d</div>");
    assert_eq!(d.text, "c\nd");
}

#[test]
fn unclosed_paragraphs_and_items_close_implicitly() {
    let d = doc("<div><p>one<p>two<ul><li>a<li>b</ul></div><p>three");
    assert_eq!(d.text, "one\ntwo\na\nb\nthree");
    // p, p, ul, li, li under div; p under root: the stack never grew past div/ul/li.
    let tags: Vec<Tag> = d.nodes.iter().map(|n| n.tag).collect();
    assert_eq!(
        tags,
        [
            Tag::Root,
            Tag::Div,
            Tag::P,
            Tag::P,
            Tag::Ul,
            Tag::Li,
            Tag::Li,
            Tag::P
        ]
    );
    assert_eq!(d.nodes[1].end, 7);
}

#[test]
fn stray_end_tags_do_not_close_blocks() {
    let d = doc("<div class=a><p>x</span></b> y</div>");
    assert_eq!(d.text, "x y");
}

#[test]
fn characters_after_ampersand_or_lt_stay_whole() {
    // The tokenizer hands over the byte after a `&` or `<` on its own; it must not become
    // a replacement character.
    let d = doc("<p>a&é b<ü c&\u{3000}d</p>");
    assert_eq!(d.text, "a&é b<ü c& d");
    assert_eq!(d.blocks[0].words, 4);
}

#[test]
fn a_word_split_by_a_tag_stays_one_word() {
    let d = doc("<p>foo<b>bar baz  qux</b></p>");
    assert_eq!(d.text, "foobar baz qux");
    assert_eq!(d.blocks[0].words, 3);
    // Finn chunks start at the first word that begins after the tag.
    let c: Vec<(u32, u32, u32)> = d.chunks.iter().map(|c| (c.start, c.end, c.words)).collect();
    assert_eq!(c, [(0, 3, 1), (7, 14, 2)]);
}

#[test]
fn nul_bytes_are_dropped() {
    let d = doc("<p>a\0b</p>\0<p\0>c</p>");
    assert!(!d.text.contains('\0'));
    assert!(d.text.starts_with("ab") || d.text.starts_with("a\u{fffd}b"));
}

#[test]
fn million_deep_nesting_finishes() {
    let n = 1_000_000;
    let html = format!("{}deep text{}", "<div>".repeat(n), "</div>".repeat(n));
    let d = doc(&html);
    assert_eq!(d.text, "deep text");
    assert!(d.nodes.len() <= MAX_DOM_DEPTH + 1);
    let html = format!("{}x", "<span><a>".repeat(n / 2));
    assert_eq!(doc(&html).text, "x");
}

#[test]
fn huge_line_and_unclosed_tags_finish() {
    let line = "word ".repeat(2_000_000);
    let d = doc(&format!("<p>{line}"));
    assert_eq!(d.blocks[0].words, 2_000_000);
    let d = doc(&"<p><b><i><table><tr><td>x".repeat(10_000));
    assert!(d.text.starts_with("x\nx"));
    let d = doc("<p>text <a href='unterminated");
    assert_eq!(d.text, "text");
}

#[test]
fn unclosed_name_anchors_are_not_links() {
    // Old pages open `<a name=x>` anchors and never close them; only `<a href>` is a link,
    // and the next `<a>` ends an open one, as in a browser.
    let d = doc("<a name=top><p>body text here</p><p>see <a href=/x>this</a> and more</p>");
    let w: Vec<(u32, u32)> = d.blocks.iter().map(|b| (b.words, b.link_words)).collect();
    assert_eq!(w, [(3, 0), (4, 1)]);
    let d = doc("<p><a href=/a>one <a href=/b>two</a> three</p>");
    assert_eq!(d.blocks[0].link_words, 2);
}

#[test]
fn missing_title_end_tag_does_not_swallow_the_page() {
    let d = doc("<html><head><title>Headline here\n<script>x()</script></head><body><p>The body.</p></body></html>");
    assert_eq!(d.title, "Headline here");
    assert_eq!(d.text, "The body.");
}

#[test]
fn dialogs_and_modals_are_hidden() {
    let d = doc("<p>page</p><div role=dialog><p>cookie terms</p></div><div aria-modal=true><p>login</p></div>\
                 <dialog><p>closed</p></dialog><dialog open><p>shown</p></dialog>");
    assert_eq!(d.text, "page\nshown");
}

#[test]
fn segments_of_a_streamed_react_page_are_shown() {
    // React's streaming renderer sends the page's content late, hidden, and its script shows it.
    let d = doc("<p>shell</p><template id=\"B:0\"></template><div hidden id=\"S:0\"><p>product</p></div>\
                 <div hidden id=\"S:1a\" style=\"display:none\"><p>styled away</p></div>\
                 <div hidden id=\"S:\"><p>no number</p></div><div hidden id=\"XS:1\"><p>other</p></div>\
                 <div id=\"S:2\" hidden><p>either order</p></div>");
    assert_eq!(d.text, "shell\nproduct\neither order");
}

#[test]
fn a_pre_keeps_its_line_breaks_and_indentation() {
    let d = doc("<p>a   b\n c</p><pre>\nfn f() {\r\n\t<b>x</b>  y\r    z\n}\n</pre><p>d\n\ne</p>");
    assert_eq!(d.text, "a b c\nfn f() {\n\tx  y\n    z\n}\nd e");
    // Words count as in the same text written on one line.
    assert_eq!(
        d.blocks[1].words,
        doc("<p>fn f() { x y z }</p>").blocks[0].words
    );
    // Whitespace between two words is bounded, however much the page writes.
    let long = format!("<pre>a{}b</pre>", "\n".repeat(100_000));
    let d = doc(&long);
    assert!(d.text.starts_with("a\n") && d.text.ends_with("\nb") && d.text.len() < 300);
}

#[test]
fn landmark_roles_hint_their_region() {
    let d = doc("<div role=contentinfo><p>f</p></div><div role=main><p>m</p></div>");
    assert_eq!(d.nodes[1].hints, hint::NEG);
    assert_eq!(d.nodes[3].hints, hint::POS);
}

#[test]
fn finn_chunks_count_tags_between_words() {
    let d = doc("<p>a b</p><p>c</p>");
    assert_eq!(d.tags, 4);
    let c: Vec<(u32, u32)> = d.chunks.iter().map(|c| (c.tags_before, c.words)).collect();
    assert_eq!(c, [(1, 2), (3, 1)]);
}

#[test]
fn self_closing_tags_in_svg_and_math_close_their_elements() {
    // A drawing of thousands of self-closing shapes, hidden and shown, then the page's text: the
    // shapes are closed at once, so the end tags after them close what they should.
    let shapes = "<path d='M0,0'/><circle r='1' /><text x='1'>label</text>".repeat(400);
    for style in ["display:none", "color:red"] {
        let d = doc(&format!(
            "<body><p>Before the drawing.</p><div style='{style}'><div><svg>{shapes}</svg></div></div>\
             <p>After the drawing, the <b>rest</b> of the page.</p>\
             <math><mi>x</mi><mspace width='1em'/></math><p>And after the formula.</p></body>"
        ));
        assert_eq!(
            d.text,
            "Before the drawing.\nAfter the drawing, the rest of the page.\nAnd after the formula.",
            "{style}"
        );
    }
    // Outside foreign content a self-closing tag opens its element, as browsers read it.
    assert_eq!(doc("<div/>a<span/>b</div>c").text, "ab\nc");
}

#[test]
fn hidden_tab_panels_are_read_and_what_hides_inside_them_still_hides() {
    let d = doc(
        "<body><div role=tablist><button role=tab>Python</button><button role=tab>Go</button></div>\
         <div role=tabpanel><p>print('hi')</p></div>\
         <div role='tabpanel' hidden><p>fmt.Println(\"hi\")</p><p style='display:none'>no</p></div>\
         <div role=TabPanel style='display: none'><p>third panel</p></div>\
         <div hidden><p>not a panel</p></div><div role=dialog><p>a dialog</p></div></body>",
    );
    assert_eq!(d.text, "print('hi')\nfmt.Println(\"hi\")\nthird panel");
}
