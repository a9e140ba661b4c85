#!/usr/bin/env bash
# Dedup at scale (issue 20) on corpora that already exist: the archives of every CORPUS_DIR side
# by side (makecorpus.py corpora of distinct seeds make a corpus of any size), timed in one run
# as bench_dedup.sh times its sizes: the peer `fastwarc` crate iterating every payload, then
# `crawlsift dedup`, each once on input just read into the page cache. Prints the pages the
# corpora's manifests hold, the documents dedup judged, wall times, peak memory, the ratio, time
# per document and dedup's stage times. Never a pass/fail: speed is reported, not asserted.
# The million-document figures of the README came from this script.
# DEDUP_ARGS=... (environment) adds options to dedup (e.g. "--memory 1G"); CRAWLSIFT=PATH times
# another build of crawlsift (an older commit's, side by side) instead of this tree's.
#
# usage: scripts/bench_corpora.sh SHARED SCRATCH CORPUS_DIR...
#   SHARED  the shared evaluation folder (read-only; the peer's source)
#   SCRATCH where the peer's build and dedup's outputs go
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench_corpora.sh SHARED SCRATCH CORPUS_DIR..."
shared=$(cd "${1:?$usage}" && pwd)
scratch=${2:?$usage}
shift 2
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_corpora: /usr/bin/time (GNU time) is needed" >&2; exit 1; }
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
files=()
pages=0
for d in "$@"; do
  files+=("$d"/*.warc.gz)
  pages=$((pages + $(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['docs'])" "$d/manifest.json")))
done
cargo build --release --quiet
ours=${CRAWLSIFT:-${CARGO_TARGET_DIR:-target}/release/crawlsift}
read -r -a extra <<<"${DEDUP_ARGS:-}"
(cd "$shared/tools/peer-fastwarc" && CARGO_TARGET_DIR="$scratch/peer-target" cargo build --release --quiet)
peer=$scratch/peer-target/release/peer-fastwarc
echo "corpora: $*; dedup: $ours ${extra[*]}"
echo "pages (manifests): $pages; archives: ${#files[@]}; bytes: $(du -cbL "${files[@]}" | tail -1 | cut -f1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "${files[@]}" >/dev/null
/usr/bin/time -f "%e %M" -o "$scratch/peer.time" "$peer" "${files[@]}" >/dev/null
cat "${files[@]}" >/dev/null
status=0
/usr/bin/time -f "%e %M" -o "$scratch/dedup.time" "$ours" dedup "${extra[@]}" "${files[@]}" --out "$scratch/out" --force --quiet >/dev/null || status=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$scratch" "$status" <<'PY'
import json, sys
scratch, status = sys.argv[1], sys.argv[2]
peer_s, peer_kb = map(float, open(f"{scratch}/peer.time").read().split())
ours_s, ours_kb = map(float, open(f"{scratch}/dedup.time").read().split())
r = json.load(open(f"{scratch}/out/report.json"))
docs = r["documents"]
print(f"peer {peer_s:.2f} s, {peer_kb / 1024:.0f} MiB; dedup {ours_s:.2f} s, {ours_kb / 1024:.0f} MiB, exit {status}")
print(f"documents {docs}; ratio {ours_s / peer_s:.2f}x; {ours_s * 1e6 / docs:.1f} us/doc; "
      f"band keys {r['cluster_stats'].get('band_key_bits')} bits; stages {r['seconds']}")
PY
