#!/usr/bin/env python3
"""Recall on SHARED/bench/realpages split by where the two pages' reference texts come from.

The benchmark's references are of two kinds (truth.jsonl's `source`): `gold:*`, the hand-made main
text of the extraction benchmarks' pages, and `trafilatura:*`, trafilatura's output on pages of
real crawl files. A reference pair is a duplicate when the two references share >= 0.8 of their
words (SHARED/tools/realpages.py's rule, reused here). This prints, for each kind of pair
(gold+gold, gold+trafilatura, trafilatura+trafilatura), how many reference duplicate pairs the
clusters join, and the pairs they miss with the words crawlsift extracted from each page (from
OUT/documents.jsonl.gz beside the clusters, when there is one: the peer pipeline writes only
clusters), so a miss can be read against what the pages say.

usage: scripts/realpages_split.py SHARED_DIR OUT_DIR [--min-gold-recall R]
  --min-gold-recall R   exit 1 when the recall on gold+gold pairs is below R
Exit status 0 otherwise.
"""
import argparse
import collections
import gzip
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shared")
    ap.add_argument("out")
    ap.add_argument("--min-gold-recall", type=float)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.shared, "tools"))
    import realpages as rp  # noqa: E402

    bench = os.path.join(a.shared, "bench", "realpages")
    truth = {}
    for line in open(os.path.join(bench, "truth.jsonl"), encoding="utf-8"):
        d = json.loads(line)
        truth[d["id"]] = d
    bags = {}
    for line in gzip.open(os.path.join(bench, "ref.jsonl.gz"), "rt", encoding="utf-8"):
        d = json.loads(line)
        ws = rp.words(d["text"])
        if len(ws) >= rp.MIN_WORDS:
            bags[d["id"]] = collections.Counter(ws)
    cluster = {}
    for n, line in enumerate(open(os.path.join(a.out, "clusters.jsonl"), encoding="utf-8")):
        for m in json.loads(line)["members"]:
            cluster[m["id"]] = n
    words = {}
    documents = os.path.join(a.out, "documents.jsonl.gz")
    for line in gzip.open(documents, "rt", encoding="utf-8") if os.path.exists(documents) else []:
        d = json.loads(line)
        words[d["id"]] = d.get("words", d.get("skipped"))
    ids = sorted(bags, key=lambda i: (sum(bags[i].values()), i))
    lens = [sum(bags[i].values()) for i in ids]
    total, found, missed = collections.Counter(), collections.Counter(), []
    for x in range(len(ids)):
        for y in range(x + 1, len(ids)):
            if lens[x] < rp.DUP * lens[y]:
                break
            if rp.overlap(bags[ids[x]], bags[ids[y]]) < rp.DUP:
                continue
            pair = (ids[x], ids[y])
            kind = "+".join(sorted(truth[i]["source"].split(":")[0] for i in pair))
            total[kind] += 1
            if cluster.get(pair[0]) is not None and cluster.get(pair[0]) == cluster.get(pair[1]):
                found[kind] += 1
            else:
                missed.append((kind, pair))
    for kind in sorted(total):
        print("%-24s recall %.4f (%d of %d reference duplicate pairs in one cluster)"
              % (kind, found[kind] / total[kind], found[kind], total[kind]))
    for kind, pair in sorted(missed, key=lambda m: (m[0], [truth[i]["url"] for i in m[1]])):
        print("  missed %-22s %s" % (kind, "  |  ".join(
            "%s (reference %d words, extracted %s)" % (truth[i]["url"][:60], truth[i]["ref_words"], words.get(i))
            for i in pair)))
    gold = found["gold+gold"] / total["gold+gold"] if total["gold+gold"] else 1.0
    if a.min_gold_recall is not None and gold < a.min_gold_recall:
        print("gold+gold recall %.4f below %.4f" % (gold, a.min_gold_recall), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
