//! The TREC splitter (TREC Web `<DOCHDR>` and TREC text) on arbitrary bytes after `<DOC>`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = b"<DOC>\n".to_vec();
    input.extend_from_slice(data);
    let cfg = crawlsift_reader::ReaderConfig { threads: 1, buffer_bytes: 37, ..Default::default() };
    crawlsift_reader::read_bytes(bytes::Bytes::from(input), 0, &cfg, &mut |b| {
        for r in &b {
            let _ = r.http();
        }
        true
    });
});
