#!/usr/bin/env bash
# Sizes and times of `crawlsift rewrite` (issue #38) beside its peers, in one run (same machine,
# load and page cache): the inputs rewritten a gzip member per record, a zstd frame per record
# without and with a dictionary trained on the collection, and with the dictionary at level 19;
# warcio's `recompress` (gzip per record, file by file); `zstd -19` of the same data whole (every
# input decompressed and concatenated, one stream: no random access, the floor a per-record
# format is measured against); and `crawlsift dedup` of the same inputs, for time. Each output
# is read back by `crawlsift records` and must give as many records as the gzip rewrite.
#
# usage: scripts/bench_rewrite.sh WARCIO_VENV INPUT...
#   WARCIO_VENV: a venv with warcio (e.g. target/gate-venv-cdxj, which scripts/ci-gates/cdxj.sh
#   --venv makes); CRAWLSIFT names the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
[ -x "$BIN" ] || { echo "bench_rewrite: $BIN missing (cargo build --release)" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: scripts/bench_rewrite.sh WARCIO_VENV INPUT..." >&2; exit 2; }
VENV=$1
shift
[ -x "$VENV/bin/warcio" ] || { echo "bench_rewrite: no warcio in $VENV" >&2; exit 1; }
command -v zstd >/dev/null || { echo "bench_rewrite: zstd (the command) missing" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-bench-rewrite.XXXXXX")
trap 'rm -rf "$work"' EXIT
files=()
for i in "$@"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f | sort)
  else
    files+=("$i")
  fi
done
in_bytes=$(cat "${files[@]}" | wc -c)
cat "${files[@]}" >/dev/null
printf '%-36s %10s %14s %9s %8s\n' run seconds bytes vs_input records
row() { # name seconds bytes records
  printf '%-36s %10.2f %14d %8.1f%% %8s\n' "$1" "$2" "$3" "$(echo "100 * ($3 - $in_bytes) / $in_bytes" | bc -l)" "$4"
}
timed() { # seconds of a command
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || [ $? -eq 3 ]
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}
count() { "$BIN" records "$1" 2>/dev/null | wc -l; }
printf '%-36s %10s %14d\n' input - "$in_bytes"
t=$(timed "$BIN" dedup "${files[@]}" --out "$work/dedup" -q)
printf '%-36s %10.2f\n' "crawlsift dedup (time only)" "$t"
for run in "gzip:" "zstd-3:--zstd --no-dictionary" "zstd-3-dictionary:--zstd" \
           "zstd-19-dictionary:--zstd --zstd-level 19"; do
  name=${run%%:*}
  t=$(timed "$BIN" rewrite "${files[@]}" --out "$work/$name" -q ${run#*:})
  row "crawlsift rewrite $name" "$t" "$(cat "$work/$name"/* | wc -c)" "$(count "$work/$name")"
done
mkdir -p "$work/warcio"
s=$(date +%s.%N)
for f in "${files[@]}"; do
  "$VENV/bin/warcio" recompress "$f" "$work/warcio/$(basename "$f").gz" >/dev/null 2>&1 || true
done
t=$(echo "$(date +%s.%N) - $s" | bc -l)
row "warcio recompress" "$t" "$(cat "$work/warcio"/* | wc -c)" "$(count "$work/warcio")"
s=$(date +%s.%N)
for f in "$work/gzip"/*; do gzip -dc "$f"; done | zstd -19 -T1 -q -c >"$work/whole.zst"
t=$(echo "$(date +%s.%N) - $s" | bc -l)
row "zstd -19, all data whole" "$t" "$(wc -c <"$work/whole.zst")" "-"
