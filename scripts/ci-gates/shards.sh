#!/usr/bin/env bash
# Shards and merge at the size of the speed benchmark (issue 20): generates the 20,000-document
# seed-1 corpus with SHARED/tools/makecorpus.py, runs one `crawlsift dedup` over it, then for
# N = 1, 2, 3 and 8 runs `dedup --shard I/N` for every I and `merge` (shards given in reverse
# order), and fails unless clusters.jsonl, documents.jsonl.gz and the --text file are the same
# bytes as the single run's, and report.json is the same apart from the keys that describe the
# process (command line, clock times, timings, throughput, peak memory). tests/shards.rs checks
# the same on small corpora; this is the check at a size where several shards hold many files.
# About two minutes on 2 cores. Builds nothing.
#
# usage: scripts/ci-gates/shards.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: shards.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
MAKE="$SHARED/tools/makecorpus.py"
[ -f "$MAKE" ] || { echo "shards gate: $MAKE not found" >&2; exit 1; }
[ -x "$BIN" ] || { echo "shards gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-shards-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "--- shards gate: makecorpus --docs 20000 --seed 1 --format warc-gz"
python3 "$MAKE" --out "$work/corpus" --docs 20000 --seed 1 --format warc-gz >/dev/null
files=()
while IFS= read -r f; do files+=("$f"); done < <(
  find "$work/corpus" -type f ! -name '*.json' ! -name '*.jsonl' | sort)
[ ${#files[@]} -gt 8 ] || { echo "shards gate FAILED: only ${#files[@]} archives" >&2; exit 1; }

started=$SECONDS
"$BIN" dedup "${files[@]}" --out "$work/single" --text "$work/single.text.jsonl.gz" --quiet
echo "single run: $((SECONDS - started)) s, ${#files[@]} files"

same_report() { # a.json b.json
  python3 - "$1" "$2" <<'EOF'
import json, sys
VOLATILE = {"command_line", "started", "ended", "seconds", "throughput", "peak_memory_bytes",
            "threads"}
a, b = (json.load(open(p)) for p in sys.argv[1:3])
diff = sorted(k for k in set(a) | set(b) if k not in VOLATILE and a.get(k) != b.get(k))
if diff:
    print("report.json differs in: " + ", ".join(diff))
    sys.exit(1)
EOF
}

status=0
for n in 1 2 3 8; do
  started=$SECONDS
  dirs=()
  for ((i = 0; i < n; i++)); do
    "$BIN" dedup "${files[@]}" --shard "$i/$n" --out "$work/n$n-s$i" \
      --text "$work/n$n-s$i.text.jsonl.gz" --quiet
    dirs=("$work/n$n-s$i" "${dirs[@]}")
  done
  "$BIN" merge "${dirs[@]}" --out "$work/n$n" --text "$work/n$n.text.jsonl.gz" --quiet
  bad=()
  cmp -s "$work/single/clusters.jsonl" "$work/n$n/clusters.jsonl" || bad+=(clusters.jsonl)
  cmp -s "$work/single/documents.jsonl.gz" "$work/n$n/documents.jsonl.gz" \
    || bad+=(documents.jsonl.gz)
  cmp -s "$work/single.text.jsonl.gz" "$work/n$n.text.jsonl.gz" || bad+=(text)
  same_report "$work/single/report.json" "$work/n$n/report.json" || bad+=(report.json)
  if [ ${#bad[@]} -eq 0 ]; then
    echo "N=$n: the same bytes as the single run ($((SECONDS - started)) s)"
  else
    echo "shards gate FAILED: N=$n differs from the single run in: ${bad[*]}" >&2
    status=1
  fi
  rm -rf "$work"/n"$n"-s* "$work/n$n"
done
exit $status
