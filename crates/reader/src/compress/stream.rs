//! Stream input (stdin, pipes): [`ReadDecoder`] passes an uncompressed stream through, and
//! [`StreamInput`] is a compressed stream as the input of the member loop
//! ([`Members`](super::members::Members)), which decodes its gzip members, LZ4 and zstd frames
//! one at a time exactly as it does a mapped file's, so each record keeps its member's offset.

use std::io::{self, BufRead, Read};

use crawlsift_common::limits::{STREAM_READ_BUFFER_BYTES, STREAM_RESYNC_BYTES};

use super::decode::{Decode, Mark};
use super::input::Input;
use crate::report::FileReport;

/// Passes an uncompressed byte stream (stdin, a pipe) through: offsets are linear.
pub(crate) struct ReadDecoder<R: Read> {
    inner: R,
    /// Bytes handed out so far.
    produced: u64,
    done: bool,
}

impl<R: Read> ReadDecoder<R> {
    pub(crate) fn new(inner: R) -> Self {
        ReadDecoder {
            inner,
            produced: 0,
            done: false,
        }
    }
}

impl<R: Read> Decode for ReadDecoder<R> {
    fn fill(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
        marks: &mut Vec<Mark>,
        _report: &mut FileReport,
    ) -> io::Result<bool> {
        if self.done {
            return Ok(true);
        }
        marks.push(Mark {
            at: out.len(),
            src: self.produced,
            linear: true,
            usrc: 0,
        });
        let mut tmp = [0u8; 64 << 10];
        while out.len() < want {
            let room = (want - out.len()).min(tmp.len());
            match self.inner.read(&mut tmp[..room]) {
                Ok(0) => {
                    self.done = true;
                    return Ok(true);
                }
                Ok(n) => {
                    out.extend_from_slice(&tmp[..n]);
                    self.produced += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }
}

/// A stream as the member loop's [`Input`]: a buffered reader that counts the bytes consumed
/// through it (the position in the compressed input) and can look ahead whatever its buffer
/// holds (to tell a member's magic, or read a gzip header). From a [`mark`](Input::mark) (the
/// start of the current member or frame) it keeps up to `STREAM_RESYNC_BYTES` of what was
/// consumed, so a member that fails to decode can be resynced on from just past its start, as in
/// a mapped file.
pub(crate) struct StreamInput<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Where in `buf` the marked position is, while it is kept.
    mark: Option<usize>,
    /// Input offset of `buf[pos]`.
    n: u64,
}

impl<R: Read> StreamInput<R> {
    pub(crate) fn new(inner: R) -> Self {
        StreamInput {
            inner,
            buf: vec![0; STREAM_READ_BUFFER_BYTES.max(16)],
            pos: 0,
            end: 0,
            mark: None,
            n: 0,
        }
    }

    /// Makes room after `end`: drops what is before the mark (or the position), then grows the
    /// buffer while the kept history stays within `STREAM_RESYNC_BYTES`, else forgets the mark.
    fn make_room(&mut self) {
        let keep = self.mark.unwrap_or(self.pos);
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.pos -= keep;
            self.mark = self.mark.map(|m| m - keep);
        }
        if self.end < self.buf.len() {
            return;
        }
        if self.mark.is_some() && self.pos < STREAM_RESYNC_BYTES {
            let len = self.buf.len();
            self.buf.resize(len + len.min(STREAM_RESYNC_BYTES), 0);
        } else if self.mark.take().is_some() {
            self.make_room();
        }
    }
}

impl<R: Read> Read for StreamInput<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let k = avail.len().min(out.len());
        out[..k].copy_from_slice(&avail[..k]);
        self.consume(k);
        Ok(k)
    }
}

impl<R: Read> BufRead for StreamInput<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.peek(1)?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.end - self.pos);
        self.pos += amt;
        self.n += amt as u64;
    }
}

impl<R: Read> Input for StreamInput<R> {
    fn offset(&self) -> u64 {
        self.n
    }

    fn peek(&mut self, k: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < k {
            if self.end == self.buf.len() || self.buf.len() - self.pos < k {
                self.make_room();
            }
            if self.buf.len() - self.pos < k {
                // Room for `k` bytes from the position, whatever is kept before it.
                let need = self.pos + k;
                self.buf.resize(need, 0);
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => break,
                Ok(got) => self.end += got,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn rest(&self) -> Option<&[u8]> {
        None
    }

    fn mark(&mut self) {
        self.mark = Some(self.pos);
    }

    fn seek_back(&mut self, to: u64) -> bool {
        let Some(m) = self.mark else {
            return false;
        };
        let mark_at = self.n - (self.pos - m) as u64;
        if to < mark_at || to > self.n {
            return false;
        }
        self.pos = m + (to - mark_at) as usize;
        self.n = to;
        true
    }
}
