#!/usr/bin/env bash
# Index benchmark (issue 17, CDXJ half): `cdxj-indexer -s` 1.5.0 and `crawlsift index --cdxj-only`
# on the same archives, side by side in one run: wall time and peak memory of each (median of 3,
# page cache warmed before every run), their ratio, whether the two indexes hold the same set of
# lines (both sorted, then diffed; and whether the files are byte for byte equal); then
# `crawlsift get` latency over 200 random captures (seeded), process start included: median and
# 90th percentile; then the whole `crawlsift index` (CDXJ and fingerprints) against `crawlsift
# dedup` on the same archives, alternated in PAIRS pairs (default 3; load average beside each
# run): medians of wall time, CPU time and peak memory. Reports, never asserts (targets: >= 10x,
# get median < 10 ms, index no slower than dedup).
#
# usage: [PAIRS=3] [CRAWLSIFT=BINARY] scripts/bench_index.sh [CORPUS_DIR]   (default /tmp/crawlsift-bench/corpus20k; made with
#        ../shared/tools/makecorpus.py --docs 20000 --seed 1 --format warc-gz when missing;
#        CRAWLSIFT measures another build, an older one say, instead of building this tree's)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/crawlsift-bench/corpus20k}
pairs=${PAIRS:-3}
if [ ! -d "$corpus" ]; then
  echo "generating the standard corpus in $corpus (about 40 s)"
  python3 ../shared/tools/makecorpus.py --out "$corpus" --docs 20000 --seed 1 --format warc-gz >/dev/null
fi
if [ -z "${CRAWLSIFT:-}" ]; then
  cargo build --release --quiet
fi
python=$(bash scripts/ci-gates/cdxj.sh --venv)
peer=$(dirname "$python")/cdxj-indexer
ours=${CRAWLSIFT:-target/release/crawlsift}
files=()
for f in "$corpus"/*; do
  case "$f" in *.warc|*.warc.gz|*.arc|*.arc.gz) files+=("$f") ;; esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-bench-index.XXXXXX")
trap 'rm -rf "$work"' EXIT

# median3 NAME command... -> "wall_s peak_kb cpu_s" of the median run (by wall time) of 3
median3() {
  local name=$1; shift
  for i in 1 2 3; do
    cat "${files[@]}" >/dev/null
    rm -rf "$work/idx"
    /usr/bin/time -f "%e %M %U %S" -o "$work/$name.$i" "$@" >/dev/null 2>&1 || true
  done
  cat "$work/$name".[123] | grep -v "^Command" | sort -g | sed -n 2p | awk '{print $1, $2, $3 + $4}'
}

echo "load before: $(uptime | sed 's/.*load/load/')"
read -r peer_s peer_kb peer_cpu <<<"$(median3 peer "$peer" -s "${files[@]}" -o "$work/peer.cdxj")"
read -r ours_s ours_kb ours_cpu <<<"$(median3 ours "$ours" index --cdxj-only "${files[@]}" --out "$work/idx" --quiet)"
"$ours" index --cdxj-only "${files[@]}" --out "$work/idx" --quiet --force || true
echo "load after:  $(uptime | sed 's/.*load/load/')"
peer_lines=$(wc -l <"$work/peer.cdxj")
ours_lines=$(wc -l <"$work/idx/index.cdxj")
if diff <(LC_ALL=C sort "$work/peer.cdxj") <(LC_ALL=C sort "$work/idx/index.cdxj") >"$work/diff"; then
  same="same set of lines"
else
  same="DIFFERENT: $(grep -c '^<' "$work/diff" || true) lines only cdxj-indexer's, $(grep -c '^>' "$work/diff" || true) only ours"
fi
cmp -s "$work/peer.cdxj" "$work/idx/index.cdxj" && same="$same; files byte for byte equal"

# get: 200 random captures (seed 17), each a fresh process.
"$python" - "$ours" "$work/idx" <<'PY' >"$work/get.txt"
import random, subprocess, sys, time, json
ours, idx = sys.argv[1], sys.argv[2]
lines = open(f"{idx}/index.cdxj", encoding="utf-8").read().splitlines()
random.seed(17)
times, failures = [], 0
for line in random.sample(lines, min(200, len(lines))):
    _, ts, js = line.split(" ", 2)
    url = json.loads(js)["url"]
    s = time.perf_counter()
    r = subprocess.run([ours, "get", idx, url, "--at", ts], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - s)
    failures += r.returncode not in (0, 3)
times.sort()
print(f"{len(times)} {times[len(times) // 2] * 1000:.2f} {times[int(len(times) * 0.9)] * 1000:.2f} {failures}")
PY
read -r n get_med get_p90 get_fail <"$work/get.txt"

echo
echo "corpus: $corpus (${#files[@]} archives)"
printf '%-26s %9s %8s %9s %8s %9s %8s\n' "indexer" "median s" "speed" "CPU s" "CPU" "peak MB" "lines"
printf '%-26s %9.2f %8s %9.2f %8s %9.1f %8d\n' "cdxj-indexer -s 1.5.0" "$peer_s" "1.0x" "$peer_cpu" "1.0x" "$(python3 -c "print($peer_kb/1024)")" "$peer_lines"
printf '%-26s %9.2f %7.1fx %9.2f %7.1fx %9.1f %8d\n' "crawlsift index (CDXJ)" "$ours_s" "$(python3 -c "print($peer_s/$ours_s)")" "$ours_cpu" "$(python3 -c "print($peer_cpu/$ours_cpu)")" "$(python3 -c "print($ours_kb/1024)")" "$ours_lines"
echo "(speed: wall-time ratio on this machine now; CPU: user+sys ratio, which other load moves less)"
echo "lines: $same"
echo "crawlsift get: $n calls, median $get_med ms, p90 $get_p90 ms (process start included), $get_fail failed"

# index (both halves) against dedup, alternated so that both see the same load.
echo
echo "crawlsift index (CDXJ + fingerprints) vs crawlsift dedup, $pairs alternated pairs:"
: >"$work/pairs"
for i in $(seq "$pairs"); do
  for what in index dedup; do
    cat "${files[@]}" >/dev/null
    rm -rf "$work/idx" "$work/dedup"
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ "$what" = index ]; then
      /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$ours" index "${files[@]}" --out "$work/idx" --quiet >/dev/null 2>&1 || true
    else
      /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$ours" dedup "${files[@]}" --out "$work/dedup" --quiet >/dev/null 2>&1 || true
    fi
    read -r wall kb user sys <<<"$(grep -v '^Command' "$work/t")"
    cpu=$(python3 -c "print(round($user + $sys, 2))")
    printf '  pair %d %-6s %6.2f s wall %6.2f s CPU %6.1f MB  (load %s)\n' "$i" "$what" "$wall" "$cpu" "$(python3 -c "print($kb/1024)")" "$load"
    echo "$what $wall $cpu $kb" >>"$work/pairs"
  done
done
python3 - "$work/pairs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    what, wall, cpu, kb = line.split()
    runs.setdefault(what, []).append((float(wall), float(cpu), int(kb) / 1024))
med = {w: [statistics.median(x[i] for x in r) for i in range(3)] for w, r in runs.items()}
for w in ("index", "dedup"):
    print(f"  median {w:6} {med[w][0]:6.2f} s wall {med[w][1]:6.2f} s CPU {med[w][2]:6.1f} MB")
print(f"  index / dedup: {med['index'][0] / med['dedup'][0]:.2f}x wall, {med['index'][1] / med['dedup'][1]:.2f}x CPU (target <= 1)")
PY
