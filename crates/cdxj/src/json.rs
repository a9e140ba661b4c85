//! JSON text exactly as Python's `json.dumps` writes it by default (`ensure_ascii`: `"`, `\` and
//! `\n \r \t \b \f` escaped by name, every other character outside space..`~` as `\uXXXX` in
//! lower-case hex, astral characters as surrogate pairs), so our lines are byte for byte
//! `cdxj-indexer`'s.

/// Appends `s` as a quoted JSON string.
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s;
    while !rest.is_empty() {
        // Printable ASCII but for `"` and `\` goes as it is, a run at a time.
        let plain = rest
            .bytes()
            .position(|b| !(b' '..=b'~').contains(&b) || b == b'"' || b == b'\\')
            .unwrap_or(rest.len());
        out.push_str(&rest[..plain]);
        rest = &rest[plain..];
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        rest = chars.as_str();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
        }
    }
    out.push('"');
}

/// Appends `{"k": "v", ...}` with Python's `", "` and `": "` separators.
pub fn push_object(out: &mut String, fields: &[(&str, &str)]) {
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_str(out, k);
        out.push_str(": ");
        push_str(out, v);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_as_python() {
        let mut s = String::new();
        super::push_object(&mut s, &[("url", "http://a/é\"\u{1F600}\u{7f}")]);
        assert_eq!(s, r#"{"url": "http://a/\u00e9\"\ud83d\ude00\u007f"}"#);
    }

    #[test]
    fn runs_of_plain_text_are_escaped_as_one_character_at_a_time() {
        fn one_at_a_time(s: &str) -> String {
            let mut out = String::from('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    ' '..='~' => out.push(c),
                    _ => {
                        for u in c.encode_utf16(&mut [0u16; 2]) {
                            out.push_str(&format!("\\u{u:04x}"));
                        }
                    }
                }
            }
            out.push('"');
            out
        }
        let samples = [
            "",
            "plain",
            "\"",
            "a\\b\\",
            "x\ny\r\tz\u{8}\u{c}\u{0}\u{1f} ~\u{7f}",
            "é\u{1F600}end",
            "\u{1F600}",
            "http://a/ b?c=\"d\"&e=ü#frag",
        ];
        for s in samples {
            let mut got = String::new();
            super::push_str(&mut got, s);
            assert_eq!(got, one_at_a_time(s), "{s:?}");
        }
    }
}
