#!/usr/bin/env python3
"""Builds bench/chaos/pages.tar.xz from a checkout of github.com/MSVCode/ir-research-data.

usage: bench/chaos/convert.py REPO_DIR [--pages 150] [--rest-dir DIR]

Takes the Chaos set (Extraction/chaos-all/{html,gold}): the pages whose names' SHA-1 sort first
(a fixed sample, not chosen by content), decoded to UTF-8 (UTF-8 when the bytes are valid UTF-8,
else windows-1252), with the gold text normalised as the shared benchmark's truth is (blank lines
collapsed, runs of spaces and tabs collapsed, no trailing spaces). Each page goes to the part its
name's hash says ([`part`]): `held/` (kept aside, never tuned on) or `tune/`, as
`<part>/html/<stem>.html` and `<part>/truth/<stem>.txt`, the layout score_extraction.py reads.

With `--rest-dir DIR`, the pages *not* packed (those past `--pages` in the same order) are written
unpacked to `DIR/chaos-rest/{html,truth}/`, in the same layout and with the same decoding: pages no
rule was ever tuned on, kept out of the repository (see SOURCE.md's terms), for
`scripts/outside.py --bench-dir DIR`.
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


def page_files(stem, html, truth, folder):
    """The two files of one page, (relative path, bytes), in score_extraction.py's layout under
    `folder` (the page's part when None)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_")
    folder = folder or part(stem)
    return ((f"{folder}/html/{safe}.html", html.encode("utf-8")), (f"{folder}/truth/{safe}.txt", truth.encode("utf-8")))


def add_page(tar, stem, html, truth):
    """Adds one page and its truth to `tar`, in score_extraction.py's layout, under its part."""
    for path, data in page_files(stem, html, truth, None):
        info = tarfile.TarInfo(path)
        info.size = len(data)
        info.mtime = 0
        tar.addfile(info, io.BytesIO(data))


def pages_with_words(chosen, paths):
    """(stem, html, truth) of the pages of `chosen`, in order, whose gold text has a word."""
    for stem in chosen:
        html_path, gold_path = paths(stem)
        with open(gold_path, "rb") as f:
            truth = norm_truth(text_of(f.read()))
        if not re.search(r"\w", truth):
            continue
        with open(html_path, "rb") as f:
            html = text_of(f.read())
        yield stem, html, truth


def pack(out, chosen, paths, limit, rest_dir=None, rest_name=None):
    """Packs the first `limit` pages of `chosen` (stems, in order) whose gold text has a word
    into the tar.xz `out`; `paths(stem)` gives the page's HTML and gold file. With `rest_dir`,
    the pages past `limit` are written unpacked to `rest_dir/rest_name/` instead of skipped."""
    kept = rest = 0
    with tarfile.open(out, "w:xz", preset=9) as tar:
        for stem, html, truth in pages_with_words(chosen, paths):
            if kept < limit:
                add_page(tar, stem, html, truth)
                kept += 1
                continue
            if rest_dir is None:
                break
            for path, data in page_files(stem, html, truth, rest_name):
                dest = os.path.join(rest_dir, path)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as f:
                    f.write(data)
            rest += 1
    print(f"{kept} pages -> {out}", file=sys.stderr)
    if rest_dir is not None:
        print(f"{rest} pages -> {os.path.join(rest_dir, rest_name)}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages.tar.xz"))
    ap.add_argument("--rest-dir", help="also write the pages not packed, unpacked, to DIR/chaos-rest/")
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
        a.rest_dir,
        "chaos-rest",
    )


if __name__ == "__main__":
    main()
