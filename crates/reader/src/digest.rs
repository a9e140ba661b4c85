//! `WARC-Block-Digest` / `WARC-Payload-Digest` verification: sha1 (base32 as the spec shows it,
//! or hex as some writers emit), sha256 and md5, counted as ok / mismatch / unsupported. The
//! payload digest covers the HTTP body as stored (still chunked or compressed), as warcio and
//! FastWARC check it; a revisit's payload digest names the original's payload and is not checked.

use md5::Md5;
use sha1::{Digest, Sha1};
use sha2::Sha256;

pub use crate::record::{DigestCheck, Digests};
use crate::record::{Record, RecordKind};
use crate::report::DigestCounts;

/// Decodes RFC 4648 base32 (upper or lower case, padding optional).
fn base32(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 5 / 8);
    let mut acc: u64 = 0;
    let mut bits = 0u32;
    for c in s.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        acc = (acc << 5) | u64::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if s.len() & 1 == 1 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Checks a digest header value (`sha1:BASE32...`) against `data`.
pub fn check(value: &str, data: &[u8]) -> DigestCheck {
    let Some((alg, val)) = value.trim().split_once(':') else {
        return DigestCheck::Unsupported;
    };
    let alg = alg.trim().to_ascii_lowercase().replace('-', "");
    let val = val.trim();
    let (want_len, actual): (usize, Vec<u8>) = match alg.as_str() {
        "sha1" => (20, Sha1::digest(data).to_vec()),
        "sha256" => (32, Sha256::digest(data).to_vec()),
        "md5" => (16, Md5::digest(data).to_vec()),
        _ => return DigestCheck::Unsupported,
    };
    let decoded = if val.len() == want_len * 2 {
        hex(val).or_else(|| base32(val))
    } else {
        base32(val)
    };
    match decoded {
        Some(d) if d.len() == want_len => {
            if d == actual {
                DigestCheck::Ok
            } else {
                DigestCheck::Mismatch
            }
        }
        _ => DigestCheck::Unsupported,
    }
}

/// The size and `sha256:HEX` digest of what `r` gives, as WACZ's `datapackage.json` lists files.
pub fn sha256_of(r: &mut dyn std::io::Read) -> std::io::Result<(u64, String)> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        size += n as u64;
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((size, format!("sha256:{hex}")))
}

/// The SHA-1 of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

/// A digest header value for `data` as WARC writers give it: `sha1:` and the base32 of its SHA-1.
pub fn sha1_value(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::from("sha1:");
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in sha1(data).iter() {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((acc >> bits) & 31) as usize]));
        }
    }
    out // 160 bits are 32 base32 digits: no padding
}

fn count(c: &mut DigestCounts, r: DigestCheck) {
    match r {
        DigestCheck::Ok => c.ok += 1,
        DigestCheck::Mismatch => c.mismatch += 1,
        DigestCheck::Unsupported => c.unsupported += 1,
    }
}

/// Verifies a record's digest headers, adding the outcomes to `counts`, and returns them.
pub fn verify(rec: &Record, counts: &mut DigestCounts) -> Digests {
    let block = rec
        .header("WARC-Block-Digest")
        .map(|v| check(v, &rec.block));
    let payload = if rec.kind == RecordKind::Revisit {
        None
    } else {
        rec.header("WARC-Payload-Digest")
            .map(|v| check(v, &rec.payload()))
    };
    for r in [block, payload].into_iter().flatten() {
        count(counts, r);
    }
    Digests { block, payload }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_and_algorithms() {
        // sha1("abc") = a9993e36..., base32 VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5
        assert_eq!(
            check("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", b"abc"),
            DigestCheck::Ok
        );
        assert_eq!(
            check("sha1:a9993e364706816aba3e25717850c26c9cd0d89d", b"abc"),
            DigestCheck::Ok
        );
        assert_eq!(
            check("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", b"abd"),
            DigestCheck::Mismatch
        );
        assert_eq!(
            check(
                "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                b"abc"
            ),
            DigestCheck::Ok
        );
        assert_eq!(
            check("md5:900150983cd24fb0d6963f7d28e17f72", b"abc"),
            DigestCheck::Ok
        );
        assert_eq!(check("crc32:1234", b"abc"), DigestCheck::Unsupported);
        assert_eq!(sha1_value(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
        assert_eq!(
            check(&sha1_value(b"any bytes"), b"any bytes"),
            DigestCheck::Ok
        );
        assert_eq!(check("sha1:!!", b"abc"), DigestCheck::Unsupported);
    }
}
