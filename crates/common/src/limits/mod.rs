//! Every bound of crawlsift, in one place.
//!
//! Each constant says what it limits and why its value is what it is. Builders read these as
//! defaults; the CLI may override a few. No other module holds a magic number for a bound.

/// Largest WARC/ARC/TREC record header block (the lines before the body). Real headers are a few
/// KiB; 1 MiB leaves room for pathological but honest ones and stops a header that never ends.
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// Largest HTTP header block inside a record. Servers cap theirs at 8-64 KiB.
pub const MAX_HTTP_HEADER_BYTES: usize = 256 << 10;

/// Largest record body the reader materialises. A gzip member that inflates past this is stopped
/// (not allocated) and the record is counted as `too_large`. Common Crawl truncates payloads at
/// 1 MiB; other crawlers keep larger ones, so the bound is generous.
pub const MAX_RECORD_BYTES: usize = 256 << 20;

/// Largest inflate ratio a member may show before it is treated as a gzip bomb (with
/// [`MAX_RECORD_BYTES`] as the absolute bound). HTML compresses 5-15x; 1000x is only crafted input.
pub const MAX_INFLATE_RATIO: u64 = 1000;

/// Batches of records (or documents) travel between stages; this is how many records one batch
/// holds at most, which amortises channel costs without holding much memory.
pub const BATCH_RECORDS: usize = 256;

/// Capacity, in batches, of the channel from readers to extractor workers.
pub const RAW_QUEUE_CAP: usize = 8;

/// Capacity, in batches, of the channel from extractor workers to fingerprint workers.
pub const TEXT_QUEUE_CAP: usize = 8;

// --- reader (crates/reader) -------------------------------------------------------------------

/// Decoded bytes the reader gathers into one buffer before splitting records out of it. Records
/// of compressed input are slices of such a buffer, so this is the unit of allocation (one
/// allocation per batch, not per record); 4 MiB amortises it and keeps a batch in L2/L3 reach.
pub const READ_BUFFER_BYTES: usize = 4 << 20;

/// Compressed bytes read ahead from a pipe or stdin. Gzip members and LZ4/zstd frames there are
/// decoded one at a time (each record keeps its member's offset), and a fresh decoder per member
/// refills its read-ahead often: with 8 KiB, reading the 20k corpus through a pipe took 12% longer
/// than with 256 KiB.
pub const STREAM_READ_BUFFER_BYTES: usize = 256 << 10;

/// Decoded batch buffers kept for reuse once their records are dropped (see reader `pool.rs`).
/// Enough for the batches alive at once in a run (reading threads x ranges in flight, plus those
/// queued downstream); more are freed, so idle memory stays below this x a batch.
pub const BUFFER_POOL_MAX: usize = 16;

/// Compressed bytes per range when one per-record gzip file is inflated on several threads. Each
/// file ends with one thread finishing the last range alone, so ranges are kept small: on the
/// 20k corpus (12 files of 24 MB, 2 threads) 512 KiB ranges read 10-15% faster than 2 MiB ones,
/// while 256 KiB ones spent more on finding member starts than they saved.
pub const PARALLEL_RANGE_BYTES: usize = 512 << 10;

/// A gzip file smaller than this is read on one thread: below two ranges there is nothing to share.
pub const PARALLEL_MIN_FILE_BYTES: usize = 2 * PARALLEL_RANGE_BYTES;

/// How many decoded ranges may wait (per reading thread) for their turn to be handed on in file
/// order. Bounds memory to about threads x this x range size x inflate ratio (~12 MB with 2
/// threads); 4 rather than 2 let a slow range hold up the others less (`records --summary -j2` on
/// the 20k corpus: median 0.61 s against 0.63 s over 8 runs each; 8 gained nothing more).
pub const PARALLEL_RANGES_IN_FLIGHT: usize = 4;

/// Decoded output a gzip member may produce before the inflate ratio check applies: small members
/// legitimately inflate far beyond [`MAX_INFLATE_RATIO`] (a 30-byte member holding 40 KiB of zeros).
pub const INFLATE_RATIO_GRACE_BYTES: u64 = 1 << 20;

/// Error examples (offset + message) a file report keeps per run; the rest are only counted.
pub const MAX_ERROR_EXAMPLES: usize = 16;

/// Largest TREC `<DOCHDR>` block and distance from `<DOC>` to its `<DOCNO>`: both are a few lines
/// in every collection; bounding them stops a tag that never closes from being searched for ever.
pub const MAX_TREC_HEAD_BYTES: usize = 64 << 10;

// --- extractor (crates/extractor) -------------------------------------------------------------

/// Largest document body the extractor parses; larger bodies are skipped as `too_large`. Real HTML
/// pages are under 5 MiB; 64 MiB admits pathological but honest pages (the bench checks 50 MB) while
/// bounding the per-worker DOM memory (a few bytes of block/node bookkeeping per input byte).
pub const MAX_HTML_BYTES: usize = 64 << 20;

/// Largest main text the extractor returns, in bytes; longer text is cut at a char boundary. Main
/// text is rarely over 1 MiB; 16 MiB keeps downstream shingling bounded.
pub const MAX_TEXT_BYTES: usize = 16 << 20;

/// Deepest element nesting the HTML tree keeps. Deeper elements are counted but not stored, so an
/// end-tag lookup scans at most this many open elements (linear time on 1,000,000-deep nesting).
/// Real pages nest under 100 deep; browsers cap around 512.
pub const MAX_DOM_DEPTH: usize = 256;

/// Longest word of a `class` or `id` value (bytes) the extractor reads as a hint (`post`, `body`,
/// `sidebar`, `gallery`): every hint word is far shorter, and a longer run of letters (a hash, a
/// generated name) is no word; it is lower-cased in a buffer of this size on the stack.
pub const EXTRACT_CLASS_WORD_MAX_BYTES: usize = 40;

/// Longest ARIA `role` token (bytes) the extractor reads (the longest role it knows,
/// `contentinfo` and `alertdialog`, have 11 letters); lower-cased on the stack like class words.
pub const EXTRACT_ROLE_WORD_MAX_BYTES: usize = 16;

/// Bytes the `<meta charset>` prescan reads, as the WHATWG encoding-sniffing algorithm says (1024).
pub const META_PRESCAN_BYTES: usize = 1024;

/// Bytes fed to the charset detector (chardetng) when no declaration is found. 64 KiB is plenty for
/// a confident guess and keeps detection cheap on large pages.
pub const CHARSET_DETECT_BYTES: usize = 64 << 10;

/// Most items read from one RSS/Atom/RDF feed; the rest are dropped. Real feeds hold 10-100 items.
pub const MAX_FEED_ITEMS: usize = 10_000;

/// Longest text the feed reader keeps per item field (title, description, content), in bytes.
pub const MAX_FEED_FIELD_BYTES: usize = 1 << 20;

/// Longest JSON-LD script the metadata reader parses, in bytes (`extract --with-metadata`). Real
/// ones are a few KiB; a longer one is read up to this bound and then fails to parse.
pub const MAX_JSON_LD_BYTES: usize = 1 << 20;

/// Longest metadata value kept (title, author, description...), in bytes; longer ones are cut at
/// a word.
pub const MAX_METADATA_FIELD_BYTES: usize = 4096;

// --- dedup (crates/dedup) ---------------------------------------------------------------------

/// Words per shingle (k). Measured on Resiliparse texts of the standard corpus (3-shingle Jaccard):
/// copies edited up to 15% or re-templated keep >= 0.25 at their 1st percentile while near-misses
/// (same topic, borrowed sentences) stay <= 0.13; k = 2..5 separate about as well, k = 3 with the
/// widest gap, and short shingles keep more of an edited text ((1-e)^k survive an edit rate e).
pub const DEDUP_SHINGLE_WORDS: usize = 3;

/// MinHash permutations. Each keeps [`DEDUP_MINHASH_BITS`] bits, so the signature is this many
/// bytes; 192 gives a Jaccard estimate with standard deviation <= 0.036 (sqrt(J(1-J)/192)) and
/// enough rows for [`DEDUP_LSH_BANDS`] bands while the fingerprint stays under 300 bytes.
pub const DEDUP_MINHASH_PERMS: usize = 192;

/// Bits kept of each MinHash value (b-bit MinHash, Li and Koenig): two different minima agree by
/// chance with probability 2^-8, which the estimator corrects for.
pub const DEDUP_MINHASH_BITS: u32 = 8;

/// LSH rows per band (r): a band key is r consecutive b-bit minima (16 bits for r = 2). Copies sit
/// at Jaccard 0.2-0.3 at worst, so bands must be short: with r = 2, b = 96 a pair at J = 0.2 is a
/// candidate with probability 1-(1-0.2^2)^96 = 0.98.
pub const DEDUP_LSH_ROWS: usize = 2;

/// LSH bands (b); b * r must not exceed [`DEDUP_MINHASH_PERMS`].
pub const DEDUP_LSH_BANDS: usize = 96;

/// Smallest estimated Jaccard of shingle sets for a pair to be a *candidate*, verified then on its
/// words ([`DEDUP_THRESHOLD`]). Near-miss pairs reach at most 0.13 and copies are >= 0.25 at
/// their 1st percentile, so the bound keeps every copy while the band collisions of unrelated
/// texts are dropped before any word is compared.
pub const DEDUP_MIN_JACCARD: f64 = 0.19;

/// Largest SimHash Hamming distance (of 64 bits) accepted as a near-duplicate on its own, and the
/// distance up to which the SimHash bands guarantee candidacy (pigeonhole: 64 bits in
/// `DEDUP_SIMHASH_MAX_HAMMING + 1` blocks, a pair within the distance agrees on a whole block).
pub const DEDUP_SIMHASH_MAX_HAMMING: u32 = 3;

/// Documents with fewer normalized words than this are reported as too short to judge and never
/// clustered. Below ~100 words a page's main text is a stub (log-in, error, search, tag page) whose
/// words are mostly its site's template, and two stubs of one site are textually the same page
/// although they are not copies. Measured on Resiliparse texts: such stubs reach 88 words (template
/// text leaks into the main text), articles start at ~140; with 50 (Gopher's minimum) 21% of the
/// stubs were chained into one cluster, with 100 none. The same count applies to a page's words
/// outside popular phrases (see [`DEDUP_POPULAR_DOCS`]): our extractor keeps up to 150 words of
/// template on stub pages, of which 20-60 are their own.
pub const DEDUP_MIN_WORDS: usize = 100;

/// Most earlier documents one document is compared with inside one LSH bucket. A bucket shared by
/// thousands of documents (a hostile or template-heavy crawl) would otherwise cost quadratic time;
/// true duplicates share many buckets, so a window per bucket loses almost none of them.
pub const DEDUP_MAX_BUCKET_COMPARE: usize = 64;

/// A pair of MinHash rows whose two b-bit values are shared by more distinct texts than this (plus
/// what 16-bit values share by chance) holds *popular phrases*: template text such as cookie
/// notices, newsletter boxes or "no results" messages, which pages keep when they have no article.
/// Popular rows are no evidence of copying: they are left out of candidates and of the Jaccard
/// estimate (Fetterly, Manasse and Najork's popular phrases), and a page with fewer than
/// [`DEDUP_MIN_WORDS`] words outside them is boilerplate, not clustered. Texts are counted in
/// groups of same texts ([`DEDUP_POPULAR_SAME_TEXT`]), so a family of many lightly edited copies
/// counts a few times; the cost left: phrases that more than this many copies, each edited beyond
/// the same-text threshold, all share count as template. Measured on our
/// extractor's texts of four generated corpora (2,000 to 20,000 documents): a copy family has at
/// most 18 distinct texts, copies and originals have at most 10 of 192 rows popular, stub pages
/// 20-80%. 16 already leaves no stub clustered on the 20k corpus; 24 keeps a margin above 18.
pub const DEDUP_POPULAR_DOCS: usize = 24;

/// Estimated Jaccard (on all signature rows) at or above which two distinct texts are the *same
/// text* for [`DEDUP_POPULAR_DOCS`]: popularity is counted in groups of such texts (union-find), not
/// in distinct texts. A syndicated story copied to 50 sites, each copy re-templated or with a few
/// words changed, is then a handful of groups and its phrases stay evidence; a site's template
/// stays popular because its stub pages differ by their own words (20-60 of <= 150, so two stubs
/// agree on at most ~0.75 of their rows; measured <= 0.84 over all stub pairs of the 20k corpus,
/// 0.78 at the 99th percentile). 0.9 sits above that, with room for the estimator's noise
/// (sd <= 0.03 at J = 0.9), and still joins texts that differ in a few words out of a few hundred.
/// Measured at dup-rate 0.87 (families of 50-61 copies, 20-41 distinct texts): 5-18 groups per
/// family at 0.9, so none of its phrases is popular (pairwise recall 0.71 -> 1.0).
pub const DEDUP_POPULAR_SAME_TEXT: f64 = 0.9;

/// Rows each MinHash row is paired with when finding popular phrases (so it takes part in twice
/// as many pairs). A template row is caught when one of its partners is a template row of the same
/// pages: with a template share t of a page's shingles it is missed with probability about
/// (1 - t^2)^(2 * this). Measured: 2 left 4 of 250 stub pages clustered on the 5k corpus, 4 none;
/// 8 also catches the templates of a 3k corpus; each pairing costs ~0.03 s per 20k documents.
pub const DEDUP_POPULAR_PAIRINGS: usize = 8;

/// Default `--threshold`: the share of words two documents must have in common to be near-duplicates,
/// as a Dice coefficient of their word multisets outside site-template lines,
/// 2 |A ∩ B| / (|A| + |B|). 0.7 sits between the real-page benchmark's reference bounds (pages
/// sharing >= 0.8 of their words are duplicates, < 0.6 distinct): chosen on one half of
/// `bench/realpages` and one sibling corpus (seed 61), where 0.65 already joins 6% of same-site
/// siblings and 0.75 starts to lose re-templated copies whose comments differ.
pub const DEDUP_THRESHOLD: f64 = 0.7;

/// Word share (as [`DEDUP_THRESHOLD`]) from which two documents count as one *class* when site
/// templates are learnt: a copy family counts once, so its shared paragraphs are not taken for a
/// template, while pages of one site that share only a skeleton (below the threshold) stay
/// separate classes and reveal it.
pub const DEDUP_SAME_CLASS: f64 = 0.85;

/// A line (its normalized words) found on pages of this many classes ([`DEDUP_SAME_CLASS`]) of
/// one site is that site's template: a header, footer, navigation or a skeleton shared by sibling
/// pages, left out of the word share of any two pages. Three, the smallest number that tells a
/// line shared by *different* pages from a line of one copied pair.
pub const DEDUP_TEMPLATE_CLASSES: usize = 3;

/// Words of a document kept for verification (the first ones): bounds the memory a hostile
/// multi-megabyte text can take (4 bytes a word) while every real page fits whole.
pub const DEDUP_PROFILE_MAX_WORDS: usize = 50_000;

/// Largest zstd dictionary a `.warc.zst` file may hold (its first, skippable frame; once
/// decompressed when it is stored compressed). zstd's own trainer makes dictionaries of 110 KiB
/// by default and the IIPC proposal's examples are of that order; 16 MiB leaves room for any
/// sensible one while a hostile header cannot make the reader allocate more.
pub const MAX_ZSTD_DICTIONARY_BYTES: usize = 16 << 20;

/// Bytes of the zstd dictionary `rewrite --zstd` trains (zstd's own default, 110 KiB): records
/// of a crawl share their WARC and HTTP headers and page templates, which a dictionary of this
/// size holds many of.
pub const ZSTD_DICTIONARY_BYTES: usize = 112_640;

/// Bytes of records sampled to train the dictionary: about 100 times its size, as zstd's
/// documentation advises, taken equally from every input's first records.
pub const ZSTD_DICTIONARY_SAMPLE_BYTES: usize = 12 << 20;

/// Most bytes of one record kept as a sample (its headers and the start of its payload): a few
/// large records must not take the whole sample.
pub const ZSTD_DICTIONARY_SAMPLE_RECORD_BYTES: usize = 64 << 10;

/// Fewest records to train a dictionary on; with fewer, files are written without one (zstd's
/// trainer fails or learns nothing from a handful).
pub const ZSTD_DICTIONARY_MIN_SAMPLES: usize = 16;

/// Slots of the payload table of a rewrite when it first moves to disk (past `rewrite
/// --memory`); it doubles at half full. 32 bytes a slot: 2 MiB to start.
pub const PAYLOAD_TABLE_FIRST_SLOTS: u64 = 1 << 16;

/// Memory a rewrite's table of payloads written may hold before it moves to disk, when
/// `--memory` is not given: some 200 bytes a distinct payload, so a million of them.
pub const REWRITE_MEMORY_DEFAULT: usize = 256 << 20;

// --- reader: leniency of the container formats (crates/reader/src/container/) ---------------

/// How far past a record's declared end the reader looks for the next record when the bytes
/// there are not one (a length too short, or garbage between records). Found within this, the
/// gap is the record's `bad_length`; beyond it, the record is kept as declared and the gap is
/// counted as `garbage` when reached. Bounding it keeps a stream of garbage after a record from
/// being buffered whole (it held 800 MB of memory for 120 MB of piped garbage when the search ran
/// to the record bound), and it is a fixed distance, so the records read never depend on the
/// buffer size.
pub const RESYNC_WINDOW_BYTES: usize = 1 << 20;

/// Fewest digits an ARC header line's date may have: `YYYYMMDD` (separators such as `-` and `:`
/// are allowed beside them and not counted). With [`ARC_DATE_MAX_DIGITS`] it
/// is what tells the date field apart when the URL holds spaces or a field is missing.
pub const ARC_DATE_MIN_DIGITS: usize = 8;

/// Most digits an ARC header line's date may have. The format says 14 (`YYYYMMDDhhmmss`), but
/// real files carry 17 (milliseconds) and 18; peers read such lines without looking at the date,
/// so the bound only keeps a long number (a length, an id) from passing for a date.
pub const ARC_DATE_MAX_DIGITS: usize = 24;

// --- statistics (crates/stats) ----------------------------------------------------------------

/// Distinct words `crawlsift stats` counts exactly (in a hash map, ~60 bytes each with the word:
/// ~250 MB at the bound). A 100M-word English collection has a few million; past the bound, new
/// words are counted in a count-min sketch ([`STATS_SKETCH_WIDTH`] x [`STATS_SKETCH_DEPTH`]) and
/// the figures say they are approximate. Frequent words appear early, so the head stays exact.
pub const STATS_EXACT_WORDS: usize = 4 << 20;

/// Counters per row of the count-min sketch of words past [`STATS_EXACT_WORDS`] (u32 each, 16 MiB
/// over the rows): the tail is mostly words seen once or twice, and 2^20 counters keep the
/// chance that two of them meet in every row small.
pub const STATS_SKETCH_WIDTH: usize = 1 << 20;

/// Rows (hash functions) of the count-min sketch: four rows make a collision in all of them rare.
pub const STATS_SKETCH_DEPTH: usize = 4;

/// Words of the Zipf table by default (`crawlsift stats --top`): the AP89 table shows 50.
pub const STATS_TOP_WORDS: usize = 50;

/// Largest `--top`: the table is for people; the whole vocabulary is not a table.
pub const STATS_MAX_TOP_WORDS: usize = 10_000;

/// First and last rank of the least-squares fit of the Zipf exponent (log frequency on log rank):
/// the law bends at the top (a few function words) and in the tail (ranks sharing one frequency),
/// so the fit keeps to the ranks between.
pub const STATS_ZIPF_FIT_RANKS: (usize, usize) = (10, 1000);

/// Heaps' law points are taken each time the occurrences grow by this factor (about 10 points a
/// decade): enough for the fit, few enough to show.
pub const STATS_HEAPS_STEP: f64 = 1.25;

/// Buckets of the character 3-gram kernel table of the unusualness score (document count u32 and
/// occurrence count u64 each: 12 MiB). Kernels are hashed into it; Latin-script corpora have tens
/// of thousands of kernels, so collisions are rare, and memory stays fixed whatever the input.
pub const STATS_KERNEL_BUCKETS: usize = 1 << 20;

/// Kernels of one document kept to score it (a bottom-k sample by hash, spilled to a temporary
/// file until the corpus table is complete): scores of documents with more distinct kernels are
/// estimated from the sample, scaled by their distinct count.
pub const STATS_KERNEL_SAMPLE: usize = 256;

/// Most and least unusual documents listed by `crawlsift stats`.
pub const STATS_UNUSUAL_LISTED: usize = 10;

/// Words ranked by how much the duplicates inflated them (`crawlsift stats --after-dedup`).
pub const STATS_INFLATED_LISTED: usize = 20;

/// Points of the rank-frequency curve kept for plots (log-spaced ranks).
pub const STATS_CURVE_POINTS: usize = 200;

/// Clusters `report.json` and `report.html` show in detail (largest first).
pub const REPORT_LARGEST_CLUSTERS: usize = 10;

/// Member URLs listed per cluster in `report.json`'s `largest_clusters`.
pub const REPORT_CLUSTER_URLS: usize = 20;

/// Hosts shown in `report.html`'s duplicates-per-host chart (most duplicates first).
pub const REPORT_TOP_HOSTS: usize = 20;

/// Words of a text compared in `report.html`'s side-by-side view: the word diff costs
/// words x words cells (2 bytes each), so 2,000 words keep it under 8 MB.
pub const REPORT_DIFF_WORDS: usize = 2_000;

// --- decompression bombs (crates/reader: compress/, read/, http.rs) ---------------------------

/// Decoded bytes the reader may pass over without finding a record (a record too large to keep,
/// garbage, NUL padding) before it gives up on the gzip member or LZ4/zstd frame producing them
/// and resyncs at the next member or frame, counting the rest of that member as `too_large`.
/// Skipped bytes are discarded as they are decoded, so this bounds work, not memory: a record
/// declaring 4 GB (4e9 bytes) is read past to the honest records after it, which needs a bound
/// above 4 GB: 4.5 GiB. Passing over it costs ~1.5 s for gzip and zstd, ~15 s for LZ4
/// (lz4_flex decodes runs of one byte at ~300 MB/s). Past it, a member's
/// remaining records are lost (said, with the member's offset), which only a crafted input meets:
/// an honest record is at most [`MAX_RECORD_BYTES`].
pub const MAX_SKIP_DECODED_BYTES: u64 = 9 << 29;

/// Compressed bytes of the current gzip member or LZ4/zstd frame a stream (stdin, a pipe) keeps
/// while decoding it, so that a member that fails to decode is resynced on from just past its
/// start (the next member may begin inside what the broken one consumed), as a mapped file is.
/// Per-record members are a few KiB; a member larger than this (a whole-file member) is resynced
/// on from where it failed instead.
pub const STREAM_RESYNC_BYTES: usize = 16 << 20;

/// Largest decoded HTTP body (`Content-Encoding` gzip / deflate / br undone). Above it the body is
/// kept as stored and flagged `too_large`: the extractor reads at most [`MAX_HTML_BYTES`] of a
/// page, so decoding more only costs memory (one such buffer per worker thread) and time.
pub const MAX_HTTP_DECODED_BYTES: usize = MAX_HTML_BYTES;

/// The most shards a dedup run is split into (`--shard I/N`): each shard is a process with its own
/// output folder, and a merge opens all of them; more than this is a mistake, not a plan.
pub const MAX_SHARDS: u32 = 100_000;

/// The largest `shard.json` a merge reads: it names every input once (a million inputs of
/// 200-byte names fit), so a larger one is damaged or hostile.
pub const MAX_SHARD_MANIFEST_BYTES: u64 = 1 << 30;

// --- CDXJ index (crates/cdxj) -----------------------------------------------------------------

/// CDXJ lines per gzip block of a ZipNum index (`index.cdxj.gz`, one `index.idx` line per block):
/// the block size pywb's own ZipNum clusters use (its `max_blocks` default and IA's clusters), so
/// a lookup inflates at most one block of ~3,000 lines (~1 MB) after the summary's binary search.
pub const CDXJ_ZIPNUM_LINES: usize = 3_000;

/// CDXJ lines a WACZ's index may have and still be packed plain (`indexes/index.cdx`); past it
/// `crawlsift wacz` packs it as ZipNum (`indexes/index.cdx.gz` in blocks of [`CDXJ_ZIPNUM_LINES`]
/// and `indexes/index.idx`). ReplayWeb.page loads a plain index whole, into the browser's
/// database, before it replays the first page, and a ZipNum summary line by line with only the
/// blocks a lookup needs. At some 400 bytes a line, 30,000 lines are ~12 MB, what a browser fetches
/// and stores in a few seconds; ten blocks, the summary of ten lines saves little below that, and
/// a plain index stays readable with `zipfile` and `grep`.
pub const WACZ_PLAIN_INDEX_MAX_LINES: u64 = 30_000;

/// Longest CDXJ line a lookup accepts in an index file, and longest line an index build writes (a
/// record whose line would be longer, a URL of tens of KB, is counted as `line_too_long`). Real
/// lines are 200-500 bytes; this bounds the scan for a line's end in a damaged index.
pub const CDXJ_MAX_LINE_BYTES: usize = 64 << 10;

/// Decoded bytes inflated to find where the gzip member of an archive's last record ends (its
/// CDXJ `length`); past it the member is taken to run to the end of the file. A record is at
/// most [`MAX_RECORD_BYTES`].
pub const CDXJ_MEMBER_SCAN_BYTES: u64 = MAX_RECORD_BYTES as u64;

/// Captures of one URL `crawlsift get` considers (the closest to `--at` among them): bounds the
/// work of a key captured millions of times.
pub const CDXJ_MAX_CAPTURES: usize = 100_000;

/// Bytes of CDXJ lines an index build keeps in memory before it sorts them and spills them to a
/// run file beside the index (merged at the end): the 20k corpus's 23,360 lines are 7 MB, so a
/// build of 200,000 records sorts in memory and a larger one stays near this bound.
pub const CDXJ_SORT_BUFFER_BYTES: usize = 64 << 20;

// --- the fingerprint index (crates/store, `crawlsift index`, `query`, `dedup --against`) -------

/// Documents of one index segment. A band table entry packs a row number of at most 16 bits, so a
/// segment holds at most 2^16 documents; a larger build writes several segments, each searched on
/// its own.
pub const STORE_SEGMENT_MAX_DOCS: usize = 1 << 16;

/// Rows of one band bucket a search looks at (the lowest rows first). A true near-duplicate
/// shares many of 96 buckets, while a bucket a hostile or template-heavy index fills with
/// thousands of rows would otherwise make one query cost as much as a scan.
pub const STORE_MAX_BUCKET_ROWS: usize = 4_096;

/// Largest header (fixed part, section table and the configuration as JSON) of a segment file; a
/// header claiming more is damage, refused before anything is read from it.
pub const STORE_MAX_HEADER_BYTES: usize = 1 << 16;

/// Results a query prints by default (`crawlsift query --limit`).
pub const STORE_QUERY_LIMIT: usize = 100;

// --- phrase-level duplication (crates/phrases, `dedup --phrases`) -----------------------------

/// Words per phrase (k). Fetterly, Manasse and Najork (SIGIR 2005) use 5-word phrases: long
/// enough that a shared phrase is rarely a coincidence of common words, short enough that a
/// stitched sentence of 8 words still holds whole phrases.
pub const PHRASE_WORDS: usize = 5;

/// Shingles per document (m): min-hash bins of one phrase hash (one permutation hashing), each
/// keeping its smallest phrase. The paper keeps 84 min-hashes; naming a page's sources needs a
/// phrase of each borrowed sentence sampled in both pages, which with m bins happens about
/// m / (n1 + n2) of the time per phrase (n words each): on the 20k corpus m = 256 named 0.90 of
/// the sources, m = 512 names 0.96. A page keeps at most this many 8-byte shingles (4 KiB).
pub const PHRASE_SHINGLES: usize = 512;

/// Classes listed per popular phrase (sorted class ids). A phrase in more classes keeps its
/// count, but only the first ones are candidates of covering sets: such a phrase is site or
/// language boilerplate, never what tells a page's sources.
pub const PHRASE_MAX_CLASSES: usize = 64;

/// Share of a page's shingles that must be borrowed (popular, not template, from classes sharing
/// at least [`PHRASE_MIN_SOURCE_SHINGLES`]) for it to be slice-and-dice. A stitched page is all
/// borrowed sentences, but 5-word phrases across the seams between them and the sources' own
/// sampling (a phrase is in both sketches about m / (n1 + n2) of the time) leave 0.25-0.6 of its
/// shingles found elsewhere on the makecorpus corpora; a near-miss borrows 6-22% of its sentences
/// from one article and a quoting article less.
pub const PHRASE_MIN_BORROWED_SHARE: f64 = 0.15;

/// Share of a page's shingles, borrowed, from which it is slice-and-dice even when only pages
/// themselves judged stitched hold them (a farm stitching from a sentence pool of its own). The
/// pages such farms quote are judged by [`PHRASE_MIN_BORROWED_SHARE`] on text found elsewhere;
/// on the makecorpus corpora, the pages they quote have at most 0.23 of their shingles borrowed.
pub const PHRASE_SELF_EVIDENT_SHARE: f64 = 0.3;

/// Fewest borrowed shingles of a slice-and-dice page.
pub const PHRASE_MIN_BORROWED: usize = 6;

/// Fewest classes in the covering set of a slice-and-dice page: a page quoting one or two
/// articles is a near-miss or a commentary, not a page stitched from many sources.
pub const PHRASE_MIN_SOURCES: usize = 3;

/// Fewest of a page's shingles another class must share with it to count as one of its sources
/// when judging it. A borrowed sentence of 8 words or more holds 4 whole 5-word phrases or more,
/// and a source that gave one is usually sampled twice; a class sharing one shingle alone shares
/// a stock phrase of the language ("at the end of the"), whose holders grow with the corpus (on a
/// 60,000-page corpus, short pages of 60-100 words shared one phrase each with 6-10 unrelated
/// classes). Two coincidences with the same class are the square of one.
pub const PHRASE_MIN_SOURCE_SHINGLES: usize = 2;

/// Largest share of a page's borrowed shingles one source may cover for the page to be
/// slice-and-dice: a page made mostly of one other page is a (near) copy of it.
pub const PHRASE_MAX_SOURCE_SHARE: f64 = 0.5;

/// Popular phrases written to `popular_phrases.jsonl` (most popular first) and ranks of the
/// rank/frequency table in `report.json`.
pub const PHRASE_LISTED: usize = 10_000;

/// Example pages named per popular phrase.
pub const PHRASE_EXAMPLES: usize = 3;

/// One shingle in this many keeps its words (the same phrases in every page: chosen by hash), so
/// `popular_phrases.jsonl` can show what popular phrases say without keeping every page's text.
pub const PHRASE_WORDS_SAMPLE: u64 = 8;

/// Phrase words kept at most (first seen wins): bounds the sampled words whatever the corpus.
pub const PHRASE_MAX_WORDS_KEPT: usize = 1 << 18;

/// Sentence hashes `--drop-popular-phrases` keeps at most (8 bytes each, 128 MiB at most with the
/// set's overhead): sentences met after that are never dropped, and counted.
pub const PHRASE_MAX_SENTENCES_SEEN: usize = 1 << 23;

/// Hosts listed in `report.json`'s `phrases.hosts` (most slice-and-dice pages first).
pub const PHRASE_TOP_HOSTS: usize = 20;

/// Memory of a dedup run's documents and clustering (`dedup --memory`), in bytes: what it keeps
/// per document within [`DEDUP_PROFILE_RESIDENT_PERCENT`] (word profiles spill past it), and
/// clustering's working memory in the rest: the transposed signature rows popularity counts on,
/// the per-band key lists, and the word bags of candidate pairs. Steps that would pass it work in
/// parts (rows in blocks, pairs in runs, fewer bands at once); the result is the same bytes
/// whatever the budget.
pub const DEDUP_MEMORY_DEFAULT: usize = 2 << 30;

/// Smallest `dedup --memory` accepted (bytes): below it the parts become too small to be useful.
pub const DEDUP_MEMORY_MIN: usize = 16 << 20;

/// Input size from which `dedup` (and `index`) fingerprints keep a wide byte a MinHash row and
/// clustering keys bands on 32 bits instead of 16. In 16-bit keys, chance meetings grow with the
/// square of the documents: about 0.3M checks at 20,000 documents, 10M at 80,000, 736M at a
/// million. The wide bytes cost 192 bytes a document for as long as the run holds its
/// fingerprints (240 become 448), which small runs do not need. 512 MiB of input is about
/// 40,000 pages of the synthetic corpus and fewer of a real crawl: at 1 GiB the 80,000-page corpus
/// (981 MB) still took 16-bit keys and 29% more time a document than 20,000 or 320,000 pages.
/// Input from standard input has no size and keeps 16-bit keys. The choice depends only on the
/// input list, so shards and a single run make the same one.
pub const DEDUP_WIDE_KEYS_FROM_BYTES: u64 = 512 << 20;

/// Largest template-line table (bytes of `state.bin`'s third section) a search reads whole when
/// the index is opened for one query: every line of every compared profile is looked up in it, so
/// a read per binary-search step would cost thousands of reads; 1 MiB is 131,072 lines, far more
/// than the few hundred a 80,000-page index has, and larger tables are searched piece by piece.
pub const STORE_TEMPLATE_TABLE_READ_BYTES: usize = 1 << 20;

/// Band-table entries a search reads at once once their bucket is found (about 19 bits each with
/// the default settings: some 2.4 KiB), so a popular bucket is read in bounded pieces.
pub const STORE_BUCKET_BLOCK_ENTRIES: usize = 1024;

/// Buckets between two samples of a packed band table's directory ([`crawlsift_store`]'s
/// `packed` module): a bucket is found by reading its sample (4 bytes) and then at most this many
/// buckets' worth of the unary bucket bits (about 2 bits a bucket: some 64 bytes). The samples
/// cost 4 bytes per this many buckets, 0.2 bits a document at one bucket a document.
pub const STORE_TABLE_SAMPLE_BUCKETS: u64 = 256;

/// Bytes of a packed table's unary bucket bits read at a time while a bucket is looked for.
pub const STORE_TABLE_UNARY_READ_BYTES: usize = 64;

/// Widest key a band table packs (bits): MinHash bands of up to five one-byte rows, SimHash blocks
/// of at least two (at least 32 bits wide, `simhash_max_hamming` >= 1). A table entry then holds
/// at most 40 - 0 key bits and 16 row bits, which one 64-bit read decodes.
pub const STORE_MAX_TABLE_KEY_BITS: u32 = 40;

/// Chance, at most, that a search's band screen drops a pair whose signatures agree on just
/// enough rows for `min_jaccard` (a pair agreeing on more is dropped still less often). The index
/// keeps no signatures: a candidate's agreement is counted in the bands whose key it shares with
/// the document searched for, and the bound on that count is the lower 0.1% quantile of the
/// count given the rows `min_jaccard` needs.
pub const STORE_BAND_SCREEN_MISS: f64 = 1e-3;

/// Bytes of a packed band table read at a time when one row's key is looked for (`query --url`
/// rebuilds the signature of the row it is given from every band table, no signature being
/// kept): a multiple of 8, small enough for the query's memory and large enough that the reads
/// stay few (some 3 a table on the 20k index).
pub const STORE_TABLE_SCAN_BYTES: usize = 16 << 10;

/// Share of `dedup --memory` (percent) what a run keeps per document may hold: word profiles
/// (about 3 KB a synthetic page), fingerprints (448 bytes) and the catalog of records for
/// `documents.jsonl.gz` (about 230 bytes, encoded). Past it, the oldest profiles still in memory
/// are appended to a temporary file in the output folder and read back (one positioned read a
/// profile) when their pairs are verified, their lines learnt and their words counted; once
/// every profile is there, the oldest blocks of catalog records follow them into a file of their
/// own (8 bytes a record stay in memory), read back as `documents.jsonl.gz` is written;
/// clustering's working memory is the rest of the budget beside what the process holds (the
/// larger of this count and its measured resident set), and never less than
/// [`DEDUP_WORKING_MIN_PERCENT`]. Half of 2 GiB holds every profile of some 260,000 synthetic
/// pages: the 20,000-page gate never spills.
pub const DEDUP_PROFILE_RESIDENT_PERCENT: usize = 50;

/// Least share of `dedup --memory` (percent) clustering's steps may work in, however much the
/// process already holds: the fingerprints stay in memory (448 bytes a document), and once they
/// and the allocator's slack leave less than this, steps still need room to work in parts of a
/// useful size. A million documents under 2 GiB hold some 1.5 GiB while they are clustered
/// (fingerprints, the catalog's share, slack), which leaves about a quarter.
pub const DEDUP_WORKING_MIN_PERCENT: usize = 25;

/// Share of `dedup --memory` (percent) clustering's steps leave out of their plans: what a step
/// holds beside the parts it sizes (the profile each thread is reading back, the vector a bag is
/// made in, the allocator's slack among the parts). At a million documents under 2 GiB the
/// steps' peaks passed their plans by 3-4%.
pub const DEDUP_WORKING_UNPLANNED_PERCENT: usize = 10;

/// Bytes buffered while word profiles (or catalog records) are appended to their spill file.
pub const DEDUP_SPILL_WRITE_BUFFER: usize = 1 << 20;

/// Documents added between two measurements of a `dedup --memory` run's resident set while it
/// reads (after `malloc_trim`, some 20 ms at a million documents): what it holds beyond its count
/// (the reading threads' batches, the allocator's slack; some 250 MB at a million documents)
/// spills that much more where it passes the budget.
pub const DEDUP_MEASURE_EVERY_DOCS: usize = 65_536;

/// Documents whose MinHash signatures move to disk together, once the fingerprints alone pass the
/// resident share of `--memory`: a block is written as two buffers (by document and, transposed,
/// by row: 2 x 192 x 4,096 bytes = 1.5 MiB with wide bytes), and an LSH band of a block's
/// documents is read back in one read of 16 KiB. The last documents, fewer than a block, stay.
pub const DEDUP_SIGNATURE_SPILL_BLOCK: usize = 4096;

/// Most passes site-template learning makes over the documents' lines: each pass sorts the
/// (site, line, class) triples of the lines whose hash falls in its part, as many parts as the
/// triples (16 bytes each) need to fit clustering's working memory. Ten million documents of
/// some 40 lines take 7 passes in 1 GiB; the cap only matters for budgets far below
/// `DEDUP_MEMORY_MIN`, which only tests set.
pub const DEDUP_TEMPLATE_MAX_PASSES: usize = 256;

/// Bytes an index file's writer buffers ([`crawlsift_store`'s `write_file_with`]) before each
/// write: the sections go from where their data lies to the file through this one buffer, not
/// gathered whole first (a segment's word profiles are some 3 KB a document).
pub const STORE_WRITE_BUFFER_BYTES: usize = 1 << 20;

/// Bytes of one block of encoded records of a dedup run's catalog (the rows of
/// `documents.jsonl.gz`, some 200 bytes each): records are appended to the newest block, and past
/// `dedup --memory` the oldest blocks go whole to the catalog's spill file. Large enough that the
/// blocks are few (a thousand at a million records), small enough that the last, partly filled
/// one is no matter.
pub const DEDUP_CATALOG_BLOCK_BYTES: usize = 1 << 20;

// --- text reuse (crates/reuse) -----------------------------------------------------------------

/// Words per candidate fingerprint (k of the winnowed word shingles that pair documents). With
/// [`REUSE_WINNOW_WINDOW`] = w, two documents sharing a run of w + k - 1 = 7 words share a
/// fingerprint for certain. On `bench/reuse` (PAN 2013, lightly obfuscated copies) k = 4, w = 4
/// pair 605 of the 606 truth pairs among 14k candidates of 357k possible pairs; k = 3 pairs them
/// all but among 70k candidates, common 3-word phrases pairing unrelated pages.
pub const REUSE_SHINGLE_WORDS: usize = 4;

/// Winnowing window (w): of every w consecutive shingles, the one of smallest hash is kept
/// (Schleimer, Wilkerson and Aiken 2003), about 2 / (w + 1) of the shingles.
pub const REUSE_WINNOW_WINDOW: usize = 4;

/// Most fingerprints a document keeps (its first ones, in text order): 16 bytes each in the
/// corpus index. At the window of 4 some 40% of a document's words give one, so this covers
/// documents of about 80,000 words whole.
pub const REUSE_MAX_FINGERPRINTS: usize = 32_768;

/// Most documents a fingerprint may pair: one held by more (after its sites' template pages are
/// left out) is boilerplate common to many pages (licences, navigation, quotations everyone
/// makes) and pairs nobody. It bounds the pairs a fingerprint makes, so candidate pairs stay
/// linear in the fingerprints (at most this many per fingerprint).
pub const REUSE_MAX_POSTING: usize = 64;

/// Pages of one site (URL host) that must hold a fingerprint for it to be that site's template:
/// skeleton text repeated on the site's pages, which does not count as reuse between them (nor
/// between them and other pages). Two pages of a site sharing a passage are still reported.
pub const REUSE_SITE_TEMPLATE_PAGES: usize = 3;

/// Most candidate partners kept per document (those with the most fingerprints in common):
/// bounds the pairs aligned whatever the corpus.
pub const REUSE_MAX_PARTNERS: usize = 1_000;

/// Words of an alignment seed: a run of this many words found in both documents starts or
/// extends a passage. PAN's random obfuscation leaves exact runs of 3-8 words between edits.
pub const REUSE_SEED_WORDS: usize = 3;

/// Most places one seed is looked up at in a document: a 3-word phrase repeated more often
/// (lists, tables) is not what tells a passage apart.
pub const REUSE_MAX_SEED_REPEATS: usize = 16;

/// Words allowed between two seeds of one passage, in each document (edits, inserted words):
/// seeds further apart start a new passage.
pub const REUSE_GAP_WORDS: usize = 12;

/// Fewest words of a reported passage (in each document): shorter shared runs are common phrases.
/// `reuse --min-passage-words` sets it.
pub const REUSE_MIN_PASSAGE_WORDS: usize = 8;

/// Most words of a document that are aligned (its first ones): bounds one alignment's memory.
pub const REUSE_MAX_WORDS: usize = 200_000;

/// Bytes of prepared documents (words and seed shingles, some 32 bytes a word) each alignment
/// thread keeps, so that a document with many partners is tokenised once; past it the thread's
/// cache is emptied.
pub const REUSE_PREPARED_CACHE_BYTES: usize = 64 << 20;

/// Fewest fingerprints two documents must share to be aligned. One shared 4-word shingle is
/// mostly chance: on 4,000 pages of the 20k corpus 96% of such candidates shared no passage.
pub const REUSE_MIN_SHARED_FINGERPRINTS: usize = 2;

// --- stories: the same story in other words (crates/reuse/src/kernel.rs, story.rs) ------------

/// Slots of the kernel commonality table: each of the 46,656 kernels of ASCII letters and digits
/// has its own, every other kernel (accented or non-Latin letters) is hashed into the rest. Two
/// counts a slot (documents holding it, u32, and its count, u64): 12 MiB, zeroed lazily by the
/// system, so a table of a few texts touches a few pages only.
pub const STORY_KERNEL_SLOTS: usize = 1 << 20;

/// Most letters and digits of a text whose kernels are counted (its first ones): bounds the
/// work a text costs. Stories are told in far fewer.
pub const STORY_MAX_CHARS: usize = 1 << 20;

/// MinHash bands of a document's kernel sketch, and rows (hashes) in each: two documents are
/// compared when a band of their sketches is equal. Sketched over their rare kernels (those in
/// at most [`STORY_RARE_SHARE`] of the documents, and in two at least), whose Jaccard
/// similarity is what the commonality weighting looks at: with 24 bands of 2 rows a pair of
/// Jaccard 0.3 is compared with probability 0.90, one of 0.1 with 0.21, one of 0.03 with 0.02.
pub const STORY_BANDS: usize = 32;

/// Rows of a band (see [`STORY_BANDS`]).
pub const STORY_ROWS: usize = 2;

/// Share of the documents past which a kernel is too common to sketch (at least
/// [`STORY_MIN_RARE_DOCS`] documents are always allowed).
pub const STORY_RARE_SHARE: f64 = 0.01;

/// Documents a kernel may be held by and still be sketched, whatever the corpus size.
pub const STORY_MIN_RARE_DOCS: u32 = 16;

/// Most documents one band value may hold: a fuller bucket is a common combination of kernels
/// and compares nobody, so the pairs compared stay linear in the documents.
pub const STORY_MAX_BUCKET: usize = 64;

/// Bytes of documents' kernels (8 a distinct kernel) each thread keeps while story candidates
/// are compared, so that a document with many partners is read and counted once; past it the
/// thread's cache is emptied.
pub const STORY_KERNEL_CACHE_BYTES: usize = 32 << 20;

/// Kernel similarity at or above which two documents tell the same story. Chosen on whole real
/// pages (`scripts/bench_rewriting.py --documents`): of the 354,903 pairs of the 845 pages of
/// `bench/reuse` that share no passage, 3.1e-5 reach 0.2 (1.0e-3 reach 0.05), so a corpus of a
/// million pages, whose candidates are some millions, keeps few chance pairs. On MSRP's test
/// sentences it keeps 62% of the pairs people judged rewritten and 0.09% of unrelated ones; the
/// threshold such sentences would suggest (0.077, 0.1% of unrelated training pairs) lets 20 times
/// more chance pairs of pages through.
pub const STORY_MIN_SIMILARITY: f64 = 0.2;

/// Decoded bytes between two checkpoints of a gzip member read at random (`record_at` on a file
/// gzipped whole): reading a record there inflates at most about this much before it. Each
/// checkpoint keeps 32 KiB (the deflate window), 1.6% of the span.
pub const SEEK_CHECKPOINT_SPAN: u64 = 2 << 20;

/// Checkpoints kept for one gzip member (32 KiB each, so 32 MiB at most); past it, every other one
/// is dropped and the span doubles.
pub const SEEK_MAX_CHECKPOINTS: usize = 1024;

/// Members (of all files) whose checkpoints one record reader keeps; past it, all are dropped.
pub const SEEK_MAX_MEMBERS: usize = 64;

// The bounds of the outputs and inputs added last (links, ranks, remote inputs, Parquet) are in
// `limits/outputs.rs`, re-exported here: one namespace, `crawlsift_common::limits`, two files.
mod outputs;
pub use outputs::*;
