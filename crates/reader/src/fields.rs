//! Header fields of WARC, ARC, TREC and HTTP headers: names and values in order, with the one
//! lookup rule they share (first field of that name, ASCII case-insensitive). All names and
//! values live in one string, so a record's header costs two allocations, not two per field
//! (per-field strings were ~5% of a reading run in malloc and free).

use std::borrow::Cow;
use std::fmt;

/// A header line, name or value as text: UTF-8 when it is valid UTF-8, else ISO-8859-1 (each
/// byte one character, as HTTP/1.1 historically allowed and as warcio reads WARC and HTTP header
/// lines), so no byte is lost to a replacement character and the raw bytes can be had back with
/// `encode("latin-1")`.
pub(crate) fn field_text(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(b.iter().map(|&c| char::from(c)).collect()),
    }
}

/// Header fields in order. Values are as read, trimmed; folded lines joined by the parser.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Fields {
    text: String,
    spans: Vec<Span>,
}

/// Where one field's name and value are in `text`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    name: (usize, usize),
    value: (usize, usize),
}

impl Fields {
    /// No fields, with room for about `bytes` bytes of names and values in `fields` fields.
    pub fn with_capacity(bytes: usize, fields: usize) -> Self {
        Fields {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(fields),
        }
    }

    /// Appends a field.
    pub fn push(&mut self, name: &str, value: &str) {
        let n0 = self.text.len();
        self.text.push_str(name);
        let v0 = self.text.len();
        self.text.push_str(value);
        self.spans.push(Span {
            name: (n0, v0),
            value: (v0, self.text.len()),
        });
    }

    /// Appends `more` to the last field's value (a folded continuation line); false when there is
    /// no field yet.
    pub fn append_to_last(&mut self, more: &str) -> bool {
        match self.spans.last_mut() {
            Some(last) => {
                // The last value ends the text: fields are only ever appended.
                self.text.push_str(more);
                last.value.1 = self.text.len();
                true
            }
            None => false,
        }
    }

    /// The last field's value.
    pub fn last_value(&self) -> Option<&str> {
        self.spans.last().map(|s| &self.text[s.value.0..s.value.1])
    }

    /// The first value of field `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// The fields in order, as (name, value).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        self.spans.iter().map(|s| {
            (
                &self.text[s.name.0..s.name.1],
                &self.text[s.value.0..s.value.1],
            )
        })
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True when there is no field.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

impl fmt::Debug for Fields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> FromIterator<(&'a str, &'a str)> for Fields {
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a str)>>(iter: I) -> Self {
        let mut f = Fields::default();
        for (k, v) in iter {
            f.push(k, v);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_first_match_case_insensitive_and_order_is_kept() {
        let mut f = Fields::with_capacity(64, 4);
        f.push("Content-Type", "text/html");
        f.push("X-A", "1");
        f.push("content-type", "second");
        assert_eq!(f.get("CONTENT-TYPE"), Some("text/html"));
        assert_eq!(f.get("missing"), None);
        let names: Vec<&str> = f.iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["Content-Type", "X-A", "content-type"]);
        assert_eq!(f.len(), 3);
    }

    #[test]
    fn continuation_extends_only_the_last_value() {
        let mut f = Fields::default();
        assert!(!f.append_to_last("lost"));
        f.push("A", "x");
        f.push("B", "folded");
        assert!(f.append_to_last(" line"));
        assert_eq!(f.get("A"), Some("x"));
        assert_eq!(f.last_value(), Some("folded line"));
        assert_eq!(format!("{f:?}"), r#"[("A", "x"), ("B", "folded line")]"#);
    }
}
