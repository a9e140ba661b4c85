//! WARC header parser and the WARC splitter on arbitrary bytes (prefixed so most inputs start a
//! record), with a small batch buffer so carry-over paths run too.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = crawlsift_reader::warc::parse_header(data);
    let mut input = b"WARC/1.0\r\n".to_vec();
    input.extend_from_slice(data);
    let cfg = crawlsift_reader::ReaderConfig { threads: 1, buffer_bytes: 61, ..Default::default() };
    crawlsift_reader::read_bytes(bytes::Bytes::from(input), 0, &cfg, &mut |b| {
        for r in &b {
            let _ = r.http();
            let _ = r.payload();
        }
        true
    });
});
