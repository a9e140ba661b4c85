//! How text characters are classed when text is split into words: whitespace separates words,
//! control characters are dropped, and `,` `.` `!` `?` `。` `،` inside words count as signs of
//! prose.
//!
//! Text is scanned as bytes with a 256-entry table. Every ASCII byte is classed by the table; a
//! non-ASCII character is whitespace, control or counted punctuation only when its UTF-8 lead
//! byte is `C2` (U+0080-U+00BF: C1 controls, NEL, NO-BREAK SPACE), `D8` (U+060C ARABIC COMMA),
//! `E1` (U+1680), `E2` (U+2000-U+205F) or `E3` (U+3000, U+3002), so only those are decoded; all
//! other bytes are word bytes.

/// What a character is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Part of a word.
    Word,
    /// Part of a word, and counted punctuation.
    Punct,
    /// Whitespace: separates words.
    Space,
    /// A control character: dropped.
    Control,
}

/// Table value of a lead byte whose character must be decoded.
const DECODE: u8 = 4;

const TABLE: [u8; 256] = {
    let mut t = [Class::Word as u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = Class::Control as u8;
        b += 1;
    }
    t[0x7f] = Class::Control as u8;
    t[b' ' as usize] = Class::Space as u8;
    t[b'\t' as usize] = Class::Space as u8;
    t[b'\n' as usize] = Class::Space as u8;
    t[0x0b] = Class::Space as u8;
    t[0x0c] = Class::Space as u8;
    t[b'\r' as usize] = Class::Space as u8;
    t[b',' as usize] = Class::Punct as u8;
    t[b'.' as usize] = Class::Punct as u8;
    t[b'!' as usize] = Class::Punct as u8;
    t[b'?' as usize] = Class::Punct as u8;
    t[0xc2] = DECODE;
    t[0xd8] = DECODE;
    t[0xe1] = DECODE;
    t[0xe2] = DECODE;
    t[0xe3] = DECODE;
    t
};

/// The class of a character.
pub(crate) fn class_of(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if c.is_control() {
        Class::Control
    } else if matches!(c, ',' | '.' | '!' | '?' | '。' | '،') {
        Class::Punct
    } else {
        Class::Word
    }
}

fn from_table(v: u8) -> Class {
    match v {
        0 => Class::Word,
        1 => Class::Punct,
        2 => Class::Space,
        _ => Class::Control,
    }
}

/// The class of the character at byte `i` of `s` (a char boundary) and its length in bytes; for
/// a word character that needs no decoding the length is 1 (its other bytes are word bytes too).
#[inline]
pub(crate) fn class_at(s: &str, i: usize) -> (Class, usize) {
    let Some(&b) = s.as_bytes().get(i) else {
        return (Class::Space, 1);
    };
    let v = TABLE[usize::from(b)];
    if v == DECODE {
        let c = s.get(i..).and_then(|t| t.chars().next()).unwrap_or(' ');
        return (class_of(c), c.len_utf8());
    }
    (from_table(v), 1)
}

/// The end of the run of word characters starting at byte `i` of `s` (a char boundary), and the
/// punctuation counted in it.
#[inline]
pub(crate) fn word_end(s: &str, mut i: usize) -> (usize, u32) {
    let bytes = s.as_bytes();
    let mut punct = 0;
    while let Some(&b) = bytes.get(i) {
        match TABLE[usize::from(b)] {
            0 => i += 1,
            1 => {
                punct += 1;
                i += 1;
            }
            DECODE => match class_at(s, i) {
                (Class::Word, n) => i += n,
                (Class::Punct, n) => {
                    punct += 1;
                    i += n;
                }
                _ => break,
            },
            _ => break,
        }
    }
    (i, punct)
}

/// The end of the span of words starting at byte `i` of `s` (a word or punctuation character):
/// runs of word characters with one ASCII space between them, as they read the same in the page
/// and in the text. Returns the end, the number of words and the punctuation counted.
///
/// Prose is mostly such spans, so eight ASCII bytes are taken at a time while they hold no
/// control or other white space, no two spaces in a row and do not end in a space unless a word
/// or punctuation byte follows: their words and punctuation are counted with bit operations
/// instead of a branch per byte.
#[inline]
pub(crate) fn span_end(s: &str, mut i: usize) -> (usize, u32, u32) {
    let bytes = s.as_bytes();
    let (mut words, mut punct) = (1, 0);
    loop {
        while let Some(chunk) = bytes.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            // A space in the chunk's last byte continues the span when a word or punctuation
            // character follows (a byte the table classes so is one such character's lead).
            let word_next = bytes
                .get(i + 8)
                .is_some_and(|&b| TABLE[usize::from(b)] <= Class::Punct as u8);
            let Some((spaces, p)) = plain_chunk(u64::from_le_bytes(w), word_next) else {
                break;
            };
            words += spaces;
            punct += p;
            i += 8;
        }
        let (end, p) = word_end(s, i);
        punct += p;
        i = end;
        if bytes.get(i) == Some(&b' ') && matches!(class_at(s, i + 1).0, Class::Word | Class::Punct)
        {
            words += 1;
            i += 1;
        } else {
            return (i, words, punct);
        }
    }
}

/// For eight bytes that continue a span (see [`span_end`]), the number of spaces (each starts a
/// word) and of counted punctuation; `None` for any other eight bytes. `word_next`: a word or
/// punctuation character follows them, so they may end in a space.
#[inline]
fn plain_chunk(x: u64, word_next: bool) -> Option<(u32, u32)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` equal to `v` (every byte of `x` is ASCII).
    let eq = |v: u8| !((x ^ (ONES * u64::from(v))) + ONES * 0x7f) & HIGH;
    if x & HIGH != 0 {
        return None;
    }
    // Bytes below 0x20 (controls, tabs, line ends) and DEL end a span.
    let below_space = !(x + ONES * 0x60) & HIGH;
    let space = eq(b' ');
    let last_space = if word_next { 0 } else { space & (0x80 << 56) };
    if below_space | eq(0x7f) | (space & (space >> 8)) | last_space != 0 {
        return None;
    }
    let punct = eq(b',') | eq(b'.') | eq(b'!') | eq(b'?');
    Some((high_bits(space), high_bits(punct)))
}

/// The number of bytes of `m` whose high bit is set (`m` has no other bits): each such bit moved
/// to its byte's low bit, then one multiplication sums the eight bytes into the top one. The
/// default x86-64 target has no `popcnt`, so `count_ones` is a dozen instructions here.
#[inline]
fn high_bits(m: u64) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    ((m >> 7).wrapping_mul(ONES) >> 56) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_bits_counts_every_mask_of_byte_high_bits() {
        for bits in 0u32..256 {
            let m = (0..8)
                .filter(|k| bits >> k & 1 == 1)
                .fold(0u64, |m, k| m | 0x80 << (8 * k));
            assert_eq!(high_bits(m), m.count_ones(), "{m:#x}");
        }
    }

    #[test]
    fn table_agrees_with_char_properties_for_every_char() {
        let mut buf = [0u8; 4];
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let s: &str = c.encode_utf8(&mut buf);
            let (class, len) = class_at(s, 0);
            assert_eq!(class, class_of(c), "{c:?}");
            if matches!(class, Class::Space | Class::Control) {
                assert_eq!(len, c.len_utf8(), "{c:?}");
            }
            let end = word_end(s, 0);
            match class_of(c) {
                Class::Word => assert_eq!(end, (s.len(), 0), "{c:?}"),
                Class::Punct => assert_eq!(end, (s.len(), 1), "{c:?}"),
                _ => assert_eq!(end, (0, 0), "{c:?}"),
            }
        }
    }

    /// The span as the scalar rules read it: words with one space between them.
    fn span_end_scalar(s: &str, mut i: usize) -> (usize, u32, u32) {
        let (mut words, mut punct) = (1, 0);
        loop {
            let (end, p) = word_end(s, i);
            punct += p;
            i = end;
            if s.as_bytes().get(i) == Some(&b' ')
                && matches!(class_at(s, i + 1).0, Class::Word | Class::Punct)
            {
                words += 1;
                i += 1;
            } else {
                return (i, words, punct);
            }
        }
    }

    #[test]
    fn spans_taken_eight_bytes_at_a_time_read_as_byte_by_byte() {
        // Every arrangement of these pieces, at every start, reads the same both ways.
        let pieces = [
            "a", "bc", " ", "  ", ",", ".", "!?", "\t", "\n", "\u{7f}", "\u{1}", "é", "\u{a0}",
            "\u{3000}", "。", "word", "x.y", "\r\n",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut s = String::new();
            while s.len() < 40 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                s.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            for i in 0..s.len() {
                if s.is_char_boundary(i) && matches!(class_at(&s, i).0, Class::Word | Class::Punct)
                {
                    assert_eq!(span_end(&s, i), span_end_scalar(&s, i), "{s:?} at {i}");
                }
            }
        }
        assert_eq!(span_end("one two, three. four  five", 0), (20, 4, 2));
        assert_eq!(span_end("aaaaaaa bbbbbbb ccccccc ", 0), (23, 3, 0));
    }

    #[test]
    fn words_end_at_spaces_and_controls() {
        assert_eq!(word_end("Hello, world", 0), (6, 1));
        assert_eq!(word_end("a\u{a0}b", 0), (1, 0));
        assert_eq!(word_end("終わり。\u{3000}次", 0), (12, 1));
        assert_eq!(word_end("x\u{85}", 0), (1, 0));
        assert_eq!(word_end("ab\u{7}c", 0), (2, 0));
    }
}
