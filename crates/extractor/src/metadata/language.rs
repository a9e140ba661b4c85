//! The language of a main text: `whatlang` when it is sure, else the page's `lang` attribute;
//! written as ISO 639-1 where the language has such a code.

/// The main text's language: `whatlang` when it is sure, else the page's `lang` attribute.
pub fn language(text: &str, lang_attr: &str) -> String {
    let sample = text
        .get(..text.len().min(LANGUAGE_SAMPLE_BYTES))
        .unwrap_or_else(|| {
            let mut cut = LANGUAGE_SAMPLE_BYTES.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            &text[..cut]
        });
    if let Some(info) = whatlang::detect(sample) {
        if info.is_reliable() {
            let code = info.lang().code();
            return iso639_1(code).unwrap_or(code).to_string();
        }
    }
    let attr = lang_attr
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if attr.len() == 2 && attr.bytes().all(|b| b.is_ascii_lowercase()) {
        attr
    } else {
        String::new()
    }
}

/// Bytes of the main text the language detector reads.
const LANGUAGE_SAMPLE_BYTES: usize = 4096;

/// ISO 639-1 of the ISO 639-3 codes `whatlang` gives, where there is one.
fn iso639_1(code: &str) -> Option<&'static str> {
    const TABLE: &[(&str, &str)] = &[
        ("afr", "af"),
        ("aka", "ak"),
        ("amh", "am"),
        ("ara", "ar"),
        ("aze", "az"),
        ("bel", "be"),
        ("ben", "bn"),
        ("bul", "bg"),
        ("cat", "ca"),
        ("ces", "cs"),
        ("cmn", "zh"),
        ("dan", "da"),
        ("deu", "de"),
        ("ell", "el"),
        ("eng", "en"),
        ("epo", "eo"),
        ("est", "et"),
        ("fin", "fi"),
        ("fra", "fr"),
        ("guj", "gu"),
        ("heb", "he"),
        ("hin", "hi"),
        ("hrv", "hr"),
        ("hun", "hu"),
        ("hye", "hy"),
        ("ind", "id"),
        ("ita", "it"),
        ("jav", "jv"),
        ("jpn", "ja"),
        ("kan", "kn"),
        ("kat", "ka"),
        ("khm", "km"),
        ("kor", "ko"),
        ("lat", "la"),
        ("lav", "lv"),
        ("lit", "lt"),
        ("mal", "ml"),
        ("mar", "mr"),
        ("mkd", "mk"),
        ("mya", "my"),
        ("nep", "ne"),
        ("nld", "nl"),
        ("nob", "nb"),
        ("ori", "or"),
        ("pan", "pa"),
        ("pes", "fa"),
        ("pol", "pl"),
        ("por", "pt"),
        ("ron", "ro"),
        ("rus", "ru"),
        ("sin", "si"),
        ("slk", "sk"),
        ("slv", "sl"),
        ("sna", "sn"),
        ("spa", "es"),
        ("srp", "sr"),
        ("swe", "sv"),
        ("tam", "ta"),
        ("tel", "te"),
        ("tgl", "tl"),
        ("tha", "th"),
        ("tuk", "tk"),
        ("tur", "tr"),
        ("ukr", "uk"),
        ("urd", "ur"),
        ("uzb", "uz"),
        ("vie", "vi"),
        ("yid", "yi"),
        ("zul", "zu"),
    ];
    TABLE.iter().find(|(k, _)| *k == code).map(|(_, v)| *v)
}
