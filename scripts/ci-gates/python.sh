#!/usr/bin/env bash
# Gate (issue #20): the Python package builds with `pip install .` from the repository root (maturin,
# crates/python) in a fresh virtual environment, and its suite (python/tests) passes: records() gives
# what `crawlsift records` gives on every real file of ../shared/corpus/real, extract() and
# fingerprint() agree with the CLI.
set -euo pipefail
shared=${1:-../shared}
[ -d "$shared/corpus/real" ] || { echo "python gate: $shared/corpus/real is missing" >&2; exit 1; }
venv=target/pyvenv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip pytest
"$venv/bin/pip" install -q .
# --import-mode=importlib: the tests import the installed package, never python/crawlsift itself.
CRAWLSIFT_BIN="$PWD/target/release/crawlsift" \
  "$venv/bin/python" -m pytest -q --import-mode=importlib python/tests
# The ```python blocks of README.md and docs/*.md, run as written with the installed package
# (tests/doc_blocks.rs runs the console and sh blocks).
"$venv/bin/python" scripts/doc_python_blocks.py
