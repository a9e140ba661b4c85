#!/usr/bin/env python3
"""Training table and model of crawlsift's `learned` extraction method (issue #33).

Two steps, standard library only:

  table   Dumps every page's blocks with `crawlsift extract --dump-blocks` (features computed by the
          binary itself), labels each block from the page's hand-made truth, and writes the
          training table scripts/extractor-model/blocks-by-column.tsv.xz (transposed: a line per column)
          and its data list
          scripts/extractor-model/pages.tsv (dataset, page, sha256 of the html, role). Needs the
          data (../shared and a WCXB folder); CI never runs it.
  fit     Trains the gradient-boosted trees, two stages (stacking; the second the mean of four
          models), from the committed table
          (`cargo run --example train_gbdt`, deterministic whatever its threads) and writes crates/extractor/src/learned/model.rs.
          `--exclude DATASET` leaves a dataset's rows out (leave-one-dataset-out, scripts/lodo_learned.py).

Label: a block is content when at least half of its word-token trigrams (tokens: lowercased
Unicode \\w+ runs, as ../shared/tools/score_extraction.py counts them; bigram or token for blocks
of two or one tokens) occur in the truth. Weight: the block's
share of its page's tokens (x100), so every page counts alike, as the mean page F1 does. Blocks
without tokens are left out (they change no score).

Held-out part: WCXB pages whose site (domain) hashes to 0 mod 4 (sha256 of the domain, first
byte) are never in the table; `--holdout-dir` lays them out as a dataset (html/ + truth/) for
../shared/tools/score_extraction.py. Pages of ../shared's wcxb sample are WCXB pages: their site
decides too.

  check   Re-dumps ../shared's pages of the table with the current binary and compares their rows
          with the committed ones: a feature changed without a new table and model fails.

usage: scripts/train_extractor.py table --shared ../shared --wcxb DIR [--crawlsift BIN] [--holdout-dir DIR]
       scripts/train_extractor.py fit [--exclude DATASET ...] [--table FILE] [--out FILE]
       scripts/train_extractor.py check --shared ../shared [--crawlsift BIN]
"""
import argparse
import collections
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TABLE = os.path.join(HERE, "extractor-model", "blocks-by-column.tsv.xz")
PAGES = os.path.join(HERE, "extractor-model", "pages.tsv")
MODEL = os.path.join(ROOT, "crates", "extractor", "src", "learned", "model.rs")
SHARED_SETS = ["cleaneval", "cleanportaleval", "dragnet", "l3s-gn1", "readability", "wcxb"]
TREES = 200
TOKEN = re.compile(r"\w+", re.UNICODE)


def held_out(domain):
    """Whether a WCXB site is in the held-out part (about a quarter of the sites)."""
    return hashlib.sha256(domain.encode("utf-8")).digest()[0] % 4 == 0


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def dump(binary, html_dir, out_dir):
    subprocess.run([binary, "extract", "--dump-blocks", "--html-dir", html_dir,
                    "--out-dir", out_dir, "-j", "2"], check=True, stderr=subprocess.DEVNULL)


def ngrams(tokens):
    """The token unigrams, bigrams and trigrams of a text, as a set."""
    out = set(tokens)
    for n in (2, 3):
        out.update(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return out


def content(tokens, truth):
    """Whether a block is content: at least half of its token trigrams (bigram or token for
    blocks of two or one tokens) occur in the truth. Trigrams, not tokens: a menu or a "read
    more" line shares common words with any article, seldom three in a row."""
    n = min(3, len(tokens))
    grams = [tuple(tokens[i:i + n]) if n > 1 else tokens[i] for i in range(len(tokens) - n + 1)]
    return 2 * sum(1 for g in grams if g in truth) >= len(grams)


def q(value):
    """A feature as the table stores it: whole numbers as they are, others to 3 significant
    digits. The trees split on at most 64 quantile bins per feature, so the digits dropped change
    no decision worth having, and they are most of the table's compressed size."""
    v = float(value)
    if v == int(v) and abs(v) < 1e7:
        return str(int(v))
    return "%.3g" % v


def write_table(header, rows):
    """Writes the table to TABLE, transposed: one line per column (its name, then its values in
    row order, tab-separated). Each column's values repeat among themselves, so xz packs the
    transposed table to about 60% of the row-major one (3.9 MB against 6.5 MB). xz without a
    timestamp or anything else that varies: the same table gives the same bytes."""
    columns = [[name] for name in header]
    for row in rows:
        for col, value in zip(columns, row):
            col.append(value)
    data = "".join("\t".join(col) + "\n" for col in columns).encode("utf-8")
    with open(TABLE, "wb") as f:
        f.write(lzma.compress(data, format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME))


def read_table(path):
    """The table's raw bytes and its lines row by row (the header first), each ending in a
    newline, as `train_gbdt` reads them: the transposed file of write_table turned back."""
    with open(path, "rb") as f:
        raw = f.read()
    columns = [line.split("\t") for line in lzma.decompress(raw).decode("utf-8").splitlines()]
    return raw, ["\t".join(row) + "\n" for row in zip(*columns)]


def rows_of(dataset, stem, dump_path, truth_text):
    """The table rows of one page: (id, label, weight, feature strings)."""
    truth = ngrams(TOKEN.findall(truth_text.lower()))
    with open(dump_path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        blocks = [line.rstrip("\n").split("\t") for line in f]
    nf = len(header) - 3
    toks = [TOKEN.findall(b[-1].lower()) if len(b) == nf + 3 else [] for b in blocks]
    total = sum(len(t) for t in toks)
    rows = []
    for i, (b, t) in enumerate(zip(blocks, toks)):
        if not t:
            continue
        label = 1 if content(t, truth) else 0
        weight = "%.3g" % (100.0 * len(t) / total)
        rows.append(("%s/%s#%d" % (dataset, stem, i), label, weight, [q(v) for v in b[2:2 + nf]]))
    return header[2:2 + nf], rows


def cmd_table(a):
    binary = os.path.abspath(a.crawlsift)
    meta = json.load(open(os.path.join(a.wcxb, "pages.json"), encoding="utf-8"))
    domain = {m["stem"]: m["domain"] for m in meta}
    sets = [("wcxb-all", a.wcxb, [m["stem"] for m in meta if not held_out(m["domain"])])]
    for d in SHARED_SETS:
        base = os.path.join(a.shared, "bench", "extraction", d)
        stems = sorted(f[:-5] for f in os.listdir(os.path.join(base, "html")) if f.endswith(".html"))
        if d == "wcxb":  # the sample is a subset of WCXB: its site decides, its rows come once
            stems = [s for s in stems if s in domain and not held_out(domain[s])]
        sets.append((d, base, stems))
    shared_wcxb = set(sets[-1][2])
    sets[0] = ("wcxb-all", a.wcxb, [s for s in sets[0][2] if s not in shared_wcxb])
    if a.holdout_dir:
        for sub in ("html", "truth"):
            os.makedirs(os.path.join(a.holdout_dir, sub), exist_ok=True)
        n = 0
        for m in meta:
            if held_out(m["domain"]):
                for sub, ext in (("html", ".html"), ("truth", ".txt")):
                    shutil.copyfile(os.path.join(a.wcxb, sub, m["stem"] + ext),
                                    os.path.join(a.holdout_dir, sub, m["stem"] + ext))
                n += 1
        print("held-out part: %d pages of %d sites in %s" % (
            n, len({m["domain"] for m in meta if held_out(m["domain"])}), a.holdout_dir), file=sys.stderr)
    names, table, pages = None, [], []
    with tempfile.TemporaryDirectory() as tmp:
        for dataset, base, stems in sets:
            src = os.path.join(tmp, "in-" + dataset)
            out = os.path.join(a.dumps or tmp, "out-" + dataset)
            os.makedirs(src)
            for s in stems:
                os.symlink(os.path.abspath(os.path.join(base, "html", s + ".html")), os.path.join(src, s + ".html"))
            if not (a.dumps and a.reuse_dumps and os.path.isdir(out)):
                dump(binary, src, out)
            for s in stems:
                with open(os.path.join(base, "truth", s + ".txt"), encoding="utf-8") as f:
                    truth = f.read()
                names, rows = rows_of(dataset, s, os.path.join(out, s + ".blocks.tsv"), truth)
                table.extend(rows)
                pages.append((dataset, s, sha256_file(os.path.join(base, "html", s + ".html"))))
    header = ["id", "label", "weight"] + list(names)
    write_table(header, ([rid, str(label), weight] + feats for rid, label, weight, feats in table))
    with open(PAGES, "w", encoding="utf-8") as f:
        f.write("# dataset\tpage\tsha256 of the html (wcxb-all: WCXB pages outside ../shared's sample)\n")
        for p in pages:
            f.write("\t".join(p) + "\n")
    print("table: %d rows from %d pages -> %s (%d bytes)" % (
        len(table), len(pages), TABLE, os.path.getsize(TABLE)), file=sys.stderr)


def excluded(rid, exclude):
    dataset = rid.split("/", 1)[0]
    # Leaving WCXB out leaves every WCXB page out, the sample's and the rest.
    return dataset in exclude or ("wcxb" in exclude and dataset == "wcxb-all")


def cmd_fit(a):
    raw, lines = read_table(a.table)
    kept = [lines[0]] + [l for l in lines[1:] if not excluded(l.split("\t", 1)[0], set(a.exclude))]
    proc = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "--locked", "-p", "crawlsift-extractor",
         "--example", "train_gbdt", "--", str(a.trees)],
        input="".join(kept).encode("utf-8"), stdout=subprocess.PIPE, check=True, cwd=ROOT)
    what = "scripts/extractor-model/%s (sha256 %s)" % (os.path.basename(a.table), hashlib.sha256(raw).hexdigest())
    if a.exclude:
        what += ", without " + ", ".join(sorted(a.exclude))
    head = ("//! The `learned` method's model: two stages of gradient-boosted trees of depth 4 (%d trees, the\n"
            "//! second stage the mean of four such models), over the block features of `features.rs` and\n"
            "//! then also their `context.rs`. Generated by\n"
            "//! `scripts/train_extractor.py fit` from\n"
            "//! %s,\n"
            "//! %d rows; do not edit by hand (`scripts/ci-gates/extraction_model.sh` retrains and compares).\n\n"
            % (a.trees, what, len(kept) - 1))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(head + proc.stdout.decode("utf-8"))


def cmd_check(a):
    """The committed rows of ../shared's pages equal what the current binary dumps for them."""
    binary = os.path.abspath(a.crawlsift)
    table = [line.rstrip("\n") for line in read_table(a.table)[1]]
    committed = {}
    for line in table[1:]:
        rid = line.split("\t", 1)[0]
        if rid.split("/", 1)[0] in SHARED_SETS:
            committed[rid] = line
    listed = collections.defaultdict(list)
    bad = 0
    for line in open(PAGES, encoding="utf-8"):
        if line.startswith("#"):
            continue
        dataset, stem, digest = line.rstrip("\n").split("\t")
        if dataset not in SHARED_SETS:
            continue
        path = os.path.join(a.shared, "bench", "extraction", dataset, "html", stem + ".html")
        if not os.path.exists(path) or sha256_file(path) != digest:
            print("check: %s/%s missing or changed (sha256)" % (dataset, stem), file=sys.stderr)
            bad += 1
            continue
        listed[dataset].append(stem)
    seen = 0
    with tempfile.TemporaryDirectory() as tmp:
        for dataset, stems in sorted(listed.items()):
            base = os.path.join(a.shared, "bench", "extraction", dataset)
            src, out = os.path.join(tmp, "in-" + dataset), os.path.join(tmp, "out-" + dataset)
            os.makedirs(src)
            for s in stems:
                os.symlink(os.path.abspath(os.path.join(base, "html", s + ".html")), os.path.join(src, s + ".html"))
            dump(binary, src, out)
            for s in stems:
                with open(os.path.join(base, "truth", s + ".txt"), encoding="utf-8") as f:
                    truth = f.read()
                _, rows = rows_of(dataset, s, os.path.join(out, s + ".blocks.tsv"), truth)
                for rid, label, weight, feats in rows:
                    line = "%s\t%d\t%s\t%s" % (rid, label, weight, "\t".join(feats))
                    seen += 1
                    if committed.pop(rid, None) != line:
                        bad += 1
                        if bad <= 5:
                            print("check: row %s differs from the committed table" % rid, file=sys.stderr)
    bad += len(committed)
    print("check: %d rows of ../shared pages re-dumped; %d differ or are missing" % (seen, bad), file=sys.stderr)
    sys.exit(1 if bad else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    t.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    t.add_argument("--wcxb", required=True, help="WCXB pages: html/, truth/, pages.json")
    t.add_argument("--crawlsift", default=os.path.join(ROOT, "target", "release", "crawlsift"))
    t.add_argument("--holdout-dir", help="also lay the held-out WCXB pages out here")
    t.add_argument("--dumps", help="keep the block dumps in this folder")
    t.add_argument("--reuse-dumps", action="store_true", help="use --dumps' dumps if there")
    f = sub.add_parser("fit")
    f.add_argument("--table", default=TABLE)
    f.add_argument("--exclude", action="append", default=[])
    f.add_argument("--trees", type=int, default=TREES)
    f.add_argument("--out", default=MODEL)
    c = sub.add_parser("check")
    c.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    c.add_argument("--table", default=TABLE)
    c.add_argument("--crawlsift", default=os.path.join(ROOT, "target", "release", "crawlsift"))
    a = ap.parse_args()
    {"table": cmd_table, "fit": cmd_fit, "check": cmd_check}[a.cmd](a)


if __name__ == "__main__":
    main()
