#!/usr/bin/env bash
# CDXJ gate (issue 17): cdxj-indexer 1.5.0 (the reference pywb's users index with) on every real
# WARC/ARC file of SHARED/corpus/real; crawlsift's index of the same files must hold every line it
# writes, byte for byte (filename is the base name in both). Where cdxj-indexer fails on a file
# (records warcio cannot read: it stops with an error), the lines it wrote before failing that we
# write differently are listed, not failed; the lines we write and it does not are listed too.
# Installs its peer in a venv under target/ (pip, pinned), as the other gates install theirs.
#
# usage: scripts/ci-gates/cdxj.sh SHARED_DIR
#        scripts/ci-gates/cdxj.sh --venv    (create or reuse the venv; print its python)
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=$(pwd)/target/gate-venv-cdxj
PKGS="cdxj-indexer==1.5.0 surt==0.3.1 warcio==1.8.1"
venv() {
  if [ ! -f "$VENV/.installed" ] || [ "$(cat "$VENV/.installed")" != "$PKGS" ]; then
    rm -rf "$VENV"
    python3 -m venv "$VENV" >&2
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install -q $PKGS >&2 || { echo "cdxj gate FAILED: cannot install $PKGS" >&2; exit 1; }
    echo "$PKGS" > "$VENV/.installed"
  fi
}
if [ "${1:-}" = "--venv" ]; then venv; echo "$VENV/bin/python"; exit 0; fi
SHARED=$(cd "${1:?usage: cdxj.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
REAL="$SHARED/corpus/real"
[ -d "$REAL" ] || { echo "cdxj gate FAILED: $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "cdxj gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
venv
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-cdxj.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$BIN" index "$REAL" --out "$work/idx" --quiet || [ $? -eq 3 ]  # 3: the README is no archive
mkdir -p "$work/peer"
for f in "$REAL"/*.warc "$REAL"/*.warc.gz "$REAL"/*.arc "$REAL"/*.arc.gz; do
  [ -e "$f" ] || continue
  b=$(basename "$f")
  if "$VENV/bin/cdxj-indexer" -s "$f" -o "$work/peer/$b.cdxj" 2>"$work/peer/$b.err"; then
    echo ok > "$work/peer/$b.status"
  else
    echo failed > "$work/peer/$b.status"
  fi
done

"$VENV/bin/python" - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
ours = open(os.path.join(work, "idx", "index.cdxj"), encoding="utf-8").read().splitlines()
if ours != sorted(ours, key=lambda l: l + "\n") or len(set(ours)) != len(ours):
    sys.exit("cdxj gate FAILED: index.cdxj is not sorted as cdxj-indexer -s sorts, or repeats lines")
by_file = {}
for l in ours:
    by_file.setdefault(json.loads(l.split(" ", 2)[2])["filename"], []).append(l)
peer_dir = os.path.join(work, "peer")
failed, total, extra_total = [], 0, 0
for name in sorted(n[:-5] for n in os.listdir(peer_dir) if n.endswith(".cdxj")):
    status = open(os.path.join(peer_dir, name + ".status")).read().strip()
    theirs = [l for l in open(os.path.join(peer_dir, name + ".cdxj"), encoding="utf-8").read().splitlines() if l]
    mine = set(by_file.get(name, []))
    missing = [l for l in theirs if l not in mine]
    extra = sorted(mine - set(theirs))
    total += len(theirs)
    extra_total += len(extra)
    if status == "ok" and missing:
        failed.append(name)
        print(f"FAIL {name}: {len(missing)} of cdxj-indexer's {len(theirs)} lines are not ours:")
        for l in missing[:5]:
            print("   ", l)
    else:
        note = "" if status == "ok" else f" (cdxj-indexer failed after {len(theirs)} lines; {len(missing)} of them differ from ours)"
        print(f"ok   {name}: {len(theirs)} lines, all ours; {len(extra)} more of ours{note}")
        for l in (missing if status != "ok" else [])[:5]:
            print("    theirs:", l)
    for l in extra[:5]:
        print("    ours:  ", l)
print(f"--- {total} cdxj-indexer lines; {extra_total} lines of ours it does not write")
if failed:
    sys.exit(f"cdxj gate FAILED: {', '.join(failed)}")
PY
