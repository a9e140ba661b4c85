#!/usr/bin/env python3
"""Leave-one-dataset-out (LODO) scores of the `learned` extraction method over the six datasets of
SHARED/bench/extraction: for each dataset D, the model is trained on the committed table without
D's rows (`scripts/train_extractor.py fit --exclude D`; leaving wcxb out leaves every WCXB page
out), the binary is rebuilt with it, and D is scored with SHARED/tools/score_extraction.py. The
committed model is put back at the end. Pages are extracted by the library-only twin of
`crawlsift extract --html-dir` (examples/html_dir, rebuilt per fold: far quicker than the binary). The table never holds
the held-out WCXB sites (see train_extractor.py).

usage: scripts/lodo_learned.py [--shared ../shared] [--json FILE]
Prints a table: dataset, LODO F1 of `learned`, F1 of `blocks` (for reference), and their means.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from lodo import score  # noqa: E402

SETS = ["cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability", "wcxb"]
MODEL = os.path.join(ROOT, "crates", "extractor", "src", "learned", "model.rs")
# The library-only twin of `crawlsift extract --html-dir` (crates/extractor/examples/html_dir.rs):
# rebuilding it for each fold takes a fraction of the whole binary's build.
BIN = os.path.join(ROOT, "target", "release", "examples", "html_dir")


def build():
    subprocess.run(["cargo", "build", "--quiet", "--release", "--locked", "-p", "crawlsift-extractor",
                    "--example", "html_dir"], check=True, cwd=ROOT)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--json")
    a = ap.parse_args()
    scorer = os.path.join(a.shared, "tools", "score_extraction.py")
    saved = tempfile.mktemp(suffix=".rs")
    shutil.copyfile(MODEL, saved)
    learned, blocks = {}, {}
    try:
        for d in SETS:
            subprocess.run([sys.executable, os.path.join(HERE, "train_extractor.py"), "fit", "--exclude", d],
                           check=True, cwd=ROOT)
            build()
            for method, into in (("learned", learned), ("blocks", blocks)):
                if method == "blocks" and d in blocks:
                    continue
                cmd = "%s {in} {out} %s" % (BIN, method)
                r, _ = score(scorer, a.shared, ["--name", method, "--cmd-dir", cmd, "--datasets", d])
                into[d] = r[d]
            print("%s: learned %.4f, blocks %.4f" % (d, learned[d], blocks[d]), file=sys.stderr)
    finally:
        shutil.copyfile(saved, MODEL)
        os.unlink(saved)
        build()
    mean = lambda xs: sum(xs) / len(xs)
    print("| dataset | learned (trained without it) | blocks |")
    print("|---|---|---|")
    for d in SETS:
        print("| %s | %.4f | %.4f |" % (d, learned[d], blocks[d]))
    print("| mean | %.4f | %.4f |" % (mean([learned[d] for d in SETS]), mean([blocks[d] for d in SETS])))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"learned_lodo": learned, "blocks": blocks}, f, indent=1)


if __name__ == "__main__":
    main()
