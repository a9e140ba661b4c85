#!/usr/bin/env bash
# Speed of `crawlsift extract --html-dir` against Resiliparse on the extraction benchmark.
#
# usage: scripts/bench_extraction.sh [SHARED_DIR] (default ../shared)
#   RUNS=3                 runs per extractor; the median pages/s is reported
#   BENCH_VENV=DIR         Python venv with resiliparse 2.0.0 (default ../scratch/extraction-venv,
#                          created with pip when missing)
#   CRAWLSIFT=PATH         binary (default target/release/crawlsift, built when missing)
#   METHOD=NAME            crawlsift's --method (default: the binary's default method)
#
# crawlsift is timed by the scorer as one external command (start-up, reading and writing every
# file included); Resiliparse by the scorer's summed per-page extraction time in one Python process
# (no start-up, no file reading), so the ratio favours Resiliparse.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=$(cd "${1:-../shared}" && pwd)
RUNS=${RUNS:-3}
VENV=${BENCH_VENV:-../scratch/extraction-venv}
BIN=${CRAWLSIFT:-target/release/crawlsift}
METHOD_ARG=${METHOD:+--method $METHOD}
SCORER="$SHARED/tools/score_extraction.py"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ ! -x "$BIN" ]; then
  cargo build --release --quiet
fi
if ! "$VENV/bin/python" -c 'import resiliparse' 2>/dev/null; then
  echo "creating $VENV with resiliparse 2.0.0" >&2
  mkdir -p "$(dirname "$VENV")"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet 'resiliparse==2.0.0'
fi
BIN_ABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$TMP/in"
for f in "$SHARED"/bench/extraction/*/html/*.html; do
  d=${f%/html/*}; ln -s "$f" "$TMP/in/$(basename "$d")__$(basename "$f")"
done

pps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["pages_per_s"])' "$1"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (a busy machine stretches the wall times)"
for r in $(seq "$RUNS"); do
  python3 "$SCORER" --name crawlsift --cmd-dir "$BIN_ABS extract $METHOD_ARG --html-dir {in} --out-dir {out}" \
    --json "$TMP/c$r.json" >"$TMP/c$r.log"
  "$VENV/bin/python" "$SCORER" --extractor resiliparse --json "$TMP/r$r.json" >"$TMP/r$r.log"
  printf 'run %s: crawlsift %.1f pages/s, resiliparse %.1f pages/s\n' "$r" "$(pps "$TMP/c$r.json")" "$(pps "$TMP/r$r.json")"
done
C=$(for r in $(seq "$RUNS"); do pps "$TMP/c$r.json"; done | median)
R=$(for r in $(seq "$RUNS"); do pps "$TMP/r$r.json"; done | median)
PAGES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["overall"]["pages"])' "$TMP/c1.json")
printf '\npages: %s (median of %s runs)\n' "$PAGES" "$RUNS"
printf 'crawlsift   %8.1f pages/s (wall time of the whole command, start-up included)\n' "$C"
printf 'resiliparse %8.1f pages/s (summed per-page extraction time)\n' "$R"
python3 -c 'import sys; print("ratio       %8.2fx" % (float(sys.argv[1]) / float(sys.argv[2])))' "$C" "$R"
# CPU time of crawlsift alone (all threads; least of 3 runs), a figure machine load stretches less.
for k in 1 2 3; do
  /usr/bin/env time -f '%U %S' -o "$TMP/cpu$k" "$BIN_ABS" extract $METHOD_ARG --html-dir "$TMP/in" --out-dir "$TMP/out" 2>/dev/null || true
done
python3 - "$PAGES" "$TMP"/cpu? <<'PY' || true
import sys
secs = min(sum(map(float, open(f).read().split()[-2:])) for f in sys.argv[2:])
print("crawlsift   %8.1f pages per CPU-second (user+sys %.2f s)" % (int(sys.argv[1]) / secs, secs))
PY
# The slowest page: every page alone (`extract --html`, one process each, start-up included).
python3 - "$BIN_ABS" "$TMP/in" $METHOD_ARG <<'PY'
import os, subprocess, sys, time
binary, folder, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
worst = (0.0, "", 0)
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    t = time.perf_counter()
    subprocess.run([binary, "extract", *extra, "--html", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if dt > worst[0]:
        worst = (dt, name, os.path.getsize(path))
print("slowest page: %s, %.3f s (one process, start-up included), %d bytes" % (worst[1], worst[0], worst[2]))
PY
