#!/usr/bin/env python3
"""Accuracy of `crawlsift extract --with-metadata` (publication date and author), beside trafilatura.

Two measurements, printed as tables:

1. Generated pages with a known truth. `SHARED/tools/makecorpus.py` writes pages whose JSON-LD
   holds the article's `datePublished` and `author` (the same values its byline prints in words).
   Each page is scored as it is, and again with its JSON-LD removed, so the fallbacks (meta tags,
   `<time>`, bylines, dates written in the text) are what is measured. Pages are given without
   their URL (`--html-dir`), so a date in the URL does not help.
2. Real pages without a truth: the 1,277 pages of `SHARED/bench/extraction`; crawlsift's title,
   author, date, site name and language are compared with trafilatura's (`extract_metadata`),
   field by field: how often both found a value, how often they agree, and examples where they
   differ.

usage (from the repository root, in a Python with trafilatura 2.3.1 and warcio):
    python bench/metadata/measure.py [--shared ../shared] [--crawlsift target/release/crawlsift]
        [--docs 400] [--seed 21] [--examples 5]
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

LD_RE = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def crawlsift_dir(binary, src, out):
    """crawlsift's metadata of every page of `src`, by stem."""
    subprocess.run([binary, "extract", "--html-dir", src, "--out-dir", out, "--format", "json",
                    "--with-metadata"], check=True, capture_output=True)
    res = {}
    for p in glob.glob(os.path.join(out, "*.json")):
        with open(p, encoding="utf-8") as f:
            res[os.path.basename(p)[:-5]] = json.load(f)
    return res


def trafilatura_meta(html):
    import trafilatura
    m = trafilatura.extract_metadata(html)
    if m is None:
        return {}
    return {"title": m.title or "", "author": m.author or "", "published": m.date or "",
            "sitename": m.sitename or "", "language": ""}


def norm_author(a):
    return re.sub(r"\s+", " ", (a or "").replace(";", ",")).strip().lower()


def generated(args, tmp):
    from warcio.archiveiterator import ArchiveIterator
    corpus = os.path.join(tmp, "corpus")
    subprocess.run([sys.executable, os.path.join(args.shared, "tools", "makecorpus.py"), "--out", corpus,
                    "--docs", str(args.docs), "--seed", str(args.seed), "--dup-rate", "0",
                    "--format", "warc"], check=True, capture_output=True)
    truth = {}
    for kind in ("orig", "strip"):
        os.makedirs(os.path.join(tmp, kind), exist_ok=True)
    n = 0
    for warc in sorted(glob.glob(os.path.join(corpus, "*.warc"))):
        with open(warc, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response" or rec.http_headers is None:
                    continue
                if rec.http_headers.get_statuscode() != "200":
                    continue
                if "html" not in (rec.http_headers.get_header("Content-Type") or ""):
                    continue
                html = rec.content_stream().read().decode("utf-8", "replace")
                m = LD_RE.search(html)
                if not m:
                    continue
                ld = json.loads(m.group(1).replace("<\\/", "</"))
                if "datePublished" not in ld:
                    continue
                stem = "p%05d" % n
                n += 1
                truth[stem] = {"published": ld["datePublished"][:10],
                               "author": (ld.get("author") or {}).get("name", ""),
                               "type": ld.get("@type", "")}
                with open(os.path.join(tmp, "orig", stem + ".html"), "w", encoding="utf-8") as o:
                    o.write(html)
                with open(os.path.join(tmp, "strip", stem + ".html"), "w", encoding="utf-8") as o:
                    o.write(LD_RE.sub("", html))
    print("== generated pages with a JSON-LD truth: %d (makecorpus --docs %d --seed %d)"
          % (len(truth), args.docs, args.seed))
    print("%-34s %10s %10s" % ("", "date", "author"))
    for kind in ("orig", "strip"):
        label = "as generated" if kind == "orig" else "JSON-LD removed"
        ours = crawlsift_dir(args.crawlsift, os.path.join(tmp, kind), os.path.join(tmp, kind + "-out"))
        theirs = {}
        for stem in truth:
            with open(os.path.join(tmp, kind, stem + ".html"), encoding="utf-8") as f:
                theirs[stem] = trafilatura_meta(f.read())
        for name, got in (("crawlsift", ours), ("trafilatura 2.3.1", theirs)):
            d = sum(1 for s, t in truth.items() if got.get(s, {}).get("published", "") == t["published"])
            a = sum(1 for s, t in truth.items()
                    if norm_author(got.get(s, {}).get("author")) == norm_author(t["author"]))
            print("%-34s %9.1f%% %9.1f%%" % ("%s, %s" % (name, label), 100 * d / len(truth),
                                          100 * a / len(truth)))
        misses = collections.Counter(t["type"] for s, t in truth.items()
                                     if ours.get(s, {}).get("published", "") != t["published"])
        if misses:
            print("   crawlsift date misses by page type (%s): %s" % (label, dict(misses)))


def real(args, tmp):
    pages = sorted(glob.glob(os.path.join(args.shared, "bench", "extraction", "*", "html", "*.html")))
    src = os.path.join(tmp, "real")
    os.makedirs(src, exist_ok=True)
    for p in pages:
        ds = p.split(os.sep)[-3]
        os.symlink(os.path.abspath(p), os.path.join(src, ds + "__" + os.path.basename(p)))
    ours = crawlsift_dir(args.crawlsift, src, os.path.join(tmp, "real-out"))
    theirs = {}
    for p in pages:
        stem = p.split(os.sep)[-3] + "__" + os.path.basename(p)[:-5]
        with open(p, encoding="utf-8", errors="replace") as f:
            theirs[stem] = trafilatura_meta(f.read())
    print("\n== real pages (%s/bench/extraction, %d pages): crawlsift beside trafilatura, no truth"
          % (args.shared, len(pages)))
    print("%-10s %10s %12s %10s %10s" % ("field", "crawlsift", "trafilatura", "both", "agree"))
    for field in ("title", "author", "published", "sitename"):
        both = agree = o = t = 0
        diffs = []
        for stem in theirs:
            a = (ours.get(stem, {}).get(field) or "").strip()
            b = (theirs[stem].get(field) or "").strip()
            o += bool(a)
            t += bool(b)
            if a and b:
                both += 1
                same = (norm_author(a) == norm_author(b)) if field == "author" else (a.lower() == b.lower())
                agree += same
                if not same and len(diffs) < args.examples:
                    diffs.append((stem, a, b))
        print("%-10s %10d %12d %10d %9.1f%%" % (field, o, t, both, 100 * agree / max(both, 1)))
        for stem, a, b in diffs:
            print("   %s: crawlsift %r, trafilatura %r" % (stem, a[:70], b[:70]))
    langs = collections.Counter(ours.get(s, {}).get("language", "") for s in theirs)
    print("languages found by crawlsift: %s" % dict(langs.most_common(8)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--crawlsift", default="target/release/crawlsift")
    ap.add_argument("--docs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--examples", type=int, default=5)
    args = ap.parse_args()
    args.crawlsift = os.path.abspath(args.crawlsift)
    with tempfile.TemporaryDirectory() as tmp:
        generated(args, tmp)
        real(args, tmp)


if __name__ == "__main__":
    main()
