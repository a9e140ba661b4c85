#!/usr/bin/env python3
"""Mean page F1 per page type of several extractors' saved outputs on one dataset folder.

Scores like ../shared/tools/score_extraction.py (its `prf`, imported from it): bag-of-tokens F1 of
each page's text against its truth; a page an extractor wrote nothing for scores as empty text.
Page types come from a WCXB-style pages.json (`stem`, `type`, `domain`).

usage: scripts/extraction_by_type.py --scorer ../shared/tools/score_extraction.py \\
           --dataset DIR (html/ + truth/) --pages pages.json NAME=SAVED_DIR [NAME=SAVED_DIR ...]
SAVED_DIR holds <stem>.txt per page (score_extraction.py --save-dir writes DIR/<dataset>/<stem>.txt).
"""
import argparse
import collections
import importlib.util
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scorer", required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--pages", required=True)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("score_extraction", a.scorer)
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    meta = {m["stem"]: m for m in json.load(open(a.pages, encoding="utf-8"))}
    stems = sorted(f[:-4] for f in os.listdir(os.path.join(a.dataset, "truth")) if f.endswith(".txt"))
    runs = [r.split("=", 1) for r in a.runs]
    f1 = {name: {} for name, _ in runs}
    for s in stems:
        truth = open(os.path.join(a.dataset, "truth", s + ".txt"), encoding="utf-8").read()
        for name, d in runs:
            p = os.path.join(d, s + ".txt")
            pred = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
            f1[name][s] = scorer.prf(pred, truth)[2]
    groups = collections.defaultdict(list)
    for s in stems:
        groups[meta.get(s, {}).get("type", "?")].append(s)
    def sites(ss):
        return len({meta.get(s, {}).get("domain") for s in ss})

    print("| page type | pages | sites | " + " | ".join(n for n, _ in runs) + " |")
    print("|---|---|---|" + "---|" * len(runs))
    rows = [("all", stems)] + sorted(groups.items())
    for label, ss in rows:
        means = [sum(f1[n][s] for s in ss) / len(ss) for n, _ in runs]
        best = max(means)
        cells = [("**%.3f**" if m == best else "%.3f") % m for m in means]
        print("| %s | %d | %d | %s |" % (label, len(ss), sites(ss), " | ".join(cells)))


if __name__ == "__main__":
    main()
