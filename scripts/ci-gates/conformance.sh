#!/usr/bin/env bash
# Gate: the reader reads every real crawl file in ../shared/corpus/real at least as well as the
# better of warcio and FastWARC (see scripts/check_conformance.py).
set -euo pipefail
shared=${1:-../shared}
python3 scripts/check_conformance.py "$shared" target/release/crawlsift
