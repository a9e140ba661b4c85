#!/usr/bin/env python3
"""How the kernel similarity (stories, issue #35) and the word measure separate rewritten text
from unrelated and from merely related text, on a real paraphrase benchmark, and the story
threshold chosen from it.

Data: the Microsoft Research Paraphrase Corpus (Dolan and Brockett 2005: 5,801 pairs of news
sentences from the same stories, judged by people as paraphrases or not), its files
msr_paraphrase_train.txt and msr_paraphrase_test.txt in MSRP_DIR (public copies exist on GitHub,
e.g. in galsang/ABCNN's MSRP_Corpus folder; not redistributed here). Three kinds of pair:
  rewritten  MSRP pairs judged paraphrases (the same content in other words)
  related    MSRP pairs judged not paraphrases (same story, different content: hard negatives)
  unrelated  two sentences of different MSRP pairs drawn at random (fixed seed), twice as many
             as the rewritten pairs
Each split is scored alone (its distinct sentences are the corpus of kernel commonality) by
`cargo run --release -p crawlsift-reuse --example kernel_pairs`. The threshold is chosen on the
training split: the kernel similarity above which at most 0.1% of unrelated pairs fall. The test
split is reported at it: the share of each kind at or above it, the AUC of rewritten against
unrelated and against related, and the share of rewritten pairs the story sketches compare.
The same for the Dice coefficient of word multisets (what `dedup` clusters with, at 0.7).

With --documents DOCS.trectext --reuse REUSE.jsonl (a TREC text corpus of real pages, such as
../shared/bench/reuse, and crawlsift reuse's pairs of it), the null of whole documents too: every
pair's kernel similarity (`--example kernel_all_pairs`), and at each threshold the pairs at or
above it that share no passage (a rate over all such pairs) and those that do. The sentence
threshold is too low for pages: the story threshold (STORY_MIN_SIMILARITY) is taken from this
null.

usage: scripts/bench_rewriting.py MSRP_DIR [--json OUT] [--at T ...]
                                  [--documents DOCS.trectext --reuse REUSE.jsonl]
"""
import argparse
import bisect
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    rows = []
    with open(path, encoding="utf-8-sig") as f:
        next(f)
        for line in f:
            r = line.rstrip("\n").split("\t")
            if len(r) >= 5:
                rows.append((int(r[0]), r[3], r[4]))
    return rows


def pairs_of(rows, seed):
    out = [("rewritten" if q == 1 else "related", a, b) for q, a, b in rows]
    rng = random.Random(seed)
    n = 2 * sum(1 for q, _, _ in rows if q == 1)
    while n > 0:
        i, j = rng.randrange(len(rows)), rng.randrange(len(rows))
        if i != j:
            out.append(("unrelated", rows[i][1 + rng.randrange(2)], rows[j][1 + rng.randrange(2)]))
            n -= 1
    return out


def score(pairs):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
        for kind, a, b in pairs:
            f.write("%s\t%s\t%s\n" % (kind, a.replace("\t", " "), b.replace("\t", " ")))
        name = f.name
    try:
        out = subprocess.run(["cargo", "run", "-q", "--release", "-p", "crawlsift-reuse",
                              "--example", "kernel_pairs", "--", name],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(name)
    got = {"rewritten": [], "related": [], "unrelated": []}
    for line in out.splitlines():
        kind, kernel, dice, cand = line.split("\t")
        got[kind].append((float(kernel), float(dice), int(cand)))
    return got


def auc(pos, neg):
    neg = sorted(neg)
    wins = sum(bisect.bisect_left(neg, v) + 0.5 * (bisect.bisect_right(neg, v) - bisect.bisect_left(neg, v))
               for v in pos)
    return wins / (len(pos) * len(neg))


def at_or_above(values, t):
    return sum(1 for v in values if v >= t) / len(values)


def document_null(docs, reuse, thresholds):
    sharing = set()
    for line in open(reuse, encoding="utf-8"):
        d = json.loads(line)
        sharing.add(frozenset((d["a"], d["b"])))
    out = subprocess.run(["cargo", "run", "-q", "--release", "-p", "crawlsift-reuse", "--example",
                          "kernel_all_pairs", "--", docs, str(min(thresholds))],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    sims, total = [], 0
    for line in out.splitlines():
        r = line.split("\t")
        if r[0] == "pairs":
            total = int(r[1])
        else:
            sims.append((frozenset(r[:2]) in sharing, float(r[2])))
    res = {"pairs": total, "pairs_sharing_a_passage": len(sharing)}
    for t in thresholds:
        other = sum(1 for sh, v in sims if v >= t and not sh)
        res["at_%g" % t] = {"sharing_a_passage": sum(1 for sh, v in sims if v >= t and sh),
                            "sharing_none": other,
                            "sharing_none_rate": float("%.3g" % (other / max(1, total - len(sharing))))}
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("msrp")
    ap.add_argument("--json")
    ap.add_argument("--documents")
    ap.add_argument("--reuse")
    ap.add_argument("--at", type=float, action="append", default=[],
                    help="also report the test split at this kernel similarity (repeatable)")
    a = ap.parse_args()
    files = [os.path.join(a.msrp, "msr_paraphrase_%s.txt" % s) for s in ("train", "test")]
    for f in files:
        if not os.path.isfile(f):
            sys.exit("bench_rewriting: %s not found" % f)
    train, test = (score(pairs_of(load(f), seed)) for f, seed in zip(files, (1, 2)))
    result = {}
    for m, name in ((0, "kernel"), (1, "dice")):
        unrel = sorted(x[m] for x in train["unrelated"])
        t = unrel[min(len(unrel) - 1, int(len(unrel) * 0.999))]
        t = t + 1e-6
        res = {"threshold_from_train": round(t, 4)}
        for kind in ("rewritten", "related", "unrelated"):
            res["test_%s_at_or_above" % kind] = round(at_or_above([x[m] for x in test[kind]], t), 4)
        res["test_auc_rewritten_vs_unrelated"] = round(
            auc([x[m] for x in test["rewritten"]], [x[m] for x in test["unrelated"]]), 4)
        res["test_auc_rewritten_vs_related"] = round(
            auc([x[m] for x in test["rewritten"]], [x[m] for x in test["related"]]), 4)
        med = sorted(x[m] for x in test["rewritten"])
        res["test_rewritten_median"] = round(med[len(med) // 2], 4)
        result[name] = res
    found = [x for x in test["rewritten"] if x[0] >= result["kernel"]["threshold_from_train"]]
    result["kernel"]["test_rewritten_above_and_compared"] = round(
        sum(x[2] for x in found) / max(1, len(found)), 4)
    for t in a.at:
        result["kernel"]["test_at_%g" % t] = {
            kind: round(at_or_above([x[0] for x in test[kind]], t), 4)
            for kind in ("rewritten", "related", "unrelated")}
    if a.documents:
        result["documents"] = document_null(a.documents, a.reuse, [0.05, 0.1, 0.15, 0.2, 0.25, 0.3])
    result["pairs"] = {s: {k: len(v) for k, v in d.items()} for s, d in (("train", train), ("test", test))}
    print(json.dumps(result, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
