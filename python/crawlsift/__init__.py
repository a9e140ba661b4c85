"""crawlsift for Python: the records of web archives, their main text, dedup fingerprints, and the
shard and merge steps of a dedup run split over many workers.

The functions run crawlsift's Rust code with the CLI's semantics, so a PySpark ``mapPartitions``,
a Ray Data ``map_batches`` or a datatrove ``PipelineStep`` gets the same records, texts,
fingerprints and clusters as ``crawlsift records``, ``extract`` and ``dedup``. ``shard()`` and
``merge()`` call the library a run of ``crawlsift dedup --shard`` and ``crawlsift merge`` calls;
a run that cannot finish raises :class:`CrawlsiftError` (or one of its subclasses:
:class:`UsageError`, :class:`OutputExistsError`, :class:`ShardsError`, :class:`DamagedError`,
:class:`InputOutputError`, :class:`RunInterrupted`). ``extract()`` raises :class:`NoTextError`
(a :class:`CrawlsiftError` and a :class:`ValueError`) for a document that gives no text.

``records()`` reads a path, a list of paths, a folder, a binary file object or ``bytes``; each
record is a dict with the CLI's fields, its WARC header fields (``warc_headers``) and HTTP
response header fields (``http_headers``) as ordered lists of ``(name, value)`` tuples, and the
payload with ``payload=True``. ``record_at()`` and :class:`RecordReader` read a record again
from the place a row gives (``file``, ``offset``, ``uoffset``), in a file compressed whole too.

>>> import crawlsift
>>> for rec in crawlsift.records("data/sample.warc.gz"):   # doctest: +SKIP
...     print(rec["type"], rec["url"])
"""

from ._crawlsift import (
    CrawlsiftError,
    DamagedError,
    InputOutputError,
    NoTextError,
    OutputExistsError,
    RecordReader,
    Records,
    RunInterrupted,
    ShardsError,
    UsageError,
    __version__,
    extract,
    fingerprint,
    kernel_similarity,
    merge,
    record_at,
    records,
    reuse,
    shard,
)

__all__ = [
    "CrawlsiftError",
    "DamagedError",
    "InputOutputError",
    "NoTextError",
    "OutputExistsError",
    "RecordReader",
    "Records",
    "RunInterrupted",
    "ShardsError",
    "UsageError",
    "__version__",
    "extract",
    "fingerprint",
    "kernel_similarity",
    "merge",
    "record_at",
    "records",
    "reuse",
    "shard",
]
