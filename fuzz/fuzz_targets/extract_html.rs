//! The HTML extractor on arbitrary bytes: every [`Method`], declared as HTML and undeclared (so
//! sniffing, charset detection and the feed/text routes run too). One extractor per method is
//! used twice on the same input: its reused buffers must not change the answer.
#![no_main]
use crawlsift_extractor::{CharsetMode, ExtractorBuilder, Method};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for method in [Method::Blocks, Method::Plateau, Method::Full] {
        let mut ex = ExtractorBuilder::new().method(method).build().unwrap();
        let first = ex.extract(data, Some("text/html"), None);
        let again = ex.extract(data, Some("text/html"), None);
        assert_eq!(first, again, "extractor buffers changed the result ({method:?})");
        if let Ok(doc) = &first {
            assert!(doc.text.len() <= ex.config().max_text_bytes);
        }
        let _ = ex.extract(data, None, Some("windows-1252"));
    }
    let mut utf8 = ExtractorBuilder::new().charset(CharsetMode::Utf8).build().unwrap();
    let _ = utf8.extract(data, Some("text/html; charset=shift_jis"), None);
});
