#!/usr/bin/env bash
# Dedup benchmark: in one run, on the standard 20,000-document corpus (generated once into SCRATCH),
# times the peer `fastwarc` crate merely iterating the files and reading every payload, and
# `crawlsift dedup` on the same files (wall time and peak RSS from /usr/bin/time -v; both medians of
# three runs), and prints
# the ratio and the report's index bytes per document. Then the growth from 5,000 to 20,000 (and,
# with --80k, 80,000) documents. Targets (issue 9): dedup <= 2x the peer's time, peak memory
# < 1 GB, index < 300 bytes per document. Never a pass/fail: speed is reported, not asserted.
#
# usage: scripts/bench_dedup.sh SHARED SCRATCH [--80k]
#   SHARED  the shared evaluation folder (read-only)   SCRATCH  where corpora and builds go
#   --80k   also generate (~2.5 min, once) and time an 80,000-document corpus
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${1:?usage: bench_dedup.sh SHARED SCRATCH [--80k]}" && pwd)
scratch=${2:?usage: bench_dedup.sh SHARED SCRATCH [--80k]}
big=${3:-}
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
sizes=(5000 20000)
[ "$big" = "--80k" ] && sizes+=(80000)
for n in "${sizes[@]}"; do corpus "$n" >/dev/null; done

echo "building crawlsift and the peer"
cargo build --release --quiet
ours=${CARGO_TARGET_DIR:-target}/release/crawlsift
(cd "$shared/tools/peer-fastwarc" && CARGO_TARGET_DIR="$scratch/peer-target" cargo build --release --quiet)
peer=$scratch/peer-target/release/peer-fastwarc

median3() { # command... -> median wall seconds of 3 runs
  local t=()
  for _ in 1 2 3; do
    local s e
    cat "${warm[@]}" >/dev/null
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t+=("$(python3 -c "print($e - $s)")")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}

dedup_run() { # corpus-dir -> "wall_s peak_kb index_bytes documents" of one crawlsift dedup
  local dir=$1 out=$scratch/out-$(basename "$1") log
  log=$(mktemp)
  cat "$dir"/*.warc.gz >/dev/null
  /usr/bin/time -v "$ours" dedup "$dir"/*.warc.gz --out "$out" --force --quiet 2>"$log" >/dev/null
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

printf '\n%-8s %10s %10s %8s %11s %10s %12s\n' docs "peer s" "dedup s" ratio "peak MiB" "index B/doc" "docs/s"
for n in "${sizes[@]}"; do
  dir=$(corpus "$n")
  # This machine's kernel evicts the page cache within seconds: every timed run (the peer's and
  # ours) is preceded by reading its input once, so both are timed on cached input.
  warm=("$dir"/*.warc.gz)
  peer_s=$(median3 "$peer" "$dir"/*.warc.gz)
  # The median of three dedup runs (by wall time), as for the peer.
  read -r wall rss index docs < <(for _ in 1 2 3; do dedup_run "$dir"; done | sort -g | sed -n 2p)
  printf '%-8s %10.2f %10.2f %7.2fx %11.0f %10.0f %12.0f\n' "$n" "$peer_s" "$wall" \
    "$(python3 -c "print($wall / $peer_s)")" "$(python3 -c "print($rss / 1024)")" "$index" \
    "$(python3 -c "print($docs / $wall)")"
done
echo "(ratio = crawlsift dedup wall time / peer iteration time; targets at 20k: <= 2.00x, < 1024 MiB, < 300 B/doc)"
echo "stage times of the last run: $(python3 -c "import json; print(json.load(open('$scratch/out-$(basename "$dir")/report.json'))['seconds'])")"
