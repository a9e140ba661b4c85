//! SURT keys: the URL canonicalisation of the Python `surt` package (0.3.1) as `cdxj-indexer`
//! 1.5.0 calls it (`surt.surt(url)`: the default IA canonicaliser, no scheme, host reversed),
//! ported step by step so pywb finds our lines with the keys it computes itself.
//!
//! The steps, in the Python order: `handyurl.parse` (strip, default `http://`, collapse repeated
//! `http://https://`, split, drop userinfo, port), the Google canonicaliser (fragment dropped,
//! query minimally escaped, host unescaped, IDNA-encoded, dotted IPv4 forms normalised, path
//! `.`/`..` resolved and escaped once), then the IA canonicaliser (`www\d*.` dropped, default port
//! dropped, path and query lowercased, session ids stripped, query arguments sorted, trailing slash
//! dropped). Where Python raises (a port that is not a number from 0 to 65535, an empty URL after
//! stripping) `cdxj-indexer` keeps the URL as it is: [`surt`] does the same.
//! IDNA is IDNA 2003 as Python's `idna` codec does it, without its bidi check (see [`crate::idna`]).

use crate::idna;

/// The SURT key of `url` as `cdxj-indexer` writes it (`-` for an empty URL, the URL itself where
/// the Python package raises an error).
pub fn surt(url: &str) -> String {
    if url.is_empty() {
        return "-".into();
    }
    if url.starts_with("filedesc") {
        return url.into();
    }
    match surt_bytes(url.as_bytes()) {
        Some(key) => String::from_utf8(key).unwrap_or_else(|_| url.to_string()),
        None => url.to_string(),
    }
}

/// A URL split as `handyurl` holds it.
struct Handy {
    scheme: Vec<u8>,
    host: Option<Vec<u8>>,
    port: Option<u32>,
    path: Option<Vec<u8>>,
    query: Option<Vec<u8>>,
}

/// ASCII whitespace as Python's `bytes.strip()` sees it.
fn is_py_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Length of a leading `scheme:` (`[a-zA-Z][a-zA-Z0-9+.-]*:`), without the colon.
fn scheme_len(u: &[u8]) -> Option<usize> {
    if !u.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = u
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (u[n] == b':').then_some(n)
}

fn surt_bytes(url: &[u8]) -> Option<Vec<u8>> {
    let mut h = parse(url)?;
    google(&mut h);
    ia(&mut h);
    Some(render(&h))
}

/// `handyurl.parse`; `None` where Python raises.
fn parse(url: &[u8]) -> Option<Handy> {
    let start = url
        .iter()
        .position(|&c| !is_py_space(c))
        .unwrap_or(url.len());
    let end = url
        .iter()
        .rposition(|&c| !is_py_space(c))
        .map_or(start, |e| e + 1);
    let mut u: Vec<u8> = url[start..end]
        .iter()
        .copied()
        .filter(|c| !matches!(c, b'\n' | b'\r' | b'\t'))
        .collect();
    if u.is_empty() {
        return None; // the scheme is None and `scheme.startswith` raises
    }
    if scheme_len(&u).is_none() {
        u.splice(0..0, b"http://".iter().copied());
    }
    // `^(https?://)+` becomes its last repetition.
    let mut last = None;
    let mut at = 0;
    loop {
        let rest = &u[at..];
        if rest.starts_with(b"http://") {
            last = Some(at);
            at += 7;
        } else if rest.starts_with(b"https://") {
            last = Some(at);
            at += 8;
        } else {
            break;
        }
    }
    if let Some(l) = last {
        u.drain(..l);
    }
    let sl = scheme_len(&u)?;
    let scheme = u[..sl].to_vec();
    let rest = &u[sl + 1..];
    let hash_at = rest.iter().position(|&c| c == b'#').unwrap_or(rest.len());
    let (before_hash, _fragment) = rest.split_at(hash_at);
    let (netloc, after) = match before_hash.strip_prefix(b"//") {
        Some(r) => {
            let n = r
                .iter()
                .position(|&c| c == b'/' || c == b'?')
                .unwrap_or(r.len());
            (Some(&r[..n]), &r[n..])
        }
        None => (None, before_hash),
    };
    let q = after.iter().position(|&c| c == b'?');
    let (path, query) = match q {
        Some(q) => (&after[..q], Some(&after[q + 1..])),
        None => (after, None),
    };
    let netloc = netloc.unwrap_or(b"");
    let netloc_end = netloc.iter().rposition(|&c| c != b':').map_or(0, |e| e + 1);
    let netloc = &netloc[..netloc_end];
    let (hostname, port) = host_info(netloc);
    let port = match port {
        None => None,
        Some(p) => {
            if p.is_empty() || !p.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let mut v: u32 = 0;
            for &d in p {
                v = v.checked_mul(10)?.checked_add(u32::from(d - b'0'))?;
                if v > 65535 {
                    return None;
                }
            }
            (v != 0).then_some(v)
        }
    };
    let mut host = (!hostname.is_empty()).then(|| hostname.to_vec());
    let mut path = (!path.is_empty()).then(|| path.to_vec());
    if scheme.starts_with(b"http") && host.is_none() {
        if let Some(p) = &path {
            let trimmed: &[u8] = &p[p.iter().position(|&c| c != b'/').unwrap_or(p.len())..];
            let (h, tail) = match trimmed.iter().position(|&c| c == b'/') {
                Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
                None => (trimmed, &b""[..]),
            };
            host = Some(h.to_vec());
            let mut np = b"/".to_vec();
            np.extend_from_slice(tail);
            path = Some(np);
        }
    }
    Some(Handy {
        scheme,
        host,
        port,
        path,
        query: query.filter(|q| !q.is_empty()).map(<[u8]>::to_vec),
    })
}

/// `SplitResultBytes._hostinfo`: host name and port text of a netloc (userinfo dropped).
fn host_info(netloc: &[u8]) -> (&[u8], Option<&[u8]>) {
    let hostinfo = match netloc.iter().rposition(|&c| c == b'@') {
        Some(i) => &netloc[i + 1..],
        None => netloc,
    };
    let (hostname, port) = match hostinfo.iter().position(|&c| c == b'[') {
        Some(i) => {
            let br = &hostinfo[i + 1..];
            match br.iter().position(|&c| c == b']') {
                Some(j) => {
                    let after = &br[j + 1..];
                    let port = match after.iter().position(|&c| c == b':') {
                        Some(k) => &after[k + 1..],
                        None => &b""[..],
                    };
                    (&br[..j], port)
                }
                None => (br, &b""[..]),
            }
        }
        None => match hostinfo.iter().position(|&c| c == b':') {
            Some(i) => (&hostinfo[..i], &hostinfo[i + 1..]),
            None => (hostinfo, &b""[..]),
        },
    };
    (hostname, (!port.is_empty()).then_some(port))
}

/// `urllib.parse.unquote_to_bytes`: `%` and two hex digits become the byte.
fn unquote(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(a), Some(b)) = (hex(s[i + 1]), hex(s[i + 2])) {
                out.push(a << 4 | b);
                i += 3;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// `unescapeRepeatedly`: unquotes until nothing changes (each pass shortens, so it ends).
fn unescape_repeatedly(s: &[u8]) -> Vec<u8> {
    let mut cur = s.to_vec();
    loop {
        let next = unquote(&cur);
        if next == cur {
            return cur;
        }
        cur = next;
    }
}

/// `escapeOnce`: percent-encodes (upper-case hex) bytes outside `!`..`~` and `#`, `%`.
fn escape_once(s: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if (0x21..0x7f).contains(&c) && c != b'#' && c != b'%' {
            out.push(c);
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        }
    }
    out
}

fn minimal_escape(s: &[u8]) -> Vec<u8> {
    escape_once(&unescape_repeatedly(s))
}

/// `GoogleURLCanonicalizer.canonicalize`.
fn google(h: &mut Handy) {
    if let Some(q) = &h.query {
        h.query = Some(minimal_escape(q));
    }
    if let Some(host) = &h.host {
        let mut host = unescape_repeatedly(host);
        if !host.is_ascii() {
            let decoded = String::from_utf8_lossy(&host).replace('\u{FFFD}', "");
            // `decode('utf-8', 'ignore')` drops what is not UTF-8 (a real U+FFFD in the input is
            // rare enough in a host name to be dropped with them).
            if let Some(a) = idna::to_ascii(&decoded) {
                host = a;
            }
        }
        let mut host = replace_double_dots(&host);
        let s = host.iter().position(|&c| c != b'.').unwrap_or(host.len());
        let e = host.iter().rposition(|&c| c != b'.').map_or(s, |e| e + 1);
        host = host[s..e].to_vec();
        host = match ip_forms(&host) {
            Some(ip) => ip,
            None => escape_once(&host.to_ascii_lowercase()),
        };
        h.host = Some(host);
    }
    let has_host = h.host.as_ref().is_some_and(|x| !x.is_empty());
    let path = h.path.as_deref().map(unescape_repeatedly);
    let path = if has_host {
        Some(normalize_path(path.as_deref()))
    } else {
        path
    };
    h.path = path.map(|p| escape_once(&p));
}

/// Python's `bytes.replace(b'..', b'.')` (non-overlapping, left to right).
fn replace_double_dots(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'.' && s.get(i + 1) == Some(&b'.') {
            out.push(b'.');
            i += 2;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// `normalizePath`: `.` and `..` segments resolved, empty segments dropped (but a trailing `/`
/// kept).
fn normalize_path(path: Option<&[u8]>) -> Vec<u8> {
    let path = match path {
        Some(p) if !p.is_empty() => p,
        _ => return b"/".to_vec(),
    };
    let mut kept: Vec<&[u8]> = Vec::new();
    for p in path.split(|&c| c == b'/').skip(1) {
        match p {
            b"." => {}
            b".." => {
                if kept.pop().is_none() {
                    kept.push(p);
                }
            }
            _ => kept.push(p),
        }
    }
    let mut out = b"/".to_vec();
    if let Some((last, init)) = kept.split_last() {
        for p in init {
            if !p.is_empty() {
                out.extend_from_slice(p);
                out.push(b'/');
            }
        }
        out.extend_from_slice(last);
    }
    out
}

/// `attemptIPFormats`: an all-digit host is an IPv4 address (its low 32 bits); a dotted decimal or
/// octal form is read as glibc's `inet_aton` does (what `gethostbyname` does with it).
fn ip_forms(host: &[u8]) -> Option<Vec<u8>> {
    if host.is_empty() {
        return None;
    }
    if host.iter().all(u8::is_ascii_digit) {
        let mut v: u32 = 0;
        for &d in host {
            v = v.wrapping_mul(10).wrapping_add(u32::from(d - b'0'));
        }
        return Some(dotted(v));
    }
    let parts: Vec<&[u8]> = host.split(|&c| c == b'.').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let decimal = host[0] != b'0' && parts.iter().all(|p| p.iter().all(u8::is_ascii_digit));
    let octal = host[0] == b'0'
        && parts[0].iter().all(|c| (b'0'..=b'7').contains(c))
        && parts[1..]
            .iter()
            .all(|p| p.iter().all(|c| (b'0'..=b'7').contains(c)));
    if !(decimal || octal) {
        return None;
    }
    inet_aton(&parts).map(dotted)
}

fn dotted(v: u32) -> Vec<u8> {
    let b = v.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]).into_bytes()
}

/// glibc `inet_aton` over digit-only parts: a leading `0` makes a part octal; `a.b.c` puts `c` in
/// the low 16 bits, `a.b` `b` in the low 24.
fn inet_aton(parts: &[&[u8]]) -> Option<u32> {
    let mut vals = Vec::with_capacity(4);
    for p in parts {
        let (digits, radix) = if p.len() > 1 && p[0] == b'0' {
            (&p[1..], 8)
        } else {
            (&p[..], 10)
        };
        let mut v: u64 = 0;
        for &d in digits {
            let d = u64::from(d - b'0');
            if d >= radix {
                return None;
            }
            v = v.checked_mul(radix)?.checked_add(d)?;
        }
        vals.push(v);
    }
    let (last, init) = vals.split_last()?;
    if init.iter().any(|&v| v > 0xff) {
        return None;
    }
    let max = [0xffff_ffffu64, 0xff_ffff, 0xffff, 0xff][init.len()];
    if *last > max {
        return None;
    }
    let mut v: u64 = 0;
    for (i, b) in init.iter().enumerate() {
        v |= b << (24 - 8 * i);
    }
    u32::try_from(v | last).ok()
}

/// `IAURLCanonicalizer.canonicalize` with its defaults.
fn ia(h: &mut Handy) {
    if let Some(host) = &mut h.host {
        host.make_ascii_lowercase();
        if h.scheme != b"dns" {
            let digits = host[3.min(host.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if host.starts_with(b"www") && host.get(3 + digits) == Some(&b'.') {
                host.drain(..4 + digits);
            }
        }
    }
    let default_port = match h.scheme.to_ascii_lowercase().as_slice() {
        b"http" => Some(80),
        b"https" => Some(443),
        _ => None,
    };
    if h.port.is_some() && h.port == default_port {
        h.port = None;
    }
    if let Some(p) = &mut h.path {
        if !p.is_empty() {
            p.make_ascii_lowercase();
            *p = strip_path_session_id(p);
            if p.len() > 1 && p.ends_with(b"/") {
                p.pop();
            }
        }
    }
    if let Some(q) = h.query.take() {
        let mut q = strip_query_session_id(&q);
        q.make_ascii_lowercase();
        let q = alpha_reorder(&q);
        h.query = (!q.is_empty()).then_some(q);
    }
}

/// `alphaReorderQuery`: arguments sorted as Python sorts `(name,)` / `(name, value)` tuples.
fn alpha_reorder(q: &[u8]) -> Vec<u8> {
    if q.len() <= 1 {
        return q.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&c| c == b'&')
        .map(|a| match a.iter().position(|&c| c == b'=') {
            Some(i) => (&a[..i], Some(&a[i + 1..])),
            None => (a, None),
        })
        .collect();
    args.sort();
    let mut out = Vec::with_capacity(q.len());
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

/// `stripPathSessionID` on a lowercased path: `.../(x(24 chars)...)/a.aspx` and
/// `.../(24 chars)/a.aspx` lose the parenthesised id (the rightmost `/` that matches, as the
/// greedy Python pattern finds it).
fn strip_path_session_id(path: &[u8]) -> Vec<u8> {
    let mut path = path.to_vec();
    for nested in [true, false] {
        for slash in (0..path.len()).rev().filter(|&i| path[i] == b'/') {
            let rest = &path[slash + 1..];
            let id_len = if nested {
                nested_id(rest)
            } else {
                plain_id(rest)
            };
            if let Some(n) = id_len {
                if aspx_tail(&rest[n..]) {
                    let mut np = path[..=slash].to_vec();
                    np.extend_from_slice(&rest[n..]);
                    path = np;
                    break;
                }
            }
        }
    }
    path
}

fn is_alnum_lower(c: u8) -> bool {
    c.is_ascii_digit() || c.is_ascii_lowercase()
}

/// `\((?:[a-z]\([0-9a-z]{24}\))+\)/` at the start of `s`: its length.
fn nested_id(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    let mut units = 0;
    while s.len() >= i + 27
        && s[i].is_ascii_lowercase()
        && s[i + 1] == b'('
        && s[i + 2..i + 26].iter().all(|&c| is_alnum_lower(c))
        && s[i + 26] == b')'
    {
        i += 27;
        units += 1;
    }
    (units > 0 && s.get(i..i + 2) == Some(b")/")).then_some(i + 2)
}

/// `\([0-9a-z]{24}\)/` at the start of `s`: its length.
fn plain_id(s: &[u8]) -> Option<usize> {
    (s.len() >= 27
        && s[0] == b'('
        && s[1..25].iter().all(|&c| is_alnum_lower(c))
        && s[25] == b')'
        && s[26] == b'/')
        .then_some(27)
}

/// `[^?]+\.aspx.*` over all of `s`.
fn aspx_tail(s: &[u8]) -> bool {
    let q = s.iter().position(|&c| c == b'?').unwrap_or(s.len());
    (1..=q).any(|i| s[i..].starts_with(b".aspx"))
}

/// `stripQuerySessionID`: the five Python patterns in order, each matched once, case-insensitive.
fn strip_query_session_id(query: &[u8]) -> Vec<u8> {
    let mut q = query.to_vec();
    type Id = fn(&[u8]) -> Option<usize>;
    let ids: [Id; 5] = [
        |s| keyed(s, b"jsessionid=", 32, u8::is_ascii_alphanumeric),
        |s| keyed(s, b"phpsessid=", 32, u8::is_ascii_alphanumeric),
        |s| keyed(s, b"sid=", 32, u8::is_ascii_alphanumeric),
        asp_session,
        cold_fusion,
    ];
    for id in ids {
        // Greedy `^(.*)`: the rightmost start whose id is followed by `&` or the end.
        for s in (0..=q.len()).rev() {
            let Some(n) = id(&q[s..]) else { continue };
            let e = s + n;
            if e == q.len() || q[e] == b'&' {
                let mut nq = q[..s].to_vec();
                if e < q.len() {
                    nq.extend_from_slice(&q[e + 1..]);
                }
                q = nq;
                break;
            }
        }
    }
    q
}

/// `key` (ASCII case-insensitive) then exactly `n` bytes of `class` at the start of `s`.
fn keyed(s: &[u8], key: &[u8], n: usize, class: fn(&u8) -> bool) -> Option<usize> {
    let k = key.len();
    (s.len() >= k + n && s[..k].eq_ignore_ascii_case(key) && s[k..k + n].iter().all(class))
        .then_some(k + n)
}

/// `ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24}`.
fn asp_session(s: &[u8]) -> Option<usize> {
    let k = b"aspsessionid".len();
    (s.len() >= k + 33
        && s[..k].eq_ignore_ascii_case(b"aspsessionid")
        && s[k..k + 8].iter().all(u8::is_ascii_alphabetic)
        && s[k + 8] == b'='
        && s[k + 9..k + 33].iter().all(u8::is_ascii_alphabetic))
    .then_some(k + 33)
}

/// `cfid=[^&]+&cftoken=[^&]+`.
fn cold_fusion(s: &[u8]) -> Option<usize> {
    if s.len() < 5 || !s[..5].eq_ignore_ascii_case(b"cfid=") {
        return None;
    }
    let a = s[5..]
        .iter()
        .position(|&c| c == b'&')
        .unwrap_or(s.len() - 5)
        + 5;
    if a == 5 || s.len() < a + 9 || !s[a..a + 9].eq_ignore_ascii_case(b"&cftoken=") {
        return None;
    }
    let b = s[a + 9..]
        .iter()
        .position(|&c| c == b'&')
        .unwrap_or(s.len() - a - 9)
        + a
        + 9;
    (b > a + 9).then_some(b)
}

/// `handyurl.geturl_bytes(surt=True, with_scheme=False)`.
fn render(h: &Handy) -> Vec<u8> {
    let mut s = Vec::new();
    let host = h.host.as_deref().filter(|x| !x.is_empty());
    match host {
        Some(host) => {
            for (i, part) in host.rsplit(|&c| c == b'.').enumerate() {
                if i > 0 {
                    s.push(b',');
                }
                s.extend_from_slice(part);
            }
            if let Some(p) = h.port {
                s.extend_from_slice(format!(":{p}").as_bytes());
            }
            s.push(b')');
        }
        None => {
            s.extend_from_slice(&h.scheme);
            s.push(b':');
        }
    }
    match &h.path {
        Some(p) if !p.is_empty() => s.extend_from_slice(p),
        _ if h.query.is_some() => s.push(b'/'),
        _ => {}
    }
    if let Some(q) = &h.query {
        s.push(b'?');
        s.extend_from_slice(q);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys() {
        for (url, key) in [
            ("http://www.example.com/", "com,example)/"),
            (
                "https://Example.COM:443/A/b/?B=2&a=1#frag",
                "com,example)/a/b?a=1&b=2",
            ),
            ("example.com/x", "com,example)/x"),
            ("dns:www.example.com", "dns:www.example.com"),
            ("filedesc://x.arc", "filedesc://x.arc"),
            ("http://1.2.3.4:8080/", "4,3,2,1:8080)/"),
            ("http://example.com:abc/", "http://example.com:abc/"),
            ("", "-"),
        ] {
            assert_eq!(surt(url), key, "{url}");
        }
    }
}
