//! Inputs for the end-to-end hostile-input tests: WARC records and pages, and decompression
//! bombs in every compression the reader knows, built without ever holding what they expand
//! to (gzip and raw deflate from one compressed chunk repeated, zstd from RLE blocks, LZ4 from
//! long matches; brotli by its encoder, which handles runs of zeros fast).

#![allow(dead_code)]

use std::io::Write;

/// A WARC response record header for a block of `len` bytes (given as text, so tests can lie).
pub fn warc_head(uri: &str, len: &str) -> Vec<u8> {
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {len}\r\n\r\n"
    )
    .into_bytes()
}

/// A whole WARC response record holding an HTML page.
pub fn warc_page(uri: &str, html: &[u8]) -> Vec<u8> {
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
    http.extend_from_slice(html);
    let mut rec = warc_head(uri, &http.len().to_string());
    rec.extend_from_slice(&http);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

/// A page of `words` distinct-enough words (enough for dedup to fingerprint it).
pub fn article(seed: u64, words: usize) -> String {
    let vocab = [
        "harbour",
        "council",
        "ferry",
        "timetable",
        "island",
        "evening",
        "service",
        "residents",
        "week",
        "meeting",
        "vote",
        "budget",
        "school",
        "road",
        "bridge",
        "river",
        "market",
        "summer",
        "winter",
        "library",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = String::from("<html><head><title>News</title></head><body><article><p>");
    for _ in 0..words {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(vocab[(x % vocab.len() as u64) as usize]);
        s.push(' ');
    }
    s.push_str("</p></article></body></html>");
    s
}

/// A raw deflate stream of `prefix` followed by `zeros` zero bytes, and the CRC-32 of what it
/// inflates to (see [`deflate_parts`]).
pub fn deflate_then_zeros(prefix: &[u8], zeros: u64) -> (Vec<u8>, u32) {
    deflate_parts(prefix, zeros, b"")
}

/// A raw deflate stream of `prefix`, `zeros` zero bytes, then `suffix`, and the CRC-32 of what
/// it inflates to. The zeros are one compressed 1 MiB chunk repeated: the chunk comes from a
/// fresh compressor and ends in a full flush, so it refers to nothing before it and copies
/// concatenate. Compresses ~1000:1 in well under a second.
pub fn deflate_parts(prefix: &[u8], zeros: u64, suffix: &[u8]) -> (Vec<u8>, u32) {
    use flate2::{Compress, Compression, Crc, FlushCompress};
    const CHUNK: usize = 1 << 20;
    // Zeros short of a whole chunk go with the suffix.
    let tail = [vec![0; (zeros % CHUNK as u64) as usize], suffix.to_vec()].concat();
    let suffix = &tail[..];
    let deflate = |c: &mut Compress, input: &[u8], flush: FlushCompress| -> Vec<u8> {
        let mut out = Vec::with_capacity(input.len() / 100 + 4096);
        let mut pos = 0;
        loop {
            if out.capacity() - out.len() < 1024 {
                out.reserve(64 << 10);
            }
            let before = c.total_in();
            c.compress_vec(&input[pos..], &mut out, flush).unwrap();
            pos += (c.total_in() - before) as usize;
            if pos == input.len() && out.len() < out.capacity() {
                return out;
            }
        }
    };
    let mut c = Compress::new(Compression::best(), false);
    let mut crc = Crc::new();
    let mut stream = deflate(&mut c, prefix, FlushCompress::Full);
    crc.update(prefix);
    let zero_chunk = vec![0u8; CHUNK];
    let chunk = deflate(
        &mut Compress::new(Compression::best(), false),
        &zero_chunk,
        FlushCompress::Full,
    );
    for _ in 0..zeros / CHUNK as u64 {
        stream.extend_from_slice(&chunk);
        crc.update(&zero_chunk);
    }
    // The suffix from a fresh compressor too: it must not refer back past the zeros.
    stream.extend(deflate(
        &mut Compress::new(Compression::best(), false),
        suffix,
        FlushCompress::Finish,
    ));
    crc.update(suffix);
    (stream, crc.sum())
}

/// A gzip member of `prefix` and then `zeros` zero bytes.
pub fn gzip_bomb(prefix: &[u8], zeros: u64) -> Vec<u8> {
    gzip_parts(prefix, zeros, b"")
}

/// One gzip member of `prefix`, `zeros` zero bytes and `suffix` (see [`deflate_parts`]).
pub fn gzip_parts(prefix: &[u8], zeros: u64, suffix: &[u8]) -> Vec<u8> {
    let (deflated, crc) = deflate_parts(prefix, zeros, suffix);
    let mut m = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255];
    m.extend_from_slice(&deflated);
    m.extend_from_slice(&crc.to_le_bytes());
    let isize = (prefix.len() as u64 + zeros + suffix.len() as u64) as u32;
    m.extend_from_slice(&isize.to_le_bytes());
    m
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Blocks are at most this large in the zstd frames made here (the format's block maximum).
const ZSTD_BLOCK: usize = 128 << 10;

/// One zstd frame of `prefix`, `zeros` zero bytes and `suffix`, with no content size and no
/// checksum: raw blocks for the bytes given, RLE blocks (4 bytes per 128 KiB) for the zeros, so
/// 4 GB of zeros take ~120 KB and no encoder time.
pub fn zstd_parts(prefix: &[u8], zeros: u64, suffix: &[u8]) -> Vec<u8> {
    // Magic, frame header descriptor 0 (no content size, no checksum, no dictionary), window
    // descriptor 2^17 (a 128 KiB window: room for one block).
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3];
    let mut blocks: Vec<(u32, Vec<u8>)> = Vec::new();
    for part in prefix.chunks(ZSTD_BLOCK) {
        blocks.push(((part.len() as u32) << 3, part.to_vec()));
    }
    let mut left = zeros;
    while left > 0 {
        let n = left.min(ZSTD_BLOCK as u64) as u32;
        blocks.push(((n << 3) | (1 << 1), vec![0]));
        left -= n as u64;
    }
    for part in suffix.chunks(ZSTD_BLOCK) {
        blocks.push(((part.len() as u32) << 3, part.to_vec()));
    }
    if blocks.is_empty() {
        blocks.push((0, Vec::new()));
    }
    let last = blocks.len() - 1;
    for (i, (head, body)) in blocks.into_iter().enumerate() {
        let head = head | u32::from(i == last);
        f.extend_from_slice(&head.to_le_bytes()[..3]);
        f.extend_from_slice(&body);
    }
    f
}

/// xxHash32 (seed 0) of a few bytes: the LZ4 frame header checksum.
fn xxh32_short(data: &[u8]) -> u32 {
    const P1: u32 = 2_654_435_761;
    const P2: u32 = 2_246_822_519;
    const P3: u32 = 3_266_489_917;
    const P5: u32 = 374_761_393;
    let mut h = P5.wrapping_add(data.len() as u32);
    for &b in data {
        h = h.wrapping_add(u32::from(b).wrapping_mul(P5));
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

/// LZ4 frame blocks hold at most 4 MiB here.
const LZ4_BLOCK: usize = 4 << 20;

/// An LZ4 block that decodes to `n` (>= 13) zero bytes: one literal zero, one match of offset 1
/// for all but the last five bytes, and five literal zeros (the format ends blocks in literals).
fn lz4_zero_block(n: usize) -> Vec<u8> {
    assert!(n >= 13);
    let mut b = vec![(1 << 4) | 15, 0, 1, 0];
    let mut ml = n - 1 - 5 - 4 - 15;
    while ml >= 255 {
        b.push(255);
        ml -= 255;
    }
    b.push(ml as u8);
    b.push(5 << 4);
    b.extend_from_slice(&[0; 5]);
    b
}

/// One LZ4 frame (independent blocks of up to 4 MiB, no checksums) of `prefix`, `zeros` zero
/// bytes and `suffix`: stored blocks for the bytes given, one long match per block for the zeros
/// (~250:1, so 4 GB of zeros take ~16 MB).
pub fn lz4_parts(prefix: &[u8], zeros: u64, suffix: &[u8]) -> Vec<u8> {
    let (flg, bd) = (0x60u8, 0x70u8);
    let mut f = vec![0x04, 0x22, 0x4d, 0x18, flg, bd];
    f.push((xxh32_short(&[flg, bd]) >> 8) as u8);
    let stored = |f: &mut Vec<u8>, data: &[u8]| {
        for part in data.chunks(LZ4_BLOCK) {
            f.extend_from_slice(&(part.len() as u32 | 1 << 31).to_le_bytes());
            f.extend_from_slice(part);
        }
    };
    stored(&mut f, prefix);
    let full = lz4_zero_block(LZ4_BLOCK);
    let mut left = zeros;
    while left > 0 {
        let n = left.min(LZ4_BLOCK as u64) as usize;
        if n < 13 {
            stored(&mut f, &vec![0; n]);
        } else {
            let b = if n == LZ4_BLOCK {
                full.clone()
            } else {
                lz4_zero_block(n)
            };
            f.extend_from_slice(&(b.len() as u32).to_le_bytes());
            f.extend_from_slice(&b);
        }
        left -= n as u64;
    }
    stored(&mut f, suffix);
    f.extend_from_slice(&[0; 4]);
    f
}

/// `prefix` and `zeros` zero bytes, brotli-compressed (quality 1: runs of zeros encode at
/// memory speed).
pub fn brotli_bomb(prefix: &[u8], zeros: u64) -> Vec<u8> {
    let mut e = brotli::CompressorWriter::new(Vec::new(), 1 << 16, 1, 24);
    e.write_all(prefix).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        e.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    e.into_inner()
}
