#!/usr/bin/env bash
# Time and peak memory of `crawlsift reuse` beside `crawlsift dedup` on the same inputs, in one run
# (the same machine, load and page cache), with the ratio reuse / dedup.
#
# usage: scripts/bench_reuse.sh INPUT...   (archives or directories; CRAWLSIFT names the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
[ -x "$BIN" ] || { echo "bench_reuse: $BIN missing (cargo build --release)" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: scripts/bench_reuse.sh INPUT..." >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-bench-reuse.XXXXXX")
trap 'rm -rf "$work"' EXIT
measure() { # name command...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" >/dev/null 2>"$work/$name.err" ||
    { cat "$work/$name.err" >&2; exit 1; }
  read -r secs kb <"$work/$name.time"
  printf '%-7s %8.2f s %8.1f MiB\n' "$name" "$secs" "$(echo "$kb / 1024" | bc -l)"
  echo "$secs $kb" >"$work/$name.res"
}
cat "$@" >/dev/null 2>&1 || true # the page cache warm for both
measure dedup "$BIN" dedup "$@" --out "$work/dedup" --quiet
measure reuse "$BIN" reuse "$@" --out "$work/reuse" --quiet
read -r ds dk <"$work/dedup.res"
read -r rs rk <"$work/reuse.res"
printf 'reuse / dedup: time %.2fx, peak memory %.2fx; reuse pairs %d, passages %d\n' \
  "$(echo "$rs / $ds" | bc -l)" "$(echo "$rk / $dk" | bc -l)" \
  "$(wc -l <"$work/reuse/reuse.jsonl")" \
  "$(grep -o '"a_words"' "$work/reuse/reuse.jsonl" | wc -l)"
