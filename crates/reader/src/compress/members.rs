//! The one member loop: gzip members, LZ4 frames and zstd frames, one after another, from a
//! memory-mapped file ([`MapInput`]) or a stream ([`StreamInput`](super::stream::StreamInput)).
//! Both paths run this code, so they treat the bytes between members the same way: NUL padding
//! is skipped silently; any other bytes that start no member are counted once as `garbage` and
//! skipped to the next member start (for gzip, the next magic with a valid header); a gzip magic
//! or header cut by the end of the input is `bad_gzip`. Every member start is marked, so records
//! carry the offset of the member holding them whichever way the file was read.
//!
//! What differs is only what an input can do: a mapped input offers all its remaining bytes,
//! which lets a gzip member be inflated in one libdeflate call. A member or frame that fails to
//! decode is resynced on from just past its start (the next member may start inside what the
//! broken one consumed); a stream keeps the current member's bytes for that, up to
//! `STREAM_RESYNC_BYTES`, and resyncs from where decoding failed past that.
//!
//! Decompression bombs: output goes into the caller's bounded batch buffer, so memory never
//! follows what a member expands to; the record splitter discards what it passes over, and
//! gives a member or frame up ([`Decode::abandon`]) once it has passed over
//! `MAX_SKIP_DECODED_BYTES` of it without a record, which bounds the work. A member's trailer
//! size is believed (room made for a one-call inflate) only within the inflate-ratio bound.

use std::io;

use bytes::Bytes;
use crawlsift_common::limits::{MAX_RECORD_BYTES, MAX_ZSTD_DICTIONARY_BYTES};
use flate2::{Decompress, FlushDecompress, Status};

use super::decode::{Decode, Mark};
use super::detect::{
    is_zstd_skippable, Compression, LZ4_MAGIC, ZSTD_DICTIONARY_FRAME_MAGIC, ZSTD_MAGIC,
};
use super::frames::Frame;
use super::gzip_header::{is_bomb, next_header, GzHeader};
use super::inflate::{Inflated, MemberInflater};
use super::input::{Input, MapInput};
use crate::error::ErrorKind;
use crate::report::FileReport;

/// The gzip member being inflated by streaming (see [`Members::fill`]).
struct GzMember {
    /// File offset of the member.
    start: u64,
    /// Bytes produced and consumed so far (for the bomb bound).
    out: u64,
    inp: u64,
}

/// Where a [`Members`] loop is.
enum State<I: Input> {
    /// Before a member (or the end of the input).
    Between(I),
    /// Inside a gzip member, inflated by streaming.
    Gzip(I, GzMember),
    /// Inside an LZ4 or zstd frame that starts at `start`; the decoder holds the input.
    Frame { frame: Frame<I>, start: u64 },
    /// Finished, or a stream that cannot go on.
    Done,
}

/// Outcome of the whole-member fast path.
enum Fast {
    /// The member was inflated into the buffer.
    Done,
    /// The member would not fit the buffer's spare capacity.
    DoesNotFit,
    /// Not usable here (stream input, end unknown, bomb, corrupt): stream the member instead.
    No,
}

/// Decodes the members (gzip) or frames (LZ4, zstd) of one input into the caller's batch buffer,
/// marking where each starts in the file. See the module documentation.
pub(crate) struct Members<I: Input> {
    kind: Compression,
    state: State<I>,
    /// The streaming inflate state, reused for every gzip member.
    inflater: Decompress,
    crc: crc32fast::Hasher,
    /// Whole-member decoder for gzip members of mapped input that fit the batch.
    fast: MemberInflater,
    /// The zstd dictionary of a `.warc.zst` file (its first, skippable frame), which its frames
    /// are decoded with.
    zstd_dictionary: Option<std::sync::Arc<Vec<u8>>>,
}

/// The zstd dictionary a `.warc.zst` file starts with (IIPC's WARC zstd proposal: a skippable
/// frame of magic 0x184D2A5D holding the dictionary, itself zstd-compressed or not), or `None`
/// when the file does not start with one; an error for a dictionary frame that is cut short,
/// over [`MAX_ZSTD_DICTIONARY_BYTES`], or does not decompress. Returns the dictionary and the
/// frame's length.
pub(crate) fn zstd_dictionary(start: &[u8]) -> Option<io::Result<(Vec<u8>, usize)>> {
    if !start.starts_with(&ZSTD_DICTIONARY_FRAME_MAGIC) {
        return None;
    }
    let bad = |why: String| Some(Err(io::Error::new(io::ErrorKind::InvalidData, why)));
    let Some(size) = start.get(4..8) else {
        return bad("the input ends inside the dictionary frame's header".into());
    };
    let size = u32::from_le_bytes(size.try_into().expect("four bytes")) as usize;
    if size > MAX_ZSTD_DICTIONARY_BYTES {
        return bad(format!(
            "a zstd dictionary frame of {size} bytes (more than {MAX_ZSTD_DICTIONARY_BYTES})"
        ));
    }
    let Some(payload) = start.get(8..8 + size) else {
        return bad("the input ends inside the zstd dictionary frame".into());
    };
    if !payload.starts_with(&ZSTD_MAGIC) {
        return Some(Ok((payload.to_vec(), 8 + size)));
    }
    match zstd::bulk::decompress(payload, MAX_ZSTD_DICTIONARY_BYTES) {
        Ok(dict) => Some(Ok((dict, 8 + size))),
        Err(e) => bad(format!(
            "the compressed zstd dictionary does not decode: {e}"
        )),
    }
}

impl Members<MapInput> {
    /// The members of `data`, which starts at file offset `base`.
    pub(crate) fn mapped(data: Bytes, base: u64, kind: Compression) -> Self {
        Members::new(MapInput::new(data, base), kind)
    }
}

impl<I: Input> Members<I> {
    /// A loop over the `kind` (gzip, LZ4 or zstd) members of `input`.
    pub(crate) fn new(input: I, kind: Compression) -> Self {
        Members {
            kind,
            state: State::Between(input),
            inflater: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            fast: MemberInflater::new(),
            zstd_dictionary: None,
        }
    }

    /// Decodes zstd frames with `dict` (the dictionary of a `.warc.zst` file read at an offset,
    /// past the frame that holds it).
    pub(crate) fn with_zstd_dictionary(mut self, dict: Vec<u8>) -> Self {
        self.zstd_dictionary = Some(std::sync::Arc::new(dict));
        self
    }

    /// The bytes every LZ4 / zstd frame starts with.
    fn frame_magic(&self) -> &'static [u8] {
        if self.kind == Compression::Lz4 {
            &LZ4_MAGIC
        } else {
            &ZSTD_MAGIC
        }
    }

    /// A zstd skippable frame at the input's position (`at`): the dictionary frame is read and
    /// kept for the frames after it (the first one only: a file has one dictionary), any other
    /// skippable frame is passed over. A frame cut short or a dictionary that cannot be used is
    /// counted and the input goes on after what could be read.
    fn skippable(
        &mut self,
        mut input: I,
        at: u64,
        report: &mut FileReport,
    ) -> io::Result<State<I>> {
        let head = input.peek(8)?;
        if head.len() < 8 {
            let n = head.len();
            input.consume(n);
            report.error(
                ErrorKind::Truncated,
                at,
                "input ends inside a zstd skippable frame header".into(),
            );
            return Ok(State::Done);
        }
        let dictionary = head.starts_with(&ZSTD_DICTIONARY_FRAME_MAGIC);
        let size = u32::from_le_bytes(head[4..8].try_into().expect("four bytes")) as usize;
        if dictionary && self.zstd_dictionary.is_none() && size <= MAX_ZSTD_DICTIONARY_BYTES {
            let mut frame = Vec::with_capacity(8 + size);
            while frame.len() < 8 + size {
                let buf = input.peek(8 + size - frame.len())?;
                if buf.is_empty() {
                    break;
                }
                let k = buf.len().min(8 + size - frame.len());
                frame.extend_from_slice(&buf[..k]);
                input.consume(k);
            }
            match zstd_dictionary(&frame) {
                Some(Ok((dict, _))) => self.zstd_dictionary = Some(std::sync::Arc::new(dict)),
                Some(Err(e)) => report.error(ErrorKind::BadCompression, at, e.to_string()),
                None => unreachable!("the frame starts with the dictionary magic"),
            }
            return Ok(State::Between(input));
        }
        if dictionary {
            report.error(
                ErrorKind::BadCompression,
                at,
                format!(
                    "a zstd dictionary frame of {size} bytes passed over (a second one, or over \
                     {MAX_ZSTD_DICTIONARY_BYTES} bytes)"
                ),
            );
        }
        let mut left = 8 + size;
        while left > 0 {
            let buf = input.peek(left.min(1 << 16))?;
            if buf.is_empty() {
                report.error(
                    ErrorKind::Truncated,
                    at,
                    "input ends inside a zstd skippable frame".into(),
                );
                return Ok(State::Done);
            }
            let k = buf.len().min(left);
            input.consume(k);
            left -= k;
        }
        Ok(State::Between(input))
    }

    /// Inflates the gzip member at the input's position in one call with libdeflate, which is
    /// faster than streaming zlib-rs on whole members (see the crate's `inflate_compare`
    /// example), into at most `max_out` bytes of `out`'s spare capacity. libdeflate finds the
    /// member's end and checks CRC and size; a member that is corrupt, truncated or a bomb is
    /// left to the streaming path (nothing consumed, `out` unchanged), which counts the error.
    fn fast_member(
        &mut self,
        input: &mut I,
        out: &mut Vec<u8>,
        max_out: usize,
        marks: &mut Vec<Mark>,
    ) -> Fast {
        let Some(rest) = input.rest() else {
            return Fast::No;
        };
        let old = out.len();
        let room = max_out.min(MAX_RECORD_BYTES);
        match self.fast.gzip_member(rest, out, room) {
            Inflated::Done { consumed, produced } => {
                if is_bomb(produced as u64, consumed as u64) {
                    out.truncate(old);
                    return Fast::No;
                }
                marks.push(Mark {
                    at: old,
                    src: input.offset(),
                    linear: false,
                    usrc: 0,
                });
                input.consume(consumed);
                Fast::Done
            }
            Inflated::NoRoom if room < MAX_RECORD_BYTES => Fast::DoesNotFit,
            Inflated::NoRoom | Inflated::Bad => Fast::No,
        }
    }

    /// Between members: skips padding and garbage, or starts the next member. Returns the next
    /// state, or `Err(state)` when the batch should end here (`Ok(false)` from `fill`).
    fn between(
        &mut self,
        mut input: I,
        out: &mut Vec<u8>,
        want: usize,
        start_len: usize,
        marks: &mut Vec<Mark>,
        report: &mut FileReport,
    ) -> io::Result<Result<State<I>, State<I>>> {
        // NUL padding between members is tolerated silently.
        loop {
            let buf = input.peek(1)?;
            let zeros = buf.iter().take_while(|&&b| b == 0).count();
            if zeros == 0 {
                break;
            }
            input.consume(zeros);
        }
        if input.peek(1)?.is_empty() {
            return Ok(Ok(State::Done));
        }
        let at = input.offset();
        if self.kind == Compression::Zstd && is_zstd_skippable(input.peek(4)?) {
            return self.skippable(input, at, report).map(Ok);
        }
        if self.kind != Compression::Gzip {
            let magic = self.frame_magic();
            if !input.peek(magic.len())?.starts_with(magic) {
                input.consume(1);
                let skipped = 1 + input.skip_to(magic)?;
                report.error(
                    ErrorKind::Garbage,
                    at,
                    format!(
                        "{skipped} bytes that are not a {} frame",
                        self.kind.as_str()
                    ),
                );
                return Ok(Ok(State::Between(input)));
            }
            input.mark();
            let dict = self.zstd_dictionary.as_deref().map(|d| &d[..]);
            return Ok(Ok(match Frame::open(self.kind, input, dict) {
                Ok(frame) => {
                    marks.push(Mark {
                        at: out.len(),
                        src: at,
                        linear: false,
                        usrc: 0,
                    });
                    State::Frame { frame, start: at }
                }
                Err(e) => {
                    report.error(
                        ErrorKind::BadCompression,
                        at,
                        format!("{}: {e}", self.kind.as_str()),
                    );
                    State::Done
                }
            }));
        }
        // Inflate into spare capacity only (no reallocation of a full batch); a member that does
        // not fit ends the batch, or gets room if it is the first.
        let spare = out.capacity() - out.len();
        match self.fast_member(&mut input, out, spare, marks) {
            Fast::Done => return Ok(Ok(State::Between(input))),
            Fast::DoesNotFit if out.len() > start_len => return Ok(Err(State::Between(input))),
            // A trailer claiming more than the inflate-ratio bound allows is a bomb or a lie:
            // stream it (into bounded buffers) rather than make room for it.
            Fast::DoesNotFit if !hint_is_plausible(&input) => {}
            Fast::DoesNotFit => {
                let room = want
                    .saturating_sub(out.len())
                    .max(1 << 16)
                    .max(size_hint(&input).unwrap_or(0).min(MAX_RECORD_BYTES));
                out.reserve(room);
                let spare = out.capacity() - out.len();
                if let Fast::Done = self.fast_member(&mut input, out, spare, marks) {
                    return Ok(Ok(State::Between(input)));
                }
            }
            Fast::No => {}
        }
        Ok(Ok(match input.gzip_header()? {
            GzHeader::Ok(h) => {
                input.mark();
                marks.push(Mark {
                    at: out.len(),
                    src: at,
                    linear: false,
                    usrc: 0,
                });
                input.consume(h);
                self.inflater.reset(false);
                self.crc = crc32fast::Hasher::new();
                let m = GzMember {
                    start: at,
                    out: 0,
                    inp: 0,
                };
                State::Gzip(input, m)
            }
            GzHeader::Incomplete => {
                report.error(
                    ErrorKind::BadGzip,
                    at,
                    "input ends inside a gzip member header".into(),
                );
                State::Done
            }
            GzHeader::Invalid => {
                input.consume(1);
                let skipped = 1 + input.skip_to_gzip_header()?;
                report.error(
                    ErrorKind::Garbage,
                    at,
                    format!("{skipped} bytes that are not a gzip member"),
                );
                State::Between(input)
            }
        }))
    }

    /// Inflates some of the current gzip member into the spare capacity of `out`.
    fn inflate(
        &mut self,
        mut input: I,
        mut m: GzMember,
        out: &mut Vec<u8>,
        want: usize,
        report: &mut FileReport,
    ) -> io::Result<State<I>> {
        let room = want.saturating_sub(out.len()).clamp(1 << 10, 1 << 20);
        out.reserve(room);
        let before_len = out.len();
        let (in0, out0) = (self.inflater.total_in(), self.inflater.total_out());
        let res = self
            .inflater
            .decompress_vec(input.peek(1)?, out, FlushDecompress::None);
        let consumed = (self.inflater.total_in() - in0) as usize;
        let produced = self.inflater.total_out() - out0;
        self.crc.update(&out[before_len..]);
        input.consume(consumed);
        m.out += produced;
        m.inp += consumed as u64;
        let mstart = m.start;
        Ok(match res {
            Ok(Status::StreamEnd) => {
                let crc = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
                let t = input.peek(8)?;
                if t.len() >= 8 {
                    let want_crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                    let want_size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                    if want_crc != crc || want_size != m.out as u32 {
                        report.error(
                            ErrorKind::BadGzip,
                            mstart,
                            "gzip member fails its CRC/size check".into(),
                        );
                    }
                    input.consume(8);
                    State::Between(input)
                } else {
                    report.error(
                        ErrorKind::BadGzip,
                        mstart,
                        "gzip member trailer missing".into(),
                    );
                    State::Done
                }
            }
            Ok(_) if consumed == 0 && produced == 0 => {
                if input.peek(1)?.is_empty() {
                    report.error(
                        ErrorKind::BadGzip,
                        mstart,
                        "input ends inside a gzip member".into(),
                    );
                    // A cut member may have run on into whole members after it.
                    resync_gzip(&mut input, mstart)?;
                } else {
                    report.error(
                        ErrorKind::BadGzip,
                        mstart,
                        "gzip member makes no progress".into(),
                    );
                    resync_gzip(&mut input, mstart)?;
                }
                State::Between(input)
            }
            Ok(_) => State::Gzip(input, m),
            Err(e) => {
                report.error(
                    ErrorKind::BadGzip,
                    mstart,
                    format!("corrupt deflate data in gzip member: {e}"),
                );
                resync_gzip(&mut input, mstart)?;
                State::Between(input)
            }
        })
    }

    /// Decodes some of the current LZ4 / zstd frame into `out`.
    fn frame(
        &mut self,
        mut frame: Frame<I>,
        start: u64,
        out: &mut Vec<u8>,
        want: usize,
        report: &mut FileReport,
    ) -> State<I> {
        let mut tmp = [0u8; 64 << 10];
        let room = want.saturating_sub(out.len()).clamp(1, tmp.len());
        match frame.read(&mut tmp[..room]) {
            Ok(0) => {
                let mut input = frame.into_inner();
                // A decoder that ends without reading a byte would be opened again at the same
                // place forever: go on just past it (the byte then counts as garbage).
                if input.offset() <= start && !just_past(&mut input, start) {
                    report.error(
                        ErrorKind::BadCompression,
                        start,
                        format!("{} frame ends before it starts", self.kind.as_str()),
                    );
                    return State::Done;
                }
                State::Between(input)
            }
            Ok(n) => {
                out.extend_from_slice(&tmp[..n]);
                State::Frame { frame, start }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => State::Frame { frame, start },
            Err(e) => {
                report.error(
                    ErrorKind::BadCompression,
                    start,
                    format!("{} frame fails to decode: {e}", self.kind.as_str()),
                );
                // The decoder may have read past the next frame's start: resync on the next
                // magic after this one's (a stream keeps the frame's bytes for that, up to a
                // bound).
                let mut input = frame.into_inner();
                if !just_past(&mut input, start) {
                    return State::Done;
                }
                let magic = self.frame_magic();
                match input.skip_to(magic) {
                    Ok(_) => State::Between(input),
                    Err(_) => State::Done,
                }
            }
        }
    }
}

/// Moves the input to just past `start`, the start of a member or frame it is at or after:
/// back, or one byte on when nothing of it was consumed. `false` when a stream no longer holds
/// that position.
fn just_past<I: Input>(input: &mut I, start: u64) -> bool {
    if input.offset() > start {
        input.seek_back(start + 1)
    } else {
        input.consume(1);
        input.offset() == start + 1
    }
}

/// Resyncs after the gzip member that started at `start` failed: at the next valid member header
/// after its first byte (the next member may start inside what the broken one consumed), or,
/// when the input cannot go back that far, after where decoding stopped.
fn resync_gzip<I: Input>(input: &mut I, start: u64) -> io::Result<()> {
    if input.offset() > start + 1 {
        just_past(input, start);
    }
    input.skip_to_gzip_header()?;
    Ok(())
}

/// Whether the size the gzip member at the input's position states in its trailer (see
/// [`size_hint`]) is within the inflate-ratio bound of the member's compressed length.
fn hint_is_plausible<I: Input>(input: &I) -> bool {
    let Some(data) = input.rest() else {
        return false;
    };
    let end = next_header(data, 18).unwrap_or(data.len());
    size_hint(input).is_some_and(|n| n <= MAX_RECORD_BYTES && !is_bomb(n as u64, end as u64))
}

/// The output size of the gzip member at the input's position as its trailer states it, taking
/// the member to end at the next valid member header (a hint for how much room to make:
/// unchecked).
fn size_hint<I: Input>(input: &I) -> Option<usize> {
    let data = input.rest()?;
    let end = next_header(data, 18).unwrap_or(data.len());
    let t = data.get(end.checked_sub(4)?..end)?;
    Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize)
}

impl<I: Input> Decode for Members<I> {
    fn position(&self) -> Option<u64> {
        match &self.state {
            State::Between(input) | State::Gzip(input, _) => Some(input.offset()),
            State::Frame { frame, .. } => Some(frame.input().offset()),
            State::Done => None,
        }
    }

    fn fill(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
        marks: &mut Vec<Mark>,
        report: &mut FileReport,
    ) -> io::Result<bool> {
        let start_len = out.len();
        loop {
            if out.len() >= want && out.len() > start_len {
                return Ok(false);
            }
            self.state = match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(true),
                State::Between(input) => {
                    match self.between(input, out, want, start_len, marks, report)? {
                        Ok(next) => next,
                        Err(stay) => {
                            self.state = stay;
                            return Ok(false);
                        }
                    }
                }
                State::Gzip(input, m) => self.inflate(input, m, out, want, report)?,
                State::Frame { frame, start } => self.frame(frame, start, out, want, report),
            };
        }
    }

    fn abandon(&mut self, skipped: u64, report: &mut FileReport) -> io::Result<bool> {
        let (mut input, start) = match std::mem::replace(&mut self.state, State::Done) {
            State::Gzip(input, m) => (input, m.start),
            State::Frame { frame, start } => (frame.into_inner(), start),
            other => {
                self.state = other;
                return Ok(false);
            }
        };
        let at = input.offset();
        // Resync from where decoding stopped: the abandoned member decoded fine this far, so
        // no member starts inside what it consumed.
        let lost = if self.kind == Compression::Gzip {
            input.skip_to_gzip_header()?
        } else {
            input.skip_to(self.frame_magic())?
        };
        report.error(
            ErrorKind::TooLarge,
            start,
            format!(
                "{} {} decoded {skipped} bytes holding no record (more than \
                 MAX_SKIP_DECODED_BYTES): given up at input byte {at}, the rest of it \
                 ({lost} compressed bytes) skipped",
                self.kind.as_str(),
                if self.kind == Compression::Gzip {
                    "member"
                } else {
                    "frame"
                },
            ),
        );
        self.state = State::Between(input);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::inflate::tests::gz;
    use crate::compress::stream::StreamInput;

    /// Decodes `data` with the member loop, asking for `want` more bytes at a time, mapped and
    /// streamed; both must give the same bytes, marks and errors.
    fn inflate_all(data: Vec<u8>, want: usize) -> (Vec<u8>, Vec<Mark>, FileReport) {
        let mapped = run(
            &mut Members::mapped(Bytes::from(data.clone()), 0, Compression::Gzip),
            want,
        );
        let streamed = run(
            &mut Members::new(StreamInput::new(&data[..]), Compression::Gzip),
            want,
        );
        assert_eq!(mapped.0, streamed.0);
        assert_eq!(mapped.1, streamed.1);
        assert_eq!(mapped.2.error_examples, streamed.2.error_examples);
        mapped
    }

    fn run(s: &mut dyn Decode, want: usize) -> (Vec<u8>, Vec<Mark>, FileReport) {
        let mut out = Vec::new();
        let mut marks = Vec::new();
        let mut rep = FileReport::default();
        let mut guard = 0;
        loop {
            let w = out.len() + want;
            if s.fill(&mut out, w, &mut marks, &mut rep).unwrap() {
                break;
            }
            guard += 1;
            assert!(guard < 1_000_000);
        }
        (out, marks, rep)
    }

    #[test]
    fn members_with_tiny_buffers_and_marks() {
        let a = gz(b"first member");
        let b = gz(b"");
        let c = gz(b"third");
        let mut all = a.clone();
        all.extend_from_slice(&b);
        all.extend_from_slice(&c);
        for want in [1, 3, 1000] {
            let (out, marks, rep) = inflate_all(all.clone(), want);
            assert_eq!(out, b"first memberthird");
            assert_eq!(rep.error_count(), 0);
            let srcs: Vec<u64> = marks.iter().map(|m| m.src).collect();
            assert_eq!(srcs, vec![0, a.len() as u64, (a.len() + b.len()) as u64]);
        }
    }

    #[test]
    fn truncated_and_garbage_are_counted_and_data_kept() {
        let a = gz(b"complete");
        let big: Vec<u8> = (0..20000u32).flat_map(|i| i.to_le_bytes()).collect();
        let b = gz(&big);
        let mut all = a.clone();
        all.extend_from_slice(b"garbage!");
        all.extend_from_slice(&b[..b.len() / 2]);
        let (out, _, rep) = inflate_all(all, 4096);
        assert!(out.starts_with(b"complete"));
        assert!(out.len() > 8);
        assert_eq!(rep.errors.get(&ErrorKind::Garbage), Some(&1));
        assert_eq!(rep.errors.get(&ErrorKind::BadGzip), Some(&1));
    }

    #[test]
    fn a_broken_member_is_resynced_on_from_its_start_on_both_paths() {
        // The cut member's deflate data runs on into the next member, so decoding fails past
        // that member's start: it is found again from just after the broken member's start.
        let big: Vec<u8> = (0..40000u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
        let b = gz(&big);
        let all = [gz(b"first"), b[..b.len() / 2].to_vec(), gz(b"last")].concat();
        for want in [7, 4096, 1 << 20] {
            let (out, _, rep) = inflate_all(all.clone(), want);
            assert!(out.starts_with(b"first"));
            assert!(out.ends_with(b"last"), "want {want}");
            assert_eq!(rep.errors.get(&ErrorKind::BadGzip), Some(&1));
        }
        // A broken LZ4 frame on a stream as well.
        let frame = |data: &[u8]| {
            let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
            std::io::Write::write_all(&mut lz, data).unwrap();
            lz.finish().unwrap()
        };
        let broken = frame(&big);
        let data = [
            frame(b"one"),
            broken[..broken.len() / 2].to_vec(),
            frame(b"two"),
        ]
        .concat();
        let mapped = run(
            &mut Members::mapped(Bytes::from(data.clone()), 0, Compression::Lz4),
            4096,
        );
        let streamed = run(
            &mut Members::new(StreamInput::new(&data[..]), Compression::Lz4),
            4096,
        );
        assert!(mapped.0.ends_with(b"two"));
        assert_eq!(mapped.0, streamed.0);
        assert_eq!(mapped.2.error_examples, streamed.2.error_examples);
        // A zstd frame whose header is bad fails before its decoder consumed anything.
        let z = |d: &[u8]| zstd::encode_all(d, 1).unwrap();
        let data = [z(b"one"), ZSTD_MAGIC.to_vec(), vec![0xff; 12], z(b"two")].concat();
        let mapped = run(
            &mut Members::mapped(Bytes::from(data.clone()), 0, Compression::Zstd),
            4096,
        );
        let streamed = run(
            &mut Members::new(StreamInput::new(&data[..]), Compression::Zstd),
            4096,
        );
        assert_eq!(mapped.0, b"onetwo");
        assert_eq!(mapped.0, streamed.0);
        assert_eq!(mapped.2.error_examples, streamed.2.error_examples);
    }

    #[test]
    fn stray_bytes_between_frames_are_garbage_on_both_paths() {
        let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
        std::io::Write::write_all(&mut lz, b"one frame").unwrap();
        let lz = lz.finish().unwrap();
        let data = [lz.clone(), vec![0, 0], b"junk".to_vec(), lz].concat();
        let mapped = run(
            &mut Members::mapped(Bytes::from(data.clone()), 0, Compression::Lz4),
            7,
        );
        let streamed = run(
            &mut Members::new(StreamInput::new(&data[..]), Compression::Lz4),
            7,
        );
        assert_eq!(mapped.0, b"one frameone frame");
        assert_eq!((&mapped.0, &mapped.1), (&streamed.0, &streamed.1));
        assert_eq!(mapped.2.error_examples, streamed.2.error_examples);
        assert_eq!(mapped.2.errors.get(&ErrorKind::Garbage), Some(&1));
    }
}
