//! One-call inflation of a whole gzip member with libdeflate, written straight into the spare
//! capacity of the caller's buffer. libdeflate's extended entry point reports how many input
//! bytes the member took, so the member's end need not be found beforehand (searching for the
//! next member header and zero-filling the output first cost ~3.5% of a reading run), and the
//! output needs no initialising. The `libdeflater` crate does not expose that entry point, so
//! this module calls `libdeflate-sys` directly; it is the reader's only FFI.
//! [`inflate_single_member`] decodes a whole `Content-Encoding: gzip` body for the HTTP layer;
//! nothing here depends on reports or records.

use std::ptr::NonNull;

use super::gzip_header::{is_bomb, next_header, parse_header, GzHeader};

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_gzip_decompress_ex, libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE as NO_SPACE,
    libdeflate_result_LIBDEFLATE_SUCCESS as SUCCESS,
};

/// What inflating one member gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inflated {
    /// The member took `consumed` input bytes (header to trailer) and its output, `produced`
    /// bytes, was appended to the buffer. CRC and size were checked.
    Done { consumed: usize, produced: usize },
    /// The output would not fit the room given; the buffer is unchanged.
    NoRoom,
    /// Not a whole valid member (corrupt, truncated); the buffer is unchanged.
    Bad,
}

/// A libdeflate decompressor.
pub(crate) struct MemberInflater(NonNull<libdeflate_decompressor>);

// SAFETY: a libdeflate decompressor is plain heap state with no thread affinity; `&mut self`
// on every use means one thread uses it at a time.
unsafe impl Send for MemberInflater {}

impl MemberInflater {
    pub(crate) fn new() -> Self {
        // SAFETY: no preconditions; NULL only when out of memory.
        let raw = unsafe { libdeflate_alloc_decompressor() };
        Self(NonNull::new(raw).expect("libdeflate could not allocate a decompressor"))
    }

    /// Inflates the gzip member at the start of `input` onto the end of `out`, using at most
    /// `room` bytes of `out`'s spare capacity (never reallocating it).
    pub(crate) fn gzip_member(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> Inflated {
        let spare = out.spare_capacity_mut();
        let avail = room.min(spare.len());
        let (mut consumed, mut produced) = (0usize, 0usize);
        // SAFETY: `input` is readable for `input.len()` bytes and `spare` writable for `avail`
        // bytes (at most its length); libdeflate writes no more than `avail` bytes and reports the
        // bytes it read and wrote through the two out-pointers, which live across the call.
        let result = unsafe {
            libdeflate_gzip_decompress_ex(
                self.0.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                spare.as_mut_ptr().cast(),
                avail,
                &mut consumed,
                &mut produced,
            )
        };
        match result {
            SUCCESS if produced <= avail && consumed <= input.len() => {
                // SAFETY: libdeflate initialised the first `produced` (<= `avail`) spare bytes.
                unsafe { out.set_len(out.len() + produced) };
                Inflated::Done { consumed, produced }
            }
            NO_SPACE => Inflated::NoRoom,
            _ => Inflated::Bad,
        }
    }
}

impl Drop for MemberInflater {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor` and freed once, here.
        unsafe { libdeflate_free_decompressor(self.0.as_ptr()) }
    }
}

/// Inflates `data` when it is exactly one gzip member (no other member header after its own
/// header) whose trailer size is at most `limit`, in one call with libdeflate (faster than
/// streaming). `None` when that does not hold or the member is corrupt: the
/// caller then streams the data, which also handles several members and reports errors.
pub(crate) fn inflate_single_member(data: &[u8], limit: usize) -> Option<Vec<u8>> {
    thread_local! {
        static DECOMPRESSOR: std::cell::RefCell<libdeflater::Decompressor> =
            std::cell::RefCell::new(libdeflater::Decompressor::new());
    }
    if data.len() < 18 || !matches!(parse_header(data), GzHeader::Ok(_)) {
        return None;
    }
    if next_header(data, 18).is_some() {
        return None;
    }
    let t = &data[data.len() - 4..];
    let size = u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize;
    if size > limit || is_bomb(size as u64, data.len() as u64) {
        return None;
    }
    let mut out = vec![0u8; size];
    let n = DECOMPRESSOR
        .with(|d| d.borrow_mut().gzip_decompress(data, &mut out))
        .ok()?;
    (n == size).then_some(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// `data` as one gzip member.
    pub(crate) fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn a_member_followed_by_more_input_reports_where_it_ends() {
        let first = gz(b"first member");
        let input = [first.clone(), gz(b"second"), b"trailing".to_vec()].concat();
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(b">");
        let mut inf = MemberInflater::new();
        assert_eq!(
            inf.gzip_member(&input, &mut out, 64),
            Inflated::Done {
                consumed: first.len(),
                produced: 12
            }
        );
        assert_eq!(out, b">first member");
    }

    #[test]
    fn no_room_and_corruption_leave_the_buffer_alone() {
        let member = gz(&[7u8; 1000]);
        let mut inf = MemberInflater::new();
        let mut out = Vec::with_capacity(4096);
        assert_eq!(inf.gzip_member(&member, &mut out, 999), Inflated::NoRoom);
        assert!(out.is_empty());
        let mut bad = member.clone();
        let n = bad.len();
        bad[n - 8] ^= 0xFF; // CRC
        assert_eq!(inf.gzip_member(&bad, &mut out, 4096), Inflated::Bad);
        assert_eq!(
            inf.gzip_member(&member[..n - 3], &mut out, 4096),
            Inflated::Bad
        );
        assert!(out.is_empty());
        assert!(matches!(
            inf.gzip_member(&member, &mut out, 4096),
            Inflated::Done { produced: 1000, .. }
        ));
    }
}
