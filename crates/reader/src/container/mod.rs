//! Container formats: WARC ([`warc`]), ARC ([`arc`]) and TREC ([`trec`]), each a step function
//! that finds one record in a decoded buffer, built on the shared vocabulary of [`parse`], and
//! format detection ([`detect`]). This module sits above the formats and dispatches to the one an
//! input was detected as; nothing below it depends on it.

pub mod arc;
pub(crate) mod detect;
pub(crate) mod parse;
pub mod trec;
pub mod warc;

use crate::record::Format;
use parse::{skip_blank, Step};

/// Finds what is at `at` in `buf` for `format` (see [`Step`]).
pub(crate) fn step(format: Format, buf: &[u8], at: usize, eof: bool) -> Step {
    match format {
        Format::Warc => warc::step(buf, at, eof),
        Format::Arc => arc::step(buf, at, eof),
        Format::Trec => trec::step(buf, at, eof),
    }
}

/// Whether decoded bytes begin with a record of `format`.
pub(crate) fn starts_record(format: Format, prefix: &[u8]) -> bool {
    let p = skip_blank(prefix, 0);
    let rest = &prefix[p..];
    match format {
        Format::Warc => warc::is_warc_start(rest),
        Format::Trec => rest.starts_with(b"<DOC>") || rest.starts_with(b"<DOC "),
        Format::Arc => match memchr::memchr(b'\n', rest) {
            Some(n) => arc::parse_line(&rest[..n]).is_some(),
            None => false,
        },
    }
}
