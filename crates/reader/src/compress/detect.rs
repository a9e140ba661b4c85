//! [`Compression`] and its detection from an input's first bytes (the gzip, LZ4 frame and zstd
//! frame magic numbers, which the member loop also resyncs on). A leaf: depends on nothing else
//! in the crate.

/// The first three bytes of every gzip member (magic + deflate method).
pub const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// The first four bytes of every LZ4 frame.
pub(crate) const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
/// The first four bytes of every zstd frame.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

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
}

impl Compression {
    /// Stable lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Compression of an input from its first bytes (gzip, LZ4 frame, zstd frame magic numbers).
pub fn detect_compression(b: &[u8]) -> Compression {
    if b.starts_with(&GZIP_MAGIC[..2]) {
        Compression::Gzip
    } else if b.starts_with(&LZ4_MAGIC) {
        Compression::Lz4
    } else if b.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd
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
        assert_eq!(detect_compression(b"\x04\x22\x4d\x18"), Compression::Lz4);
        assert_eq!(detect_compression(b"WARC/1.0"), Compression::None);
    }
}
