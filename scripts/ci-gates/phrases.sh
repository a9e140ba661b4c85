#!/usr/bin/env bash
# Accuracy gate for `crawlsift dedup --phrases` (issue 18; built by CI into target/release):
# generates two labelled corpora with SHARED/tools/makecorpus.py into a temporary folder, runs
# dedup --phrases on each and scores slice_and_dice.jsonl with SHARED/tools/scorephrases.py against
# the issue's targets: detection F1 >= 0.95, share of each stitched page's true sources named
# >= 0.90, at most 0.5% of the other pages (near-misses among them) flagged.
# Corpora: 3,000 documents of the standard generator (seed 5, warc-gz, with same-site siblings,
# whose shared skeletons must not pass for stitching) and 2,000 of the seed-7 TREC corpus
# (trec-gz, dup-rate 0.5). About a minute on 2 cores. Builds nothing.
#
# usage: scripts/ci-gates/phrases.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: phrases.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
MAKE="$SHARED/tools/makecorpus.py"
SCORE="$SHARED/tools/scorephrases.py"
if [ ! -f "$MAKE" ] || [ ! -f "$SCORE" ]; then
  echo "notice: $SHARED/tools/makecorpus.py or scorephrases.py not found; phrases gate skipped"
  exit 0
fi
[ -x "$BIN" ] || { echo "phrases gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-phrases-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT
GATES=(--min-f1 0.95 --min-source-recall 0.90 --max-false-flag-rate 0.005)

status=0
gate() { # name makecorpus-arguments...
  local name=$1
  shift
  local corpus=$work/$name out=$work/$name-out
  echo "--- phrases gate: $name (makecorpus $*)"
  python3 "$MAKE" --out "$corpus" "$@" >/dev/null
  # The archives only: truth.jsonl and manifest.json are not input.
  local files=()
  while IFS= read -r f; do files+=("$f"); done < <(
    find "$corpus" -type f ! -name '*.json' ! -name '*.jsonl' | sort)
  if [ ${#files[@]} -eq 0 ]; then
    echo "phrases gate FAILED: $name: makecorpus wrote no archive" >&2
    status=1
    return
  fi
  local started=$SECONDS
  if ! "$BIN" dedup "${files[@]}" --out "$out" --phrases --quiet; then
    echo "phrases gate FAILED: $name: crawlsift dedup --phrases exited with an error" >&2
    status=1
    return
  fi
  echo "crawlsift dedup --phrases: $((SECONDS - started)) s"
  if ! python3 "$SCORE" "$corpus/truth.jsonl" "$out/slice_and_dice.jsonl" "${GATES[@]}"; then
    echo "phrases gate FAILED: $name below the targets" >&2
    status=1
  fi
}

gate s5-siblings-3k --docs 3000 --seed 5 --format warc-gz --siblings 0.1
gate s7-trec-2k --docs 2000 --seed 7 --format trec-gz --dup-rate 0.5
exit $status
