//! Parsing: from decoded HTML to what the methods read. The tokenizer (`lexer`), the flat
//! document of blocks and their tag paths ([`dom`]), the HTML tree walk that builds it ([`html`]),
//! the document's parts (headings, lists, tables, code: [`structure`]), the second parse of pages
//! the first read too little of (`reparse`), character classes (`chars`) and RSS/Atom feeds with
//! their tag synonyms ([`feed`]).

pub(crate) mod chars;
pub mod dom;
pub mod feed;
pub mod html;
pub(crate) mod lexer;
pub(crate) mod reparse;
pub mod structure;
