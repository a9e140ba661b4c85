//! The gzip member splitter: header parsing, confirmed member starts, and the sequential and
//! parallel member readers on arbitrary bytes behind a gzip magic, and the member-by-member
//! reader of pipes. Sequential and parallel reads must agree.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = crawlsift_reader::gzip::parse_header(data);
    let _ = crawlsift_reader::gzip::find_member_start(data, 0, data.len());
    let mut input = vec![0x1f, 0x8b, 0x08];
    input.extend_from_slice(data);
    let input = bytes::Bytes::from(input);
    let read = |cfg: &crawlsift_reader::ReaderConfig| {
        let mut ids = Vec::new();
        crawlsift_reader::read_bytes(input.clone(), 0, cfg, &mut |b| {
            ids.extend(b.into_iter().map(|r| (r.pos, r.id, r.block)));
            true
        });
        ids
    };
    let seq = read(&crawlsift_reader::ReaderConfig { threads: 1, buffer_bytes: 50, ..Default::default() });
    let par = read(&crawlsift_reader::ReaderConfig {
        threads: 2,
        buffer_bytes: 50,
        parallel_range_bytes: 64,
        parallel_min_file_bytes: 0,
        ..Default::default()
    });
    assert_eq!(seq, par);
    let cfg = crawlsift_reader::ReaderConfig { buffer_bytes: 50, ..Default::default() };
    let _ = crawlsift_reader::read_stream(std::io::Cursor::new(&input[..]), 0, &cfg, &mut |_| true);
});
