#!/usr/bin/env bash
# Cost of phrase-level duplication (issue 18): times `crawlsift dedup` and `crawlsift dedup
# --phrases` on the same seed-1 corpus in the same minutes (runs alternate: plain, phrases, three
# times each; medians by wall time), with peak RSS and exit status from /usr/bin/time -v and the
# documents read from report.json, then scores the phrases run's slice_and_dice.jsonl with
# SHARED/tools/scorephrases.py. Target: --phrases at most 1.30x the time of dedup alone, at 20,000
# and (with --80k) 80,000 documents, in bounded memory. Never a pass/fail: cost is reported.
#
# usage: scripts/bench_phrases.sh SHARED SCRATCH [--80k]
#   SHARED  the shared evaluation folder (read-only)
#   SCRATCH where the corpora are (SCRATCH/corpus20k, SCRATCH/corpus80k; generated when missing)
#           and outputs go
#   --80k   also the 80,000-document corpus (~2.5 min and ~1 GB to generate, once)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${1:?usage: bench_phrases.sh SHARED SCRATCH [--80k]}" && pwd)
scratch=${2:?usage: bench_phrases.sh SHARED SCRATCH [--80k]}
big=${3:-}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
[ -x /usr/bin/time ] || { echo "bench_phrases: /usr/bin/time (GNU time) is needed" >&2; exit 1; }

corpus() { # docs -> folder of the seed-1 warc-gz corpus with that many documents (made once)
  local dir=$scratch/corpus$(($1 / 1000))k
  if [ ! -f "$dir/truth.jsonl" ]; then
    echo "generating $dir ($1 documents)" >&2
    python3 "$shared/tools/makecorpus.py" --out "$dir" --docs "$1" --seed 1 --format warc-gz >/dev/null
  fi
  echo "$dir"
}
sizes=(20000)
[ "$big" = "--80k" ] && sizes+=(80000)

echo "building crawlsift"
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/crawlsift

run() { # corpus-dir out-dir [--phrases] -> "wall_s peak_kb exit documents"
  local dir=$1 out=$2 log
  shift 2
  log=$(mktemp)
  cat "$dir"/*.warc.gz >/dev/null # timed on cached input, like bench_dedup.sh
  /usr/bin/time -v "$bin" dedup "$dir"/*.warc.gz --out "$out" --force --quiet "$@" 2>"$log" >/dev/null || true
  python3 - "$log" "$out/report.json" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", log)
wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1))
code = int(re.search(r"Exit status: (\d+)", log).group(1))
print(wall, rss, code, json.load(open(sys.argv[2]))["documents"])
PY
  rm -f "$log"
}

printf '\n%-7s %-9s %8s %9s %5s %9s\n' docs run "wall s" "peak MiB" exit documents
for n in "${sizes[@]}"; do
  dir=$(corpus "$n")
  plain=() phrases=()
  for _ in 1 2 3; do
    plain+=("$(run "$dir" "$scratch/out-plain-$n")")
    phrases+=("$(run "$dir" "$scratch/out-phrases-$n" --phrases)")
  done
  read -r pw pr pc pd < <(printf '%s\n' "${plain[@]}" | sort -g | sed -n 2p)
  read -r qw qr qc qd < <(printf '%s\n' "${phrases[@]}" | sort -g | sed -n 2p)
  printf '%-7s %-9s %8.2f %9.0f %5s %9s\n' "$n" dedup "$pw" "$((pr / 1024))" "$pc" "$pd"
  printf '%-7s %-9s %8.2f %9.0f %5s %9s\n' "$n" --phrases "$qw" "$((qr / 1024))" "$qc" "$qd"
  echo "  all runs (wall peak_kb exit docs): dedup ${plain[*]}; --phrases ${phrases[*]}"
  echo "  --phrases / dedup: time $(python3 -c "print(round($qw / $pw, 3))")x (target <= 1.30x), peak memory $(python3 -c "print(round($qr / $pr, 3))")x"
  echo "  stage times, --phrases: $(python3 -c "import json; print(json.load(open('$scratch/out-phrases-$n/report.json'))['seconds'])")"
  python3 "$shared/tools/scorephrases.py" "$dir/truth.jsonl" "$scratch/out-phrases-$n/slice_and_dice.jsonl" | sed 's/^/  /'
done
