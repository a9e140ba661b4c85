#!/usr/bin/env bash
# pywb gate (issue 17): pywb replays from crawlsift's index as it is. For a real WARC of
# SHARED/corpus/real, a pywb collection gets crawlsift's index.cdxj (and a second collection its
# ZipNum files, --compress); `wayback` runs on 127.0.0.1 at a free port, and for every 200
# capture of the WARC the body pywb serves at /COLL/id_/URL (the original payload) must equal
# `crawlsift get IDX URL --at TS`. A third collection holds a WARC through `crawlsift rewrite`,
# whose revisit pywb must replay with the original's body; a fourth the unpacked WACZ
# `crawlsift wacz` makes of the WARC, whose every listed page pywb must serve as `get` prints it.
# The same WARC packed with its index as ZipNum (`--plain-index-max-lines 0`) is served twice, and
# every page again as `get` prints it: "waczimport" is what pywb's own `wb-manager add
# --unpack-wacz` makes of the package (it reads indexes/index.cdx.gz, every gzip block, and ignores
# the summary); "waczzipnum" serves the package's indexes/index.cdx.gz as it is through pywb's
# ZipNum index, looking blocks up by the package's indexes/index.idx (pywb reads only its own
# tab-separated summary with a .loc file, not the `cdxj-gzip-1.0` summary a WACZ holds, so the
# gate rewrites each summary line `KEY TS {"offset": O, "length": L}` as `KEY TS<TAB>index<TAB>O<TAB>L`
# and adds `index<TAB>index.cdx.gz` as index.loc: the blocks and their places are the package's).
# Installs pywb (pinned) in a venv under target/; fails, never skips, when it cannot.
#
# usage: scripts/ci-gates/pywb.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: pywb.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
WARC="$SHARED/corpus/real/resiliparse_warcfile.warc.gz"
VENV=$(pwd)/target/gate-venv-pywb
PKGS="pywb==2.10.0"
[ -f "$WARC" ] || { echo "pywb gate FAILED: $WARC missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "pywb gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
if [ ! -f "$VENV/.installed" ] || [ "$(cat "$VENV/.installed")" != "$PKGS" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q $PKGS || { echo "pywb gate FAILED: cannot install $PKGS" >&2; exit 1; }
  echo "$PKGS" > "$VENV/.installed"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-pywb.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$BIN" index "$WARC" --out "$work/idx" --compress --quiet
for coll in plain zipnum; do
  mkdir -p "$work/root/collections/$coll/archive" "$work/root/collections/$coll/indexes"
  ln -s "$WARC" "$work/root/collections/$coll/archive/"
done
cp "$work/idx/index.cdxj" "$work/root/collections/plain/indexes/"
cp "$work/idx/index.cdxj.gz" "$work/idx/index.idx" "$work/idx/index.loc" "$work/root/collections/zipnum/indexes/"
# A third collection: three responses, the third with the first's payload at another URL,
# through `crawlsift rewrite` (issue #38), which makes it a revisit of the first; pywb must replay
# the revisited URL with the original's body.
"$VENV/bin/python" - "$work/dupes.warc" <<'PY'
import sys
def response(i, url, date, body):
    http = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n{body}"
    return (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:0000000{i}-0000-4000-8000-000000000000>\r\n"
            f"WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n{http}\r\n\r\n")
page = "<html><body>served once, replayed twice</body></html>"
open(sys.argv[1], "w").write(
    response(1, "http://first.example/page", "2024-01-01T00:00:00Z", page)
    + response(2, "http://other.example/", "2024-01-02T00:00:00Z", "<html>other</html>")
    + response(3, "http://mirror.example/copy", "2024-01-03T00:00:00Z", page))
PY
"$BIN" rewrite "$work/dupes.warc" --out "$work/rewritten" -q
"$BIN" index "$work/rewritten/dupes.warc.gz" --out "$work/idx2" --cdxj-only --quiet
mkdir -p "$work/root/collections/rewritten/archive" "$work/root/collections/rewritten/indexes"
ln -s "$work/rewritten/dupes.warc.gz" "$work/root/collections/rewritten/archive/"
cp "$work/idx2/index.cdxj" "$work/root/collections/rewritten/indexes/"
# A fourth collection: the WACZ `crawlsift wacz` makes of the WARC, unpacked (its archive/ and
# its CDXJ index), served as it is.
"$BIN" wacz "$WARC" --out "$work/one.wacz" -q
mkdir -p "$work/root/collections/wacz/indexes"
"$VENV/bin/python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$work/one.wacz" "$work/unpacked"
mv "$work/unpacked/archive" "$work/root/collections/wacz/archive"
cp "$work/unpacked/indexes/index.cdx" "$work/root/collections/wacz/indexes/index.cdxj"
# The fifth and sixth: the WARC's package with a ZipNum index (see the top).
"$BIN" wacz "$WARC" --out "$work/zipnum.wacz" -q --plain-index-max-lines 0
(cd "$work/root" && "$VENV/bin/wb-manager" init waczimport >/dev/null 2>&1 \
  && "$VENV/bin/wb-manager" add --unpack-wacz waczimport "$work/zipnum.wacz" >/dev/null 2>&1) \
  || { echo "pywb gate FAILED: wb-manager add --unpack-wacz" >&2; exit 1; }
mkdir -p "$work/root/collections/waczzipnum/indexes"
"$VENV/bin/python" - "$work/zipnum.wacz" "$work/root/collections/waczzipnum" <<'PY'
import json, os, sys, zipfile
z, coll = zipfile.ZipFile(sys.argv[1]), sys.argv[2]
for n in z.namelist():
    if n.startswith("archive/"):
        z.extract(n, coll)
idx = os.path.join(coll, "indexes")
open(os.path.join(idx, "index.cdx.gz"), "wb").write(z.read("indexes/index.cdx.gz"))
summary = z.read("indexes/index.idx").decode().splitlines()
assert summary[0].startswith('!meta 0 {"format": "cdxj-gzip-1.0"'), summary[0]
with open(os.path.join(idx, "index.idx"), "w") as out:
    for n, line in enumerate(summary[1:], 1):
        prefix, js = line.split(" {", 1)
        at = json.loads("{" + js)
        out.write(f"{prefix}\tindex\t{at['offset']}\t{at['length']}\t{n}\n")
open(os.path.join(idx, "index.loc"), "w").write("index\tindex.cdx.gz\n")
PY
port=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work/root" && exec "$VENV/bin/wayback" -b 127.0.0.1 -p "$port" >"$work/wayback.log" 2>&1) &
pid=$!

"$VENV/bin/python" - "$BIN" "$work/idx" "$port" <<'PY' || { echo "--- wayback log:"; tail -20 "$work/wayback.log"; exit 1; }
import json, subprocess, sys, time, urllib.request, urllib.error, zlib
bin_, idx, port = sys.argv[1], sys.argv[2], sys.argv[3]
base = f"http://127.0.0.1:{port}"
for _ in range(600):
    try:
        urllib.request.urlopen(base + "/", timeout=2).read()
        break
    except Exception:
        time.sleep(0.1)
else:
    sys.exit("pywb gate FAILED: wayback did not start")

def decode(body, enc):
    enc = (enc or "").lower()
    if enc in ("gzip", "x-gzip"):
        return zlib.decompress(body, 47)
    if enc == "deflate":
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -15)
    if enc == "br":
        import brotli
        return brotli.decompress(body)
    return body

captures = []
for line in open(f"{idx}/index.cdxj", encoding="utf-8"):
    key, ts, js = line.split(" ", 2)
    f = json.loads(js)
    if f.get("status") == "200":
        captures.append((ts, f["url"]))
if len(captures) < 5:
    sys.exit(f"pywb gate FAILED: only {len(captures)} captures to compare")
def same_as_get(coll, ts, url):
    """Whether pywb serves collection `coll`'s capture of `url` at `ts` as `crawlsift get`
    prints it from the WARC's index; a difference is printed."""
    try:
        r = urllib.request.urlopen(f"{base}/{coll}/{ts}id_/{url}", timeout=30)
        body = decode(r.read(), r.headers.get("Content-Encoding"))
    except urllib.error.HTTPError as e:
        print(f"FAIL {coll} {url}: pywb answered {e.code}")
        return False
    ours = subprocess.run([bin_, "get", idx, url, "--at", ts], capture_output=True, check=True).stdout
    if body != ours:
        print(f"FAIL {coll} {url}: pywb {len(body)} bytes, crawlsift get {len(ours)} bytes")
    return body == ours

bad = 0
for coll in ("plain", "zipnum"):
    same = sum(same_as_get(coll, ts, url) for ts, url in captures)
    bad += len(captures) - same
    print(f"{coll}: {same} of {len(captures)} bodies served by pywb from crawlsift's index equal crawlsift get")
revisits = [l for l in open(f"{idx}/../idx2/index.cdxj") if '"warc/revisit"' in l]
if len(revisits) != 1 or "mirror.example" not in revisits[0]:
    sys.exit(f"pywb gate FAILED: the rewritten file should index one revisit: {revisits}")
page = b"<html><body>served once, replayed twice</body></html>"
r = urllib.request.urlopen(f"{base}/rewritten/20240103000000id_/http://mirror.example/copy", timeout=30)
got = r.read()
if got != page:
    print(f"FAIL rewritten: the revisit replays {got[:80]!r}, not the original's body")
    bad += 1
else:
    print("rewritten: pywb replays crawlsift rewrite's revisit with the original's body")
pages = [json.loads(l) for l in open(f"{idx}/../unpacked/pages/pages.jsonl")][1:]
served = sum(same_as_get("wacz", "".join(c for c in p["ts"] if c.isdigit()), p["url"]) for p in pages)
bad += len(pages) - served
if len(pages) < 5:
    sys.exit(f"pywb gate FAILED: the WACZ lists only {len(pages)} pages")
print(f"wacz: {served} of {len(pages)} pages of crawlsift's WACZ served by pywb, unpacked, as crawlsift get prints them")
for coll in ("waczimport", "waczzipnum"):
    served = sum(same_as_get(coll, "".join(c for c in p["ts"] if c.isdigit()), p["url"]) for p in pages)
    bad += len(pages) - served
    print(f"{coll}: {served} of {len(pages)} pages of crawlsift's ZipNum WACZ served by pywb as crawlsift get prints them")
if bad:
    sys.exit(f"pywb gate FAILED: {bad} differences")
PY
