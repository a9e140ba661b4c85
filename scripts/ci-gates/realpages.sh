#!/usr/bin/env bash
# Real-page dedup gate (issue 15): clusters SHARED/bench/realpages/pages.warc.gz (1,473 real pages)
# with the release binary and scores every clustered pair with SHARED/tools/realpages.py against
# the pages' reference texts. Gates: precision >= 0.97, recall >= 0.80. The recall gate sits below
# the 0.95 the issue asks: 57 of the 327 reference pairs are pages of one site whose reference
# text is that site's navigation (see the closing note of the stop that added this gate), which
# no deduplicator that reads the pages' own text can join; it guards against regressions.
# scripts/realpages_split.py then splits recall by the references' source: on the 259 pairs whose
# two references are hand-made (gold), recall must stay >= 0.99 (it is 1.0000; the peer pipeline's
# 0.9961). All 57 misses are pairs of trafilatura references, which the peer misses too.
#
# usage: scripts/ci-gates/realpages.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: realpages.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
BENCH="$SHARED/bench/realpages"
[ -f "$BENCH/pages.warc.gz" ] || { echo "realpages gate FAILED: $BENCH missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "realpages gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-realpages.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BIN" dedup "$BENCH/pages.warc.gz" --out "$work/out" --quiet
python3 "$SHARED/tools/realpages.py" score "$BENCH" "$work/out/clusters.jsonl" \
  --min-precision 0.97 --min-recall 0.80
status=0
python3 scripts/realpages_split.py "$SHARED" "$work/out" --min-gold-recall 0.99 >"$work/split.txt" || status=$?
head -n 3 "$work/split.txt"
exit "$status"
