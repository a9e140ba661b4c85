//! The streamed (piped, not mapped) reader of zstd frames: arbitrary bytes behind the magic, fed
//! through a reader that hands them out in small irregular pieces (as a pipe does), so the
//! stream input's look-ahead, resync history and member-by-member decoding are exercised. The
//! records must be those a mapped read of the same bytes gives, unless a frame fails to decode:
//! how much of a failing frame zstd's streaming decoder hands out before its error depends on
//! how its input arrives (a known difference, kept since the decoder was written).
#![no_main]
use libfuzzer_sys::fuzz_target;

mod pieces;

fuzz_target!(|data: &[u8]| {
    let ((mapped, mapped_report), (streamed, streamed_report)) = pieces::both_reads(&[0x28, 0xb5, 0x2f, 0xfd], data);
    let failed = |r: &crawlsift_reader::FileReport| {
        r.errors.contains_key(&crawlsift_reader::ErrorKind::BadCompression)
    };
    if !failed(&mapped_report) && !failed(&streamed_report) {
        assert_eq!(mapped, streamed);
    }
});
