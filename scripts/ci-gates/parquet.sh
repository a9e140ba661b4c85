#!/usr/bin/env bash
# Parquet gate (issue 36): `--format parquet` holds the same rows and values as the JSON lines.
# On real files (SHARED/bench/realpages/pages.warc.gz, 1,473 real pages, and the 40 files of
# SHARED/corpus/real: WARC 0.17-1.1, ARC, WET, LZ4, TREC, damaged ones), the release binary writes
# each output both ways with the same arguments:
#   records (--verify-digests), extract (--with-metadata --feeds), dedup's documents and --text.
# pyarrow and DuckDB each read every Parquet file; both must give as many rows as the JSON lines,
# in order, every key of a line a column with the same value and type (a key the line leaves out
# or gives as null: a null), every other column null. The Parquet bytes must not depend on
# --threads (1 and 2). Prints each output's size as Parquet beside its gzipped JSON lines.
# Installs pyarrow and duckdb in a venv under target/ (pinned); fails, never skips.
#
# usage: scripts/ci-gates/parquet.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: parquet.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
PAGES="$SHARED/bench/realpages/pages.warc.gz"
REAL="$SHARED/corpus/real"
[ -f "$PAGES" ] && [ -d "$REAL" ] || { echo "parquet gate FAILED: $PAGES or $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "parquet gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
. scripts/ci-gates/lib/venv.sh
gate_venv parquet "pyarrow==22.0.0 duckdb==1.4.2"
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-parquet.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Runs the binary; the damaged files of corpus/real make 3 (finished with problems) the expected
# status of a run over them, anything else but 0 fails the gate.
run() {
  local rc=0
  "$BIN" "$@" 2>"$work/stderr" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "parquet gate FAILED: crawlsift $* exited $rc" >&2
    tail -5 "$work/stderr" >&2
    exit 1
  fi
  echo "$rc"
}

rc_json=$(run records "$PAGES" "$REAL" --verify-digests -o "$work/records.jsonl.gz")
rc_pq=$(run records "$PAGES" "$REAL" --verify-digests -j 1 --format parquet -o "$work/records.parquet")
run records "$PAGES" "$REAL" --verify-digests -j 2 --format parquet -o "$work/records-j2.parquet" >/dev/null
[ "$rc_json" = "$rc_pq" ] || { echo "parquet gate FAILED: records exited $rc_json (json) and $rc_pq (parquet)" >&2; exit 1; }
cmp "$work/records.parquet" "$work/records-j2.parquet" || { echo "parquet gate FAILED: records.parquet differs between -j 1 and -j 2" >&2; exit 1; }

run extract "$PAGES" "$REAL" --with-metadata --feeds -o "$work/extract.jsonl.gz" >/dev/null
run extract "$PAGES" "$REAL" --with-metadata --feeds --format parquet -o "$work/extract.parquet" >/dev/null

run dedup "$PAGES" "$REAL" -o "$work/dedup-json" --text "$work/text.jsonl.gz" -q >/dev/null
run dedup "$PAGES" "$REAL" -o "$work/dedup-pq" --text "$work/text.parquet" --format parquet -q -j 1 >/dev/null
run dedup "$PAGES" "$REAL" -o "$work/dedup-pq2" --text "$work/text-j2.parquet" --format parquet -q -j 2 >/dev/null
for f in dedup-pq/documents.parquet:dedup-pq2/documents.parquet text.parquet:text-j2.parquet; do
  cmp "$work/${f%%:*}" "$work/${f##*:}" || { echo "parquet gate FAILED: ${f%%:*} differs between -j 1 and -j 2" >&2; exit 1; }
done
cmp "$work/dedup-json/clusters.jsonl" "$work/dedup-pq/clusters.jsonl" || { echo "parquet gate FAILED: clusters.jsonl changed with --format parquet" >&2; exit 1; }

"$VENV/bin/python" - "$work" <<'PY'
import gzip, json, os, sys
import duckdb
import pyarrow.parquet as pq

work = sys.argv[1]
PAIRS = [
    ("records", "records.jsonl.gz", "records.parquet"),
    ("extract", "extract.jsonl.gz", "extract.parquet"),
    ("documents", "dedup-json/documents.jsonl.gz", "dedup-pq/documents.parquet"),
    ("text", "text.jsonl.gz", "text.parquet"),
]

def same(a, b):
    # Strict: the same type (a JSON integer is an int, a fraction a float, true a bool) and value.
    return (a is None and b is None) or (type(a) is type(b) and a == b)

failures = []
def compare(name, reader, lines, columns, rows):
    if len(rows) != len(lines):
        failures.append(f"{name} ({reader}): {len(rows)} rows, {len(lines)} JSON lines")
        return
    for n, (line, row) in enumerate(zip(lines, rows)):
        extra = set(line) - set(columns)
        if extra:
            failures.append(f"{name} ({reader}) row {n}: keys {sorted(extra)} are no columns")
            return
        for c in columns:
            want, got = line.get(c), row[c]
            if not same(want, got):
                failures.append(f"{name} ({reader}) row {n} column {c}: {got!r} != {want!r}")
                return

print(f"{'output':<10} {'rows':>8} {'JSON lines':>12} {'gzip JSON':>12} {'Parquet':>12} {'Parquet/gzip':>13}")
for name, jpath, ppath in PAIRS:
    jpath, ppath = os.path.join(work, jpath), os.path.join(work, ppath)
    with gzip.open(jpath, "rt", encoding="utf-8") as f:
        raw = f.read()
    lines = [json.loads(l) for l in raw.splitlines()]
    if not lines:
        failures.append(f"{name}: no JSON lines: nothing compared")
        continue
    table = pq.read_table(ppath)
    columns = table.column_names
    compare(name, "pyarrow", lines, columns, table.to_pylist())
    con = duckdb.connect()
    cur = con.execute(
        "SELECT * EXCLUDE (file_row_number) FROM read_parquet(?, file_row_number = true) "
        "ORDER BY file_row_number", [ppath])
    names = [d[0] for d in cur.description]
    if names != columns:
        failures.append(f"{name}: DuckDB columns {names} != pyarrow's {columns}")
    compare(name, "duckdb", lines, names, [dict(zip(names, r)) for r in cur.fetchall()])
    js, pqs = os.path.getsize(jpath), os.path.getsize(ppath)
    print(f"{name:<10} {len(lines):>8} {len(raw.encode()):>12,} {js:>12,} {pqs:>12,} {pqs / js:>13.2f}")

if failures:
    for f in failures:
        print("parquet gate FAILED:", f, file=sys.stderr)
    sys.exit(1)
print("parquet gate: every row and value of the Parquet outputs equals the JSON lines' (pyarrow and DuckDB); bytes the same for -j 1 and -j 2")
PY
