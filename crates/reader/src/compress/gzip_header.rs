//! Gzip member headers (RFC 1952) and the inflate-ratio bound, shared by the member loop, the
//! whole-member inflater and the parallel reader's member finder.

use crawlsift_common::limits::{INFLATE_RATIO_GRACE_BYTES, MAX_HEADER_BYTES, MAX_INFLATE_RATIO};

use super::detect::GZIP_MAGIC;

/// Result of parsing a gzip member header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GzHeader {
    /// A valid header of this many bytes.
    Ok(usize),
    /// The bytes end inside what could be a valid header.
    Incomplete,
    /// Not a gzip member header.
    Invalid,
}

/// Parses a gzip member header (RFC 1952: FEXTRA, FNAME, FCOMMENT, FHCRC; reserved flags must be 0).
pub fn parse_header(b: &[u8]) -> GzHeader {
    let n = b.len().min(3);
    if b[..n] != GZIP_MAGIC[..n] {
        return GzHeader::Invalid;
    }
    if b.len() < 10 {
        return if b.len() > 3 && b[3] & 0xe0 != 0 {
            GzHeader::Invalid
        } else {
            GzHeader::Incomplete
        };
    }
    let flg = b[3];
    if flg & 0xe0 != 0 {
        return GzHeader::Invalid;
    }
    let mut i = 10usize;
    if flg & 0x04 != 0 {
        let Some(x) = b.get(i..i + 2) else {
            return GzHeader::Incomplete;
        };
        i += 2 + u16::from_le_bytes([x[0], x[1]]) as usize;
    }
    for flag in [0x08u8, 0x10] {
        if flg & flag != 0 {
            let from = i.min(b.len());
            let lim = b.len().min(from + MAX_HEADER_BYTES);
            match memchr::memchr(0, &b[from..lim]) {
                Some(z) => i = from + z + 1,
                None if lim - from >= MAX_HEADER_BYTES => return GzHeader::Invalid,
                None => return GzHeader::Incomplete,
            }
        }
    }
    if flg & 0x02 != 0 {
        i += 2;
    }
    if i > b.len() {
        GzHeader::Incomplete
    } else {
        GzHeader::Ok(i)
    }
}

/// Position of the next gzip magic with a valid header at or after `from`.
pub(crate) fn next_header(data: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < data.len() {
        let p = i + memchr::memmem::find(&data[i..], &GZIP_MAGIC)?;
        if matches!(parse_header(&data[p..]), GzHeader::Ok(_)) {
            return Some(p);
        }
        i = p + 1;
    }
    None
}

/// Whether `out` bytes of output from `inp` bytes of input exceed the inflate-ratio bound.
pub(crate) fn is_bomb(out: u64, inp: u64) -> bool {
    out > inp
        .saturating_mul(MAX_INFLATE_RATIO)
        .saturating_add(INFLATE_RATIO_GRACE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_flags() {
        let mut h = vec![0x1f, 0x8b, 8, 0x1c, 0, 0, 0, 0, 0, 3, 2, 0, b'x', b'y'];
        assert_eq!(parse_header(&h), GzHeader::Incomplete);
        h.extend_from_slice(b"name\0comment\0");
        assert_eq!(parse_header(&h), GzHeader::Ok(h.len()));
        assert_eq!(parse_header(b"\x1f\x8b\x07"), GzHeader::Invalid);
        assert_eq!(parse_header(b"\x1f"), GzHeader::Incomplete);
        assert_eq!(parse_header(b"\x1f\x8b\x08\xe0"), GzHeader::Invalid);
    }
}
