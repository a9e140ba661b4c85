#!/usr/bin/env bash
# Gate (issues #20, #34): the Python package's wheel, built once (scripts/build_wheel.sh: maturin
# build --release, stripped, into target/wheels), installs into a FRESH virtual environment with
# no Rust toolchain on PATH and no source build allowed, and its suite (python/tests) passes from
# it: records() gives what `crawlsift records` gives on every real file of ../shared/corpus/real,
# extract() and fingerprint() agree with the CLI. The ```python blocks of the docs run with it too.
# The spark gate (run after this one) installs the same wheel.
set -euo pipefail
shared=${1:-../shared}
[ -d "$shared/corpus/real" ] || { echo "python gate: $shared/corpus/real is missing" >&2; exit 1; }
wheel=$(scripts/build_wheel.sh)
venv=target/pyvenv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip pytest
# Only binary packages, no index, and cargo, rustc and maturin (in ~/.cargo/bin and the build
# venv) off PATH: the wheel installs without a toolchain.
env PATH=/usr/bin:/bin "$venv/bin/pip" install -q --no-index --no-build-isolation --only-binary :all: "$wheel"
# --import-mode=importlib: the tests import the installed package, never python/crawlsift itself.
CRAWLSIFT_BIN="$PWD/target/release/crawlsift" \
  "$venv/bin/python" -m pytest -q --import-mode=importlib python/tests
# The ```python blocks of README.md and docs/*.md, run as written with the installed package
# (tests/doc_blocks.rs runs the console and sh blocks).
"$venv/bin/python" scripts/doc_python_blocks.py
