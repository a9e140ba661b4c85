#!/usr/bin/env bash
# Accuracy gate for main-text extraction: scores `crawlsift extract --html-dir` (built by CI into
# target/release) on the six datasets of SHARED/bench/extraction and fails when the mean F1 of the
# `blocks` (default), `plateau` or `learned` method falls below what they reached, less a small margin for
# floating-point and platform noise. Builds nothing.
#
# usage: scripts/ci-gates/extraction.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: extraction.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
SCORER="$SHARED/tools/score_extraction.py"
if [ ! -d "$SHARED/bench/extraction" ]; then
  echo "notice: $SHARED/bench/extraction not found; extraction gate skipped"
  exit 0
fi
[ -x "$BIN" ] || { echo "extraction gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }

# Reached (2026-11-24, 1,277 pages): blocks 0.9247 (article_share 0.3, chosen by scripts/lodo.py),
# plateau 0.8516.
MIN_BLOCKS=0.922
MIN_PLATEAU=0.848
# `learned` reached 0.9404 (2026-11-27), 0.9403 with the model of the 3-digit table
# (scripts/extractor-model/blocks-by-column.tsv.xz), 0.9444 with the two-stage model and the
# <noscript> rule (2026-11-28; the floor raised from 0.937 to 0.942), 0.9485 with streamed React
# segments read and the model retrained (2026-11-28 evening; the floor raised to 0.946). Its model
# was trained on these pages (among others), so this figure is a regression floor, not a measure
# of how it generalises: see scripts/lodo_learned.py and the held-out WCXB sites for that.
MIN_LEARNED=0.946

status=0
for spec in "blocks $MIN_BLOCKS" "plateau $MIN_PLATEAU" "learned $MIN_LEARNED"; do
  set -- $spec
  echo "--- extraction: $1 (min mean F1 $2)"
  if ! python3 "$SCORER" --name "crawlsift-$1" \
      --cmd-dir "$BIN extract --method $1 --html-dir {in} --out-dir {out}" \
      --min-mean-f1 "$2"; then
    echo "extraction gate FAILED: $1 below $2" >&2
    status=1
  fi
done
exit $status
