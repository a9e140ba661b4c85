//! JSON text exactly as Python's `json.dumps` writes it by default (`ensure_ascii`: `"`, `\` and
//! `\n \r \t \b \f` escaped by name, every other character outside space..`~` as `\uXXXX` in
//! lower-case hex, astral characters as surrogate pairs), so our lines are byte for byte
//! `cdxj-indexer`'s.

/// Appends `s` as a quoted JSON string.
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
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
}
