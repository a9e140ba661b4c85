//! Stream input (stdin, pipes): uncompressed streams passed through, and gzip members, LZ4 and
//! zstd frames taken one at a time, so that each record keeps the offset of its member, as from
//! a mapped file.

use std::io::{self, BufRead, Read};

use crawlsift_common::limits::STREAM_READ_BUFFER_BYTES;

use super::decode::{Decode, Mark};
use super::detect::{Compression, GZIP_MAGIC, LZ4_MAGIC, ZSTD_MAGIC};
use crate::error::ErrorKind;
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

/// A buffered reader that counts the bytes consumed through it (the position in the compressed
/// input) and can look a few bytes ahead whatever its buffer holds (to tell a member's magic).
struct Consumed<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    n: u64,
}

impl<R: Read> Consumed<R> {
    fn new(inner: R) -> Self {
        Consumed {
            inner,
            buf: vec![0; STREAM_READ_BUFFER_BYTES.max(16)],
            pos: 0,
            end: 0,
            n: 0,
        }
    }

    /// At least `k` buffered bytes (fewer only at the end of the input).
    fn peek(&mut self, k: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < k {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
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

    /// Consumes bytes up to the next `magic` (or the end); returns how many.
    fn skip_to(&mut self, magic: &[u8]) -> io::Result<u64> {
        let start = self.n;
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
        Ok(self.n - start)
    }
}

impl<R: Read> Read for Consumed<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let k = avail.len().min(out.len());
        out[..k].copy_from_slice(&avail[..k]);
        self.consume(k);
        Ok(k)
    }
}

impl<R: Read> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.pos = 0;
            self.end = 0;
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

/// The member or frame being decoded by a [`Members`] decoder.
enum Cur<R: Read> {
    Gzip(Box<flate2::bufread::GzDecoder<Consumed<R>>>),
    Lz4(Box<lz4_flex::frame::FrameDecoder<Consumed<R>>>),
    Zstd(Box<zstd::stream::read::Decoder<'static, Consumed<R>>>),
}

impl<R: Read> Cur<R> {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Cur::Gzip(d) => d.read(b),
            Cur::Lz4(d) => d.read(b),
            Cur::Zstd(d) => d.read(b),
        }
    }

    /// The input, just past the member.
    fn into_inner(self) -> Consumed<R> {
        match self {
            Cur::Gzip(d) => d.into_inner(),
            Cur::Lz4(d) => d.into_inner(),
            Cur::Zstd(d) => d.finish(),
        }
    }
}

/// Where a [`Members`] decoder is.
enum State<R: Read> {
    /// Before a member (or the end of the input).
    Between(Consumed<R>),
    /// Inside the member that starts at `start` in the input.
    In { cur: Cur<R>, start: u64 },
    /// Finished, or failed.
    Done,
}

/// Decodes a stream of concatenated gzip members, LZ4 frames or zstd frames one member at a
/// time, marking where each starts in the compressed input, so records read from a pipe carry
/// the same offsets as records read from the mapped file. As there, NUL padding between LZ4 and
/// zstd frames is skipped, and bytes that start no member are counted (`garbage`) and skipped to
/// the next magic. A member that fails to decode is counted at its offset (`bad_gzip`, or
/// `bad_compression`) and the stream ends there: the decoder may have read past the next
/// member's start, and a pipe cannot go back.
pub(crate) struct Members<R: Read> {
    state: State<R>,
    kind: Compression,
}

impl<R: Read> Members<R> {
    /// A decoder for `kind` (gzip, LZ4 or zstd) of the stream `inner`.
    pub(crate) fn new(inner: R, kind: Compression) -> Self {
        Members {
            state: State::Between(Consumed::new(inner)),
            kind,
        }
    }

    fn error_kind(&self) -> ErrorKind {
        if self.kind == Compression::Gzip {
            ErrorKind::BadGzip
        } else {
            ErrorKind::BadCompression
        }
    }

    /// The bytes every member starts with.
    fn magic(&self) -> &'static [u8] {
        match self.kind {
            Compression::Lz4 => &LZ4_MAGIC,
            Compression::Zstd => &ZSTD_MAGIC,
            _ => &GZIP_MAGIC,
        }
    }

    /// Opens the member starting at the reader's position.
    fn open(&self, r: Consumed<R>) -> io::Result<Cur<R>> {
        Ok(match self.kind {
            Compression::Lz4 => Cur::Lz4(Box::new(lz4_flex::frame::FrameDecoder::new(r))),
            Compression::Zstd => Cur::Zstd(Box::new(
                zstd::stream::read::Decoder::with_buffer(r)?.single_frame(),
            )),
            _ => Cur::Gzip(Box::new(flate2::bufread::GzDecoder::new(r))),
        })
    }
}

impl<R: Read> Decode for Members<R> {
    fn fill(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
        marks: &mut Vec<Mark>,
        report: &mut FileReport,
    ) -> io::Result<bool> {
        let mut tmp = [0u8; 64 << 10];
        while out.len() < want {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(true),
                State::Between(mut r) => {
                    let magic = self.magic();
                    let head = r.peek(magic.len())?;
                    if head.is_empty() {
                        return Ok(true);
                    }
                    if self.kind != Compression::Gzip && head[0] == 0 {
                        let zeros = head.iter().take_while(|&&b| b == 0).count();
                        r.consume(zeros);
                        self.state = State::Between(r);
                        continue;
                    }
                    // As in a mapped file: a gzip magic cut by the end of the input is a broken
                    // member, any other stray bytes are garbage.
                    if self.kind == Compression::Gzip
                        && head.len() < magic.len()
                        && magic.starts_with(head)
                    {
                        report.error(
                            self.error_kind(),
                            r.n,
                            format!("input ends inside a {} member's magic", self.kind.as_str()),
                        );
                        return Ok(true);
                    }
                    if !head.starts_with(magic) {
                        let at = r.n;
                        let skipped = r.skip_to(magic)?;
                        report.error(
                            ErrorKind::Garbage,
                            at,
                            format!(
                                "{skipped} bytes that are not a {} member",
                                self.kind.as_str()
                            ),
                        );
                        self.state = State::Between(r);
                        continue;
                    }
                    let at = r.n;
                    match self.open(r) {
                        Ok(cur) => {
                            marks.push(Mark {
                                at: out.len(),
                                src: at,
                                linear: false,
                            });
                            self.state = State::In { cur, start: at };
                        }
                        Err(e) => {
                            let kind = self.error_kind();
                            report.error(kind, at, format!("{}: {e}", self.kind.as_str()));
                            return Ok(true);
                        }
                    }
                }
                State::In { mut cur, start } => {
                    let room = (want - out.len()).min(tmp.len());
                    match cur.read(&mut tmp[..room]) {
                        Ok(0) => {
                            let r = cur.into_inner();
                            if r.n == start {
                                // A decoder that ends without reading a byte would be opened
                                // again at the same place forever.
                                report.error(
                                    self.error_kind(),
                                    start,
                                    format!("{} member ends before it starts", self.kind.as_str()),
                                );
                                return Ok(true);
                            }
                            self.state = State::Between(r);
                        }
                        Ok(n) => {
                            out.extend_from_slice(&tmp[..n]);
                            self.state = State::In { cur, start };
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                            self.state = State::In { cur, start };
                        }
                        Err(e) => {
                            report.error(
                                self.error_kind(),
                                start,
                                format!("{} member fails to decode: {e}", self.kind.as_str()),
                            );
                            return Ok(true);
                        }
                    }
                }
            }
        }
        Ok(false)
    }
}
