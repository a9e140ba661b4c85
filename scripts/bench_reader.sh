#!/usr/bin/env bash
# Reading benchmark: `crawlsift records --summary` (every payload inflated and HTTP-decoded) with 1
# and 2 threads, side by side in one run with the peer `fastwarc` crate iterating the same files and
# reading every payload, and with a bare single-threaded in-process inflate of every gzip member.
# Reports medians of 3 runs and the ratios. Never a pass/fail: speed is reported, not asserted.
#
# usage: scripts/bench_reader.sh [SHARED] [SCRATCH]   (defaults ../shared and /tmp/crawlsift-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${1:-../shared}" && pwd)
scratch=${2:-/tmp/crawlsift-bench}
mkdir -p "$scratch"
corpus=$scratch/corpus20k
if [ ! -f "$corpus/truth.jsonl" ]; then
  echo "generating the standard corpus in $corpus (about 40 s)"
  python3 "$shared/tools/makecorpus.py" --out "$corpus" --docs 20000 --seed 1 --format warc-gz >/dev/null
fi
echo "building crawlsift, the peer and the bare-inflate example"
cargo build --release --quiet
cargo build --release --quiet -p crawlsift-reader --example inflate_compare
(cd "$shared/tools/peer-fastwarc" && CARGO_TARGET_DIR="$scratch/peer-target" cargo build --release --quiet)
peer=$scratch/peer-target/release/peer-fastwarc
ours=target/release/crawlsift
files=("$corpus"/*.warc.gz)

median3() { # command... -> median wall seconds of 3 runs
  local t=()
  for _ in 1 2 3; do
    local s e
    # This machine's kernel evicts the page cache within seconds: warm it before every run, so
    # each reader is timed on cached input rather than on whatever the previous run left.
    cat "${files[@]}" >/dev/null
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    t+=("$(python3 -c "print($e - $s)")")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}

peer_s=$(median3 "$peer" "${files[@]}")
one_s=$(median3 "$ours" records --summary --threads 1 "${files[@]}")
two_s=$(median3 "$ours" records --summary --threads 2 "${files[@]}")
echo
echo "bare inflate (zlib-rs vs libdeflate, one thread, whole members):"
target/release/examples/inflate_compare "${files[@]}" | sed 's/^/  /'
echo
"$ours" records --summary --threads 2 "${files[@]}" | tail -1 | cut -c1-200
printf '\n%-40s %8s %10s\n' "reader" "median s" "vs peer"
printf '%-40s %8.3f %10s\n' "peer-fastwarc (fastwarc 2.0, 1 thread)" "$peer_s" "1.00x"
printf '%-40s %8.3f %9.2fx\n' "crawlsift records --summary -j1" "$one_s" "$(python3 -c "print($peer_s / $one_s)")"
printf '%-40s %8.3f %9.2fx\n' "crawlsift records --summary -j2" "$two_s" "$(python3 -c "print($peer_s / $two_s)")"
echo "(throughput ratio = peer time / our time; targets: >= 1.00x with 1 thread, >= 1.80x with 2)"
