//! The streamed (piped, not mapped) reader of zstd frames: arbitrary bytes behind the magic, fed
//! through a reader that hands them out in small irregular pieces (as a pipe does), so the
//! stream input's look-ahead, resync history and member-by-member decoding are exercised. The
//! records must be those a mapped read of the same bytes gives, unless a frame fails to decode:
//! how much of a failing frame zstd's streaming decoder hands out before its error depends on
//! how its input arrives (a known difference, kept since the decoder was written).
#![no_main]
use libfuzzer_sys::fuzz_target;

/// Hands out `data` a few bytes at a time, the sizes drawn from the data itself.
struct Pieces<'a> {
    data: &'a [u8],
    pos: usize,
    seed: u32,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.seed = self.seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let k = (1 + (self.seed >> 16) as usize % 300)
            .min(out.len())
            .min(self.data.len() - self.pos);
        out[..k].copy_from_slice(&self.data[self.pos..self.pos + k]);
        self.pos += k;
        Ok(k)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = vec![0x28, 0xb5, 0x2f, 0xfd];
    input.extend_from_slice(data);
    let cfg = crawlsift_reader::ReaderConfig { threads: 1, buffer_bytes: 50, ..Default::default() };
    let mut mapped = Vec::new();
    let mapped_report = crawlsift_reader::read_bytes(bytes::Bytes::from(input.clone()), 0, &cfg, &mut |b| {
        mapped.extend(b.into_iter().map(|r| (r.pos, r.id, r.block)));
        true
    });
    let mut streamed = Vec::new();
    let pieces = Pieces { data: &input, pos: 0, seed: data.first().copied().unwrap_or(0).into() };
    let report = crawlsift_reader::read_stream(pieces, 0, &cfg, &mut |b| {
        streamed.extend(b.into_iter().map(|r| (r.pos, r.id, r.block)));
        true
    });
    let report = report.expect("an in-memory stream does not fail");
    let failed = |r: &crawlsift_reader::FileReport| {
        r.errors.contains_key(&crawlsift_reader::ErrorKind::BadCompression)
    };
    if !failed(&mapped_report) && !failed(&report) {
        assert_eq!(mapped, streamed);
    }
});
