//! The feed parser (RSS, Atom, RDF) on arbitrary text, its date parser, and the extractor's feed
//! route (sniffing and charset decoding of a body declared as a feed).
#![no_main]
use crawlsift_extractor::{feed, ExtractorBuilder};
use libfuzzer_sys::fuzz_target;

/// RFC 3339 as `parse_date` writes it: `YYYY-MM-DDTHH:MM:SS` and an offset.
fn rfc3339_shaped(d: &str) -> bool {
    let b = d.as_bytes();
    b.len() >= 20
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(f) = feed::read(&text) {
        for item in &f.items {
            if let Some(date) = &item.date {
                assert!(rfc3339_shaped(date), "{date:?}");
            }
        }
    }
    if let Some(date) = feed::parse_date(&text) {
        assert!(rfc3339_shaped(&date), "{date:?}");
    }
    let mut ex = ExtractorBuilder::new().build().unwrap();
    let _ = ex.extract(data, Some("application/rss+xml"), None);
    let _ = ex.extract(data, Some("application/atom+xml; charset=utf-16"), None);
});
