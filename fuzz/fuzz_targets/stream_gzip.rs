//! The streamed (piped, not mapped) reader of gzip members: arbitrary bytes behind the magic, fed
//! through a reader that hands them out in small irregular pieces (as a pipe does), so the
//! stream input's look-ahead, resync history and member-by-member decoding are exercised. The
//! records must be those a mapped read of the same bytes gives.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod pieces;

fuzz_target!(|data: &[u8]| {
    let ((mapped, _), (streamed, _)) = pieces::both_reads(&[0x1f, 0x8b, 0x08], data);
    assert_eq!(mapped, streamed);
});
