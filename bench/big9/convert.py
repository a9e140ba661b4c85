#!/usr/bin/env python3
"""Builds bench/big9/pages.tar.xz from a checkout of github.com/MSVCode/ir-research-data.

usage: bench/big9/convert.py REPO_DIR [--pages 100] [--rest-dir DIR]

Takes the Big9 set (Extraction/big5-{05,09,13,17}/{html,gold}: pages of nine news sites from
2005, 2009, 2013 and 2017): the pages whose names (`<year>-<stem>`) have the SHA-1s that sort
first (a fixed sample, not chosen by content), decoded and normalised as bench/chaos/convert.py
does, split into `held/` and `tune/` by the same rule (the last hex digit of the name's SHA-1
below 5 is held aside), in score_extraction.py's layout. `--rest-dir DIR` writes the pages not
packed to `DIR/big9-rest/`, as bench/chaos/convert.py does.
"""
import argparse
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chaos"))
from convert import pack  # noqa: E402

YEARS = ("05", "09", "13", "17")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages.tar.xz"))
    ap.add_argument("--rest-dir", help="also write the pages not packed, unpacked, to DIR/big9-rest/")
    a = ap.parse_args()
    pages = {}
    for year in YEARS:
        base = os.path.join(a.repo, "Extraction", "big5-" + year)
        for name in os.listdir(os.path.join(base, "html")):
            stem, ext = os.path.splitext(name)
            gold = os.path.join(base, "gold", stem + ".txt")
            if ext.lower() in (".htm", ".html") and os.path.exists(gold):
                pages["20%s-%s" % (year, stem)] = (os.path.join(base, "html", name), gold)
    chosen = sorted(pages, key=lambda s: hashlib.sha1(s.encode("utf-8")).hexdigest())
    pack(a.out, chosen, lambda stem: pages[stem], a.pages, a.rest_dir, "big9-rest")


if __name__ == "__main__":
    main()
