//! The site of a page: the host of its URL, which dedup uses to learn each site's template lines.

/// The site of a URL: its host, lower-cased, without user info, port or a leading `www.`; empty
/// for a document without a URL or a URL without a host (such documents learn templates together).
pub fn site_of(url: Option<&str>) -> String {
    let Some(url) = url else {
        return String::new();
    };
    let rest = match url.find("://") {
        Some(i) => &url[i + 3..],
        None => return String::new(),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = match host_port.strip_prefix('[') {
        Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or("")),
        None => host_port.split(':').next().unwrap_or("").to_string(),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host.strip_prefix("www.")
        .map_or(host.clone(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_the_site_whatever_the_url_around_them() {
        assert_eq!(
            site_of(Some("https://WWW.Example.com:8080/a?b#c")),
            "example.com"
        );
        assert_eq!(
            site_of(Some("http://user:pw@news.example.org./x")),
            "news.example.org"
        );
        assert_eq!(site_of(Some("http://[::1]:80/")), "[::1]");
        assert_eq!(site_of(Some("http://example.net")), "example.net");
        assert_eq!(site_of(Some("not a url")), "");
        assert_eq!(site_of(None), "");
    }
}
