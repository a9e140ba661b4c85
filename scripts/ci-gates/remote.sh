#!/usr/bin/env bash
# Remote inputs gate (issue #36): an S3-compatible server (moto in server mode, pinned, in a venv
# under target/) on 127.0.0.1 holds every file of SHARED/corpus/real and data/sample.warc.gz, and
# 1,001 copies of the sample under one prefix (more than one page of a listing). Over
#   s3://BUCKET/KEY (each file on its own), s3://BUCKET/PREFIX/ (a folder's worth, listed), and
#   --input-list LIST.gz --prefix s3://BUCKET/ (Common Crawl's warc.paths.gz way),
# `records` (and `records --summary`) and `dedup` give the same bytes and exit status as over the
# local files, once the local names are written as the URLs (clusters.jsonl and
# documents.jsonl.gz of dedup; report.json holds times and is left out). The server is stopped on
# exit. Fails, never skips, without its data or peer.
#
# usage: scripts/ci-gates/remote.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: remote.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
REAL="$SHARED/corpus/real"
DATA=$(pwd)/data
[ -d "$REAL" ] || { echo "remote gate FAILED: $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "remote gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
. scripts/ci-gates/lib/venv.sh
gate_venv remote "moto[server]==5.2.5 boto3==1.44.8"
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-remote.XXXXXX")
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "remote gate FAILED: $*" >&2; exit 1; }

port=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
server=$!
export AWS_ACCESS_KEY_ID=gate AWS_SECRET_ACCESS_KEY=gate AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true
BUCKET=crawlsift-gate

# The local side: real/ (the corpus), sample.warc.gz, and many/ (1,001 copies of the sample).
mkdir -p "$work/local/many"
ln -s "$REAL" "$work/local/real"
cp "$DATA/sample.warc.gz" "$work/local/sample.warc.gz"
# Copies, not links: a file met twice by inode is read once, and URLs are never the same file.
for i in $(seq -w 0 1000); do cp "$work/local/sample.warc.gz" "$work/local/many/$i.warc.gz"; done

"$VENV/bin/python" - "$work/local" "$BUCKET" <<'PY'
import os, sys, time, boto3, botocore
local, bucket = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
for _ in range(100):  # the server is starting
    try:
        s3.list_buckets()
        break
    except botocore.exceptions.EndpointConnectionError:
        time.sleep(0.2)
s3.create_bucket(Bucket=bucket)
n = 0
for root, _, files in os.walk(local, followlinks=True):
    for f in files:
        path = os.path.join(root, f)
        s3.upload_file(path, bucket, os.path.relpath(path, local))
        n += 1
print(f"remote gate: {n} objects uploaded to s3://{bucket}/")
PY

# run NAME LOCAL_PREFIX URL_PREFIX ARGS...: the command over local names (ARGS as given) and over
# the URLs (ARGS with LOCAL_PREFIX written as URL_PREFIX): same exit status, same stdout once the
# local output names the URLs.
run() {
  local name=$1 lp=$2 up=$3
  shift 3
  local largs=("$@") uargs=() a code_l=0 code_u=0
  for a in "$@"; do uargs+=("${a//"$lp"/"$up"}"); done
  "$BIN" "${largs[@]}" >"$work/$name.local" 2>"$work/$name.local.err" || code_l=$?
  "$BIN" "${uargs[@]}" >"$work/$name.url" 2>"$work/$name.url.err" || code_u=$?
  [ "$code_l" = "$code_u" ] || { tail -3 "$work/$name.url.err" >&2; fail "$name: exit $code_u over S3, $code_l locally"; }
  [ "$code_l" = 0 ] || [ "$code_l" = 3 ] || { tail -3 "$work/$name.local.err" >&2; fail "$name: exit $code_l"; }
  same "$name" "$work/$name.local" "$work/$name.url" "$lp" "$up"
}

# same NAME LOCAL_FILE URL_FILE LOCAL_PREFIX URL_PREFIX: byte-identical once LOCAL_PREFIX is
# written as URL_PREFIX in the local file (gzip files compared decompressed); never both empty.
same() {
  "$VENV/bin/python" - "$@" <<'PY' || fail "$1: outputs differ"
import gzip, sys
name, lf, uf, lp, up = sys.argv[1:]
def text(p):
    raw = open(p, "rb").read()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
want, got = text(lf).replace(lp.encode(), up.encode()), text(uf)
if not want.strip():
    sys.exit(f"{name}: empty output")
if got != want:
    for i, (a, b) in enumerate(zip(want.splitlines(), got.splitlines())):
        if a != b:
            sys.exit(f"{name}: line {i + 1} differs:\n  local: {a[:300]!r}\n  s3:    {b[:300]!r}")
    sys.exit(f"{name}: {len(want.splitlines())} lines locally, {len(got.splitlines())} over S3")
PY
}

# dedup_same NAME ARGS...: dedup over ARGS (local names) and over them written as URLs, each into
# its own folder: the same exit status, clusters.jsonl and documents.jsonl.gz.
dedup_same() {
  local name=$1 a code_l=0 code_u=0 uargs=()
  shift
  for a in "$@"; do uargs+=("${a//"$L"/"$U"}"); done
  "$BIN" dedup "$@" --out "$work/$name-local" -q 2>"$work/$name.local.err" || code_l=$?
  "$BIN" dedup "${uargs[@]}" --out "$work/$name-url" -q 2>"$work/$name.url.err" || code_u=$?
  [ "$code_l" = "$code_u" ] || { tail -3 "$work/$name.url.err" >&2; fail "$name: exit $code_u over S3, $code_l locally"; }
  [ "$code_l" = 0 ] || [ "$code_l" = 3 ] || { tail -3 "$work/$name.local.err" >&2; fail "$name: exit $code_l"; }
  for f in clusters.jsonl documents.jsonl.gz; do
    same "$name/$f" "$work/$name-local/$f" "$work/$name-url/$f" "$L" "$U"
  done
}

L="$work/local/" U="s3://$BUCKET/"
# 1. Every file on its own, s3://BUCKET/KEY.
files=0
for key in $(cd "$work/local" && ls real/* sample.warc.gz); do
  case "$key" in *.md|*.jsonl) continue ;; esac
  run "one-$files" "$L" "$U" records "$L$key"
  files=$((files + 1))
done
[ "$files" -ge 40 ] || fail "only $files files of $REAL read"
# 2. Folders as prefixes: s3://BUCKET/real/ (listed: INDEX.md and peers.jsonl are skipped as
#    locally) and s3://BUCKET/many/ (two pages of a listing).
run records-real "$L" "$U" records "${L}real/"
run summary-many "$L" "$U" records --summary "${L}many/"
grep -q "many/1000.warc.gz" "$work/summary-many.url" || fail "many/: the second page of the listing is missing"
dedup_same dedup-real "${L}real/"
# 3. An input list (gzipped, with a comment and a blank line) under --prefix.
{
  echo "# as warc.paths.gz"
  (cd "$work/local" && ls real/*.warc* real/*.arc* real/*.trec*)
  echo
  echo "sample.warc.gz"
} | gzip >"$work/paths.gz"
run records-list "$L" "$U" records --input-list "$work/paths.gz" --prefix "$L"
dedup_same dedup-list --input-list "$work/paths.gz" --prefix "$L"
echo "remote gate: records over $files objects one by one, over s3://$BUCKET/real/ and many/ (1,001 objects), and dedup over real/ and an --input-list give the local bytes"
