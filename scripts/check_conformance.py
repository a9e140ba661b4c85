#!/usr/bin/env python3
"""Reader conformance: every real crawl file in SHARED/corpus/real is read without a crash or hang,
with at least as many records as the better of warcio 1.8.1 and FastWARC 2.0 recover (peers.jsonl),
and at least as many of each record type as the peer that recovered more (`records_by_type`), so a
file cannot pass by counting damaged bytes as records of another type.

Exit statuses accepted from the binary: 0 (clean), 2 and 3 (finished, some records had errors;
3 is the newer status for it, 2 the older).

Usage: scripts/check_conformance.py SHARED [BINARY]   (BINARY defaults to target/release/crawlsift)
Exit 0 when every file passes; 1 otherwise. Prints one line per file.
"""
import json, os, subprocess, sys
from collections import Counter

TIMEOUT_S = 60  # a hang is a failure; the largest real file reads in well under a second


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/crawlsift"
    real = os.path.join(shared, "corpus", "real")
    peers = [json.loads(l) for l in open(os.path.join(real, "peers.jsonl"))]
    failures = 0
    for p in peers:
        path = os.path.join(real, p["file"])
        want = max(p.get("warcio_records") or 0, p.get("fastwarc_records") or 0)
        try:
            run = subprocess.run([binary, "records", path], capture_output=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print(f"FAIL {p['file']}: no answer in {TIMEOUT_S} s")
            failures += 1
            continue
        if run.returncode not in (0, 3):  # 3: finished with record errors
            print(f"FAIL {p['file']}: exit status {run.returncode}: {run.stderr.decode(errors='replace')[-300:]}")
            failures += 1
            continue
        lines = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
        got = len(lines)
        types = Counter(l.get("type") for l in lines)
        short = {t: (n, types.get(t, 0)) for t, n in (p.get("records_by_type") or {}).items()
                 if types.get(t, 0) < n}
        bad = got < want or bool(short)
        status = "FAIL" if bad else "ok  "
        failures += bad
        errs = run.stderr.decode(errors="replace").strip().splitlines()
        note = f"; {len(errs)} error lines, first: {errs[0][:120]}" if errs else ""
        if short:
            note = f"; fewer records than the peer of type (peer, ours): {short}{note}"
        print(f"{status} {p['file']}: {got} records (peers: warcio {p.get('warcio_records')}, fastwarc {p.get('fastwarc_records')}){note}")
    print(f"conformance: {len(peers) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
