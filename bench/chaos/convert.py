#!/usr/bin/env python3
"""Builds bench/chaos/pages.tar.xz from a checkout of github.com/MSVCode/ir-research-data.

usage: bench/chaos/convert.py REPO_DIR [--pages 150]

Takes the Chaos set (Extraction/chaos-all/{html,gold}): the pages whose names' SHA-1 sort first
(a fixed sample, not chosen by content), decoded to UTF-8 (UTF-8 when the bytes are valid UTF-8,
else windows-1252), with the gold text normalised as the shared benchmark's truth is (blank lines
collapsed, runs of spaces and tabs collapsed, no trailing spaces). Each page goes to the part its
name's hash says ([`part`]): `held/` (kept aside, never tuned on) or `tune/`, as
`<part>/html/<stem>.html` and `<part>/truth/<stem>.txt`, the layout score_extraction.py reads.
"""
import argparse
import hashlib
import io
import os
import re
import sys
import tarfile


def part(stem):
    """`held` for about a third of the pages (the last hex digit of the name's SHA-1 below 5;
    the sample is taken by the leading digits, so the split reads the other end), else `tune`."""
    return "held" if int(hashlib.sha1(stem.encode("utf-8")).hexdigest()[-1], 16) < 5 else "tune"


def text_of(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("windows-1252", errors="replace")


def norm_truth(t):
    lines = [re.sub(r"[ \t]+", " ", l).strip() for l in t.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(l for l in lines if l) + "\n"


def add_page(tar, stem, html, truth):
    """Adds one page and its truth to `tar`, in score_extraction.py's layout, under its part."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_")
    for path, body in ((f"{part(stem)}/html/{safe}.html", html), (f"{part(stem)}/truth/{safe}.txt", truth)):
        data = body.encode("utf-8")
        info = tarfile.TarInfo(path)
        info.size = len(data)
        info.mtime = 0
        tar.addfile(info, io.BytesIO(data))


def pack(out, chosen, paths, limit):
    """Packs the first `limit` pages of `chosen` (stems, in order) whose gold text has a word
    into the tar.xz `out`; `paths(stem)` gives the page's HTML and gold file."""
    kept = 0
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for stem in chosen:
            if kept == limit:
                break
            html_path, gold_path = paths(stem)
            with open(gold_path, "rb") as f:
                truth = norm_truth(text_of(f.read()))
            if not re.search(r"\w", truth):
                continue
            with open(html_path, "rb") as f:
                html = text_of(f.read())
            add_page(tar, stem, html, truth)
            kept += 1
    print(f"{kept} pages -> {out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages.tar.xz"))
    a = ap.parse_args()
    base = os.path.join(a.repo, "Extraction", "chaos-all")
    stems = {}
    for name in os.listdir(os.path.join(base, "html")):
        stem, ext = os.path.splitext(name)
        if ext.lower() in (".htm", ".html") and os.path.exists(os.path.join(base, "gold", stem + ".txt")):
            stems[stem] = name
    chosen = sorted(stems, key=lambda s: hashlib.sha1(s.encode("utf-8")).hexdigest())
    pack(
        a.out,
        chosen,
        lambda stem: (os.path.join(base, "html", stems[stem]), os.path.join(base, "gold", stem + ".txt")),
        a.pages,
    )


if __name__ == "__main__":
    main()
