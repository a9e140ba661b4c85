#!/usr/bin/env bash
# Gate: every cargo-fuzz target runs for a short fixed time (FUZZ_SECONDS, default 30 s each),
# seeded from ../shared and data/, and any crash, leak, timeout or out-of-memory fails the gate.
# Needs a nightly toolchain and cargo-fuzz; installs cargo-fuzz when missing, and skips with a
# notice when nightly is not there (the gate cannot run, which is not a failure of the code).
#
#   bash scripts/ci-gates/fuzz.sh [SHARED]
#   bash scripts/ci-gates/fuzz.sh --build-only   (what .ci/run starts early, at the lowest
#                                                 priority: the gate then finds the targets built)
set -uo pipefail
cd "$(dirname "$0")/../.."
build_only=false
if [ "${1:-}" = --build-only ]; then build_only=true; shift; fi
shared=${1:-../shared}
seconds=${FUZZ_SECONDS:-30}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "notice: fuzz gate skipped: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  if ! cargo install cargo-fuzz --locked >/dev/null 2>&1; then
    echo "notice: fuzz gate skipped: cargo-fuzz is missing and could not be installed"
    exit 0
  fi
fi

# Build every target first so a build error is reported as such and the timed runs only fuzz.
# (A build .ci/run started earlier holds cargo's lock on fuzz/target: this one waits for it,
# then has nothing left to do.)
if ! cargo +nightly fuzz build; then
  echo "fuzz gate: the fuzz targets do not build" >&2
  exit 1
fi
$build_only && exit 0

# Targets run side by side, one per core (FUZZ_JOBS, default the cores there are): each still
# gets its own core for its full FUZZ_SECONDS, so the gate fuzzes as much as one at a time, in
# half the wall time on two cores. Results are reported in the targets' order.
jobs=${FUZZ_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
targets=$(cargo +nightly fuzz list)
for target in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (
    if bash scripts/fuzz.sh "$target" "$seconds" "$shared" >"$logs/$target.log" 2>&1; then
      touch "$logs/$target.ok"
    fi
  ) &
done
wait

failed=()
for target in $targets; do
  log=$logs/$target.log
  if [ -e "$logs/$target.ok" ]; then
    echo "fuzz $target: ok, $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
  else
    echo "fuzz $target: FAILED" >&2
    grep -E 'ERROR: |panicked|SUMMARY|Test unit written|Done' "$log" | head -20 >&2
    failed+=("$target")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz gate: crashes in ${failed[*]}; reproduce with" >&2
  echo "  cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/<crash file>" >&2
  exit 1
fi
echo "fuzz gate: $(echo "$targets" | wc -w) targets, ${seconds}s each, $jobs at a time, no crash"
