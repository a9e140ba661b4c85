//! How fingerprints are written: slices of fixed-width values (signature bytes, word hashes,
//! lines) as lower-case hex strings in human-readable formats (JSON), and as their raw big-endian
//! bytes in binary formats (the checkpoints of a run), where hex would only cost time.
//!
//! Both forms hold the same bytes: the hex is the bytes' digits, two per byte, so a value read
//! from either is the value written.

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer, Serializer};

/// A value of a fixed number of bytes.
pub(crate) trait Packed: Sized {
    /// Bytes per value.
    const WIDTH: usize;
    /// Appends the value's `WIDTH` bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// The value of exactly `WIDTH` bytes.
    fn take(bytes: &[u8]) -> Self;
}

impl Packed for u8 {
    const WIDTH: usize = 1;
    fn put(&self, out: &mut Vec<u8>) {
        out.push(*self);
    }
    fn take(bytes: &[u8]) -> Self {
        bytes[0]
    }
}

impl Packed for u32 {
    const WIDTH: usize = 4;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_be_bytes());
    }
    fn take(bytes: &[u8]) -> Self {
        u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}

/// Writes `values` as hex (human-readable formats) or raw bytes (binary formats).
pub(crate) fn serialize<T: Packed, S: Serializer>(values: &[T], s: S) -> Result<S::Ok, S::Error> {
    let mut raw = Vec::with_capacity(values.len() * T::WIDTH);
    for v in values {
        v.put(&mut raw);
    }
    if !s.is_human_readable() {
        return s.serialize_bytes(&raw);
    }
    let mut hex = Vec::with_capacity(raw.len() * 2);
    for &b in &raw {
        hex.extend_from_slice(&HEX_PAIRS[usize::from(b)]);
    }
    s.serialize_str(std::str::from_utf8(&hex).unwrap_or_default())
}

/// Reads what [`serialize`] wrote; a length that is not a whole number of values, or a character
/// that is not a hex digit, is an error.
pub(crate) fn deserialize<'de, T: Packed, D: Deserializer<'de>>(
    d: D,
) -> Result<Box<[T]>, D::Error> {
    let raw: Vec<u8> = if d.is_human_readable() {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let t = text.as_bytes();
        if !t.len().is_multiple_of(2) {
            return Err(D::Error::custom("an odd number of hex digits"));
        }
        t.chunks_exact(2)
            .map(|p| match (digit(p[0]), digit(p[1])) {
                (Some(h), Some(l)) => Ok(h << 4 | l),
                _ => Err(D::Error::custom("not a hex digit")),
            })
            .collect::<Result<_, _>>()?
    } else {
        d.deserialize_bytes(BytesVisitor)?
    };
    if !raw.len().is_multiple_of(T::WIDTH) {
        return Err(D::Error::custom(format!(
            "{} bytes are not a whole number of {}-byte values",
            raw.len(),
            T::WIDTH
        )));
    }
    Ok(raw.chunks_exact(T::WIDTH).map(T::take).collect())
}

/// Accepts a byte string, borrowed or owned.
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        Ok(v)
    }
}

/// `HEX_PAIRS[b]`: the two lower-case hex digits of byte `b`.
static HEX_PAIRS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = [HEX[b >> 4], HEX[b & 15]];
        b += 1;
    }
    t
};

fn digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Holder {
        #[serde(serialize_with = "serialize", deserialize_with = "deserialize")]
        words: Box<[u32]>,
    }

    #[test]
    fn hex_in_json_raw_bytes_in_postcard_and_the_same_values_back() {
        let h = Holder {
            words: vec![0, 1, 0xdead_beef, u32::MAX].into(),
        };
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, r#"{"words":"0000000000000001deadbeefffffffff"}"#);
        assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
        let bin = postcard::to_stdvec(&h).unwrap();
        assert_eq!(bin.len(), 1 + 16, "a length byte and the raw bytes");
        assert_eq!(postcard::from_bytes::<Holder>(&bin).unwrap(), h);
    }

    #[test]
    fn damaged_input_is_an_error_not_a_panic() {
        for bad in [
            r#"{"words":"0zz00000"}"#,
            r#"{"words":"000"}"#,
            r#"{"words":"00"}"#,
        ] {
            assert!(serde_json::from_str::<Holder>(bad).is_err(), "{bad}");
        }
        assert!(postcard::from_bytes::<Holder>(&[3, 1, 2, 3]).is_err());
    }
}
