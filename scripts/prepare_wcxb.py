#!/usr/bin/env python3
"""Lays a checkout of the WCXB benchmark out for crawlsift's extraction scripts (issue #33).

WCXB (`Murrough-Foley/web-content-extraction-benchmark`, 2,008 pages of 2025) stores each page as
`{dev,test}/html/<id>.html.gz` with its truth in `{dev,test}/ground-truth/<id>.json`
(`ground_truth.main_content`). This writes, under OUT:

  html/<split>-<id>.html    the page, gunzipped
  truth/<split>-<id>.txt    its main_content, ending in a newline
  pages.json                [{"stem", "type", "domain", "split"}] in stem order

the same stems and truth as ../shared/bench/extraction/wcxb (see its INDEX.md). Left out, and
counted:
  - the pages of ../shared/bench/extraction/wcxb-reserved.txt (kept aside for independent
    evaluation), by file id whatever split metadata.json gives them: only their ids and domains
    are looked at, never their pages or truth;
  - every other page of a site a reserved page belongs to (pages of one site share a template);
  - pages whose truth is empty.

Used by scripts/train_extractor.py (`table --wcxb OUT`) and scripts/extraction_by_type.py.

usage: scripts/prepare_wcxb.py WCXB_CHECKOUT OUT [--shared ../shared]
"""
import argparse
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def reserved_ids(path):
    """The file ids (the part after `split-`) of the reserved list."""
    ids = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                ids.add(line.split("-", 1)[1])
    return ids


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout")
    ap.add_argument("out")
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    a = ap.parse_args()
    meta = json.load(open(os.path.join(a.checkout, "metadata.json"), encoding="utf-8"))["files"]
    reserved = reserved_ids(os.path.join(a.shared, "bench", "extraction", "wcxb-reserved.txt"))
    reserved_sites = {meta[i]["domain"] for i in reserved if i in meta}
    for sub in ("html", "truth"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    pages, dropped = [], {"reserved": 0, "reserved_site": 0, "empty_truth": 0}
    for fid in sorted(meta):
        m = meta[fid]
        if fid in reserved:
            dropped["reserved"] += 1
            continue
        if m["domain"] in reserved_sites:
            dropped["reserved_site"] += 1
            continue
        split = m["split"]
        with open(os.path.join(a.checkout, split, "ground-truth", fid + ".json"), encoding="utf-8") as f:
            truth = (json.load(f).get("ground_truth") or {}).get("main_content") or ""
        if not truth.strip():
            dropped["empty_truth"] += 1
            continue
        stem = "%s-%s" % (split, fid)
        with gzip.open(os.path.join(a.checkout, split, "html", fid + ".html.gz"), "rb") as f:
            html = f.read()
        with open(os.path.join(a.out, "html", stem + ".html"), "wb") as f:
            f.write(html)
        with open(os.path.join(a.out, "truth", stem + ".txt"), "w", encoding="utf-8") as f:
            f.write(truth if truth.endswith("\n") else truth + "\n")
        pages.append({"stem": stem, "type": m["page_type"], "domain": m["domain"], "split": split})
    with open(os.path.join(a.out, "pages.json"), "w", encoding="utf-8") as f:
        json.dump(pages, f, indent=0)
    print("%d pages of %d sites in %s; left out: %s" % (
        len(pages), len({p["domain"] for p in pages}), a.out,
        ", ".join("%s %d" % kv for kv in dropped.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
