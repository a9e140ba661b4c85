#!/usr/bin/env bash
# Runs one cargo-fuzz target for a fixed time, seeded from the real crawl files, data/ and the
# extraction benchmark pages.
#
#   scripts/fuzz.sh TARGET SECONDS [SHARED]      (SHARED defaults to ../shared)
#
# Seeds are copied into fuzz/corpus/TARGET/ (git-ignored; never commit them). Crashes, leaks,
# timeouts (-timeout per input) and allocations over -rss_limit_mb land in fuzz/artifacts/TARGET/
# and make this script exit non-zero. libFuzzer's final stats (executions, duration) are printed
# last. Runs under `nice -n 19`: fuzzing must not starve other work on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [SHARED]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [SHARED]}
shared=${3:-../shared}
corpus=fuzz/corpus/$target
mkdir -p "$corpus" "fuzz/artifacts/$target"

# Largest input per target: whole small archives for the readers and the record path, whole
# pages for the extractor (64 KB holds most of a benchmark page). Larger seeds are
# truncated by libFuzzer.
case $target in
  extract_html) max_len=65536 ;;
  feed) max_len=65536 ;;
  # An index file of a few dozen lines, and damage steps over a small segment (4 bytes each).
  cdxj_lookup) max_len=16384 ;;
  store_segment) max_len=4096 ;;
  *) max_len=131072 ;;
esac

# seed FILE...: copy files into the corpus under their own names (libFuzzer reads at most
# max_len bytes of each; files over 4 MB are left out).
seed() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le $((4 << 20)) ] || continue
    cp -n "$f" "$corpus/seed-$(basename "$f")" 2>/dev/null || true
  done
}

# The first N HTML pages of each extraction benchmark set (a few hundred pages in all).
seed_pages() {
  local n=$1 d
  for d in "$shared"/bench/extraction/*/html; do
    [ -d "$d" ] || continue
    # shellcheck disable=SC2046
    seed $(find "$d" -maxdepth 1 -type f | sort | head -n "$n")
  done
}

seed_feeds() {
  cat > "$corpus/seed-rss2.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Harbour news</title><link>http://example.com/</link>
<item><title>Ferry timetable &amp; fares</title><link>http://example.com/a</link>
<pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
<description>Short &lt;b&gt;summary&lt;/b&gt;</description>
<content:encoded><![CDATA[<p>The council met on <i>Tuesday</i>.</p><script>x()</script>]]></content:encoded></item>
<item><title>Second</title><dc:date>2003-06-10T04:00:00.5+02:00</dc:date><description>Plain</description></item>
</channel></rss>
XML
  cat > "$corpus/seed-atom.xml" <<'XML'
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title type="text">Example</title>
<entry><title>Atom entry</title><link rel="alternate" href="http://example.org/2003/12/13/atom03"/>
<link rel="enclosure" href="http://example.org/a.mp3"/><id>urn:uuid:1</id>
<updated>2003-12-13T18:30:02Z</updated><published>2003-12-13</published>
<summary>Some text.</summary><content type="html">&lt;p&gt;Body &amp;amp; more&lt;/p&gt;</content></entry>
</feed>
XML
  cat > "$corpus/seed-rdf.xml" <<'XML'
<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://example.com/"><title>RDF site</title></channel>
<item rdf:about="http://example.com/1"><title>One</title><link>http://example.com/1</link>
<dc:date>2002-09-01</dc:date><description>First item</description></item>
</rdf:RDF>
XML
  printf '%s' 'Mon, 29 Feb 2021 25:61:00 +0530' > "$corpus/seed-date-rfc822"
  printf '%s' '2024-02-29T23:59:60-00:00' > "$corpus/seed-date-iso"
}

# cdxj_lookup: a URL asked for, then index.cdxj lines as `crawlsift index` writes them (sorted;
# a revisit, a TREC key, a JSON escape, numbers as JSON numbers).
seed_cdxj() {
  cat > "$corpus/seed-sorted.cdxj" <<'CDXJ'
http://www.example.com/a?b=2&a=1 20240102
com,example)/a?a=1&b=2 20240102030405 {"url": "http://www.example.com/a?b=2&a=1", "mime": "text/html", "status": "200", "digest": "sha1:AAAA", "length": "310", "offset": "0", "filename": "a.warc.gz"}
com,example)/a?a=1&b=2 20240301000000 {"url": "http://example.com/a?a=1&b=2", "mime": "warc/revisit", "status": "200", "length": "290", "offset": "310", "filename": "a.warc.gz"}
com,example)/caf%c3%a9 20240102030406 {"url": "http://example.com/caf\u00e9 \"x\"", "mime": "text/plain", "length": 12, "offset": 600, "filename": "b.warc"}
trec:clueweb09-en0000-00-00000 19000101000000 {"url": "trec:clueweb09-en0000-00-00000", "digest": "sha1:BBBB", "length": "20", "offset": "0", "filename": "c.trecweb"}
CDXJ
  printf '%s\n' 'com,example)/' 'com,example)/ 2024 {"length": "1", "offset": "0", "filename": "a"}' \
    'com,example)/ 2024 {"length": "1", "offset": "0", "filename": "a"}' 'a 1 {not json' > "$corpus/seed-damaged.cdxj"
}

# store_segment: no damage, one byte, the row count, a section cut, a value written; raw bytes.
seed_store() {
  printf '\x00' > "$corpus/seed-none"
  printf '\x00\x02\x00\x05\x07' > "$corpus/seed-byte"
  printf '\x00\x00\x04\x00\x17' > "$corpus/seed-rows"
  printf '\x00\x03\x01\x02\x00' > "$corpus/seed-cut"
  printf '\x00\x02\x03\x01\x00\xff\xff\xff\xff\xff\xff\xff\x7f' > "$corpus/seed-value"
  printf '\x01CSFPSEG\x00\x02\x00\x00\x00' > "$corpus/seed-raw"
}

case $target in
  cdxj_lookup)
    seed_cdxj ;;
  store_segment)
    seed_store ;;
  extract_html)
    seed_pages 50 ;;
  feed)
    seed_feeds
    seed_pages 3 ;;
  *)
    # The reader targets and the whole record path: real crawl files in every format and
    # compression, and the project's sample.
    seed "$shared"/corpus/real/*.warc* "$shared"/corpus/real/*.arc* "$shared"/corpus/real/*.trec* data/*.warc* ;;
esac
echo "fuzz $target: $(find "$corpus" -type f | wc -l) corpus files, ${seconds}s, max_len $max_len" >&2

# -timeout: one input taking 10 s is a hang. -rss_limit_mb (also the single-malloc limit): an
# allocation beyond 2 GB on a <= max_len input is unbounded. Leaks are reported by ASan.
exec nice -n 19 cargo +nightly fuzz run "$target" "$corpus" -- \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1
