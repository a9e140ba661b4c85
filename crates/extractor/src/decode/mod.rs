//! Decoding: from a payload's bytes to text. What the bytes are ([`sniff`]: HTML, a feed, a
//! binary type), their character set ([`charset`]: headers, BOM, `<meta>`, detection) and the
//! bounded input the parser reads (`input`).

pub mod charset;
pub(crate) mod input;
pub mod sniff;
