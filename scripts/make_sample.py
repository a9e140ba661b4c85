#!/usr/bin/env python3
"""Writes data/sample.warc.gz: the small crawl the README's main command runs on.

A dozen page captures in two site templates, with known duplicates (an exact mirror, an edited
copy, a re-templated copy), a short page, a redirect, a 404 and an image, so `crawlsift dedup`
has something to find. Deterministic: the same bytes on every run (fixed dates, gzip mtime 0).
Usage: python3 scripts/make_sample.py [OUT]   (default data/sample.warc.gz)
"""
import gzip, hashlib, base64, io, sys, uuid

ARTICLES = {
    "harbour": ("Harbour bridge reopens after two years of repairs",
        ["The old harbour bridge reopened to traffic on Monday morning after two years of repairs that "
         "cost the city far more than first planned. Engineers replaced the rusted cables, rebuilt the "
         "deck and added a wide lane for bicycles on the eastern side.",
         "Commuters who had spent months on detours lined up before dawn to be among the first across. "
         "The mayor thanked residents for their patience and promised that the new toll would stay "
         "unchanged until the end of next year.",
         "Critics pointed out that the work ran eleven months late, and the council has ordered an "
         "independent review of how the contracts were awarded and supervised.",
         "Shop owners near the southern ramp said business had fallen by a third during the closure, and "
         "several are asking the council for help with rent. The chamber of commerce plans a street "
         "festival next month to bring customers back to the quarter."]),
    "orchard": ("Cold spring leaves orchards with a thin apple harvest",
        ["Growers across the valley expect one of the smallest apple harvests in a decade after late "
         "frost damaged blossoms in April. Some farms lost more than half of their early varieties.",
         "Prices at the farmers market have already climbed, and several cider makers say they will "
         "buy fruit from neighbouring regions to keep their presses running through the autumn.",
         "Agricultural advisers recommend frost fans and later blooming trees, though both take years "
         "to pay for themselves on small family orchards.",
         "The regional cooperative will publish its final figures in November, once the late varieties "
         "have been picked and weighed, and it expects to ask the ministry for emergency support for "
         "the growers who lost most of their crop."]),
    "library": ("Village library turns a century old with a week of readings",
        ["The village library celebrates its hundredth birthday this week with readings, a book swap "
         "and an exhibition of photographs from its first decades, when it occupied a single room above "
         "the post office.",
         "Volunteers spent the winter scanning ledgers that record every loan since the opening. The "
         "most borrowed title of the whole century turned out to be a guide to growing vegetables.",
         "The librarian hopes the anniversary will attract new members, especially teenagers, for whom "
         "a quiet study room with long opening hours was added last year.",
         "Entry to every event is free, and the organisers ask visitors to bring one old book each for "
         "the swap table, where the stock of the first day was gone within an hour."]),
    "comet": ("Amateur astronomers spot a faint comet near the horizon",
        ["Two amateur astronomers photographed a faint comet low in the western sky shortly after "
         "sunset on Thursday. Their images were confirmed the next night by a university observatory.",
         "The comet is too dim for the naked eye, but binoculars and a dark site away from city lights "
         "should reveal a small fuzzy patch with a short tail during the coming fortnight.",
         "Its orbit suggests it last passed near the sun several thousand years ago, long before any "
         "written record of the sky.",
         "Both observers work as teachers and have hunted for comets in their spare time for more than "
         "fifteen years; this is their first discovery, and by tradition the comet will carry their names."]),
}

def template_news(title, paras):
    body = "".join(f"<p>{p}</p>\n" for p in paras)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title} | Daily Courier</title></head>"
            f"<body><header><nav><a href=\"/\">Home</a> <a href=\"/local\">Local</a> <a href=\"/sport\">Sport</a>"
            f" <a href=\"/weather\">Weather</a></nav></header><main><article><h1>{title}</h1>\n{body}</article></main>"
            f"<aside class=\"related\"><h3>Most read</h3><ul><li><a href=\"/a\">Council budget vote delayed</a></li>"
            f"<li><a href=\"/b\">Weekend weather: showers</a></li></ul></aside>"
            f"<footer>Copyright Daily Courier. <a href=\"/privacy\">Privacy</a> <a href=\"/contact\">Contact</a></footer></body></html>")

def template_blog(title, paras):
    body = "<br><br>\n".join(paras)
    return (f"<html><head><title>{title}</title></head><body><table><tr><td class=\"sidebar\">"
            f"<a href=\"/\">home</a><br><a href=\"/archive\">archive</a><br><a href=\"/about\">about me</a></td>"
            f"<td class=\"post\"><div class=\"post-title\"><b>{title}</b></div><div class=\"post-body\">{body}</div>"
            f"<div class=\"comments\">3 comments - <a href=\"#c\">add yours</a></div></td></tr></table></body></html>")

def edited(paras):
    out = [p.replace("Monday", "Tuesday").replace("two years", "twenty months").replace("wide lane", "broad lane")
             .replace("eleven", "ten") for p in paras]
    return out + ["A spokesperson for the contractor declined to comment on the delays."]

def http_response(status, ctype, body, extra=""):
    reason = {200: "OK", 301: "Moved Permanently", 404: "Not Found"}[status]
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    return head.encode() + body

def warc_record(wtype, url, payload, date, idx, ctype="application/http; msgtype=response"):
    rid = uuid.UUID(hashlib.md5(f"{url}{idx}".encode()).hexdigest())
    digest = base64.b32encode(hashlib.sha1(payload).digest()).decode()
    head = (f"WARC/1.1\r\nWARC-Type: {wtype}\r\nWARC-Record-ID: <urn:uuid:{rid}>\r\nWARC-Date: {date}\r\n"
            + (f"WARC-Target-URI: {url}\r\n" if url else "")
            + f"WARC-Block-Digest: sha1:{digest}\r\nContent-Type: {ctype}\r\nContent-Length: {len(payload)}\r\n\r\n")
    return head.encode() + payload + b"\r\n\r\n"

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "data/sample.warc.gz"
    date = "2026-11-01T12:00:%02dZ"
    pages = []  # (url, status, ctype, body bytes)
    for key, (title, paras) in ARTICLES.items():
        pages.append((f"https://courier.example/{key}", 200, "text/html; charset=utf-8", template_news(title, paras).encode()))
    t, p = ARTICLES["harbour"]
    pages.append(("https://mirror.example/courier/harbour", 200, "text/html; charset=utf-8", template_news(t, p).encode()))
    pages.append(("https://citynews.example/2026/bridge", 200, "text/html; charset=utf-8", template_news(t, edited(p)).encode()))
    t, p = ARTICLES["orchard"]
    pages.append(("https://growers-blog.example/posts/apples", 200, "text/html; charset=windows-1252", template_blog(t, p).encode("cp1252")))
    pages.append(("https://courier.example/login", 200, "text/html", template_news("Sign in", ["Sign in to continue."]).encode()))
    pages.append(("https://courier.example/old-bridge", 301, "text/html", b""))
    pages.append(("https://courier.example/missing", 404, "text/html", b"<html><body>Not found</body></html>"))
    pages.append(("https://courier.example/logo.png", 200, "image/png", bytes(range(256)) * 4))
    buf = io.BytesIO()
    info = b"software: crawlsift scripts/make_sample.py\r\nformat: WARC File Format 1.1\r\n"
    records = [warc_record("warcinfo", None, info, date % 0, 0, "application/warc-fields")]
    for i, (url, status, ctype, body) in enumerate(pages, 1):
        extra = "Location: https://courier.example/harbour\r\n" if status == 301 else ""
        records.append(warc_record("request", url, f"GET / HTTP/1.1\r\nHost: x\r\n\r\n".encode(), date % i, 2 * i, "application/http; msgtype=request"))
        records.append(warc_record("response", url, http_response(status, ctype, body, extra), date % i, 2 * i + 1))
    for rec in records:  # one gzip member per record, as crawlers write them
        buf.write(gzip.compress(rec, compresslevel=6, mtime=0))
    with open(out, "wb") as f:
        f.write(buf.getvalue())
    print(f"wrote {out}: {len(records)} records, {len(buf.getvalue())} bytes")

if __name__ == "__main__":
    main()
