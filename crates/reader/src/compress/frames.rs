//! LZ4-frame and zstd input of a memory-mapped file, frame by frame: each frame is streamed into
//! the batch buffer (so a whole-file frame never has to fit in memory) and records carry the
//! offset of the frame holding their start, like gzip members. A frame that fails to decode is
//! counted and the reader resyncs at the next frame magic.

use std::io::{self, Read};

use bytes::buf::Reader;
use bytes::{Buf, Bytes};

use super::decode::{Decode, Mark};
use super::detect::{Compression, LZ4_MAGIC, ZSTD_MAGIC};
use crate::error::ErrorKind;
use crate::report::FileReport;

enum Cur {
    Lz4(lz4_flex::frame::FrameDecoder<Reader<Bytes>>),
    Zstd(zstd::stream::read::Decoder<'static, Reader<Bytes>>),
}

impl Cur {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Cur::Lz4(d) => d.read(b),
            Cur::Zstd(d) => d.read(b),
        }
    }

    /// Input bytes left after the frame.
    fn remaining(self) -> usize {
        match self {
            Cur::Lz4(d) => d.into_inner().into_inner().len(),
            Cur::Zstd(d) => d.finish().into_inner().len(),
        }
    }
}

/// Decodes a sequence of LZ4 or zstd frames from memory.
pub(crate) struct FrameStream {
    data: Bytes,
    kind: Compression,
    pos: usize,
    frame_start: usize,
    cur: Option<Cur>,
}

impl FrameStream {
    pub(crate) fn new(data: Bytes, kind: Compression) -> Self {
        FrameStream {
            data,
            kind,
            pos: 0,
            frame_start: 0,
            cur: None,
        }
    }

    fn magic(&self) -> [u8; 4] {
        if self.kind == Compression::Lz4 {
            LZ4_MAGIC
        } else {
            ZSTD_MAGIC
        }
    }

    fn resync(&mut self, from: usize) {
        let m = self.magic();
        self.pos = memchr::memmem::find(self.data.get(from..).unwrap_or(&[]), &m)
            .map_or(self.data.len(), |x| from + x);
    }
}

impl Decode for FrameStream {
    fn fill(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
        marks: &mut Vec<Mark>,
        report: &mut FileReport,
    ) -> io::Result<bool> {
        let start_len = out.len();
        let mut tmp = vec![0u8; 64 << 10];
        loop {
            if out.len() >= want && out.len() > start_len {
                return Ok(false);
            }
            if self.cur.is_none() {
                while self.data.get(self.pos) == Some(&0) {
                    self.pos += 1;
                }
                if self.pos >= self.data.len() {
                    return Ok(true);
                }
                if !self.data[self.pos..].starts_with(&self.magic()) {
                    let at = self.pos;
                    self.resync(at + 1);
                    report.error(
                        ErrorKind::Garbage,
                        at as u64,
                        format!(
                            "{} bytes that are not a {} frame",
                            self.pos - at,
                            self.kind.as_str()
                        ),
                    );
                    continue;
                }
                let r = self.data.slice(self.pos..).reader();
                self.cur = Some(match self.kind {
                    Compression::Lz4 => Cur::Lz4(lz4_flex::frame::FrameDecoder::new(r)),
                    _ => match zstd::stream::read::Decoder::with_buffer(r) {
                        Ok(d) => Cur::Zstd(d.single_frame()),
                        Err(e) => {
                            report.error(
                                ErrorKind::BadCompression,
                                self.pos as u64,
                                format!("zstd: {e}"),
                            );
                            self.pos = self.data.len();
                            return Ok(true);
                        }
                    },
                });
                self.frame_start = self.pos;
                marks.push(Mark {
                    at: out.len(),
                    src: self.pos as u64,
                    linear: false,
                });
            }
            let room = want.saturating_sub(out.len()).clamp(1, tmp.len());
            let Some(cur) = self.cur.as_mut() else {
                continue;
            };
            match cur.read(&mut tmp[..room]) {
                Ok(0) => {
                    if let Some(c) = self.cur.take() {
                        let rem = c.remaining();
                        self.pos = self.data.len() - rem;
                    }
                    if self.pos <= self.frame_start {
                        self.pos = self.frame_start + 1;
                    }
                }
                Ok(n) => out.extend_from_slice(&tmp[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    report.error(
                        ErrorKind::BadCompression,
                        self.frame_start as u64,
                        format!("{} frame fails to decode: {e}", self.kind.as_str()),
                    );
                    self.cur = None;
                    let from = self.frame_start + 1;
                    self.resync(from);
                }
            }
        }
    }
}
