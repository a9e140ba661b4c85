//! What the streamed-path targets share: the same bytes read mapped and through a reader that
//! hands them out in small irregular pieces (as a pipe does), so the stream input's look-ahead,
//! resync history and member-by-member decoding are exercised against the mapped read.

use crawlsift_reader::{FileReport, ReaderConfig, SourcePos};

/// A record as compared: position, id and block.
pub type Seen = (SourcePos, String, bytes::Bytes);

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

/// `data` behind `magic`, read mapped and streamed: each read's records and report.
pub fn both_reads(magic: &[u8], data: &[u8]) -> ((Vec<Seen>, FileReport), (Vec<Seen>, FileReport)) {
    let mut input = magic.to_vec();
    input.extend_from_slice(data);
    let cfg = ReaderConfig { threads: 1, buffer_bytes: 50, ..Default::default() };
    let mut mapped = Vec::new();
    let mapped_report = crawlsift_reader::read_bytes(bytes::Bytes::from(input.clone()), 0, &cfg, &mut |b| {
        mapped.extend(b.into_iter().map(|r| (r.pos, r.id, r.block)));
        true
    });
    let mut streamed = Vec::new();
    let pieces = Pieces { data: &input, pos: 0, seed: data.first().copied().unwrap_or(0).into() };
    let streamed_report = crawlsift_reader::read_stream(pieces, 0, &cfg, &mut |b| {
        streamed.extend(b.into_iter().map(|r| (r.pos, r.id, r.block)));
        true
    })
    .expect("an in-memory stream does not fail");
    ((mapped, mapped_report), (streamed, streamed_report))
}
