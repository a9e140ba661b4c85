//! LZ4 and zstd frames: opening a frame's decoder on the member loop's input, which the decoder
//! holds while it streams the frame into the batch buffer (so a whole-file frame never has to
//! fit in memory), and handing the input back when the frame ends or fails. The loop over frames
//! is [`Members`](super::members::Members), shared with gzip.

use std::io::{self, Read};

use super::detect::Compression;
use super::input::Input;

/// The decoder of one LZ4 or zstd frame, reading from the input it holds.
pub(crate) enum Frame<I: Input> {
    /// An LZ4 frame.
    Lz4(Box<lz4_flex::frame::FrameDecoder<I>>),
    /// A zstd frame.
    Zstd(Box<zstd::stream::read::Decoder<'static, I>>),
}

impl<I: Input> Frame<I> {
    /// Opens the `kind` (LZ4 or zstd) frame that starts at the input's position; a zstd frame
    /// with the file's dictionary when it has one.
    pub(crate) fn open(
        kind: Compression,
        input: I,
        zstd_dictionary: Option<&[u8]>,
    ) -> io::Result<Self> {
        Ok(match kind {
            Compression::Lz4 => Frame::Lz4(Box::new(lz4_flex::frame::FrameDecoder::new(input))),
            _ => Frame::Zstd(Box::new(
                zstd::stream::read::Decoder::with_dictionary(
                    input,
                    zstd_dictionary.unwrap_or(&[]),
                )?
                .single_frame(),
            )),
        })
    }

    /// Decodes the next bytes of the frame (0 at its end).
    pub(crate) fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Frame::Lz4(d) => d.read(b),
            Frame::Zstd(d) => d.read(b),
        }
    }

    /// The input the decoder reads from (at what it has read of it so far).
    pub(crate) fn input(&self) -> &I {
        match self {
            Frame::Lz4(d) => d.get_ref(),
            Frame::Zstd(d) => d.get_ref(),
        }
    }

    /// The input, after what the decoder read of it.
    pub(crate) fn into_inner(self) -> I {
        match self {
            Frame::Lz4(d) => d.into_inner(),
            Frame::Zstd(d) => d.finish(),
        }
    }
}
