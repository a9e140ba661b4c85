#!/usr/bin/env python3
"""Leave-one-dataset-out (LODO) scores of crawlsift's extraction, beside the plain mean.

Every candidate configuration (a `crawlsift extract` command line) is scored once on the six
datasets of SHARED/bench/extraction with SHARED/tools/score_extraction.py. Then, for each dataset
in turn, the candidate with the best mean F1 on the *other five* is chosen and scored on the one
left out; the LODO figure is the mean of those six held-out scores. A choice (of method, rule or
threshold) that only helps the set it was made on shows as a LODO figure below the plain one.
The plain figure is the usual mean of the six dataset means of each candidate.

usage: scripts/lodo.py [--shared ../shared] [--crawlsift target/release/crawlsift]
                       [--candidate NAME='ARGS' ...] [--peers PYTHON] [--json FILE]

  --candidate NAME='ARGS'  extra arguments of `crawlsift extract` for one candidate (repeatable;
                           default: `plateau`, `full`, and `blocks` with its default shares and
                           with each `--tune` share moved one step either way, one at a time)
  --peers PYTHON           also score trafilatura and resiliparse with this Python (a venv with
                           trafilatura 2.3.1 and resiliparse 2.0.0) in the same run, for reference
Exit status 0; the tables go to standard output.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def score(scorer, shared, args, python=sys.executable, bench_dir=None):
    """Per-dataset mean F1 and pages/s of one scorer run (on SHARED/bench/extraction unless
    `bench_dir` names another folder of the same layout)."""
    bench_dir = bench_dir or os.path.join(shared, "bench", "extraction")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as t:
        out = t.name
    try:
        cmd = [python, scorer, "--bench-dir", bench_dir, "--json", out] + args
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as f:
            r = json.load(f)["results"][0]
        return {d: v["mean_f1"] for d, v in r["datasets"].items()}, r["pages_per_s"]
    finally:
        os.unlink(out)


# The shares of `crawlsift extract --tune`, their defaults and the values tried beside them.
GRID = {
    "article_share": (0.3, [0.2, 0.25, 0.35, 0.4]),
    "sibling_share": (0.2, [0.15, 0.3]),
    "alt_share": (0.65, [0.55, 0.75]),
    "min_clean_share": (0.25, [0.15, 0.35]),
}


def default_candidates():
    cands = [["blocks", "--method blocks"]]
    for name, (_, values) in GRID.items():
        for v in values:
            cands.append(["%s=%g" % (name, v), "--method blocks --tune %s=%g" % (name, v)])
    return cands + [["plateau", "--method plateau"], ["full", "--method full"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--crawlsift", default="target/release/crawlsift")
    ap.add_argument("--candidate", action="append", default=[])
    ap.add_argument("--peers", help="Python with trafilatura and resiliparse")
    ap.add_argument("--json")
    a = ap.parse_args()
    scorer = os.path.join(a.shared, "tools", "score_extraction.py")
    binary = os.path.abspath(a.crawlsift)
    cands = [c.split("=", 1) for c in a.candidate] or default_candidates()
    scores, speed = {}, {}
    for name, extra in cands:
        cmd = " ".join([shlex.quote(binary), "extract", extra, "--html-dir {in} --out-dir {out}"])
        scores[name], speed[name] = score(scorer, a.shared, ["--name", name, "--cmd-dir", cmd])
    datasets = sorted(next(iter(scores.values())))
    mean = lambda xs: sum(xs) / len(xs)

    print("== plain: mean F1 per dataset (candidates of crawlsift)")
    print("%-22s %8s %9s  " % ("candidate", "mean", "pages/s") + " ".join("%12s" % d[:12] for d in datasets))
    for name in scores:
        print("%-22s %8.4f %9.1f  " % (name, mean([scores[name][d] for d in datasets]), speed[name])
              + " ".join("%12.4f" % scores[name][d] for d in datasets))

    print("\n== leave one dataset out: chosen on the other five, scored on the one left out")
    print("%-16s %-22s %11s %13s" % ("held out", "chosen", "held-out F1", "F1 on other 5"))
    held = []
    for d in datasets:
        rest = [x for x in datasets if x != d]
        best = max(scores, key=lambda n: (mean([scores[n][x] for x in rest]), n))
        held.append(scores[best][d])
        print("%-16s %-22s %11.4f %13.4f" % (d, best, scores[best][d], mean([scores[best][x] for x in rest])))
    lodo = mean(held)
    best_plain = max(scores, key=lambda n: mean([scores[n][x] for x in datasets]))
    plain = mean([scores[best_plain][x] for x in datasets])
    print("\nLODO mean F1 %.4f   plain mean F1 %.4f (%s)   plateau %.4f" % (
        lodo, plain, best_plain, mean([scores["plateau"][x] for x in datasets]) if "plateau" in scores else float("nan")))

    peers = {}
    if a.peers:
        for ex in ("trafilatura", "resiliparse"):
            peers[ex] = score(scorer, a.shared, ["--extractor", ex], python=a.peers)
        print("\n== peers in the same run (a fixed extractor's LODO figure is its plain mean)")
        for ex, (s, pps) in peers.items():
            print("%-12s %8.4f %9.1f  " % (ex, mean([s[d] for d in datasets]), pps)
                  + " ".join("%12.4f" % s[d] for d in datasets))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"candidates": scores, "pages_per_s": speed, "lodo_mean_f1": lodo,
                       "plain_mean_f1": plain, "peers": {k: v[0] for k, v in peers.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
