#!/usr/bin/env python3
"""Scores crawlsift's extraction on the outside benchmarks kept in this repository (bench/<name>/
pages.tar.xz, see each bench/<name>/SOURCE.md), beside trafilatura and Resiliparse, with the same
word-level F1 as the shared benchmark (SHARED/tools/score_extraction.py, run on the unpacked pages).

Each set is split by a hash of the page name into a tuning part (`<name>-tune`) and a part kept
aside (`<name>-held`) that rules are never tuned on: report the held-aside figures.

usage: scripts/outside.py [--shared ../shared] [--crawlsift target/release/crawlsift]
                          [--part held|tune|all] [--args 'EXTRACT ARGS'] [--peers PYTHON]
                          [--worst N] [--bench-dir DIR]

  --worst N   (with --peers and --part tune) also list the N pages where crawlsift's F1
              is furthest below trafilatura's, with both precisions and recalls: where to read
              next. Held-aside pages are never listed, so they stay unread.
  --bench-dir DIR  score the sets already unpacked in DIR (`<set>/html`, `<set>/truth`) instead
              of bench/*/pages.tar.xz: for the pages each bench/<name>/convert.py --rest-dir
              writes out of the repository (never tuned on, never read). No --worst with it.
Exit status 0; the tables go to standard output.
"""
import argparse
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lodo import score  # noqa: E402


def unpack(root, part, into):
    """Unpacks every bench/<name>/pages.tar.xz as datasets `<name>-<part>` under `into`."""
    names = []
    for pack in sorted(glob.glob(os.path.join(root, "bench", "*", "pages.tar.xz"))):
        name = os.path.basename(os.path.dirname(pack))
        with tarfile.open(pack) as tar:
            for m in tar.getmembers():
                head, _, rest = m.name.partition("/")
                if not m.isfile() or (part != "all" and head != part) or ".." in m.name.split("/"):
                    continue
                dest = os.path.join(into, "%s-%s" % (name, head), rest)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with tar.extractfile(m) as src, open(dest, "wb") as out:
                    out.write(src.read())
                names.append("%s-%s" % (name, head))
    return sorted(set(names))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--crawlsift", default="target/release/crawlsift")
    ap.add_argument("--part", choices=["held", "tune", "all"], default="held")
    ap.add_argument("--args", default="--method blocks", help="arguments of `crawlsift extract`")
    ap.add_argument("--peers", help="Python with trafilatura and resiliparse")
    ap.add_argument("--worst", type=int, default=0, help="list the N pages lost most to trafilatura")
    ap.add_argument("--bench-dir", help="score the unpacked sets in DIR instead of bench/*/pages.tar.xz")
    a = ap.parse_args()
    if a.worst and (not a.peers or a.part != "tune" or a.bench_dir):
        sys.exit("--worst needs --peers and --part tune, and no --bench-dir")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    scorer = os.path.join(a.shared, "tools", "score_extraction.py")
    binary = os.path.abspath(a.crawlsift)
    with tempfile.TemporaryDirectory() as tmp:
        if a.bench_dir:
            tmp = os.path.abspath(a.bench_dir)
            sets = sorted(d for d in os.listdir(tmp) if os.path.isdir(os.path.join(tmp, d, "truth")))
        else:
            sets = unpack(root, a.part, tmp)
        if not sets:
            sys.exit("no set found (bench/*/pages.tar.xz, or <set>/truth in --bench-dir)")
        cmd = " ".join([shlex.quote(binary), "extract", a.args, "--html-dir {in} --out-dir {out}"])
        rows = [("crawlsift", score(scorer, a.shared, ["--name", "crawlsift", "--cmd-dir", cmd], bench_dir=tmp))]
        if a.peers:
            for ex in ("trafilatura", "resiliparse"):
                rows.append((ex, score(scorer, a.shared, ["--extractor", ex], python=a.peers, bench_dir=tmp)))
        print("%-12s %8s  " % ("extractor", "mean") + " ".join("%14s" % s[:14] for s in sets))
        for name, (f1, _) in rows:
            print("%-12s %8.4f  " % (name, sum(f1[s] for s in sets) / len(sets)) + " ".join("%14.4f" % f1[s] for s in sets))
        if a.worst:
            worst(scorer, a.shared, cmd, a.peers, tmp, sets, a.worst)
    return 0


def worst(scorer, shared, cmd, peers, bench, sets, n):
    """Prints the `n` pages of `bench` where crawlsift's F1 is furthest below trafilatura's."""
    sys.path.insert(0, os.path.dirname(scorer))
    from score_extraction import prf  # noqa: E402

    saved = tempfile.mkdtemp(prefix="outside-saved-")
    for name, args, python in (("crawlsift", ["--cmd-dir", cmd], sys.executable),
                               ("trafilatura", ["--extractor", "trafilatura"], peers)):
        subprocess.run([python, scorer, "--bench-dir", bench, "--save-dir", os.path.join(saved, name)] + args,
                       check=True, stdout=subprocess.DEVNULL)

    def text(name, ds, page):
        path = os.path.join(saved, name, ds, page)
        return open(path, encoding="utf-8").read() if os.path.exists(path) else ""

    rows = []
    for ds in sets:
        for page in sorted(os.listdir(os.path.join(bench, ds, "truth"))):
            with open(os.path.join(bench, ds, "truth", page), encoding="utf-8") as f:
                truth = f.read()
            ours, theirs = prf(text("crawlsift", ds, page), truth), prf(text("trafilatura", ds, page), truth)
            rows.append((ours[2] - theirs[2], ds, page, ours, theirs))
    rows.sort()
    print("\npages lost most to trafilatura (F1 difference; P, R, F1 of each)")
    for d, ds, page, o, t in rows[:n]:
        print("%+.3f %-14s %-32s crawlsift %.2f %.2f %.3f  trafilatura %.2f %.2f %.3f" % ((d, ds, page) + tuple(o) + tuple(t)))
    shutil.rmtree(saved, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
