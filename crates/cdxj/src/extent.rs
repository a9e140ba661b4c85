//! Where a record's bytes are in its archive, as `cdxj-indexer` gives them (`offset`, `length`):
//! in a compressed file the whole gzip member (LZ4/zstd frame) holding the record, in an
//! uncompressed one the record's header and block without the blank lines after it.
//!
//! Records come from the reader with their offset (the record's, or its member's). A member's end
//! is the next member's start, which the next record's offset gives; the last member's end is
//! found by inflating it alone ([`member_end`]).

use std::io::Read;

use crawlsift_common::limits::CDXJ_MEMBER_SCAN_BYTES;
use crawlsift_reader::Compression;

/// Where the gzip member starting at `offset` of `data` ends: inflated (at most
/// `CDXJ_MEMBER_SCAN_BYTES`) to its trailer. LZ4/zstd frames, and members that do not inflate,
/// are taken to run to the end of the data.
pub fn member_end(data: &[u8], offset: u64, compression: Compression) -> u64 {
    let end = data.len() as u64;
    let Some(member) = usize::try_from(offset).ok().and_then(|o| data.get(o..)) else {
        return end;
    };
    if compression != Compression::Gzip {
        return end;
    }
    let mut dec = flate2::bufread::GzDecoder::new(member);
    let mut limited = (&mut dec).take(CDXJ_MEMBER_SCAN_BYTES);
    match std::io::copy(&mut limited, &mut std::io::sink()) {
        Ok(n) if n < CDXJ_MEMBER_SCAN_BYTES => {
            let rest = dec.into_inner().len() as u64;
            end - rest
        }
        _ => end,
    }
}

/// Where `block` ends in `data` when it is a slice of it (records of uncompressed mapped files
/// are): `None` otherwise.
pub fn block_end(data: &[u8], block: &[u8]) -> Option<u64> {
    let base = data.as_ptr() as usize;
    let start = block.as_ptr() as usize;
    let rel = start.checked_sub(base)?;
    let end = rel.checked_add(block.len())?;
    (end <= data.len()).then_some(end as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn member_ends_at_its_trailer() {
        let mut a = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        a.write_all(b"first member").unwrap();
        let mut data = a.finish().unwrap();
        let first = data.len() as u64;
        let mut b = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        b.write_all(b"second").unwrap();
        data.extend(b.finish().unwrap());
        assert_eq!(member_end(&data, 0, Compression::Gzip), first);
        assert_eq!(
            member_end(&data, first, Compression::Gzip),
            data.len() as u64
        );
        assert_eq!(member_end(&data, 3, Compression::Gzip), data.len() as u64);
        assert_eq!(
            member_end(&data, 1 << 40, Compression::Gzip),
            data.len() as u64
        );
        let block = &data[4..9];
        assert_eq!(block_end(&data, block), Some(9));
        assert_eq!(block_end(&data, b"elsewhere"), None);
    }
}
