//! The decoding layer between raw input bytes and the record splitter: the [`Decode`] trait
//! (append decoded bytes to a batch buffer, noting where each gzip member / stream chunk starts in
//! the input) and the stream-based decoder used for stdin, LZ4 frames and zstd.

use std::io::{self, Read};

use crate::error::ErrorKind;
use crate::report::FileReport;

/// Where decoded bytes come from in the input file. For a decoded position `p >= at`, the input
/// offset is `src + (p - at)` when `linear` (uncompressed input), else `src` (the start of the
/// gzip member or compressed stream holding it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    pub at: usize,
    pub src: u64,
    pub linear: bool,
}

/// Input offset of decoded position `pos` given the buffer's marks (sorted by `at`).
pub(crate) fn offset_of(marks: &[Mark], pos: usize) -> u64 {
    let i = marks.partition_point(|m| m.at <= pos);
    match i.checked_sub(1).and_then(|j| marks.get(j)) {
        Some(m) if m.linear => m.src + (pos - m.at) as u64,
        Some(m) => m.src,
        None => 0,
    }
}

/// Rebases marks after the first `consumed` bytes of a buffer were dropped.
pub(crate) fn rebase(marks: &[Mark], consumed: usize) -> Vec<Mark> {
    let mut out = Vec::new();
    let i = marks.partition_point(|m| m.at <= consumed);
    if let Some(m) = i.checked_sub(1).and_then(|j| marks.get(j)) {
        let src = if m.linear {
            m.src + (consumed - m.at) as u64
        } else {
            m.src
        };
        out.push(Mark {
            at: 0,
            src,
            linear: m.linear,
        });
    }
    for m in &marks[i..] {
        out.push(Mark {
            at: m.at - consumed,
            ..*m
        });
    }
    out
}

/// A source of decoded bytes.
pub(crate) trait Decode {
    /// Appends decoded bytes to `out` until `out.len() >= want` or the input ends, pushing a
    /// [`Mark`] for every member / chunk start. Record-level problems (a corrupt member) are
    /// counted in `report`. Returns `Ok(true)` once the input is exhausted. Must append at least
    /// one byte or return `Ok(true)`.
    fn fill(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
        marks: &mut Vec<Mark>,
        report: &mut FileReport,
    ) -> io::Result<bool>;
}

/// Decodes a byte stream through any `Read` (stdin, an LZ4 frame decoder, a zstd decoder, a
/// multi-member gzip decoder on stdin).
pub(crate) struct ReadDecoder<R: Read> {
    inner: R,
    /// Decoded bytes handed out so far.
    produced: u64,
    /// Uncompressed input: offsets are linear. Compressed: every record maps to offset 0.
    linear: bool,
    /// For compressed streams: decode errors are record-level (`bad_compression`).
    compressed: bool,
    done: bool,
}

impl<R: Read> ReadDecoder<R> {
    pub(crate) fn new(inner: R, compressed: bool) -> Self {
        ReadDecoder {
            inner,
            produced: 0,
            linear: !compressed,
            compressed,
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
        report: &mut FileReport,
    ) -> io::Result<bool> {
        if self.done {
            return Ok(true);
        }
        if self.linear || self.produced == 0 {
            marks.push(Mark {
                at: out.len(),
                src: if self.linear { self.produced } else { 0 },
                linear: self.linear,
            });
        }
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
                Err(e) if self.compressed => {
                    report.error(
                        ErrorKind::BadCompression,
                        0,
                        format!(
                            "compressed stream fails to decode after {} bytes: {e}",
                            self.produced
                        ),
                    );
                    self.done = true;
                    return Ok(true);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_marks() {
        let marks = [
            Mark {
                at: 0,
                src: 100,
                linear: false,
            },
            Mark {
                at: 50,
                src: 300,
                linear: true,
            },
        ];
        assert_eq!(offset_of(&marks, 10), 100);
        assert_eq!(offset_of(&marks, 60), 310);
        let r = rebase(&marks, 55);
        assert_eq!(
            r,
            vec![Mark {
                at: 0,
                src: 305,
                linear: true
            }]
        );
        let r = rebase(&marks, 20);
        assert_eq!(
            r[0],
            Mark {
                at: 0,
                src: 100,
                linear: false
            }
        );
        assert_eq!(r[1].at, 30);
    }
}
