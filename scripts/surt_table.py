#!/usr/bin/env python3
"""Writes crates/cdxj/tests/data/surt_table.jsonl: SURT keys of hostile URLs as the Python `surt`
package 0.3.1 computes them the way cdxj-indexer 1.5.0 calls it (`surt.surt(url)`, and the URL
itself where that raises). The Rust test crates/cdxj/tests/surt_table.rs compares our port with it.

usage: PYTHON_WITH_SURT scripts/surt_table.py [OUT]
(e.g. a venv with `pip install surt==0.3.1`; the inputs are the list below, nothing else.)
"""
import json
import sys

import surt

URLS = [
    # plain, case, www prefixes, default and other ports
    "http://www.example.com/", "HTTP://WWW.EXAMPLE.COM/", "http://example.com", "https://example.com/",
    "http://www2.example.com/", "http://www12.example.com/a", "http://wwwexample.com/",
    "http://www.www.example.com/", "http://www./", "http://www.example.com:80/", "https://example.com:443/",
    "http://example.com:443/", "https://example.com:80/", "http://example.com:8080/", "ftp://example.com:21/x",
    "http://example.com:0/", "http://example.com:00080/", "http://example.com:65535/", "http://example.com:65536/",
    "http://example.com:abc/", "http://example.com:/", "http://example.com::/", "http://example.com:-1/",
    # paths: dots, slashes, case, trailing slash, session ids
    "http://example.com/a/./b/../c", "http://example.com/../a", "http://example.com//a//b//",
    "http://example.com/A/B/", "http://example.com/a/b/.", "http://example.com/%2e%2e/a",
    "http://example.com/(S(abcdefghijklmnopqrstuvwx))/page.aspx",
    "http://example.com/x/(a(abcdefghijklmnopqrstuvwx)b(abcdefghijklmnopqrstuvwx))/p.aspx?q=1",
    "http://example.com/(abcdefghijklmnopqrstuvwx)/default.aspx",
    "http://example.com/(abcdefghijklmnopqrstuvwx)/default.htm",
    # queries: order, empty, case, session ids, repeated keys
    "http://example.com/?b=2&a=1", "http://example.com/?", "http://example.com/a?", "http://example.com/a?&",
    "http://example.com/?B=2&b=1&a", "http://example.com/?a=1&a", "http://example.com/?a&a=1&a=",
    "http://example.com/?x=1&jsessionid=0123456789abcdef0123456789ABCDEF",
    "http://example.com/?jsessionid=0123456789abcdef0123456789ABCDEF&x=1",
    "http://example.com/?PHPSESSID=0123456789abcdef0123456789abcdef",
    "http://example.com/?sid=0123456789abcdef0123456789abcdef&y=2",
    "http://example.com/?ASPSESSIONIDabcdefgh=ABCDEFGHIJKLMNOPQRSTUVWX",
    "http://example.com/?cfid=123&cftoken=abc&z=1", "http://example.com/?q=a%20b&r=%41",
    "http://example.com/?q=%2525", "http://example.com/?q=a+b#frag", "http://example.com/#frag",
    "http://example.com/a#frag?x", "http://example.com/?a=1#", "http://example.com?x=1",
    # percent-encoding and non-ASCII
    "http://example.com/%7Euser/%41%42", "http://example.com/a%2Fb", "http://example.com/%zz%4",
    "http://example.com/é/ü?ä=ö", "http://example.com/a b", "http://example.com/%252F",
    "http://ex%61mple.com/", "http://EXAMPLE.com%2e/", "http://example..com/", "http://.example.com./",
    # IDN
    "http://bücher.de/", "http://www.bücher.de/x", "http://Bücher.DE/", "http://xn--bcher-kva.de/",
    "http://例え.テスト/", "http://straße.de/", "http://münchen.de./", "http://a..bü/",
    "http://%C3%BC.de/", "http://\u00e9x\u00e1mple.com:8080/p",
    # IP addresses in their many forms
    "http://1.2.3.4/", "http://1.2.3.4:80/", "http://16909060/", "http://4294967297/", "http://0x7f.1/",
    "http://1.2.3/", "http://1.2/", "http://010.0.0.1/", "http://0177.0.0.1/", "http://1.2.3.999/",
    "http://08.1.1.1/", "http://[::1]/", "http://[2001:db8::1]:8080/a", "http://0/",
    # userinfo
    "http://user:pass@example.com/", "http://user@www.example.com:8080/", "http://a@b@example.com/",
    # no scheme, odd schemes, non-URLs
    "example.com", "example.com/a?b=1", "www.example.com:8080/x", "//example.com/x", "/relative/path",
    "dns:www.example.com", "DNS:WWW.Example.com", "filedesc://IAH-20080430204825.arc", "warcinfo:/x",
    "urn:uuid:12345678-1234-1234-1234-123456789abc", "mailto:Someone@Example.com", "whois://example.com/",
    "data:text/plain,hello", "javascript:alert(1)", "about:blank", "file:///etc/passwd",
    "http://https://example.com/", "http://http://http://example.com/a", "https://http://example.com/",
    "http:////www.example.com/x", "http:/example.com/x", "http:example.com", "http://", "http:///",
    "trec:clueweb09-en0000-00-00000", "-", " ", "\t http://example.com/\n ", "http://exa\nmple.com/",
    "http://example.com/\x0b", "http://example.com/a\x00b", "1:x", "a+b://host/p",
]


def key(url):
    try:
        return surt.surt(url)
    except Exception:
        return url


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "crates/cdxj/tests/data/surt_table.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for u in URLS:
            f.write(json.dumps({"url": u, "key": key(u)}) + "\n")
    print(f"{len(URLS)} URLs -> {out}")


if __name__ == "__main__":
    main()
