//! The decoding layer between raw input bytes and the record splitter: the [`Decode`] trait
//! (append decoded bytes to a batch buffer, noting where each gzip member / stream chunk starts in
//! the input) and the [`Mark`]s that map decoded positions back to input offsets.

use std::io;

use crate::report::FileReport;

/// Where decoded bytes come from in the input file. For a decoded position `p >= at`, the input
/// offset is `src + (p - at)` when `linear` (uncompressed input), else `src` (the start of the
/// gzip member or compressed stream holding it), and then `usrc + (p - at)` is the position in
/// that member's (or frame's) decoded bytes: what [`Record::uoffset`](crate::Record::uoffset)
/// carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    pub at: usize,
    pub src: u64,
    pub linear: bool,
    /// Decoded bytes of the member or frame `src` before `at` (0 where a member starts, and for
    /// linear marks).
    pub usrc: u64,
}

/// Position of decoded position `pos` in the decoded bytes of the member or frame holding it
/// (0 for uncompressed input).
pub(crate) fn uoffset_of(marks: &[Mark], pos: usize) -> u64 {
    let i = marks.partition_point(|m| m.at <= pos);
    match i.checked_sub(1).and_then(|j| marks.get(j)) {
        Some(m) if !m.linear => m.usrc + (pos - m.at) as u64,
        _ => 0,
    }
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
        let (src, usrc) = if m.linear {
            (m.src + (consumed - m.at) as u64, 0)
        } else {
            (m.src, m.usrc + (consumed - m.at) as u64)
        };
        out.push(Mark {
            at: 0,
            src,
            linear: m.linear,
            usrc,
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

    /// Gives up on the member or frame being decoded (its next `skipped` decoded bytes held no
    /// record, see `MAX_SKIP_DECODED_BYTES`): counts it as `too_large` in `report` and resyncs
    /// at the next member or frame. Returns `false` when there is nothing to give up (not
    /// inside a member or frame, or uncompressed input, where passing over bytes costs no
    /// decoding).
    fn abandon(&mut self, _skipped: u64, _report: &mut FileReport) -> io::Result<bool> {
        Ok(false)
    }

    /// How far into the input file decoding has read (the offset of the next unread byte), where
    /// the decoder knows it: what progress shows for a file compressed whole, whose records all
    /// carry the offset of the one member or frame. `None` leaves the records' offsets to tell.
    fn position(&self) -> Option<u64> {
        None
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
                usrc: 0,
            },
            Mark {
                at: 50,
                src: 300,
                linear: true,
                usrc: 0,
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
                linear: true,
                usrc: 0,
            }]
        );
        let r = rebase(&marks, 20);
        assert_eq!(
            r[0],
            Mark {
                at: 0,
                src: 100,
                linear: false,
                usrc: 20,
            }
        );
        assert_eq!(r[1].at, 30);
        assert_eq!(uoffset_of(&marks, 10), 10);
        assert_eq!(uoffset_of(&r, 5), 25);
        assert_eq!(uoffset_of(&marks, 60), 0);
    }
}
