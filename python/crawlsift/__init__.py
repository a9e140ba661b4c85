"""crawlsift for Python: the records of web archives, their main text and dedup fingerprints.

The functions run crawlsift's Rust code with the CLI's semantics, so a PySpark ``mapPartitions``,
a Ray Data ``map_batches`` or a datatrove ``PipelineStep`` gets the same records, texts and
fingerprints as ``crawlsift records``, ``crawlsift extract`` and ``crawlsift dedup``.

>>> import crawlsift
>>> for rec in crawlsift.records("data/sample.warc.gz"):   # doctest: +SKIP
...     print(rec["type"], rec["url"])
"""

from ._crawlsift import Records, __version__, extract, fingerprint, records

__all__ = ["Records", "__version__", "extract", "fingerprint", "records"]
