//! Random access into the decoded bytes of one gzip member, as zlib's `zran` and Python's
//! `indexed_gzip` do it: while a member is inflated, a checkpoint is taken at a deflate block
//! boundary every [`SEEK_CHECKPOINT_SPAN`] decoded bytes (the input position to the bit, and the
//! last 32 KiB of output, the window back-references may reach). Inflation can then resume at
//! the last checkpoint before a wanted position instead of at the member's start.
//!
//! The checkpoints of a member ([`GzSeek`]) are built by the reads themselves: a read past the
//! furthest checkpoint goes on from there and takes new ones on its way, so a member is never
//! inflated from its start twice, and a later read near a position already passed costs at most
//! one span of inflation. Their number is bounded by [`SEEK_MAX_CHECKPOINTS`]: when full, every
//! other one is dropped and the span doubles, so a member of any size keeps at most
//! `SEEK_MAX_CHECKPOINTS` windows (32 KiB each).
//!
//! flate2 does not expose what this needs (stopping at block boundaries, priming bits, setting
//! the window of a raw inflater), so this module calls the zlib API of zlib-rs, the inflater
//! flate2 already runs on (`libz-rs-sys`), directly. The crates that index gzip for random access
//! (`indexed_deflate`: one release, its own reader stack on miniz_oxide; `rapidgzip-core`: a
//! parallel decoder with its own index formats) would each bring a second inflater into the
//! reader for some 200 lines of bookkeeping; this is those lines over the inflater in use.

use std::io;

use crawlsift_common::limits::{SEEK_CHECKPOINT_SPAN, SEEK_MAX_CHECKPOINTS};
use libz_rs_sys::{
    inflate, inflateEnd, inflateInit2_, inflatePrime, inflateSetDictionary, z_stream, zlibVersion,
    Z_BLOCK, Z_BUF_ERROR, Z_OK, Z_STREAM_END,
};

use super::gzip_header::{parse_header, GzHeader};

/// The deflate window: how far back a match may reach.
const WINDOW: usize = 32 << 10;

/// Output is inflated into a scratch buffer this large.
const SCRATCH: usize = 256 << 10;

/// Input is handed to zlib at most this much at a time (`avail_in` is 32 bits).
const INPUT_STEP: usize = 1 << 30;

/// A place inflation can resume from.
#[derive(Clone)]
struct Checkpoint {
    /// Decoded position in the member.
    upos: u64,
    /// Offset in the member's bytes (from its gzip header) of the first input byte not consumed.
    input: u64,
    /// Bits of the byte before `input` not yet consumed (0 to 7).
    bits: u8,
    /// The decoded bytes before `upos`, at most [`WINDOW`] of them.
    window: Box<[u8]>,
}

/// The checkpoints of one gzip member, and how far reading it has gone.
#[derive(Clone)]
pub(crate) struct GzSeek {
    /// Offset of the raw deflate data in the member (its gzip header's length).
    deflate_start: u64,
    points: Vec<Checkpoint>,
    span: u64,
    /// Decoded bytes of the member passed over so far (checkpoints are taken past it only).
    frontier: u64,
    /// Where the member ends (after its trailer), in the member's bytes, once known.
    end: Option<u64>,
    /// Decoded size of the member, once known.
    size: Option<u64>,
}

/// What [`GzSeek::read`] gave.
pub(crate) struct Window {
    /// Decoded bytes of the member from the position asked for.
    pub bytes: Vec<u8>,
    /// The member's end (after its 8-byte trailer), in the member's bytes, when the bytes reach
    /// it; `None` when the window was filled first.
    pub member_end: Option<u64>,
}

impl GzSeek {
    /// The seek state of the gzip member at the start of `member`; `None` if no valid gzip header
    /// starts there.
    pub(crate) fn new(member: &[u8]) -> Option<GzSeek> {
        let GzHeader::Ok(h) = parse_header(member) else {
            return None;
        };
        Some(GzSeek {
            deflate_start: h as u64,
            points: Vec::new(),
            span: SEEK_CHECKPOINT_SPAN,
            frontier: 0,
            end: None,
            size: None,
        })
    }

    /// Number of checkpoints held.
    #[cfg(test)]
    pub(crate) fn checkpoints(&self) -> usize {
        self.points.len()
    }

    /// Up to `len` decoded bytes of the member (whose bytes start `member`, running on to the
    /// end of the input) from decoded position `from`, resuming at the last checkpoint at or
    /// before `from` and taking new checkpoints past the furthest position read so far.
    /// Fails on corrupt deflate data or input that ends inside the member before `from`.
    pub(crate) fn read(&mut self, member: &[u8], from: u64, len: usize) -> io::Result<Window> {
        if let Some(size) = self.size {
            if from > size {
                return Err(invalid(format!(
                    "decoded byte {from} is past the member's end ({size} bytes)"
                )));
            }
        }
        let start = self.points.partition_point(|p| p.upos <= from);
        let mut z = Inflater::new()?;
        let (mut upos, mut input) = match start.checked_sub(1).map(|i| &self.points[i]) {
            Some(p) => {
                if p.bits > 0 {
                    let prev = *member
                        .get((p.input - 1) as usize)
                        .ok_or_else(|| invalid("checkpoint past the input".into()))?;
                    z.prime(p.bits, prev >> (8 - p.bits))?;
                }
                z.set_window(&p.window)?;
                (p.upos, p.input)
            }
            None => (0, self.deflate_start),
        };
        let mut out = Vec::with_capacity(len.min(SCRATCH));
        let mut scratch = vec![0u8; SCRATCH];
        let mut history: Vec<u8> = Vec::new();
        loop {
            let avail = member.get(input as usize..).unwrap_or(&[]);
            let avail = &avail[..avail.len().min(INPUT_STEP)];
            let step = z.inflate_block(avail, &mut scratch)?;
            input += step.consumed as u64;
            let produced = &scratch[..step.produced];
            // The part of this output inside [from, from + len).
            let lo = from.saturating_sub(upos).min(produced.len() as u64) as usize;
            let want = len - out.len();
            let hi = lo.saturating_add(want).min(produced.len());
            if upos + (produced.len() as u64) > from {
                out.extend_from_slice(&produced[lo..hi]);
            }
            upos += produced.len() as u64;
            let past = upos > self.frontier;
            keep_window(&mut history, produced);
            if step.stream_end {
                self.frontier = self.frontier.max(upos);
                self.size = Some(upos);
                let end = input + 8;
                self.end = Some(end);
                if (member.len() as u64) < end {
                    return Err(invalid("the member's trailer is missing".into()));
                }
                return Ok(Window {
                    bytes: out,
                    member_end: Some(end),
                });
            }
            if step.block_end && past && upos >= self.last_upos() + self.span {
                // Only a window that is whole (or the member so far) makes a checkpoint.
                if history.len() >= WINDOW.min(upos as usize) {
                    self.add(Checkpoint {
                        upos,
                        input,
                        bits: step.bits,
                        window: history[history.len() - WINDOW.min(history.len())..].into(),
                    });
                }
            }
            self.frontier = self.frontier.max(upos);
            if out.len() >= len {
                return Ok(Window {
                    bytes: out,
                    member_end: None,
                });
            }
            if step.consumed == 0 && step.produced == 0 {
                return Err(invalid(if avail.is_empty() {
                    "the input ends inside the member".into()
                } else {
                    "the member's deflate data makes no progress".into()
                }));
            }
        }
    }

    /// Inflates the member to its end once, taking every checkpoint on the way (nothing when
    /// that was done): what a seek index kept beside a run's outputs holds.
    pub(crate) fn complete(&mut self, member: &[u8]) -> io::Result<()> {
        if self.size.is_none() {
            // A position past any member: nothing is kept, every block is passed and checkpointed.
            self.read(member, u64::MAX, 1)?;
        }
        Ok(())
    }

    /// The checkpoints as bytes ([`from_bytes`](Self::from_bytes) reads them): a tag, the
    /// member's layout, then each checkpoint's place and window, little-endian.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(
            64 + self
                .points
                .iter()
                .map(|p| 21 + p.window.len())
                .sum::<usize>(),
        );
        b.extend_from_slice(SAVED_TAG);
        for v in [
            self.deflate_start,
            self.span,
            self.frontier,
            self.end.unwrap_or(u64::MAX),
            self.size.unwrap_or(u64::MAX),
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&(self.points.len() as u32).to_le_bytes());
        for p in &self.points {
            b.extend_from_slice(&p.upos.to_le_bytes());
            b.extend_from_slice(&p.input.to_le_bytes());
            b.push(p.bits);
            b.extend_from_slice(&(p.window.len() as u32).to_le_bytes());
            b.extend_from_slice(&p.window);
        }
        b
    }

    /// Checkpoints saved by [`to_bytes`](Self::to_bytes). Bytes that are not such checkpoints
    /// (another file, damage) are an error, never a panic or an allocation past their own size:
    /// counts and windows are checked against their bounds and what is left to read.
    pub(crate) fn from_bytes(b: &[u8]) -> io::Result<GzSeek> {
        let bad = |what: &str| invalid(format!("not a gzip seek index: {what}"));
        let rest = b.strip_prefix(SAVED_TAG).ok_or_else(|| bad("no tag"))?;
        let mut r = Cursor { b: rest };
        let (deflate_start, span, frontier) = (r.u64()?, r.u64()?, r.u64()?);
        let some = |v: u64| (v != u64::MAX).then_some(v);
        let (end, size) = (some(r.u64()?), some(r.u64()?));
        let count = r.u32()? as usize;
        if count > SEEK_MAX_CHECKPOINTS {
            return Err(bad("too many checkpoints"));
        }
        let mut points: Vec<Checkpoint> = Vec::with_capacity(count);
        for _ in 0..count {
            let (upos, input, bits) = (r.u64()?, r.u64()?, r.u8()?);
            let len = r.u32()? as usize;
            if bits > 7 || len > WINDOW || input < deflate_start {
                return Err(bad("a checkpoint out of bounds"));
            }
            if points.last().is_some_and(|p| p.upos >= upos) {
                return Err(bad("checkpoints out of order"));
            }
            let window = r.take(len)?.into();
            points.push(Checkpoint {
                upos,
                input,
                bits,
                window,
            });
        }
        if !r.b.is_empty() {
            return Err(bad("bytes after the last checkpoint"));
        }
        Ok(GzSeek {
            deflate_start,
            points,
            span: span.max(1),
            frontier,
            end,
            size,
        })
    }

    /// The member's decoded size, once it was read to its end.
    pub(crate) fn size(&self) -> Option<u64> {
        self.size
    }

    fn last_upos(&self) -> u64 {
        self.points.last().map_or(0, |p| p.upos)
    }

    /// Adds a checkpoint; past the bound, every other one goes and the span doubles.
    fn add(&mut self, p: Checkpoint) {
        if self.points.len() >= SEEK_MAX_CHECKPOINTS {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.span = self.span.saturating_mul(2);
        }
        self.points.push(p);
    }
}

/// Appends `produced` to the last-window history, keeping at most two windows' worth.
fn keep_window(history: &mut Vec<u8>, produced: &[u8]) {
    if produced.len() >= WINDOW {
        history.clear();
        history.extend_from_slice(&produced[produced.len() - WINDOW..]);
        return;
    }
    history.extend_from_slice(produced);
    if history.len() > 2 * WINDOW {
        history.drain(..history.len() - WINDOW);
    }
}

/// The first bytes of saved checkpoints ([`GzSeek::to_bytes`]), with the layout's version.
const SAVED_TAG: &[u8] = b"crawlsift gzip seek 1\n";

/// Reads little-endian numbers off the front of saved checkpoints.
struct Cursor<'a> {
    b: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.b.len() < n {
            return Err(invalid("not a gzip seek index: it ends early".into()));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> io::Result<u32> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }

    fn u64(&mut self) -> io::Result<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// What one inflate call did.
struct Step {
    consumed: usize,
    produced: usize,
    /// Stopped at the end of a deflate block (not the last).
    block_end: bool,
    /// Unused bits of the last byte consumed (when `block_end`).
    bits: u8,
    /// The deflate stream ended.
    stream_end: bool,
}

/// A raw (headerless) zlib-rs inflater.
struct Inflater {
    /// Boxed: zlib's state points back at its stream, which must not move.
    strm: Box<z_stream>,
}

impl Inflater {
    fn new() -> io::Result<Inflater> {
        let mut strm = Box::<z_stream>::default();
        // SAFETY: `strm` is a default (allocator-configured, empty) stream that lives in a box
        // for as long as the inflater, and is ended once in `Drop`.
        let rc = unsafe {
            inflateInit2_(
                &mut *strm,
                -15,
                zlibVersion(),
                std::mem::size_of::<z_stream>() as i32,
            )
        };
        if rc != Z_OK {
            return Err(io::Error::other(format!("inflateInit2 failed ({rc})")));
        }
        Ok(Inflater { strm })
    }

    fn prime(&mut self, bits: u8, value: u8) -> io::Result<()> {
        // SAFETY: an initialised stream.
        let rc = unsafe { inflatePrime(&mut *self.strm, i32::from(bits), i32::from(value)) };
        (rc == Z_OK)
            .then_some(())
            .ok_or_else(|| io::Error::other(format!("inflatePrime failed ({rc})")))
    }

    fn set_window(&mut self, window: &[u8]) -> io::Result<()> {
        if window.is_empty() {
            return Ok(());
        }
        // SAFETY: an initialised raw stream; `window` is readable for its length (<= 32 KiB).
        let rc =
            unsafe { inflateSetDictionary(&mut *self.strm, window.as_ptr(), window.len() as u32) };
        (rc == Z_OK)
            .then_some(())
            .ok_or_else(|| io::Error::other(format!("inflateSetDictionary failed ({rc})")))
    }

    /// Inflates from `input` into `out` until `out` is full, the input is used up, or a deflate
    /// block ends.
    fn inflate_block(&mut self, input: &[u8], out: &mut [u8]) -> io::Result<Step> {
        let s = &mut *self.strm;
        s.next_in = input.as_ptr();
        s.avail_in = input.len().min(u32::MAX as usize) as u32;
        s.next_out = out.as_mut_ptr();
        s.avail_out = out.len().min(u32::MAX as usize) as u32;
        let (in0, out0) = (s.avail_in, s.avail_out);
        // SAFETY: `next_in`/`avail_in` and `next_out`/`avail_out` describe the live slices
        // `input` and `out`; the stream was initialised by `new`.
        let rc = unsafe { inflate(s, Z_BLOCK) };
        let consumed = (in0 - s.avail_in) as usize;
        let produced = (out0 - s.avail_out) as usize;
        s.next_in = std::ptr::null();
        s.next_out = std::ptr::null_mut();
        match rc {
            Z_OK | Z_BUF_ERROR | Z_STREAM_END => Ok(Step {
                consumed,
                produced,
                block_end: rc != Z_STREAM_END && s.data_type & 128 != 0 && s.data_type & 64 == 0,
                bits: (s.data_type & 7) as u8,
                stream_end: rc == Z_STREAM_END,
            }),
            _ => Err(invalid(format!("corrupt deflate data ({rc})"))),
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, ended once here.
        unsafe { inflateEnd(&mut *self.strm) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::inflate::tests::gz;

    /// Text that compresses into many deflate blocks.
    fn text(n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n);
        let mut x = 12345u64;
        while v.len() < n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let w = ["crawl ", "archive ", "record ", "seek ", "index ", "zran\n"];
            v.extend_from_slice(w[(x >> 60) as usize % w.len()].as_bytes());
            v.extend_from_slice(format!("{} ", x >> 50).as_bytes());
        }
        v.truncate(n);
        v
    }

    #[test]
    fn reads_anywhere_and_builds_checkpoints_on_the_way() {
        let plain = text(3 * SEEK_CHECKPOINT_SPAN as usize + 12345);
        let member = [gz(&plain), b"after".to_vec()].concat();
        let mut seek = GzSeek::new(&member).unwrap();
        let far = plain.len() as u64 - 100;
        let w = seek.read(&member, far, 50).unwrap();
        assert_eq!(w.bytes, &plain[far as usize..far as usize + 50]);
        assert!(seek.checkpoints() >= 2, "{}", seek.checkpoints());
        // Earlier positions resume at checkpoints and read the same bytes.
        for from in [0u64, 1, 70_000, SEEK_CHECKPOINT_SPAN + 3, far + 90] {
            let w = seek.read(&member, from, 4096).unwrap();
            let end = (from as usize + 4096).min(plain.len());
            assert_eq!(w.bytes, &plain[from as usize..end], "from {from}");
            assert_eq!(w.member_end.is_some(), end == plain.len());
        }
        let w = seek.read(&member, 0, usize::MAX).unwrap();
        assert_eq!(w.bytes.len(), plain.len());
        assert_eq!(w.member_end, Some(member.len() as u64 - 5));
        assert!(seek.read(&member, plain.len() as u64 + 1, 1).is_err());
    }

    #[test]
    fn the_checkpoints_stay_within_their_bound() {
        let mut seek = GzSeek::new(&gz(b"x")).unwrap();
        for i in 0..(SEEK_MAX_CHECKPOINTS as u64 * 3) {
            let upos = (i + 1) * seek.span;
            seek.add(Checkpoint {
                upos,
                input: 0,
                bits: 0,
                window: Box::new([]),
            });
        }
        assert!(seek.points.len() <= SEEK_MAX_CHECKPOINTS);
        assert!(seek.span > SEEK_CHECKPOINT_SPAN);
        assert!(seek.points.windows(2).all(|w| w[0].upos < w[1].upos));
    }

    #[test]
    fn saved_checkpoints_read_back_the_same_bytes_and_damaged_ones_are_refused() {
        let plain = text(3 * SEEK_CHECKPOINT_SPAN as usize + 777);
        let member = gz(&plain);
        let mut built = GzSeek::new(&member).unwrap();
        built.complete(&member).unwrap();
        assert!(built.checkpoints() >= 2);
        let saved = built.to_bytes();
        let mut loaded = GzSeek::from_bytes(&saved).unwrap();
        assert_eq!(loaded.to_bytes(), saved);
        assert_eq!(loaded.checkpoints(), built.checkpoints());
        let far = plain.len() as u64 - 300;
        let w = loaded.read(&member, far, 200).unwrap();
        assert_eq!(w.bytes, &plain[far as usize..far as usize + 200]);
        // Every cut and a flipped byte in each field: an error or checkpoints, never a panic.
        for cut in 0..saved.len().min(200) {
            assert!(GzSeek::from_bytes(&saved[..cut]).is_err());
        }
        for at in 0..saved.len().min(120) {
            let mut b = saved.clone();
            b[at] ^= 0xff;
            if let Ok(mut s) = GzSeek::from_bytes(&b) {
                let _ = s.read(&member, far, 10);
            }
        }
        assert!(GzSeek::from_bytes(b"crawlsift gzip seek 1\n").is_err());
    }

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let plain = text(200_000);
        let mut member = gz(&plain);
        let n = member.len();
        let mut seek = GzSeek::new(&member[..n / 2]).unwrap();
        assert!(seek.read(&member[..n / 2], 150_000, 10).is_err());
        for b in &mut member[20..200] {
            *b ^= 0x5a;
        }
        let mut seek = GzSeek::new(&member).unwrap();
        let _ = seek.read(&member, 100_000, 10);
        assert!(GzSeek::new(b"not gzip").is_none());
    }
}
