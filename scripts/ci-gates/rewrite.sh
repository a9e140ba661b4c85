#!/usr/bin/env bash
# Rewrite gate (issue #38): `crawlsift rewrite` over every real file of SHARED/corpus/real, then
# warcio 1.8.1 (the cdxj gate's pinned venv) reads every rewritten file record for record: as many
# records as `crawlsift records` reads from it, every content stream read to its end, and
# `warcio check` finds no digest problem; `crawlsift check` finds no record or gzip error (the
# inputs' own quirks, invalid dates and lying Content-Encoding headers, stay as written).
# With --zstd, the zstd command decodes each .warc.zst (with the dictionary of its first frame)
# to the gzip rewrite's bytes. Fails, never skips, without its data or peer.
#
# usage: scripts/ci-gates/rewrite.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: rewrite.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
REAL="$SHARED/corpus/real"
[ -d "$REAL" ] || { echo "rewrite gate FAILED: $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "rewrite gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
PY=$(bash scripts/ci-gates/cdxj.sh --venv)
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-rewrite.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BIN" rewrite "$REAL" --out "$work/out" -q 2>/dev/null || [ $? -eq 3 ]  # 3: damaged inputs
"$PY" - "$BIN" "$work/out" <<'PY'
import json, os, subprocess, sys
from warcio.archiveiterator import ArchiveIterator
binary, out = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(out) if f.endswith(".warc.gz"))
if len(files) < 35:
    sys.exit(f"rewrite gate FAILED: only {len(files)} files written")
bad = records = revisits = 0
warcio = os.path.join(os.path.dirname(sys.executable), "warcio")
for f in files:
    p = os.path.join(out, f)
    n = 0
    try:
        with open(p, "rb") as fh:
            for r in ArchiveIterator(fh):
                n += 1
                revisits += r.rec_type == "revisit"
                r.content_stream().read()
    except Exception as e:
        print(f"FAIL {f}: warcio: {e!r}"[:300]); bad += 1; continue
    ours = subprocess.run([binary, "records", p], capture_output=True).stdout.splitlines()
    if len(ours) != n:
        print(f"FAIL {f}: warcio reads {n} records, crawlsift {len(ours)}"); bad += 1
    check = subprocess.run([warcio, "check", p], capture_output=True, text=True)
    if check.returncode != 0:
        print(f"FAIL {f}: warcio check: {(check.stdout + check.stderr)[-300:]}"); bad += 1
    strict = subprocess.run([binary, "check", p, "-q"], capture_output=True, text=True).stdout
    kinds = {json.loads(l)["kind"] for l in strict.splitlines()}
    wrong = kinds - {"invalid_date", "http_encoding"}
    if wrong:
        print(f"FAIL {f}: crawlsift check: {sorted(wrong)}"); bad += 1
    records += n
report = json.load(open(os.path.join(out, "rewrite-report.json")))
# (Its revisits are those the rewrite made; the inputs hold revisit records of their own too.)
if report["records"] != records or not 0 < report["revisits"] <= revisits:
    print(f"FAIL rewrite-report.json: {report['records']} records, {report['revisits']} revisits"); bad += 1
print(f"rewrite gate: {len(files)} files, {records} records read back by warcio, {revisits} revisits; {bad} failures")
sys.exit(1 if bad else 0)
PY

# --zstd: the zstd command (libzstd's own tool, installed here if missing) decodes every
# rewritten .warc.zst, with the dictionary its first skippable frame holds, to the bytes of the
# gzip rewrite of the same input; and crawlsift reads as many records from it.
if ! command -v zstd >/dev/null; then
  (apt-get install -y -qq zstd || (apt-get update -qq && apt-get install -y -qq zstd)) >/dev/null 2>&1 \
    || { echo "rewrite gate FAILED: the zstd command is missing and cannot be installed" >&2; exit 1; }
fi
"$BIN" rewrite "$REAL" --out "$work/zst" -q --zstd 2>/dev/null || [ $? -eq 3 ]
python3 - "$BIN" "$work/out" "$work/zst" <<'PY'
import gzip, os, struct, subprocess, sys, tempfile
binary, gz_dir, zst_dir = sys.argv[1:4]
files = sorted(f for f in os.listdir(zst_dir) if f.endswith(".warc.zst"))
bad = 0
for f in files:
    data = open(os.path.join(zst_dir, f), "rb").read()
    cmd = ["zstd", "-qdc"]
    with tempfile.TemporaryDirectory() as t:
        if data[:4] == bytes([0x5D, 0x2A, 0x4D, 0x18]):
            n = struct.unpack("<I", data[4:8])[0]
            packed = os.path.join(t, "dict.zst")
            open(packed, "wb").write(data[8:8 + n])
            subprocess.run(["zstd", "-qdf", packed, "-o", os.path.join(t, "dict")], check=True)
            cmd += ["-D", os.path.join(t, "dict")]
        plain = subprocess.run(cmd + [os.path.join(zst_dir, f)], capture_output=True).stdout
    ref = gzip.open(os.path.join(gz_dir, f[:-len(".zst")] + ".gz")).read()
    ours = subprocess.run([binary, "records", os.path.join(zst_dir, f)], capture_output=True).stdout
    theirs = subprocess.run([binary, "records", os.path.join(gz_dir, f[:-len(".zst")] + ".gz")],
                            capture_output=True).stdout
    if plain != ref or len(ours.splitlines()) != len(theirs.splitlines()):
        print(f"FAIL {f}: zstd decodes {len(plain)} bytes (gzip rewrite {len(ref)}), "
              f"crawlsift reads {len(ours.splitlines())} records ({len(theirs.splitlines())})")
        bad += 1
print(f"rewrite gate: {len(files)} .warc.zst files decoded by the zstd command to the gzip rewrite's bytes; {bad} failures")
sys.exit(1 if bad else 0)
PY
