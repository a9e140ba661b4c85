//! The html5gum [`Reader`] over an in-memory page.
//!
//! It is html5gum's `StringReader` with another search for the tokenizer's stop bytes
//! (`read_until`): html5gum builds a jetscii SSE4.2 searcher on every call, which costs more than
//! the search on the short runs between markup characters. Here the first bytes are tested one
//! by one against a bit set of the stop bytes; past them, up to three stop bytes are found with
//! `memchr` (SIMD), a fourth with one more `memchr` over the run found, and longer sets (inside
//! tags) with the bit set. Any split of the input
//! into runs is valid for the tokenizer; this one gives the same runs as html5gum's.

use std::cell::Cell;
use std::convert::Infallible;

use html5gum::Reader;

/// The page being tokenized, read from a position shared with the fast lexer, which hands the
/// rest of the page over to html5gum and takes it back where html5gum stopped.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    html: &'a [u8],
    pos: &'a Cell<usize>,
}

impl<'a> Input<'a> {
    pub(crate) fn new(html: &'a str, pos: &'a Cell<usize>) -> Self {
        Input {
            html: html.as_bytes(),
            pos,
        }
    }

    #[inline(always)]
    fn rest(&self) -> &'a [u8] {
        self.html.get(self.pos.get()..).unwrap_or_default()
    }

    #[inline(always)]
    fn advance(&self, n: usize) {
        self.pos.set(self.pos.get() + n);
    }
}

/// Bytes looked at one by one before a SIMD search starts: most runs between stop bytes are
/// shorter (words between entities, tag and attribute names, short attribute values), and a
/// SIMD search costs more to start than this many byte tests.
const SCALAR_PREFIX: usize = 32;

/// The position of the first byte of `hay` that is in `needle`.
#[inline]
fn find(needle: &[u8], hay: &[u8]) -> Option<usize> {
    let mut set = [0u64; 4];
    for &n in needle {
        set[usize::from(n >> 6)] |= 1 << (n & 63);
    }
    let head = hay.get(..SCALAR_PREFIX).unwrap_or(hay);
    if let Some(i) = head
        .iter()
        .position(|&h| set[usize::from(h >> 6)] & (1 << (h & 63)) != 0)
    {
        return Some(i);
    }
    let tail = hay.get(SCALAR_PREFIX..)?;
    let found = match *needle {
        [a] => memchr::memchr(a, tail),
        [a, b] => memchr::memchr2(a, b, tail),
        [a, b, c] => memchr::memchr3(a, b, c, tail),
        [a, b, c, d] => {
            let first = memchr::memchr3(a, b, c, tail);
            let upto = first.unwrap_or(tail.len());
            memchr::memchr(d, tail.get(..upto).unwrap_or_default()).or(first)
        }
        _ => tail
            .iter()
            .position(|&h| set[usize::from(h >> 6)] & (1 << (h & 63)) != 0),
    };
    found.map(|i| i + SCALAR_PREFIX)
}

impl Reader for Input<'_> {
    type Error = Infallible;

    #[inline(always)]
    fn read_byte(&mut self) -> Result<Option<u8>, Self::Error> {
        let b = self.rest().first().copied();
        if b.is_some() {
            self.advance(1);
        }
        Ok(b)
    }

    #[inline(always)]
    fn try_read_string(&mut self, s: &[u8], case_sensitive: bool) -> Result<bool, Self::Error> {
        if let Some(head) = self.rest().get(..s.len()) {
            if s == head || (!case_sensitive && s.eq_ignore_ascii_case(head)) {
                self.advance(s.len());
                return Ok(true);
            }
        }
        Ok(false)
    }

    #[inline(always)]
    fn read_until<'b>(
        &'b mut self,
        needle: &[u8],
        _: &'b mut [u8; 4],
    ) -> Result<Option<&'b [u8]>, Self::Error> {
        let rest = self.rest();
        if rest.is_empty() {
            return Ok(None);
        }
        // A stop byte is returned alone; otherwise the run before it (or the rest).
        let at = match find(needle, rest) {
            Some(0) => 1,
            Some(i) => i,
            None => rest.len(),
        };
        self.advance(at);
        Ok(rest.get(..at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_stop_byte_for_any_set_size() {
        let hay = b"abc\rdef&g<h\0i";
        assert_eq!(find(b"<", hay), Some(9));
        assert_eq!(find(b"<&", hay), Some(7));
        assert_eq!(find(b"<&\0", hay), Some(7));
        assert_eq!(find(b"<&\0\r", hay), Some(3));
        assert_eq!(find(b"<&\0z", hay), Some(7));
        assert_eq!(find(b"\t\n\x0c />\0\r", hay), Some(3));
        assert_eq!(find(b"\t\n\x0c />\0\xff", hay), Some(11));
        assert_eq!(find(b"xyz", hay), None);
        assert_eq!(find(b"wxyz", hay), None);
        // Past the scalar prefix.
        let long = [&[b'a'; 100][..], b"\r<&"].concat();
        assert_eq!(find(b"<", &long), Some(101));
        assert_eq!(find(b"<&\0", &long), Some(101));
        assert_eq!(find(b"<&\0\r", &long), Some(100));
        assert_eq!(find(b"\t\n\x0c />\0\r", &long), Some(100));
        assert_eq!(find(b"xyz", &long), None);
    }

    #[test]
    fn reads_runs_and_stop_bytes() {
        let pos = Cell::new(0);
        let mut r = Input::new("ab<c", &pos);
        let mut buf = [0; 4];
        assert_eq!(r.read_until(b"<", &mut buf).unwrap(), Some(&b"ab"[..]));
        assert_eq!(r.read_until(b"<", &mut buf).unwrap(), Some(&b"<"[..]));
        assert_eq!(r.read_until(b"<", &mut buf).unwrap(), Some(&b"c"[..]));
        assert_eq!(r.read_until(b"<", &mut buf).unwrap(), None);
        assert_eq!(pos.get(), 4);
        let pos = Cell::new(0);
        let mut r = Input::new("DOCTYPE x", &pos);
        assert!(r.try_read_string(b"doctype", false).unwrap());
        assert_eq!(r.read_byte().unwrap(), Some(b' '));
    }
}
