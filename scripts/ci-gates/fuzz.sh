#!/usr/bin/env bash
# Gate: every cargo-fuzz target runs for a short fixed time (FUZZ_SECONDS, default 30 s each),
# seeded from ../shared and data/, and any crash, leak, timeout or out-of-memory fails the gate.
# Needs a nightly toolchain and cargo-fuzz; installs cargo-fuzz when missing, and skips with a
# notice when nightly is not there (the gate cannot run, which is not a failure of the code).
#
#   bash scripts/ci-gates/fuzz.sh [SHARED]
set -uo pipefail
cd "$(dirname "$0")/../.."
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
if ! cargo +nightly fuzz build; then
  echo "fuzz gate: the fuzz targets do not build" >&2
  exit 1
fi

failed=()
for target in $(cargo +nightly fuzz list); do
  log=$(mktemp)
  if bash scripts/fuzz.sh "$target" "$seconds" "$shared" >"$log" 2>&1; then
    echo "fuzz $target: ok, $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
  else
    echo "fuzz $target: FAILED" >&2
    grep -E 'ERROR: |panicked|SUMMARY|Test unit written|Done' "$log" | head -20 >&2
    failed+=("$target")
  fi
  rm -f "$log"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz gate: crashes in ${failed[*]}; reproduce with" >&2
  echo "  cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/<crash file>" >&2
  exit 1
fi
echo "fuzz gate: $(cargo +nightly fuzz list | wc -l) targets, ${seconds}s each, no crash"
