//! Gzip members of a memory-mapped file: member-by-member inflation into the
//! caller's batch buffer (one reused inflate state, CRC and size checked, bomb-bounded), resync
//! after a broken member, and [`find_member_start`], which the parallel reader uses to cut a file
//! into ranges that start on real member boundaries.

use std::io;

use bytes::Bytes;
use crawlsift_common::limits::MAX_RECORD_BYTES;
use flate2::{Decompress, FlushDecompress, Status};

use super::decode::{Decode, Mark};
pub use super::detect::GZIP_MAGIC;
use super::gzip_header::{is_bomb, next_header};
pub use super::gzip_header::{parse_header, GzHeader};
use super::inflate::{Inflated, MemberInflater};
use crate::error::ErrorKind;
use crate::report::FileReport;

/// Outcome of the whole-member fast path.
enum Fast {
    /// The member was inflated into the buffer.
    Done,
    /// The member would not fit the buffer's spare capacity.
    DoesNotFit,
    /// Not usable here (end unknown, bomb, corrupt): stream the member instead.
    No,
}

struct Member {
    start: usize,
    out: u64,
    inp: u64,
}

/// Inflates the members of a gzip file one after another into the caller's batch buffer.
pub(crate) struct GzipStream {
    data: Bytes,
    /// Input offset of `data[0]` in the file (ranges of the parallel reader start mid-file).
    base: u64,
    pos: usize,
    member: Option<Member>,
    inflater: Decompress,
    crc: crc32fast::Hasher,
    /// Whole-member decoder for members that fit the batch (see `fast_member`).
    fast: MemberInflater,
    /// Use `fast` when possible (tests switch it off to compare both paths).
    pub(crate) use_fast: bool,
    /// Members inflated (for reports and tests).
    pub members: u64,
}

impl GzipStream {
    pub(crate) fn new(data: Bytes, base: u64) -> Self {
        GzipStream {
            data,
            base,
            pos: 0,
            member: None,
            inflater: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            fast: MemberInflater::new(),
            use_fast: true,
            members: 0,
        }
    }

    /// Inflates the member starting at `self.pos` in one call with libdeflate, which is faster
    /// than streaming zlib-rs on whole members (see the crate's `inflate_compare` example), into
    /// at most `max_out` bytes of `out`'s spare capacity. libdeflate finds the member's end and
    /// checks CRC and size; a member that is corrupt, truncated or a bomb is left to the
    /// streaming path (nothing consumed, `out` unchanged), which counts the error.
    fn fast_member(&mut self, out: &mut Vec<u8>, max_out: usize, marks: &mut Vec<Mark>) -> Fast {
        let p = self.pos;
        let old = out.len();
        let room = max_out.min(MAX_RECORD_BYTES);
        match self.fast.gzip_member(&self.data[p..], out, room) {
            Inflated::Done { consumed, produced } => {
                if is_bomb(produced as u64, consumed as u64) {
                    out.truncate(old);
                    return Fast::No;
                }
                marks.push(Mark {
                    at: old,
                    src: self.base + p as u64,
                    linear: false,
                });
                self.pos = p + consumed;
                self.members += 1;
                Fast::Done
            }
            Inflated::NoRoom if room < MAX_RECORD_BYTES => Fast::DoesNotFit,
            Inflated::NoRoom | Inflated::Bad => Fast::No,
        }
    }

    /// The output size of the member at `self.pos` as its trailer states it, taking the member to
    /// end at the next valid member header (a hint for how much room to make: unchecked).
    fn size_hint(&self) -> Option<usize> {
        let data = &self.data[..];
        let end = next_header(data, self.pos + 18).unwrap_or(data.len());
        let t = data.get(end.checked_sub(4)?..end)?;
        Some(u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize)
    }

    /// Skips to the next valid member header at or after `from` (or to the end).
    fn resync(&mut self, from: usize) {
        self.pos = next_header(&self.data, from).unwrap_or(self.data.len());
    }
}

impl Decode for GzipStream {
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
            if self.member.is_none() {
                // Between members: NUL padding is tolerated silently.
                while self.data.get(self.pos) == Some(&0) {
                    self.pos += 1;
                }
                if self.pos >= self.data.len() {
                    return Ok(true);
                }
                if self.use_fast {
                    // Inflate into spare capacity only (no reallocation of a full batch); a
                    // member that does not fit ends the batch, or gets room if it is the first.
                    let spare = out.capacity() - out.len();
                    match self.fast_member(out, spare, marks) {
                        Fast::Done => continue,
                        Fast::DoesNotFit if out.len() > start_len => return Ok(false),
                        Fast::DoesNotFit => {
                            let room = want
                                .saturating_sub(out.len())
                                .max(1 << 16)
                                .max(self.size_hint().unwrap_or(0).min(MAX_RECORD_BYTES));
                            out.reserve(room);
                            let spare = out.capacity() - out.len();
                            if let Fast::Done = self.fast_member(out, spare, marks) {
                                continue;
                            }
                        }
                        Fast::No => {}
                    }
                }
                match parse_header(&self.data[self.pos..]) {
                    GzHeader::Ok(h) => {
                        self.member = Some(Member {
                            start: self.pos,
                            out: 0,
                            inp: 0,
                        });
                        marks.push(Mark {
                            at: out.len(),
                            src: self.base + self.pos as u64,
                            linear: false,
                        });
                        self.pos += h;
                        self.inflater.reset(false);
                        self.crc = crc32fast::Hasher::new();
                        self.members += 1;
                    }
                    GzHeader::Incomplete => {
                        report.error(
                            ErrorKind::BadGzip,
                            self.base + self.pos as u64,
                            "input ends inside a gzip member header".into(),
                        );
                        self.pos = self.data.len();
                        return Ok(true);
                    }
                    GzHeader::Invalid => {
                        let at = self.pos;
                        self.resync(at + 1);
                        report.error(
                            ErrorKind::Garbage,
                            self.base + at as u64,
                            format!("{} bytes that are not a gzip member", self.pos - at),
                        );
                        continue;
                    }
                }
            }
            // Inflate the current member into the spare capacity of `out`.
            let room = want.saturating_sub(out.len()).clamp(1 << 10, 1 << 20);
            out.reserve(room);
            let before_len = out.len();
            let (in0, out0) = (self.inflater.total_in(), self.inflater.total_out());
            let res =
                self.inflater
                    .decompress_vec(&self.data[self.pos..], out, FlushDecompress::None);
            let consumed = (self.inflater.total_in() - in0) as usize;
            let produced = self.inflater.total_out() - out0;
            self.crc.update(&out[before_len..]);
            self.pos += consumed;
            // `member` is Some here: set above or left from the previous call.
            let Some(m) = self.member.as_mut() else {
                continue;
            };
            m.out += produced;
            m.inp += consumed as u64;
            let mstart = self.base + m.start as u64;
            match res {
                Ok(Status::StreamEnd) => {
                    let crc = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
                    let isize = m.out as u32;
                    self.member = None;
                    match self.data.get(self.pos..self.pos + 8) {
                        Some(t) => {
                            let want_crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                            let want_size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                            if want_crc != crc || want_size != isize {
                                report.error(
                                    ErrorKind::BadGzip,
                                    mstart,
                                    "gzip member fails its CRC/size check".into(),
                                );
                            }
                            self.pos += 8;
                        }
                        None => {
                            report.error(
                                ErrorKind::BadGzip,
                                mstart,
                                "gzip member trailer missing".into(),
                            );
                            self.pos = self.data.len();
                        }
                    }
                }
                Ok(_) if consumed == 0 && produced == 0 => {
                    if self.pos >= self.data.len() {
                        report.error(
                            ErrorKind::BadGzip,
                            mstart,
                            "input ends inside a gzip member".into(),
                        );
                    } else {
                        report.error(
                            ErrorKind::BadGzip,
                            mstart,
                            "gzip member makes no progress".into(),
                        );
                        let p = self.pos;
                        self.resync(p);
                    }
                    self.member = None;
                }
                Ok(_) => {
                    if is_bomb(m.out, m.inp) {
                        report.error(
                            ErrorKind::TooLarge,
                            mstart,
                            format!(
                                "gzip member inflates {} bytes from {}: bomb stopped",
                                m.out, m.inp
                            ),
                        );
                        self.member = None;
                        let p = self.pos;
                        self.resync(p);
                    }
                }
                Err(e) => {
                    report.error(
                        ErrorKind::BadGzip,
                        mstart,
                        format!("corrupt deflate data in gzip member: {e}"),
                    );
                    self.member = None;
                    let p = self.pos.max(m_start_plus_one(mstart, self.base));
                    self.resync(p);
                }
            }
        }
    }
}

fn m_start_plus_one(mstart: u64, base: u64) -> usize {
    usize::try_from(mstart - base + 1).unwrap_or(usize::MAX)
}

/// A confirmed member start found by [`find_member_start`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberStart {
    /// Offset of the member in the data.
    pub start: usize,
    /// Offset just past the member (its trailer).
    pub end: usize,
    /// The first decoded bytes of the member (up to 64), to check a record starts there.
    pub prefix: Vec<u8>,
}

/// Finds the first offset in `from..to` where a gzip member starts: gzip magic, a valid header,
/// and an inflate that ends (CRC and size correct) exactly where another member begins or the data
/// ends. A member larger than `MAX_RECORD_BYTES` decoded is not confirmed.
pub fn find_member_start(data: &[u8], from: usize, to: usize) -> Option<MemberStart> {
    let to = to.min(data.len());
    let mut inflater = Decompress::new(false);
    let mut buf = vec![0u8; 64 << 10];
    let mut i = from;
    while i < to {
        // A candidate must start before `to`; its magic may run past it.
        let p = i + memchr::memmem::find(&data[i..(to + 2).min(data.len())], &GZIP_MAGIC)?;
        i = p + 1;
        let GzHeader::Ok(h) = parse_header(&data[p..]) else {
            continue;
        };
        inflater.reset(false);
        let mut crc = crc32fast::Hasher::new();
        let mut pos = p + h;
        let mut prefix = Vec::new();
        let mut total: u64 = 0;
        let confirmed = loop {
            let (in0, out0) = (inflater.total_in(), inflater.total_out());
            let r = inflater.decompress(&data[pos..], &mut buf, FlushDecompress::None);
            let consumed = (inflater.total_in() - in0) as usize;
            let produced = (inflater.total_out() - out0) as usize;
            pos += consumed;
            crc.update(&buf[..produced]);
            if prefix.len() < 64 {
                let take = (64 - prefix.len()).min(produced);
                prefix.extend_from_slice(&buf[..take]);
            }
            total += produced as u64;
            if total > MAX_RECORD_BYTES as u64 || is_bomb(total, (pos - p) as u64) {
                break None;
            }
            match r {
                Ok(Status::StreamEnd) => break Some(pos),
                Ok(_) if consumed == 0 && produced == 0 => break None,
                Ok(_) => {}
                Err(_) => break None,
            }
        };
        let Some(pos) = confirmed else { continue };
        let Some(t) = data.get(pos..pos + 8) else {
            continue;
        };
        if u32::from_le_bytes([t[0], t[1], t[2], t[3]]) != crc.finalize()
            || u32::from_le_bytes([t[4], t[5], t[6], t[7]]) != total as u32
        {
            continue;
        }
        let end = pos + 8;
        if end == data.len() || data[end..].starts_with(&GZIP_MAGIC) {
            return Some(MemberStart {
                start: p,
                end,
                prefix,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::inflate::tests::gz;

    fn inflate_all(data: Vec<u8>, want: usize) -> (Vec<u8>, Vec<Mark>, FileReport) {
        let mut s = GzipStream::new(Bytes::from(data), 0);
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
    fn finds_confirmed_member_starts_only() {
        let a = gz(b"WARC/1.0 one");
        let b = gz(b"WARC/1.0 two");
        let mut all = a.clone();
        all.extend_from_slice(&b);
        let m = find_member_start(&all, 1, all.len()).unwrap();
        assert_eq!(m.start, a.len());
        assert_eq!(m.end, all.len());
        assert_eq!(m.prefix, b"WARC/1.0 two");
        // A fake magic in the middle of garbage is not confirmed.
        let mut fake = b"xx\x1f\x8b\x08\0\0\0\0\0\0\x03garbage".to_vec();
        fake.extend_from_slice(&b);
        assert_eq!(
            find_member_start(&fake, 0, fake.len()).unwrap().start,
            fake.len() - b.len()
        );
    }
}
