//! Gzip for the rest of the crate and its public API: member headers ([`parse_header`]) and
//! [`find_member_start`], which the parallel reader uses to cut a file into ranges that start on
//! real member boundaries. Members are inflated by the shared member loop
//! (`compress/members.rs`).

use crawlsift_common::limits::MAX_RECORD_BYTES;
use flate2::{Decompress, FlushDecompress, Status};

pub use super::detect::GZIP_MAGIC;
use super::gzip_header::is_bomb;
pub use super::gzip_header::{parse_header, GzHeader};

/// A confirmed member start found by [`find_member_start`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberStart {
    /// Offset of the member in the data.
    pub start: usize,
    /// Offset just past the member (its trailer).
    pub end: usize,
    /// The first decoded bytes of the member (up to 64), to check a record starts there.
    pub prefix: Vec<u8>,
}

/// Finds the first offset in `from..to` where a gzip member starts: gzip magic, a valid header,
/// and an inflate that ends (CRC and size correct) exactly where another member begins or the data
/// ends. A member larger than `MAX_RECORD_BYTES` decoded is not confirmed.
pub fn find_member_start(data: &[u8], from: usize, to: usize) -> Option<MemberStart> {
    let to = to.min(data.len());
    let mut inflater = Decompress::new(false);
    let mut buf = vec![0u8; 64 << 10];
    let mut i = from;
    while i < to {
        // A candidate must start before `to`; its magic may run past it.
        let p = i + memchr::memmem::find(&data[i..(to + 2).min(data.len())], &GZIP_MAGIC)?;
        i = p + 1;
        let GzHeader::Ok(h) = parse_header(&data[p..]) else {
            continue;
        };
        inflater.reset(false);
        let mut crc = crc32fast::Hasher::new();
        let mut pos = p + h;
        let mut prefix = Vec::new();
        let mut total: u64 = 0;
        let confirmed = loop {
            let (in0, out0) = (inflater.total_in(), inflater.total_out());
            let r = inflater.decompress(&data[pos..], &mut buf, FlushDecompress::None);
            let consumed = (inflater.total_in() - in0) as usize;
            let produced = (inflater.total_out() - out0) as usize;
            pos += consumed;
            crc.update(&buf[..produced]);
            if prefix.len() < 64 {
                let take = (64 - prefix.len()).min(produced);
                prefix.extend_from_slice(&buf[..take]);
            }
            total += produced as u64;
            if total > MAX_RECORD_BYTES as u64 || is_bomb(total, (pos - p) as u64) {
                break None;
            }
            match r {
                Ok(Status::StreamEnd) => break Some(pos),
                Ok(_) if consumed == 0 && produced == 0 => break None,
                Ok(_) => {}
                Err(_) => break None,
            }
        };
        let Some(pos) = confirmed else { continue };
        let Some(t) = data.get(pos..pos + 8) else {
            continue;
        };
        if u32::from_le_bytes([t[0], t[1], t[2], t[3]]) != crc.finalize()
            || u32::from_le_bytes([t[4], t[5], t[6], t[7]]) != total as u32
        {
            continue;
        }
        let end = pos + 8;
        if end == data.len() || data[end..].starts_with(&GZIP_MAGIC) {
            return Some(MemberStart {
                start: p,
                end,
                prefix,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::inflate::tests::gz;

    #[test]
    fn finds_confirmed_member_starts_only() {
        let a = gz(b"WARC/1.0 one");
        let b = gz(b"WARC/1.0 two");
        let mut all = a.clone();
        all.extend_from_slice(&b);
        let m = find_member_start(&all, 1, all.len()).unwrap();
        assert_eq!(m.start, a.len());
        assert_eq!(m.end, all.len());
        assert_eq!(m.prefix, b"WARC/1.0 two");
        // A fake magic in the middle of garbage is not confirmed.
        let mut fake = b"xx\x1f\x8b\x08\0\0\0\0\0\0\x03garbage".to_vec();
        fake.extend_from_slice(&b);
        assert_eq!(
            find_member_start(&fake, 0, fake.len()).unwrap().start,
            fake.len() - b.len()
        );
    }
}
