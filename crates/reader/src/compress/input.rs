//! The compressed input of the member loop: the [`Input`] trait (an offset, look-ahead, and
//! what the input can do: show all its remaining bytes, go back) with the resync helpers built on
//! it, and [`MapInput`], a file whole in memory. The stream side is
//! [`StreamInput`](super::stream::StreamInput).

use std::io::{self, BufRead, Read};

use bytes::Bytes;

use super::detect::GZIP_MAGIC;
use super::gzip_header::{next_header, parse_header, GzHeader};

/// The compressed input the member loop walks. `Read`/`BufRead` are for the frame decoders,
/// which take the input over while they decode a frame.
pub(crate) trait Input: BufRead {
    /// Offset in the file of the next unread byte.
    fn offset(&self) -> u64;
    /// The unread bytes: at least `k` of them unless the input ends first.
    fn peek(&mut self, k: usize) -> io::Result<&[u8]>;
    /// Every unread byte, when the input is whole in memory.
    fn rest(&self) -> Option<&[u8]>;
    /// Goes back to file offset `to` (at or after where the input began; for a stream, at or
    /// after its [`mark`](Input::mark), while it is kept); `false` when the input cannot go back
    /// that far.
    fn seek_back(&mut self, to: u64) -> bool;
    /// Notes the position (a member or frame start) as one [`seek_back`](Input::seek_back) may
    /// return to; a map can go back anywhere and ignores it.
    fn mark(&mut self) {}

    /// Consumes bytes up to the next `magic` (or to the end); returns how many.
    fn skip_to(&mut self, magic: &[u8]) -> io::Result<u64> {
        let start = self.offset();
        loop {
            let m = magic.len();
            let buf = self.peek(m)?;
            if buf.len() < m {
                let all = buf.len();
                self.consume(all);
                break;
            }
            if let Some(p) = memchr::memmem::find(buf, magic) {
                self.consume(p);
                break;
            }
            let keep = buf.len() - (m - 1);
            self.consume(keep);
        }
        Ok(self.offset() - start)
    }

    /// Parses the gzip member header at the input's position, looking as far ahead as it needs.
    fn gzip_header(&mut self) -> io::Result<GzHeader> {
        let mut k = 64;
        loop {
            let buf = self.peek(k)?;
            let got = buf.len();
            match parse_header(buf) {
                GzHeader::Incomplete if got >= k => k *= 2,
                h => return Ok(h),
            }
        }
    }

    /// Consumes bytes up to the next gzip magic that starts a valid header (or to the end);
    /// returns how many.
    fn skip_to_gzip_header(&mut self) -> io::Result<u64> {
        let start = self.offset();
        if let Some(rest) = self.rest() {
            let n = next_header(rest, 0).unwrap_or(rest.len());
            self.consume(n);
            return Ok(n as u64);
        }
        loop {
            self.skip_to(&GZIP_MAGIC)?;
            if self.peek(1)?.is_empty() || matches!(self.gzip_header()?, GzHeader::Ok(_)) {
                break;
            }
            self.consume(1);
        }
        Ok(self.offset() - start)
    }
}

/// A file whole in memory (a map, a parallel reader's range), as an [`Input`].
pub(crate) struct MapInput {
    data: Bytes,
    /// Offset in the file of `data[0]` (ranges of the parallel reader start mid-file).
    base: u64,
    pos: usize,
}

impl MapInput {
    pub(crate) fn new(data: Bytes, base: u64) -> Self {
        MapInput { data, base, pos: 0 }
    }
}

impl Read for MapInput {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let rest = &self.data[self.pos..];
        let k = rest.len().min(out.len());
        out[..k].copy_from_slice(&rest[..k]);
        self.pos += k;
        Ok(k)
    }
}

impl BufRead for MapInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.data.len());
    }
}

impl Input for MapInput {
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn peek(&mut self, _k: usize) -> io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }

    fn rest(&self) -> Option<&[u8]> {
        Some(&self.data[self.pos..])
    }

    fn seek_back(&mut self, to: u64) -> bool {
        match to
            .checked_sub(self.base)
            .and_then(|p| usize::try_from(p).ok())
        {
            Some(p) if p <= self.data.len() => {
                self.pos = p;
                true
            }
            _ => false,
        }
    }
}
