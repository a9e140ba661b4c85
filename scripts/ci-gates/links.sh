#!/usr/bin/env bash
# Links gate (issue 37):
# 1. `crawlsift links` on SHARED/bench/realpages/pages.warc.gz (1,473 real pages of the
#    extraction benchmarks, served under http://bench.invalid/) against a reference parser: lxml's
#    iterlinks() on each 200 HTML response (<a href>, <link rel=canonical>, <meta refresh>),
#    resolved with urljoin() against the page URL and its <base href>, http(s) only, fragment
#    dropped. Both sides are compared as (page, target) pairs of URLs normalised alike (scheme and
#    host lower-cased, default ports dropped, percent-encoding of path and query made uniform),
#    self-links left out (the graph holds none). Recall and precision of the reference's pairs
#    must be at least 0.98; each difference is put in a class and the classes printed (measured
#    2026-11-28: recall 0.9854, precision 0.9984; of the reference's extra pairs 1,679 are links
#    inside <noscript>, which crawlsift reads as text as a browser running scripts does, the
#    rest mostly malformed hrefs the WHATWG URL parser refuses and urljoin passes, such as
#    `http://<a href=/`; of crawlsift's extra pairs 173 are on pages lxml reads less of, an
#    undeclared legacy encoding stopping it).
# 2. `crawlsift rank` on the host graph `crawlsift links` makes of SHARED/corpus/real: PageRank
#    and HITS within 1e-9 of networkx's on the same edges (the rank crate's own gate, ranks.sh,
#    checks harmonic centrality and larger graphs).
# Installs lxml, warcio and networkx in a venv under target/ (pinned); fails, never skips.
#
# usage: scripts/ci-gates/links.sh SHARED_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=$(cd "${1:?usage: links.sh SHARED_DIR}" && pwd)
BIN=${CRAWLSIFT:-$(pwd)/target/release/crawlsift}
PAGES="$SHARED/bench/realpages/pages.warc.gz"
REAL="$SHARED/corpus/real"
[ -f "$PAGES" ] && [ -d "$REAL" ] || { echo "links gate FAILED: $PAGES or $REAL missing" >&2; exit 1; }
[ -x "$BIN" ] || { echo "links gate: $BIN missing (run cargo build --release first)" >&2; exit 1; }
. scripts/ci-gates/lib/venv.sh
gate_venv links "lxml==6.0.2 warcio==1.8.1 networkx==3.6.1 numpy==2.3.5 scipy==1.16.3"
work=$(mktemp -d "${TMPDIR:-/tmp}/crawlsift-links.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BIN" links "$PAGES" --out "$work/pages" -q
"$VENV/bin/python" - "$PAGES" "$work/pages" <<'PY'
import collections, gzip, sys
from urllib.parse import urljoin, urlsplit, urlunsplit, quote, unquote
from lxml import html as lhtml
from warcio.archiveiterator import ArchiveIterator

SAFE = "/:@!$&'()*+,;=-._~%"
def norm(u):
    try:
        s = urlsplit(u.strip())
    except ValueError:
        return None
    if s.scheme.lower() not in ("http", "https") or not s.hostname:
        return None
    host = s.hostname.lower().rstrip(".")
    port = s.port if s.port and (s.scheme.lower(), s.port) not in (("http", 80), ("https", 443)) else None
    netloc = host + (f":{port}" if port else "")
    path = quote(unquote(s.path), safe=SAFE) or "/"
    query = quote(unquote(s.query), safe=SAFE + "?")
    return urlunsplit((s.scheme.lower(), netloc, path, query, ""))

def reference(page_url, body):
    try:
        doc = lhtml.document_fromstring(body)
    except Exception:
        return set(), "unparsed"
    base = page_url
    b = doc.xpath("//base/@href")
    if b:
        base = urljoin(page_url, b[0].strip())
    out, hidden = set(), set()
    for el, attr, link, _ in doc.iterlinks():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == "a" and attr == "href":
            pass
        elif tag == "link" and attr == "href" and "canonical" in (el.get("rel") or "").lower().split():
            pass
        elif tag == "meta" and attr == "content":
            pass
        else:
            continue
        try:
            u = norm(urljoin(base, link.strip()))
        except ValueError:
            u = None
        if u:
            out.add(u)
            if any(a.tag == "noscript" for a in el.iterancestors()):
                hidden.add(u)
    return out, hidden

ref, in_noscript = set(), set()
per_page = collections.Counter()
pages = 0
with open(sys.argv[1], "rb") as f:
    for r in ArchiveIterator(f):
        if r.rec_type != "response" or r.http_headers is None:
            continue
        if r.http_headers.get_statuscode() != "200":
            continue
        if "html" not in (r.http_headers.get_header("Content-Type") or "").lower():
            continue
        page = norm(r.rec_headers.get_header("WARC-Target-URI"))
        targets, hidden = reference(page, r.content_stream().read())
        pages += 1
        ref |= {(page, t) for t in targets if t != page}
        in_noscript |= {(page, t) for t in hidden}
        per_page[page] = len(targets)

def lines(p):
    with gzip.open(p, "rt", encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f]
names = {int(i): n for i, n in lines(sys.argv[2] + "/pages/vertices.txt.gz")}
ours = set()
for s, d in lines(sys.argv[2] + "/pages/edges.txt.gz"):
    a, b = norm(names[int(s)]), norm(names[int(d)])
    if a != b:
        ours.add((a, b))
both = ref & ours
recall = len(both) / max(1, len(ref))
precision = len(both) / max(1, len(ours))
print(f"links gate: {pages} pages; reference {len(ref)} links, crawlsift {len(ours)}, both {len(both)}: "
      f"recall {recall:.4f}, precision {precision:.4f}")
ours_per_page = collections.Counter(a for a, _ in ours)
def klass(u):
    # Why a pair is on one side only: a link inside <noscript> (lxml reads its content as
    # markup; crawlsift, as a browser running scripts and html5lib do, as text), a page lxml
    # read less of than crawlsift (it stops at bytes it cannot decode in an undeclared legacy
    # encoding), percent-encoding the two normalise apart, or other.
    if u in in_noscript: return "inside <noscript>"
    if per_page[u[0]] < ours_per_page[u[0]]: return "page lxml read less of"
    t = u[1]
    if "%" in t: return "percent-encoding"
    return "other"
for label, diff in (("only the reference", ref - ours), ("only crawlsift", ours - ref)):
    c = collections.Counter(klass(x) for x in diff)
    print(f"  {label}: {len(diff)} {dict(c)}")
    for x in sorted(y for y in diff if klass(y) == "other")[:6]:
        print(f"    {x[0]} -> {x[1]}")
sys.exit(0 if recall >= 0.98 and precision >= 0.98 else 1)
PY
"$BIN" links "$REAL" --out "$work/real" -q 2>/dev/null || [ $? -eq 3 ]   # 3: damaged inputs
"$BIN" rank "$work/real" -q --tolerance 1e-12
"$VENV/bin/python" - "$work/real/hosts" <<'PY'
import gzip, sys
import networkx as nx
from networkx.algorithms.link_analysis import hits_alg
d = sys.argv[1]
def lines(p):
    with gzip.open(p, "rt", encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f]
names = [n for _, n in lines(d + "/vertices.txt.gz")]
G = nx.DiGraph()
G.add_nodes_from(range(len(names)))
G.add_edges_from((int(s), int(t)) for s, t in lines(d + "/edges.txt.gz"))
pr = nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=100000)
hubs, auths = hits_alg._hits_python(G, max_iter=100000, tol=1e-12)
index = {n: i for i, n in enumerate(names)}
worst = 0.0
for row in lines(d + "/ranks.txt.gz")[1:]:
    worst = max(worst, abs(float(row[3]) - pr[index[row[4]]]))
hw = 0.0
for row in lines(d + "/hits.txt.gz")[1:]:
    i = index[row[-1]]
    hw = max(hw, abs(float(row[1]) - hubs[i]))
print(f"links gate: crawlsift rank of the real files' host graph ({len(names)} hosts, "
      f"{G.number_of_edges()} edges): PageRank within {worst:.2e}, hubs within {hw:.2e} of networkx")
sys.exit(0 if worst <= 1e-9 and hw <= 1e-9 else 1)
PY
