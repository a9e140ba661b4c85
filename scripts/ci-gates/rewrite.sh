#!/usr/bin/env bash
# Rewrite gate (issue #38): `crawlsift rewrite` over every real file of SHARED/corpus/real, then
# warcio 1.8.1 (the cdxj gate's pinned venv) reads every rewritten file record for record: as many
# records as `crawlsift records` reads from it, every content stream read to its end, and
# `warcio check` finds no digest problem; `crawlsift check` finds no record or gzip error (the
# inputs' own quirks, invalid dates and lying Content-Encoding headers, stay as written).
# Fails, never skips, without its data or peer.
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
files = sorted(os.listdir(out))
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
print(f"rewrite gate: {len(files)} files, {records} records read back by warcio, {revisits} revisits; {bad} failures")
sys.exit(1 if bad else 0)
PY
