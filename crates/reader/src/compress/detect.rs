//! [`Compression`] and its detection from an input's first bytes (the gzip, LZ4 frame and zstd
//! frame magic numbers, which the member loop also resyncs on; bzip2 and xz are recognised only
//! to be named as unsupported). A leaf: depends on nothing else in the crate.

/// The first three bytes of every gzip member (magic + deflate method).
pub const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// The first four bytes of every LZ4 frame.
pub(crate) const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
/// The first four bytes of every zstd frame.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// The last three bytes of a zstd skippable frame's magic number (0x184D2A5?, little-endian: the
/// first byte is 0x50 to 0x5F).
pub(crate) const ZSTD_SKIPPABLE_TAIL: [u8; 3] = [0x2a, 0x4d, 0x18];
/// The skippable frame that holds a `.warc.zst` file's dictionary (IIPC's WARC zstd proposal),
/// little-endian.
pub const ZSTD_DICTIONARY_FRAME_MAGIC: [u8; 4] = [0x5d, 0x2a, 0x4d, 0x18];

/// Whether `b` starts with a zstd skippable frame's magic number.
pub(crate) fn is_zstd_skippable(b: &[u8]) -> bool {
    b.len() >= 4 && b[0] & 0xf0 == 0x50 && b[1..4] == ZSTD_SKIPPABLE_TAIL
}
/// The first bytes of a bzip2 stream (`BZh`, then the block size digit `1`-`9`).
const BZIP2_MAGIC: &[u8; 3] = b"BZh";
/// The first six bytes of an xz stream.
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0];

/// Compression detected from the first bytes of an input.
/// With the `serde` feature it is (de)serialized as its [`as_str`](Compression::as_str) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// Gzip (one or many members).
    Gzip,
    /// LZ4 frames.
    Lz4,
    /// Zstandard frames.
    Zstd,
    /// bzip2: recognised, not read (named as unsupported compression).
    #[cfg_attr(feature = "serde", serde(rename = "bz2"))]
    Bzip2,
    /// xz: recognised, not read (named as unsupported compression).
    Xz,
}

impl Compression {
    /// Stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bz2",
            Compression::Xz => "xz",
        }
    }

    /// Whether the reader can decode this compression (bzip2 and xz are only recognised).
    pub fn is_supported(self) -> bool {
        !matches!(self, Compression::Bzip2 | Compression::Xz)
    }
}

/// Compression of an input from its first bytes (gzip, LZ4 frame, zstd frame, bzip2 and xz magic
/// numbers).
pub fn detect_compression(b: &[u8]) -> Compression {
    if b.starts_with(&GZIP_MAGIC[..2]) {
        Compression::Gzip
    } else if b.starts_with(&LZ4_MAGIC) {
        Compression::Lz4
    } else if b.starts_with(&ZSTD_MAGIC) || is_zstd_skippable(b) {
        Compression::Zstd
    } else if b.starts_with(BZIP2_MAGIC) && b.get(3).is_some_and(|d| (b'1'..=b'9').contains(d)) {
        Compression::Bzip2
    } else if b.starts_with(&XZ_MAGIC) {
        Compression::Xz
    } else {
        Compression::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_from_bytes() {
        assert_eq!(detect_compression(b"\x1f\x8b\x08"), Compression::Gzip);
        assert_eq!(detect_compression(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        // A .warc.zst file opens with its dictionary's skippable frame.
        assert_eq!(detect_compression(b"\x5d\x2a\x4d\x18"), Compression::Zstd);
        assert_eq!(detect_compression(b"\x50\x2a\x4d\x18"), Compression::Zstd);
        assert_eq!(detect_compression(b"\x60\x2a\x4d\x18"), Compression::None);
        assert_eq!(detect_compression(b"\x04\x22\x4d\x18"), Compression::Lz4);
        assert_eq!(detect_compression(b"WARC/1.0"), Compression::None);
        assert_eq!(detect_compression(b"BZh91AY&SY"), Compression::Bzip2);
        assert_eq!(detect_compression(b"BZh "), Compression::None);
        assert_eq!(detect_compression(b"\xfd7zXZ\0\0\x04"), Compression::Xz);
    }
}
