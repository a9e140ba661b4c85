#!/usr/bin/env bash
# Gate (issue #33) for the `learned` extraction method's model: trains it from the committed
# table (scripts/extractor-model/blocks-by-column.tsv.xz) and fails unless the output is byte-identical to
# the committed crates/extractor/src/learned/model.rs; then re-dumps the block features of the
# SHARED pages in the table with the built binary and fails unless they equal the committed rows
# (a feature change without a new table and model). Needs no network; builds only the trainer.
#
# usage: scripts/ci-gates/extraction_model.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: extraction_model.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
MODEL=crates/extractor/src/learned/model.rs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# One training here: the committed model was made by another training, on another machine and
# day, so the same bytes again are the determinism check (a second run here would add minutes
# to CI and prove nothing more).
python3 scripts/train_extractor.py fit --out "$tmp/model.rs"
if ! cmp -s "$tmp/model.rs" "$MODEL"; then
  echo "extraction model gate FAILED: training from the committed table differs from $MODEL" >&2
  status=1
fi
[ $status -eq 0 ] && echo "--- extraction model: training from the committed table gives $MODEL byte for byte"
if [ -d "$SHARED/bench/extraction" ]; then
  [ -x "$BIN" ] || { echo "extraction model gate: $BIN missing (cargo build --release first)" >&2; exit 1; }
  if ! python3 scripts/train_extractor.py check --shared "$SHARED" --crawlsift "$BIN"; then
    echo "extraction model gate FAILED: features of the shared pages differ from the committed table" >&2
    status=1
  fi
else
  echo "notice: $SHARED/bench/extraction not found; feature re-dump check skipped"
fi
exit $status
