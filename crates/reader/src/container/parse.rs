//! The parsing vocabulary every container format shares: what a format's step function returns
//! ([`Step`], [`Parsed`]) and the helpers for the blank lines and NUL padding between records.
//! The formats depend on this module; nothing here depends on a format.

use std::ops::Range;

use crawlsift_common::limits::MAX_RECORD_BYTES;

use crate::error::ErrorKind;
use crate::fields::Fields;
use crate::record::RecordKind;

/// One record found by a format's step function, as ranges into the buffer.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    pub start: usize,
    pub next: usize,
    pub kind: RecordKind,
    pub id: String,
    pub url: Option<String>,
    pub date: Option<String>,
    pub content_type: Option<String>,
    pub headers: Fields,
    pub block: Range<usize>,
    pub http_head: Option<Range<usize>>,
    pub error: Option<(ErrorKind, String)>,
    /// A departure from the format the lenient reading passes over (see [`Record::quirk`]).
    ///
    /// [`Record::quirk`]: crate::Record::quirk
    pub quirk: Option<&'static str>,
}

/// What a step function found at a position.
// `Rec` is the common variant and a step value lives only on the stack: boxing it would add an
// allocation per record to save a few bytes on the rare others.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Step {
    /// A record; continue at `Parsed::next`.
    Rec(Parsed),
    /// Bytes to skip up to `to` (> the position), with the error to count (kind, buffer position,
    /// message) if any.
    Skip {
        to: usize,
        err: Option<(ErrorKind, usize, String)>,
    },
    /// More bytes are needed: at least this many from the position (only when not at end).
    Need(usize),
    /// Nothing more in the buffer (only at end of input); the value is the buffer length.
    End,
}

/// First position `>= i` that is not CR, LF, space, tab or NUL (NUL padding between records is
/// tolerated, as warcio and FastWARC do).
pub(crate) fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b'\r' | b'\n' | b' ' | b'\t' | 0) {
        i += 1;
    }
    i
}

/// Where the next record may start at or after `at` (blanks and NUL padding skipped); `None`
/// when only blanks remain, and [`blank_tail`] says what to do then.
pub(crate) fn record_start(buf: &[u8], at: usize) -> Option<usize> {
    let p = skip_blank(buf, at);
    (p < buf.len()).then_some(p)
}

/// The step when nothing but blanks follows `at`: the end at end of input, otherwise more bytes.
pub(crate) fn blank_tail(buf: &[u8], at: usize, eof: bool) -> Step {
    if eof {
        Step::End
    } else {
        Step::Need(buf.len() - at + 1)
    }
}

/// More bytes for the record starting at `p` whose end is not in sight yet (no length, or no end
/// tag): twice what is held from `at`, up to the record bound past `p`. Asking for one more
/// buffer's worth each time made a long record be scanned and copied once per buffer step: a
/// 200 MB WARC record without `Content-Length`, piped, took 10.8 s and 970 MB; doubling makes
/// that a few times in all. Only called while `len - p` is below the bound.
pub(crate) fn need_more(len: usize, at: usize, p: usize) -> Step {
    let held = len - at;
    Step::Need(
        held.saturating_mul(2)
            .min(p - at + MAX_RECORD_BYTES + 1)
            .max(held + 1),
    )
}

/// `end` moved back over up to two line breaks (the separator before the next record).
pub(crate) fn trim_trailing_newlines(b: &[u8], start: usize, mut end: usize) -> usize {
    for _ in 0..2 {
        if end > start && b[end - 1] == b'\n' {
            end -= 1;
            if end > start && b[end - 1] == b'\r' {
                end -= 1;
            }
        }
    }
    end
}
