#!/usr/bin/env bash
# Dedup benchmark: in one run, on the standard 20,000-document corpus (generated once into SCRATCH),
# times the peer `fastwarc` crate merely iterating the files and reading every payload, and
# `crawlsift dedup` on the same files (wall time and peak RSS from /usr/bin/time -v; both medians of
# three runs), and prints
# the ratio and the report's index bytes per document. Then the growth from 5,000 to 20,000 (and,
# with --80k, 80,000) documents. Targets (issue 9): dedup <= 2x the peer's time, peak memory
# < 1 GB, index < 300 bytes per document. Never a pass/fail: speed is reported, not asserted.
#
# Past 80,000 documents (issue 20), a corpus is several makecorpus corpora side by side: N
# documents are N / 80,000 corpora of 80,000 documents, seeds 1, 2, ... (and one of the remainder,
# the next seed), each generated once into SCRATCH/seeds/ (~2.5 min and ~1 GB an 80k corpus on an
# idle core). Each line then also gives the peer's peak memory.
#
# usage: scripts/bench_dedup.sh SHARED SCRATCH [--80k | --sizes N,N,...]
#   SHARED  the shared evaluation folder (read-only)   SCRATCH  where corpora and builds go
#   --80k   also generate (~2.5 min, once) and time an 80,000-document corpus
#   --sizes the sizes to time, e.g. 20000,80000,320000,1000000 (above 80,000: seeds side by side)
# BENCH_RUNS=N (environment, default 3): runs per size, of which the median is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench_dedup.sh SHARED SCRATCH [--80k | --sizes N,N,...]"
shared=$(cd "${1:?$usage}" && pwd)
scratch=${2:?$usage}
big=${3:-}
runs=${BENCH_RUNS:-3}
mid=$(((runs + 1) / 2))
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
[ -x /usr/bin/time ] || { echo "bench_dedup: /usr/bin/time (GNU time) is needed for peak memory" >&2; exit 1; }

corpus() { # docs -> folder of the seed-1 warc-gz corpus with that many documents (made once)
  local dir=$scratch/corpus$(($1 / 1000))k
  if [ ! -f "$dir/truth.jsonl" ]; then
    echo "generating $dir ($1 documents)" >&2
    python3 "$shared/tools/makecorpus.py" --out "$dir" --docs "$1" --seed 1 --format warc-gz >/dev/null
  fi
  echo "$dir"
}
seeded() { # docs seed -> folder of a warc-gz corpus of that seed and size (made once)
  local dir=$scratch/seeds/s$2-$(($1 / 1000))k
  if [ ! -f "$dir/truth.jsonl" ]; then
    echo "generating $dir ($1 documents, seed $2)" >&2
    python3 "$shared/tools/makecorpus.py" --out "$dir" --docs "$1" --seed "$2" --format warc-gz >/dev/null
  fi
  echo "$dir"
}
files_of() { # docs -> the archives of a corpus of that size, one per line
  local n=$1 seed=1
  if [ "$n" -le 80000 ]; then
    ls "$(corpus "$n")"/*.warc.gz
    return
  fi
  while [ "$n" -gt 0 ]; do
    local take=$((n < 80000 ? n : 80000))
    ls "$(seeded "$take" "$seed")"/*.warc.gz
    n=$((n - take))
    seed=$((seed + 1))
  done
}
sizes=(5000 20000)
case "$big" in
  --80k) sizes+=(80000) ;;
  --sizes) IFS=, read -r -a sizes <<<"${4:?--sizes needs a list}" ;;
  "") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
for n in "${sizes[@]}"; do files_of "$n" >/dev/null; done

echo "building crawlsift and the peer"
cargo build --release --quiet
ours=${CARGO_TARGET_DIR:-target}/release/crawlsift
(cd "$shared/tools/peer-fastwarc" && CARGO_TARGET_DIR="$scratch/peer-target" cargo build --release --quiet)
peer=$scratch/peer-target/release/peer-fastwarc

median3() { # command... -> "wall_s peak_kb" of the median (by wall time) of $runs runs
  local t=() log
  log=$(mktemp)
  for _ in $(seq "$runs"); do
    cat "${warm[@]}" >/dev/null
    /usr/bin/time -f "%e %M" -o "$log" "$@" >/dev/null 2>&1
    t+=("$(cat "$log")")
  done
  rm -f "$log"
  printf '%s\n' "${t[@]}" | sort -g | sed -n "${mid}p"
}

dedup_run() { # docs -> "wall_s peak_kb index_bytes documents" of one crawlsift dedup
  local out=$scratch/out-$(($1 / 1000))k log
  log=$(mktemp)
  cat "${warm[@]}" >/dev/null
  /usr/bin/time -v "$ours" dedup "${warm[@]}" --out "$out" --force --quiet 2>"$log" >/dev/null
  python3 - "$log" "$out/report.json" <<'EOF'
import json, re, sys
log = open(sys.argv[1]).read()
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", log)
wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1))
r = json.load(open(sys.argv[2]))
print(wall, rss, r["index_bytes_per_document"], r["documents"])
EOF
  rm -f "$log"
}

printf '\n%-8s %10s %9s %10s %8s %11s %10s %12s %10s\n' docs "peer s" "peer MiB" "dedup s" ratio \
  "peak MiB" "index B/doc" "docs/s" "us/doc"
for n in "${sizes[@]}"; do
  # This machine's kernel evicts the page cache within seconds: every timed run (the peer's and
  # ours) is preceded by reading its input once, so both are timed on cached input.
  mapfile -t warm < <(files_of "$n")
  read -r peer_s peer_kb < <(median3 "$peer" "${warm[@]}")
  # The median of the dedup runs (by wall time), as for the peer.
  read -r wall rss index docs < <(for _ in $(seq "$runs"); do dedup_run "$n"; done | sort -g |
    sed -n "${mid}p")
  printf '%-8s %10.2f %9.0f %10.2f %7.2fx %11.0f %10.0f %12.0f %10.1f\n' "$n" "$peer_s" \
    "$(python3 -c "print($peer_kb / 1024)")" "$wall" "$(python3 -c "print($wall / $peer_s)")" \
    "$(python3 -c "print($rss / 1024)")" "$index" "$(python3 -c "print($docs / $wall)")" \
    "$(python3 -c "print($wall * 1e6 / $docs)")"
done
echo "(ratio = crawlsift dedup wall time / peer iteration time; targets at 20k: <= 2.00x, < 1024 MiB)"
echo "stage times of the last run: $(python3 -c "import json; print(json.load(open('$scratch/out-$((n / 1000))k/report.json'))['seconds'])")"
