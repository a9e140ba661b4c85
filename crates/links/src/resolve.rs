//! Link targets as the graph keeps them: an href resolved against the page's URL and its
//! `<base href>` by the WHATWG URL rules (the `url` crate, which also normalises: scheme and
//! host lower-cased, IDNA hosts in punycode, default ports dropped, dot segments removed,
//! percent-encoding made uniform), the fragment dropped; only `http` and `https` targets are
//! kept. Hosts as cc-webgraph names them: lower-cased, a leading `www.` stripped, labels reversed
//! (`www.example.com` → `com.example`).

use url::Url;

/// The URL hrefs of a page resolve against: its `<base href>` resolved against its URL, or its
/// URL; `None` when the page's URL is not an absolute URL.
pub fn page_base(page_url: &str, base_href: Option<&str>) -> Option<Url> {
    let page = Url::parse(page_url.trim()).ok()?;
    match base_href.and_then(|b| page.join(b.trim()).ok()) {
        Some(b) => Some(b),
        None => Some(page),
    }
}

/// A page's own URL normalised as its links' targets are ([`resolve`] against itself), so a
/// page can be found among the targets; `None` for what names no `http(s)` resource.
pub fn normalise(url: &str) -> Option<String> {
    let base = page_base(url, None)?;
    resolve(&base, base.as_str())
}

/// An href resolved against `base`, normalised, without its fragment; `None` for an href that
/// does not resolve or names no `http(s)` resource (`mailto:`, `javascript:`, `data:`, ...).
pub fn resolve(base: &Url, href: &str) -> Option<String> {
    let mut u = base.join(href.trim()).ok()?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none_or(str::is_empty) {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

/// The host of a normalised URL as cc-webgraph names it: reversed labels, `www.` stripped.
pub fn host_key(url: &str) -> Option<String> {
    let host = match authority_host(url) {
        Some(h) => h.trim_end_matches('.').to_ascii_lowercase(),
        None => Url::parse(url)
            .ok()?
            .host_str()?
            .trim_end_matches('.')
            .to_ascii_lowercase(),
    };
    let host = host.strip_prefix("www.").unwrap_or(&host);
    if host.is_empty() {
        return None;
    }
    if host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok() {
        return Some(host.to_string());
    }
    Some(host.rsplit('.').collect::<Vec<_>>().join("."))
}

/// The host of an `http(s)://` URL as the `url` crate writes one (userinfo and port after and
/// before it, the path after), read off the string without parsing it again; `None` for any
/// other string, which is then parsed.
fn authority_host(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.starts_with('[') {
        return host.find(']').map(|i| &host[..=i]);
    }
    Some(host.split_once(':').map_or(host, |(h, _)| h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_resolve_against_the_base_and_are_normalised() {
        let base = page_base("HTTP://WWW.Example.COM:80/a/b/page.html", None).unwrap();
        assert_eq!(
            resolve(&base, "../c/./d.html#top").as_deref(),
            Some("http://www.example.com/a/c/d.html")
        );
        assert_eq!(
            resolve(&base, "//other.example/x y").as_deref(),
            Some("http://other.example/x%20y")
        );
        assert_eq!(resolve(&base, "mailto:a@b.c"), None);
        assert_eq!(resolve(&base, "javascript:void(0)"), None);
        assert_eq!(
            resolve(&base, "#frag").as_deref(),
            Some("http://www.example.com/a/b/page.html")
        );
        let with_base = page_base("http://e.example/x/y", Some("/root/")).unwrap();
        assert_eq!(
            resolve(&with_base, "z").as_deref(),
            Some("http://e.example/root/z")
        );
        assert_eq!(
            resolve(&base, "https://BÜCHER.example/").as_deref(),
            Some("https://xn--bcher-kva.example/")
        );
        assert!(page_base("not a url", None).is_none());
    }

    #[test]
    fn hosts_are_reversed_without_www() {
        assert_eq!(
            host_key("http://www.example.com/x").as_deref(),
            Some("com.example")
        );
        assert_eq!(
            host_key("https://a.b.example.org./").as_deref(),
            Some("org.example.b.a")
        );
        assert_eq!(
            host_key("http://192.168.0.1/").as_deref(),
            Some("192.168.0.1")
        );
    }

    #[test]
    fn host_keys_read_off_the_string_are_the_parsers() {
        for url in [
            "http://www.a.example/x",
            "https://user:pw@WWW.B.Example.:8080/p?q#f",
            "http://[::1]:80/",
            "http://192.168.0.1/a",
            "https://xn--bcher-kva.example/",
            "http://a.example",
            "http://a.example?x=1",
            "ftp://c.example/",
        ] {
            let parsed = Url::parse(url).ok().and_then(|u| {
                let h = u.host_str()?.trim_end_matches('.').to_ascii_lowercase();
                let h = h.strip_prefix("www.").unwrap_or(&h).to_string();
                Some(
                    if h.starts_with('[') || h.parse::<std::net::Ipv4Addr>().is_ok() {
                        h
                    } else {
                        h.rsplit('.').collect::<Vec<_>>().join(".")
                    },
                )
            });
            assert_eq!(host_key(url), parsed, "{url}");
        }
    }
}
