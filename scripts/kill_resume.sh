#!/usr/bin/env bash
# Kill-and-resume soak: N times, start `crawlsift dedup`, SIGKILL it at a random moment (up to three
# times), then let it finish, and compare its outputs byte for byte with an uninterrupted run.
# usage: scripts/kill_resume.sh CORPUS_DIR [N=20]     (uses target/release/crawlsift)
set -euo pipefail
corpus=$1; n=${2:-20}
bin=target/release/crawlsift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
"$bin" dedup -q "$corpus" --out "$work/ref" --text "$work/ref.txt.gz"
took=$(python3 -c "import time; print(time.time() - $start)")
echo "uninterrupted run: ${took} s"
pass=0
for i in $(seq 1 "$n"); do
  rm -rf "$work/out" "$work/out.txt.gz"
  kills=0
  for k in 1 2 3; do
    "$bin" dedup -q "$corpus" --out "$work/out" --text "$work/out.txt.gz" 2>/dev/null &
    pid=$!
    sleep "$(python3 -c "import random; print(random.uniform(0.05, 1.0) * $took)")"
    if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
    wait "$pid" 2>/dev/null || true
  done
  "$bin" dedup -q "$corpus" --out "$work/out" --text "$work/out.txt.gz" 2>/dev/null || true
  ok=1
  for f in clusters.jsonl documents.jsonl.gz; do cmp -s "$work/ref/$f" "$work/out/$f" || ok=0; done
  cmp -s "$work/ref.txt.gz" "$work/out.txt.gz" || ok=0
  [ -e "$work/out/.checkpoint" ] && ok=0
  echo "run $i: $kills kills, $([ $ok = 1 ] && echo identical || echo DIFFERENT)"
  pass=$((pass + ok))
done
echo "kill-and-resume: $pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
