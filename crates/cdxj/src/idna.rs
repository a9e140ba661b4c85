//! IDNA 2003 `ToASCII` as Python's `idna` codec does it (the codec `surt` uses for non-ASCII
//! hosts): labels split on the four IDNA dots, nameprep (map to nothing, case fold, NFKC,
//! prohibited characters), Punycode with the `xn--` prefix, labels of 1 to 63 bytes.
//! Not ported: the bidi rule (a label mixing right-to-left and left-to-right letters is refused
//! by Python); such hosts are rare, and where Python refuses, `surt` keeps the host's bytes.

use unicode_normalization::UnicodeNormalization;

/// The ASCII form of a host name, or `None` where Python's codec raises.
pub(crate) fn to_ascii(input: &str) -> Option<Vec<u8>> {
    if input.is_empty() {
        return Some(Vec::new());
    }
    if input.is_ascii() {
        let labels: Vec<&str> = input.split('.').collect();
        let (last, init) = labels.split_last()?;
        if init.iter().any(|l| l.is_empty() || l.len() >= 64) || last.len() >= 64 {
            return None;
        }
        return Some(input.as_bytes().to_vec());
    }
    let mut labels: Vec<&str> = input
        .split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])
        .collect();
    let trailing_dot = labels.last().is_some_and(|l| l.is_empty());
    if trailing_dot {
        labels.pop();
    }
    let mut out = Vec::new();
    for label in labels {
        if !out.is_empty() {
            out.push(b'.');
        }
        out.extend(label_to_ascii(label)?);
    }
    if trailing_dot {
        out.push(b'.');
    }
    Some(out)
}

fn sized(label: Vec<u8>) -> Option<Vec<u8>> {
    (!label.is_empty() && label.len() < 64).then_some(label)
}

fn label_to_ascii(label: &str) -> Option<Vec<u8>> {
    if label.is_ascii() {
        return sized(label.as_bytes().to_vec());
    }
    let label = nameprep(label)?;
    if label.is_ascii() {
        return sized(label.into_bytes());
    }
    if label.starts_with("xn--") {
        return None;
    }
    let mut out = b"xn--".to_vec();
    out.extend(punycode(&label)?);
    sized(out)
}

/// RFC 3491 nameprep: table B.1 dropped, B.2 case folding (as Unicode lowercase, `ß` to `ss`),
/// NFKC, and the prohibited tables C.1.2 to C.9.
fn nameprep(label: &str) -> Option<String> {
    let mut mapped = String::with_capacity(label.len());
    for c in label.chars() {
        if matches!(c, '\u{AD}' | '\u{34F}' | '\u{1806}' | '\u{180B}'..='\u{180D}'
            | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}')
        {
            continue;
        }
        if c == 'ß' {
            mapped.push_str("ss");
        } else {
            mapped.extend(c.to_lowercase());
        }
    }
    let label: String = mapped.nfkc().collect();
    label.chars().all(|c| !prohibited(c)).then_some(label)
}

fn prohibited(c: char) -> bool {
    let u = u32::from(c);
    matches!(c, '\u{A0}' | '\u{1680}' | '\u{2000}'..='\u{200F}' | '\u{2028}'..='\u{202F}'
        | '\u{205F}'..='\u{2063}' | '\u{206A}'..='\u{206F}' | '\u{3000}' | '\u{80}'..='\u{9F}'
        | '\u{340}' | '\u{341}' | '\u{6DD}' | '\u{70F}' | '\u{180E}' | '\u{2FF0}'..='\u{2FFB}'
        | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFD}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0001}'
        | '\u{E0020}'..='\u{E007F}' | '\u{E000}'..='\u{F8FF}' | '\u{FDD0}'..='\u{FDEF}')
        || u >= 0xF0000
        || (u & 0xFFFE) == 0xFFFE
}

/// RFC 3492 Punycode of a label (basic code points first, then the deltas).
fn punycode(label: &str) -> Option<Vec<u8>> {
    const BASE: u32 = 36;
    const TMIN: u32 = 1;
    const TMAX: u32 = 26;
    let digit = |d: u32| -> u8 {
        if d < 26 {
            b'a' + d as u8
        } else {
            b'0' + (d - 26) as u8
        }
    };
    let adapt = |mut delta: u32, numpoints: u32, first: bool| -> u32 {
        delta /= if first { 700 } else { 2 };
        delta += delta / numpoints;
        let mut k = 0;
        while delta > ((BASE - TMIN) * TMAX) / 2 {
            delta /= BASE - TMIN;
            k += BASE;
        }
        k + (BASE - TMIN + 1) * delta / (delta + 38)
    };
    let cps: Vec<u32> = label.chars().map(u32::from).collect();
    let mut out: Vec<u8> = cps
        .iter()
        .filter(|&&c| c < 0x80)
        .map(|&c| c as u8)
        .collect();
    let basic = out.len() as u32;
    if basic > 0 {
        out.push(b'-');
    }
    let (mut n, mut delta, mut bias, mut h) = (0x80u32, 0u32, 72u32, basic);
    let total = cps.len() as u32;
    while h < total {
        let m = *cps.iter().filter(|&&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(h + 1)?)?;
        n = m;
        for &c in &cps {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        TMIN
                    } else if k >= bias + TMAX {
                        TMAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, h + 1, h == basic);
                delta = 0;
                h += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_examples() {
        assert_eq!(to_ascii("bücher.de").unwrap(), b"xn--bcher-kva.de");
        assert_eq!(to_ascii("Straße.de").unwrap(), b"strasse.de");
        assert_eq!(to_ascii("例え.テスト").unwrap(), b"xn--r8jz45g.xn--zckzah");
        assert!(to_ascii("a..b").is_none());
    }
}
