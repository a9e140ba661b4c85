//! The HTML extractor on arbitrary bytes. The first byte picks the method (blocks, plateau,
//! full), the charset mode and the declared content type (HTML, none, or a charset label), so
//! sniffing, charset detection and the feed/text routes run too; the rest is the body. One
//! extractor is used twice on the same body: its reused buffers must not change the answer.
#![no_main]
use crawlsift_extractor::{CharsetMode, ExtractorBuilder, Method};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let method = [Method::Blocks, Method::Plateau, Method::Full][usize::from(sel % 3)];
    let charset = if sel & 4 == 0 {
        CharsetMode::Auto
    } else {
        CharsetMode::Utf8
    };
    let ctype = [
        Some("text/html"),
        None,
        Some("text/html; charset=shift_jis"),
        Some("text/plain"),
    ][usize::from((sel >> 3) % 4)];
    let mut ex = ExtractorBuilder::new()
        .method(method)
        .charset(charset)
        .build()
        .unwrap();
    let first = ex.extract(body, ctype, None);
    let again = ex.extract(body, ctype, None);
    assert_eq!(
        first, again,
        "extractor buffers changed the result ({method:?})"
    );
    if let Ok(doc) = &first {
        assert!(doc.text.len() <= ex.config().max_text_bytes);
    }
});
