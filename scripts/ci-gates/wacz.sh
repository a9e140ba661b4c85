#!/usr/bin/env bash
# WACZ gate (issue #38): `crawlsift wacz` packs every real file of SHARED/corpus/real; py-wacz's
# `wacz validate` (pinned, in a venv under target/) accepts the package, its datapackage.json
# lists every file with the right size and SHA-256, and pages/pages.jsonl lists pages with their
# URL, time and main text, each URL in the package's index. A second package of the same files has
# its index packed as ZipNum (forced with the hidden `--plain-index-max-lines 0`; by default only
# an index past WACZ_PLAIN_INDEX_MAX_LINES lines is): `wacz validate` accepts it too, it holds
# indexes/index.cdx.gz and indexes/index.idx (the `cdxj-gzip-1.0` summary py-wacz writes) instead
# of indexes/index.cdx, and the blocks the summary locates, inflated one by one, are the plain
# package's index line for line, each block starting with its summary key; every other file is
# the same. (pywb serving unpacked packages is in pywb.sh.) Fails, never skips, without its data
# or peer.
#
# usage: scripts/ci-gates/wacz.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: wacz.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
REAL="$SHARED/corpus/real"
[ -d "$REAL" ] || { echo "wacz gate FAILED: $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "wacz gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
. scripts/ci-gates/lib/venv.sh
gate_venv wacz "wacz==0.6.0"
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-wacz.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BIN" wacz "$REAL" --out "$work/real.wacz" -q 2>/dev/null || [ $? -eq 3 ]  # 3: damaged inputs
"$BIN" wacz "$REAL" --out "$work/zipnum.wacz" -q --plain-index-max-lines 0 2>/dev/null || [ $? -eq 3 ]
for pkg in real zipnum; do
  "$VENV/bin/wacz" validate -f "$work/$pkg.wacz" | tail -1 | grep -q "is valid" \
    || { "$VENV/bin/wacz" validate -f "$work/$pkg.wacz"; echo "wacz gate FAILED: wacz validate ($pkg)" >&2; exit 1; }
done
"$VENV/bin/python" - "$work/real.wacz" "$work/zipnum.wacz" <<'PY'
import gzip, hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()), "entries must be stored"
def every_file_listed(zf):
    """Every entry but the datapackage files is in datapackage.json with its size and SHA-256."""
    listed = {r["path"]: r for r in json.loads(zf.read("datapackage.json"))["resources"]}
    for n in zf.namelist():
        if n in ("datapackage.json", "datapackage-digest.json"):
            continue
        data, r = zf.read(n), listed.get(n)
        assert r, f"{n} not in datapackage.json"
        assert r["bytes"] == len(data) and r["hash"] == "sha256:" + hashlib.sha256(data).hexdigest(), n
every_file_listed(z)
digest = json.loads(z.read("datapackage-digest.json"))
assert digest["hash"] == "sha256:" + hashlib.sha256(z.read("datapackage.json")).hexdigest()
index_urls = {json.loads(l.split(" ", 2)[2]).get("url") for l in z.read("indexes/index.cdx").decode().splitlines()}
lines = z.read("pages/pages.jsonl").decode().splitlines()
assert json.loads(lines[0])["format"] == "json-pages-1.0"
pages = [json.loads(l) for l in lines[1:]]
assert len(pages) >= 20, len(pages)
for p in pages:
    assert p["url"] in index_urls and p["ts"].endswith("Z") and p["text"].strip(), p["url"]
archives = [n for n in names if n.startswith("archive/")]
print(f"wacz gate: valid; {len(archives)} archives, {len(pages)} pages with text, every file's hash listed")

zn = zipfile.ZipFile(sys.argv[2])
assert all(i.compress_type == zipfile.ZIP_STORED for i in zn.infolist()), "entries must be stored"
znames = zn.namelist()
assert "indexes/index.cdx" not in znames, znames
assert [n for n in znames if n.startswith("indexes/")] == ["indexes/index.cdx.gz", "indexes/index.idx"], znames
for n in znames:
    if not n.startswith(("indexes/", "datapackage")):
        assert zn.read(n) == z.read(n), f"{n} differs between the packages"
every_file_listed(zn)
summary = zn.read("indexes/index.idx").decode().splitlines()
assert summary[0] == '!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}', summary[0]
blocks, at, text = zn.read("indexes/index.cdx.gz"), 0, b""
for line in summary[1:]:
    prefix, js = line.split(" {", 1)
    loc = json.loads("{" + js)
    assert loc["offset"] == at, (line, at)
    block = gzip.decompress(blocks[at:at + loc["length"]])
    assert block.decode().startswith(prefix + " {"), (prefix, block[:80])
    text += block
    at += loc["length"]
assert at == len(blocks), (at, len(blocks))
plain = z.read("indexes/index.cdx")
assert text == plain, "the ZipNum blocks are not the plain index"
nlines = plain.count(b"\n")
print(f"wacz gate: the ZipNum package is valid; its {len(summary) - 1} blocks hold the plain index's {nlines} lines in order")
PY
