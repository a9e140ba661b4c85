#!/usr/bin/env bash
# Accuracy gate for `crawlsift dedup` (built by CI into target/release): generates two labelled
# corpora with SHARED/tools/makecorpus.py into a temporary folder, clusters each and scores the
# clusters with SHARED/tools/scoreclusters.py against the issue's gates:
#   pairwise F1 >= 0.95, B-cubed F1 >= 0.98, recall >= 0.95 for every copy kind, and at most 1% of
#   the negative documents (near-misses, short pages, unique originals) in any cluster.
# Corpora: the standard generator at 5,000 documents (seed 1, warc-gz) and the seed-7 TREC corpus
# at 2,000 documents (trec-gz, dup-rate 0.5), and a 3,000-document corpus with same-site siblings
# (seed 61, --siblings 0.1). About two minutes on 2 cores. Builds nothing.
#
# usage: scripts/ci-gates/dedup.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: dedup.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
MAKE="$SHARED/tools/makecorpus.py"
SCORE="$SHARED/tools/scoreclusters.py"
if [ ! -f "$MAKE" ] || [ ! -f "$SCORE" ]; then
  echo "notice: $SHARED/tools/makecorpus.py or scoreclusters.py not found; dedup gate skipped"
  exit 0
fi
[ -x "$BIN" ] || { echo "dedup gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-dedup-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT
GATES=(--min-pairwise-f1 0.95 --min-bcubed-f1 0.98 --min-kind-recall 0.95 --max-negative-rate 0.01)

status=0
gate() { # name makecorpus-arguments...
  local name=$1
  shift
  local corpus=$work/$name out=$work/$name-out
  echo "--- dedup gate: $name (makecorpus $*)"
  python3 "$MAKE" --out "$corpus" "$@" >/dev/null
  # The archives only: truth.jsonl and manifest.json are not input.
  local files=()
  while IFS= read -r f; do files+=("$f"); done < <(
    find "$corpus" -type f ! -name '*.json' ! -name '*.jsonl' | sort)
  if [ ${#files[@]} -eq 0 ]; then
    echo "dedup gate FAILED: $name: makecorpus wrote no archive" >&2
    status=1
    return
  fi
  local started=$SECONDS
  if ! "$BIN" dedup "${files[@]}" --out "$out" --quiet; then
    echo "dedup gate FAILED: $name: crawlsift dedup exited with an error" >&2
    status=1
    return
  fi
  echo "crawlsift dedup: $((SECONDS - started)) s"
  if ! python3 "$SCORE" "$corpus/truth.jsonl" "$out/clusters.jsonl" "${GATES[@]}"; then
    echo "dedup gate FAILED: $name below the gates" >&2
    status=1
  fi
}

gate s1-warc-5k --docs 5000 --seed 1 --format warc-gz
gate s7-trec-2k --docs 2000 --seed 7 --format trec-gz --dup-rate 0.5
# Same-site siblings (issue 15): distinct pages sharing a site skeleton are negatives, so the 1%
# negative gate also bounds the siblings wrongly clustered.
gate s61-siblings-3k --docs 3000 --seed 61 --format warc-gz --siblings 0.1
exit $status
