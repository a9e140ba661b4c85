#!/usr/bin/env bash
# Index and search benchmark (issue 17, fingerprint half), in one run: on the standard 20,000-document
# corpus, `crawlsift index` against `crawlsift dedup` (wall time and peak RSS from /usr/bin/time,
# alternated, two runs each), the index's bytes per document (fingerprints and band tables, document
# table, word profiles), `crawlsift query --url` latency per call over 200 documents with process
# start (median, p90) and its peak RSS, and query recall of dedup's cluster-mates (2,000 clustered
# pages). With --80k the same query figures on an 80,000-document index (memory must not grow with
# the index: a query reads it piece by piece with pread); with --datasketch the issue's comparison, datasketch 2.0's
# MinHashLSH (128 perms, 3-shingles, threshold 0.5) over the same texts: pickled size, load time
# and RSS, one query. Targets: index <= dedup's time, query median < 20 ms, recall >= 0.99,
# fingerprints and tables < 300 bytes a document. Figures are reported, never asserted.
#
# usage: scripts/bench_query.sh SHARED SCRATCH [--80k] [--datasketch]
#   SHARED  the shared evaluation folder (read-only)   SCRATCH  where corpora and indexes go
#   env BIN (default target/release/crawlsift, built if missing), PEER_PY (a python with datasketch),
#   SKIP_BUILD=1 (search the indexes an earlier run left in SCRATCH instead of building them again)
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench_query.sh SHARED SCRATCH [--80k] [--datasketch]"
shared=$(cd "${1:?$usage}" && pwd)
scratch=${2:?$usage}
shift 2
big=no; sketch=no
for a in "$@"; do
  case $a in --80k) big=yes ;; --datasketch) sketch=yes ;; *) echo "$usage" >&2; exit 2 ;; esac
done
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
[ -x /usr/bin/time ] || { echo "bench_query: /usr/bin/time (GNU time) is needed" >&2; exit 1; }
BIN=${BIN:-target/release/crawlsift}
[ -x "$BIN" ] || cargo build --release --quiet
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

corpus() { # docs seed -> folder of that warc-gz corpus (made once; 20k is bench_dedup's seed 1)
  local dir=$scratch/corpus$(($1 / 1000))k
  if [ ! -f "$dir/truth.jsonl" ]; then
    echo "generating $dir ($1 documents, seed $2)" >&2
    python3 "$shared/tools/makecorpus.py" --out "$dir" --docs "$1" --seed "$2" --format warc-gz >/dev/null
  fi
  echo "$dir"
}

timed() { # label cmd... -> "label: S s, M MB" (exit status 3, skipped label files, is fine)
  local label=$1; shift
  local st=0
  /usr/bin/time -f "%e %M" -o "$scratch/time.txt" "$@" >/dev/null 2>"$scratch/stderr.txt" || st=$?
  if [ "$st" -ne 0 ] && [ "$st" -ne 3 ]; then cat "$scratch/stderr.txt" >&2; exit "$st"; fi
  read -r secs kb < <(tail -n 1 "$scratch/time.txt")
  printf '%-28s %6.2f s  %6.0f MB  (exit %d)\n' "$label" "$secs" "$((kb / 1024))" "$st"
}

c20=$(corpus 20000 1)
archives=$(ls "$c20"/*.warc.gz)
echo "== build on $c20 ($(echo "$archives" | wc -l) archives, 20,000 documents)"
for run in $([ "${SKIP_BUILD:-}" = 1 ] || echo 1 2); do
  # shellcheck disable=SC2086
  timed "dedup (run $run)" "$BIN" dedup -q --force --out "$scratch/dedup20k" $archives
  # shellcheck disable=SC2086
  timed "index (run $run)" "$BIN" index -q --force --out "$scratch/idx20k" $archives
done
# shellcheck disable=SC2086
[ "${SKIP_BUILD:-}" = 1 ] ||
  "$BIN" index --force --out "$scratch/idx20k" $archives 2>&1 | grep -E "documents added|bytes per document"

searches() { # index clusters dedup_documents label
  python3 - "$BIN" "$@" <<'PY'
import gzip, json, os, random, subprocess, sys, time
binp, idx, clusters, docs, label = sys.argv[1:6]
lines = map(json.loads, gzip.open(docs, "rt"))  # the documents (records skipped are not indexed)
urls = sorted({d.get("url") for d in lines if d.get("skipped") is None} - {None})
random.seed(1)
sample = random.sample(urls, min(200, len(urls)))
def query(url):
    """Wall time with process start, peak RSS (wait4), status, output."""
    t = time.perf_counter()
    p = subprocess.Popen([binp, "query", idx, "--url", url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_maxrss, status, out
def memory_at_exit(url):
    """Largest anonymous and file-backed resident KB of a query seen while strace holds it at
    each munmap and at exit_group (the index is unmapped when the query ends, so the state before
    its first munmap is the one with every index page it touched). Mapped index pages are
    file-backed (page cache: shared, reclaimable); anonymous memory is what the query allocated."""
    cmd = ["strace", "-qq", "-o", "/dev/null", "-e", "trace=munmap,exit_group",
           "-e", "inject=munmap,exit_group:delay_enter=30000", binp, "query", idx, "--url", url]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    anon = filed = 0
    while p.poll() is None:
        try:
            child = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
            # Held at munmap (11) or exit_group (231) on x86-64, not at strace's stop at exec.
            if child and open(f"/proc/{child[0]}/syscall").read().split()[0] in ("11", "231"):
                f = dict(l.split(":", 1) for l in open(f"/proc/{child[0]}/status").read().splitlines())
                anon = max(anon, int(f["RssAnon"].split()[0]))
                filed = max(filed, int(f["RssFile"].split()[0]))
        except (OSError, IndexError, KeyError, ValueError):
            pass
    return anon, filed
def peak_rss(url):
    """Peak RSS in KB from GNU time: wait4's ru_maxrss of a child forked from this Python
    process counts the Python image it had before exec (more with the 80k URLs loaded)."""
    out = f"{idx}.rss"
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out, binp, "query", idx, "--url", url],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    kb = int(open(out).read().split()[-1])
    os.remove(out)
    return kb
lat, rss, anons, files = [], [], [], []
for u in sample:
    dt, _, status, _ = query(u)
    assert status == 0, u
    lat.append(dt * 1000)
for u in sample[:30]:
    rss.append(peak_rss(u) / 1024)
have_strace = subprocess.run(["which", "strace"], capture_output=True).returncode == 0
for u in sample[:30] if have_strace else []:
    anon, filed = memory_at_exit(u)
    anons.append(anon / 1024); files.append(filed / 1024)
anons = anons or [float("nan")]; files = files or [float("nan")]
lat.sort(); rss.sort(); anons.sort(); files.sort()
print(f"{label}: query --url over {len(sample)} documents: median {lat[len(lat)//2]:.1f} ms, "
      f"p90 {lat[int(len(lat)*0.9)]:.1f} ms; peak RSS (30 calls, GNU time) median {rss[len(rss)//2]:.1f} MB, max {rss[-1]:.1f} MB; "
      f"largest seen (30 calls): anonymous max {anons[-1]:.1f} MB, file-backed (binary and index pages) median {files[len(files)//2]:.1f} MB")
if clusters == "-":
    sys.exit(0)
mates = {}
for l in open(clusters):
    c = json.loads(l)
    at = [(m["file"], m["offset"]) for m in c["members"]]
    for m, a in zip(c["members"], at):
        if m.get("url"):
            mates[m["url"]] = set(at) - {a}
pages = sorted(mates)
random.seed(2)
pages = random.sample(pages, min(2000, len(pages)))
found = wanted = 0
for u in pages:
    _, _, status, out = query(u)
    got = {(j["file"], j["offset"]) for j in map(json.loads, out.decode().splitlines())}
    found += len(mates[u] & got); wanted += len(mates[u])
print(f"{label}: recall of dedup's cluster-mates over {len(pages)} clustered pages: {found}/{wanted} = {found/max(wanted,1):.4f}")
PY
}
echo "== query"
searches "$scratch/idx20k" "$scratch/idx20k/fp/clusters.jsonl" "$scratch/dedup20k/documents.jsonl.gz" "20k index"

if [ "$big" = yes ]; then
  c80=$(corpus 80000 80)
  echo "== 80k index ($c80)"
  if [ "${SKIP_BUILD:-}" != 1 ]; then
    timed "index 80k" "$BIN" index -q --force --out "$scratch/idx80k" "$c80"
    "$BIN" index --append --out "$scratch/idx80k" "$c80" 2>&1 | grep -E "bytes per document"
    "$BIN" dedup -q --force --out "$scratch/dedup80k" "$c80" 2>/dev/null || true
  fi
  searches "$scratch/idx80k" - "$scratch/dedup80k/documents.jsonl.gz" "80k index"
  du -sh "$scratch/idx20k/fp" "$scratch/idx80k/fp"
fi

if [ "$sketch" = yes ]; then
  py=${PEER_PY:-$scratch/../peervenv/bin/python}
  echo "== datasketch 2.0 MinHashLSH over the same texts ($py)"
  "$BIN" extract --force -o "$scratch/texts20k.jsonl" $archives 2>/dev/null || true
  "$py" - "$scratch" <<'PY'
import json, os, pickle, re, subprocess, sys, time
from datasketch import MinHash, MinHashLSH
scratch = sys.argv[1]
texts = [json.loads(l)["text"] for l in open(f"{scratch}/texts20k.jsonl")]
t0 = time.time()
lsh = MinHashLSH(threshold=0.5, num_perm=128)
first = None
for i, t in enumerate(texts):
    w = re.findall(r"\w+", t.lower())
    m = MinHash(num_perm=128)
    m.update_batch([" ".join(w[j:j + 3]).encode() for j in range(max(1, len(w) - 2))])
    lsh.insert(i, m)
    first = first or m
t1 = time.time()
path = f"{scratch}/lsh20k.pickle"
pickle.dump((lsh, first), open(path, "wb"))
print(f"datasketch: {len(texts)} texts sketched and inserted in {t1 - t0:.1f} s; pickle {os.path.getsize(path) / 1e6:.1f} MB")
code = ("import pickle,time,resource,sys;t=time.time();lsh,m=pickle.load(open(sys.argv[1],'rb'));l=time.time()-t;"
        "t=time.time();lsh.query(m);q=time.time()-t;"
        "print(f'datasketch: load {l:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MB, one query {q*1000:.2f} ms')")
subprocess.run([sys.executable, "-c", code, path], check=True)
PY
fi
