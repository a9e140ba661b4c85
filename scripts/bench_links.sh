#!/usr/bin/env bash
# Time and memory of the web graph (issue #37) beside `crawlsift dedup` in one run (same machine,
# load and page cache): `dedup`, `dedup --links` (the graph in the same pass) and `links` (a pass
# of its own) over the same inputs, each REPEATS times in turn; the median wall time and peak
# resident memory of each, the ratios to `dedup`, edges a second, and the bytes an edge of the
# graph's files (gzipped text and BVGraph). The graphs of `dedup --links` and `links` must be the
# same bytes.
#
# usage: scripts/bench_links.sh [-r REPEATS] INPUT...   (CRAWLSIFT names the binary; -j: all cores)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
[ -x "$BIN" ] || { echo "bench_links: $BIN missing (cargo build --release)" >&2; exit 1; }
repeats=3
if [ "${1:-}" = "-r" ]; then repeats=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: scripts/bench_links.sh [-r REPEATS] INPUT..." >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-bench-links.XXXXXX")
trap 'rm -rf "$work"' EXIT
for i in "$@"; do find "$i" -type f -exec cat {} + >/dev/null; done
run() { # name args...: appends "seconds kib" to $work/name.times
  local name=$1; shift
  rm -rf "$work/out"
  /usr/bin/time -f '%e %M' -o "$work/t" "$BIN" "$@" --out "$work/out" -q >/dev/null 2>&1 || [ $? -eq 3 ]
  tail -1 "$work/t" >> "$work/$name.times"
}
for _ in $(seq "$repeats"); do
  run dedup dedup "$@"
  run dedup_links dedup --links "$@"
  cp -r "$work/out" "$work/one-pass"
  run links links "$@"
  for f in pages/edges.txt.gz pages/vertices.txt.gz pages/graph.graph anchors.jsonl.gz; do
    cmp -s "$work/out/$f" "$work/one-pass/$f" || { echo "bench_links: $f differs between dedup --links and links" >&2; exit 1; }
  done
  rm -rf "$work/one-pass"
done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
base=$(cut -d' ' -f1 "$work/dedup.times" | median)
edges=$(python3 -c "import json; print(json.load(open('$work/out/links-report.json'))['edges'])")
printf '%-14s %9s %9s %10s %12s\n' run seconds vs_dedup peak_MiB edges/s
for n in dedup dedup_links links; do
  s=$(cut -d' ' -f1 "$work/$n.times" | median)
  m=$(cut -d' ' -f2 "$work/$n.times" | median)
  eps=$([ "$n" = dedup ] && echo - || echo "$edges / $s" | bc)
  printf '%-14s %9.2f %8.2fx %10d %12s\n' "$n" "$s" "$(echo "$s / $base" | bc -l)" $((m / 1024)) "$eps"
done
gz=$(stat -c %s "$work/out/pages/edges.txt.gz")
bv=$(stat -c %s "$work/out/pages/graph.graph")
bvall=$(cat "$work/out/pages/graph."{graph,offsets,ef} | wc -c)
echo "page graph: $edges edges; edges.txt.gz $(echo "scale=2; $gz / $edges" | bc) bytes an edge, BVGraph .graph $(echo "scale=2; $bv * 8 / $edges" | bc) bits an edge ($(echo "scale=2; $bvall / $edges" | bc) bytes an edge with .offsets and .ef)"
