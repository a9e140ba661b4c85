//! The HTTP response parser and body decoder (chunked, gzip, deflate, br) on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = crawlsift_reader::http::parse_response(&bytes::Bytes::copy_from_slice(data));
    let mut m = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip, br\r\n\r\n".to_vec();
    m.extend_from_slice(data);
    let _ = crawlsift_reader::http::parse_response(&bytes::Bytes::from(m));
    let split = data.len() / 2;
    let _ = crawlsift_reader::http::parse_split(&data[..split], &bytes::Bytes::copy_from_slice(&data[split..]));
});
