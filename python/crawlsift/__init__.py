"""crawlsift for Python: the records of web archives, their main text, dedup fingerprints, and the
shard and merge steps of a dedup run split over many workers.

The functions run crawlsift's Rust code with the CLI's semantics, so a PySpark ``mapPartitions``,
a Ray Data ``map_batches`` or a datatrove ``PipelineStep`` gets the same records, texts,
fingerprints and clusters as ``crawlsift records``, ``extract`` and ``dedup``.

>>> import crawlsift
>>> for rec in crawlsift.records("data/sample.warc.gz"):   # doctest: +SKIP
...     print(rec["type"], rec["url"])
"""

import os
from typing import Optional, Sequence, Union

from ._crawlsift import Records, __version__, cli, extract, fingerprint, records

__all__ = [
    "Records",
    "__version__",
    "cli",
    "extract",
    "fingerprint",
    "merge",
    "records",
    "shard",
]

PathLike = Union[str, "os.PathLike[str]"]


def shard(
    inputs: Sequence[PathLike],
    index: int,
    count: int,
    out: PathLike,
    *,
    text: bool = False,
    threads: Optional[int] = None,
    method: Optional[str] = None,
    threshold: Optional[float] = None,
    min_words: Optional[int] = None,
    quiet: bool = True,
) -> int:
    """Runs shard ``index`` of ``count`` of a dedup run over ``inputs``
    (``crawlsift dedup INPUTS --shard index/count --out out``): it reads its part of the inputs
    (every shard must be given the same inputs in the same order and the same settings) and keeps
    their documents and fingerprints in ``out`` for :func:`merge`. ``text=True`` keeps the texts
    for a merge with ``text=``. Returns the exit status (0, or 3 when some input had problems)."""
    args = ["dedup", *map(os.fspath, inputs), "--shard", f"{index}/{count}", "--out", os.fspath(out)]
    if text:
        args += ["--text", os.devnull]  # a shard keeps the texts; the merge writes the file
    args += _options(threads=threads, method=method, threshold=threshold, min_words=min_words)
    if quiet:
        args.append("--quiet")
    return cli(args)


def merge(
    shards: Sequence[PathLike],
    out: PathLike,
    *,
    text: Optional[PathLike] = None,
    threads: Optional[int] = None,
    force: bool = False,
    quiet: bool = True,
) -> int:
    """Merges the output folders of every shard of one run (``crawlsift merge SHARDS --out out``)
    into the outputs a single ``crawlsift dedup`` run writes, byte for byte (report timings
    aside); ``text`` also writes the clean corpus. Returns the exit status."""
    args = ["merge", *map(os.fspath, shards), "--out", os.fspath(out)]
    if text is not None:
        args += ["--text", os.fspath(text)]
    args += _options(threads=threads)
    if force:
        args.append("--force")
    if quiet:
        args.append("--quiet")
    return cli(args)


def _options(**options: object) -> list:
    args = []
    for name, value in options.items():
        if value is not None:
            args += ["--" + name.replace("_", "-"), str(value)]
    return args
