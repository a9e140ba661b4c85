#!/usr/bin/env bash
# Thread scaling (issue 36): `records`, `extract`, `dedup` and `index` of one corpus at 1, 2, 4, 8,
# 16 threads and as many as the machine has, beside the peer `fastwarc` crate iterating the same
# files on one thread, in one run. Per run: wall seconds, CPU seconds (user + system), peak RSS,
# and for `dedup` the stage times and the busy seconds per stage that its report.json gives
# (`seconds.read_extract_fingerprint / cluster / write`, `seconds.busy`). Also `dedup -j 1` pinned
# to one core (`taskset -c 0`), the base of the speed-up, and the CPU work a perfect spread over
# the machine's cores would take. Speed is reported, never asserted.
#
# It runs on any machine and needs no network: it takes a release binary and makes its corpus with
# makecorpus.py (seed 1, warc-gz; past 80,000 documents, corpora of 80,000 of seeds 1, 2, ... side by
# side, as scripts/bench_dedup.sh does), generated in parallel, once, into SCRATCH.
#
# usage: scripts/bench_threads.sh SHARED SCRATCH [DOCS] [BIG]
#   SHARED   the shared evaluation folder (read-only: makecorpus.py, the peer's sources)
#   SCRATCH  where corpora and outputs go
#   DOCS     documents of the scaling corpus (default 80000)
#   BIG      documents of one extra `dedup` at all threads (e.g. 1000000; default none)
# Environment: CRAWLSIFT (default target/release/crawlsift), PEER (default the peer built from
#   SHARED/tools/peer-fastwarc, built here when cargo is there), THREADS (default "1 2 4 8 16 N"),
#   MAKECORPUS_JOBS (worker processes of each makecorpus.py, default 2; the corpus is the same),
#   BASELINES=0 (skip the peer's and the pinned run), COMMANDS (default "records extract dedup index"), BIG_THREADS (threads of the BIG run, default
#   those of THREADS from 8 up), TSV (default SCRATCH/threads.tsv; rows are appended as they are
#   measured, so a run cut short keeps what it measured).
# Output: a markdown table on stdout; every measurement also in TSV.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench_threads.sh SHARED SCRATCH [DOCS] [BIG]"
shared=$(cd "${1:?$usage}" && pwd)
scratch=${2:?$usage}
docs=${3:-80000}
big=${4:-}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
bin=${CRAWLSIFT:-$PWD/target/release/crawlsift}
[ -x "$bin" ] || { echo "bench_threads: $bin missing (cargo build --release)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_threads: /usr/bin/time (GNU time) is needed" >&2; exit 1; }
cores=$(nproc)
threads=${THREADS:-$(for t in 1 2 4 8 16; do [ "$t" -lt "$cores" ] && echo "$t"; done; echo "$cores")}
threads=$(echo $threads)
commands=${COMMANDS:-records extract dedup index}

peer=${PEER:-$shared/tools/peer-fastwarc/target/release/peer-fastwarc}
if [ ! -x "$peer" ] && command -v cargo >/dev/null 2>&1 && [ -z "${PEER:-}" ]; then
  (cd "$shared/tools/peer-fastwarc" && cargo build --release -q) >&2 || true
fi

generate() { # docs seed dir: one makecorpus corpus, made once
  [ -f "$3/truth.jsonl" ] && return
  python3 "$shared/tools/makecorpus.py" --out "$3" --docs "$1" --seed "$2" --format warc-gz \
    --jobs "${MAKECORPUS_JOBS:-2}" >/dev/null
}
corpus_files() { # docs -> archives, one per line; corpora of 80,000 generated in parallel
  local n=$1 seed=1 dirs=() pids=()
  while [ "$n" -gt 0 ]; do
    local take=$((n < 80000 ? n : 80000))
    local dir=$scratch/seeds/s$seed-$((take / 1000))k
    dirs+=("$dir")
    generate "$take" "$seed" "$dir" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$cores" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    n=$((n - take))
    seed=$((seed + 1))
  done
  for p in "${pids[@]}"; do wait "$p"; done
  for d in "${dirs[@]}"; do ls "$d"/*.warc.gz; done
}

tsv=${TSV:-$scratch/threads.tsv}
[ -s "$tsv" ] || printf 'corpus\tcommand\tthreads\twall_s\tcpu_s\tpeak_rss_mb\tread_extract_fp_s\tcluster_s\twrite_s\tbusy_read_s\tbusy_extract_s\tbusy_fingerprint_s\n' >"$tsv"

measure() { # label threads prefix-command... : runs it under GNU time, appends a row
  local corpus=$1 label=$2 t=$3
  shift 3
  local out=$scratch/run-out
  rm -rf "$out" "$scratch/run-idx"
  local tf=$scratch/time.txt
  if ! /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >/dev/null 2>"$scratch/stderr.txt"; then
    echo "bench_threads: $label -j $t failed:" >&2
    tail -5 "$scratch/stderr.txt" >&2
    return 0
  fi
  read -r wall user sys rss <"$tf"
  local stages="-	-	-	-	-	-"
  if [ -f "$out/report.json" ]; then
    stages=$(python3 - "$out/report.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["seconds"]
b = s.get("busy", {})
print("\t".join(str(x) for x in (s["read_extract_fingerprint"], s["cluster"], s["write"],
                                   b.get("read", "-"), b.get("extract", "-"), b.get("fingerprint", "-"))))
PY
)
  fi
  local cpu
  cpu=$(python3 -c "print(round($user + $sys, 2))")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$corpus" "$label" "$t" "$wall" "$cpu" "$((rss / 1024))" "$stages" >>"$tsv"
  echo "  $corpus $label -j $t: ${wall}s wall, ${cpu}s CPU" >&2
}

if [ -n "$big" ]; then # the big corpus holds the scaling one (seed 1): generate all at once
  corpus_files "$big" >/dev/null
fi
mapfile -t files < <(corpus_files "$docs")
name=$((docs / 1000))k
bytes=$(cat "${files[@]}" | wc -c)
echo "corpus $name: ${#files[@]} files, $((bytes / 1000000)) MB; $cores cores" >&2

if [ "${BASELINES:-1}" = 0 ]; then
  : # the caller measured the peer and the pinned run already (same TSV)
elif [ -x "$peer" ]; then
  measure "$name" peer-fastwarc 1 "$peer" "${files[@]}"
else
  echo "notice: no peer binary ($peer); the peer's row is missing" >&2
fi
if [ "${BASELINES:-1}" != 0 ] && command -v taskset >/dev/null 2>&1; then
  measure "$name" "dedup (taskset -c 0)" 1 taskset -c 0 "$bin" dedup -q -j 1 --out "$scratch/run-out" "${files[@]}"
fi
for cmd in $commands; do
  for t in $threads; do
    case $cmd in
      records) measure "$name" records "$t" "$bin" records --summary -j "$t" "${files[@]}" ;;
      extract) measure "$name" extract "$t" "$bin" extract -j "$t" "${files[@]}" ;;
      dedup) measure "$name" dedup "$t" "$bin" dedup -q -j "$t" --out "$scratch/run-out" "${files[@]}" ;;
      index) measure "$name" index "$t" "$bin" index -j "$t" --out "$scratch/run-idx" "${files[@]}" ;;
    esac
  done
done

if [ -n "$big" ]; then
  mapfile -t bigfiles < <(corpus_files "$big")
  bname=$((big / 1000))k
  echo "corpus $bname: ${#bigfiles[@]} files, $(($(cat "${bigfiles[@]}" | wc -c) / 1000000)) MB" >&2
  for t in ${BIG_THREADS:-$(echo "$threads" | tr ' ' '\n' | awk '$1 >= 8')}; do
    measure "$bname" dedup "$t" "$bin" dedup -q -j "$t" --out "$scratch/run-out" "${bigfiles[@]}"
  done
fi
rm -rf "$scratch/run-out" "$scratch/run-idx"

python3 - "$tsv" "$cores" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
cores = int(sys.argv[2])
print(f"| corpus | run | threads | wall s | CPU s | speed-up | CPU / ({cores} cores) s | peak MB | read+extract+fp / cluster / write s | busy read / extract / fp s |")
print("|---|---|---|---|---|---|---|---|---|---|")
base = {}
for r in rows:
    if r["threads"] == "1" and r["command"] not in base:
        base[(r["corpus"], r["command"])] = float(r["wall_s"])
for r in rows:
    b = base.get((r["corpus"], r["command"]))
    up = f"{b / float(r['wall_s']):.2f}x" if b and float(r["wall_s"]) > 0 else ""
    spread = f"{float(r['cpu_s']) / cores:.2f}"
    st = " / ".join(r[k] for k in ("read_extract_fp_s", "cluster_s", "write_s")) if r["cluster_s"] != "-" else ""
    busy = " / ".join(r[k] for k in ("busy_read_s", "busy_extract_s", "busy_fingerprint_s")) if r["busy_read_s"] != "-" else ""
    print(f"| {r['corpus']} | {r['command']} | {r['threads']} | {r['wall_s']} | {r['cpu_s']} | {up} | {spread} | {r['peak_rss_mb']} | {st} | {busy} |")
PY
