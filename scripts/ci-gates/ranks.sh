#!/usr/bin/env bash
# Link-analysis gate (issue 37): crawlsift-rank's PageRank, HITS and harmonic centrality against
# networkx's on graphs in cc-webgraph's layout (vertices.txt.gz, edges.txt.gz), made here:
# a hand graph of 5 vertices (a 2-cycle, a self-loop, a vertex without in-edges, an isolated
# one), and a random directed graph of 2,000 vertices and about 10,000 edges from a fixed-seed
# generator (10% of the vertices dangling, 5% with a self-loop, links skewed towards low ids so
# that values differ). The crate's `ranks` example ranks each folder (ranks.txt.gz, hits.txt.gz)
# with 1 thread and with 3: the files must be the same bytes. Then every value must be within
# 1e-9 of networkx's:
#   PageRank   nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=10000)
#   HITS       networkx's power iteration, hits_alg._hits_python(G, tol=1e-12, max_iter=10000)
#              (nx.hits itself runs ARPACK's SVD: on the random graph it must agree to 1e-9 too;
#              the hand graph's singular values repeat, where the SVD's vectors are arbitrary)
#   harmonic   nx.harmonic_centrality(G)
# and the files must be in cc-webgraph's format: its header, positions 1..n in order, the
# other column's positions a permutation consistent with its values (ties by vertex id), the
# names of vertices.txt.gz. Installs networkx in a venv under target/ (pip, pinned), as the
# other gates install theirs; fails, never skips, when it cannot. About a minute on 2 cores
# (networkx's 2,000 searches are most of it), and a build of the example (the crate is small).
#
# usage: scripts/ci-gates/ranks.sh SHARED_DIR   (SHARED_DIR is not read: the graphs are made here)
#        scripts/ci-gates/ranks.sh --venv       (create or reuse the venv; print its python)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/ci-gates/lib/venv.sh
venv() { gate_venv ranks "networkx==3.6.1 numpy==2.3.5 scipy==1.16.3"; }
if [ "${1:-}" = "--venv" ]; then venv; echo "$VENV/bin/python"; exit 0; fi
: "${1:?usage: ranks.sh SHARED_DIR}"
venv
cargo build --release --locked -q -p crawlsift-rank --example ranks \
  || { echo "ranks gate FAILED: cannot build the ranks example" >&2; exit 1; }
BIN=${CARGO_TARGET_DIR:-$(pwd)/target}/release/examples/ranks
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-ranks-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$VENV/bin/python" - "$work" <<'PY'
import gzip, os, random, sys
work = sys.argv[1]

def write(name, names, edges):
    d = os.path.join(work, name)
    os.makedirs(d)
    with gzip.open(os.path.join(d, "vertices.txt.gz"), "wt", encoding="utf-8") as f:
        for i, n in enumerate(names):
            f.write(f"{i}\t{n}\n")
    with gzip.open(os.path.join(d, "edges.txt.gz"), "wt") as f:
        for s, t in sorted(set(edges)):
            f.write(f"{s}\t{t}\n")

write("hand", ["com.example", "com.example.www", "org.wikipedia", "net.dangling", "org.isolated"],
      [(0, 1), (1, 0), (1, 2), (2, 0), (2, 2), (3, 0), (3, 2)])
rng = random.Random(37)
n, edges = 2000, set()
for s in range(n):
    if rng.random() < 0.10:
        continue  # dangling: no out-edge
    for _ in range(1 + int(rng.expovariate(1 / 4.6))):
        edges.add((s, int(n * rng.random() ** 2)))
    if rng.random() < 0.05:
        edges.add((s, s))
write("random", [f"com.host{v:04d}.www" for v in range(n)], edges)
PY

status=0
for g in hand random; do
  cp -r "$work/$g" "$work/$g-3"
  "$BIN" "$work/$g" 1 || { echo "ranks gate FAILED: ranks $g (1 thread)" >&2; exit 1; }
  "$BIN" "$work/$g-3" 3 >/dev/null || { echo "ranks gate FAILED: ranks $g (3 threads)" >&2; exit 1; }
  for f in ranks.txt.gz hits.txt.gz; do
    if ! cmp -s <(gzip -dc "$work/$g/$f") <(gzip -dc "$work/$g-3/$f"); then
      echo "ranks gate FAILED: $g/$f differs between 1 and 3 threads" >&2
      status=1
    fi
  done
done

"$VENV/bin/python" - "$work" <<'PY' || status=1
import gzip, os, sys, time
import networkx as nx
from networkx.algorithms.link_analysis import hits_alg

TOL = 1e-9
work = sys.argv[1]
failed = []

def read_graph(d):
    with gzip.open(os.path.join(d, "vertices.txt.gz"), "rt", encoding="utf-8") as f:
        names = [l.rstrip("\n").split("\t")[1] for l in f]
    G = nx.DiGraph()
    G.add_nodes_from(range(len(names)))
    with gzip.open(os.path.join(d, "edges.txt.gz"), "rt") as f:
        G.add_edges_from(tuple(map(int, l.split("\t"))) for l in f)
    return names, G

def read_table(path, header, names):
    """(first values, second values) by vertex; checks the format on the way."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    name = os.path.relpath(path, work)
    if lines[0] != header:
        failed.append(f"{name}: header {lines[0]!r}, not {header!r}")
    if lines[-1] != "" or len(lines) != len(names) + 2:
        failed.append(f"{name}: {len(lines) - 2} lines for {len(names)} vertices")
        return None
    ids = {n: i for i, n in enumerate(names)}
    first, second, second_pos = [0.0] * len(names), [0.0] * len(names), {}
    order = []
    for k, line in enumerate(lines[1:-1]):
        p1, v1, p2, v2, n = line.split("\t")
        if int(p1) != k + 1:
            failed.append(f"{name}: line {k + 2} has position {p1}")
            return None
        v = ids[n]
        order.append(v)
        first[v], second[v], second_pos[v] = float(v1), float(v2), int(p2)
    if sorted(order) != list(range(len(names))):
        failed.append(f"{name}: names are not the vertices, each once")
        return None
    want = lambda vals: sorted(range(len(vals)), key=lambda v: (-vals[v], v))
    if order != want(first):
        failed.append(f"{name}: lines not in decreasing first value, ties by id")
    if [v for v, _ in sorted(second_pos.items(), key=lambda kv: kv[1])] != want(second) \
            or sorted(second_pos.values()) != list(range(1, len(names) + 1)):
        failed.append(f"{name}: second positions not 1..n in decreasing value, ties by id")
    return first, second

def compare(label, ours, theirs):
    worst = max(abs(a - theirs[v]) for v, a in enumerate(ours))
    ok = worst <= TOL
    print(f"  {label:<22} largest difference {worst:.3e} ({'ok' if ok else 'FAIL'})")
    if not ok:
        failed.append(f"{label}: {worst:.3e} > {TOL}")

for g in ["hand", "random"]:
    d = os.path.join(work, g)
    names, G = read_graph(d)
    print(f"--- {g}: {G.number_of_nodes()} vertices, {G.number_of_edges()} edges, "
          f"{sum(1 for v in G if G.out_degree(v) == 0)} dangling, {nx.number_of_selfloops(G)} self-loops")
    started = time.time()
    pr = nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=10000)
    hubs, auths = hits_alg._hits_python(G, max_iter=10000, tol=1e-12)
    hc = nx.harmonic_centrality(G)
    print(f"  networkx: {time.time() - started:.1f} s")
    ranks = read_table(os.path.join(d, "ranks.txt.gz"),
                       "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev", names)
    table = read_table(os.path.join(d, "hits.txt.gz"),
                       "#hub_pos\t#hub_val\t#authority_pos\t#authority_val\t#host_rev", names)
    if ranks:
        compare(f"{g} pagerank", ranks[1], pr)
        compare(f"{g} harmonic", ranks[0], hc)
    if table:
        compare(f"{g} hits hubs", table[0], hubs)
        compare(f"{g} hits authorities", table[1], auths)
        if g == "random":
            h2, a2 = nx.hits(G, max_iter=10000, tol=0)
            compare(f"{g} hubs (nx.hits, SVD)", table[0], h2)
            compare(f"{g} auths (nx.hits, SVD)", table[1], a2)
for f in failed:
    print("ranks gate:", f, file=sys.stderr)
sys.exit(1 if failed else 0)
PY
if [ "$status" -ne 0 ]; then
  echo "ranks gate FAILED" >&2
fi
exit $status
