#!/usr/bin/env python3
"""Deduplicate a crawl on Apache Spark with crawlsift: one Spark task per shard, then one merge.

Each task calls ``crawlsift.shard(inputs, i, n, folder)`` (the Python package, ``pip install .``
from the repository root, on every worker): it reads its part of the inputs (split by file, the
same way in every task, without any task talking to another) and keeps their documents and
fingerprints in its folder. The driver then calls ``crawlsift.merge(folders, out)``, which writes
``clusters.jsonl``, ``documents.jsonl.gz``, ``report.json`` (and ``--text``) byte-identical to
``crawlsift dedup INPUTS --out OUT`` on one machine: the distributed run cannot disagree with the
local one. The folders must be on storage every worker and the driver see (a shared file system);
the merge reads only them, never the archives.

The workers must run the Python that has ``crawlsift`` installed. This script sets
``PYSPARK_PYTHON`` (and ``PYSPARK_DRIVER_PYTHON``) to the interpreter running it,
``sys.executable``, unless they are set already, so in a virtual environment with ``crawlsift``
and ``pyspark`` installed it runs as written on a local master. On a cluster, install crawlsift in
that same path on every node, or set ``PYSPARK_PYTHON`` to the workers' Python yourself.

    python3 examples/spark_dedup.py /data/crawl/*.warc.gz --out out --shards 8 --master local[2]
"""

import argparse
import os
import sys

import crawlsift
from pyspark.sql import SparkSession


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="archive files (every task sees the same paths)")
    ap.add_argument("--out", required=True, help="output folder of the merged run")
    ap.add_argument("--shards", type=int, default=4, help="Spark tasks (shards), default 4")
    ap.add_argument("--work", help="folder of the shards' outputs (default: OUT.shards)")
    ap.add_argument("--master", default="local[2]", help="Spark master, default local[2]")
    ap.add_argument("--text", help="also write the clean corpus (FILE.jsonl.gz)")
    ap.add_argument("--threads", type=int, default=1, help="threads per task, default 1")
    args = ap.parse_args(argv)

    inputs = [os.path.abspath(p) for p in args.inputs]
    work = os.path.abspath(args.work or args.out.rstrip("/") + ".shards")
    count, keep_text, threads = args.shards, args.text is not None, args.threads

    def run_shard(index: int):
        import crawlsift  # on the worker

        folder = os.path.join(work, f"shard-{index:05d}")
        # A shard that cannot finish raises crawlsift.CrawlsiftError, which fails its Spark task.
        counts = crawlsift.shard(inputs, index, count, folder, text=keep_text, threads=threads)
        return index, folder, counts

    # Spark starts its workers with `python3` from PATH unless told otherwise: outside this
    # interpreter's virtual environment they would not find crawlsift.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(args.master)
        .appName("crawlsift-dedup")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    try:
        done = spark.sparkContext.parallelize(range(count), count).map(run_shard).collect()
    except Exception as e:  # a task's CrawlsiftError, as Spark hands it back
        print(f"spark_dedup: a shard failed: {e}", file=sys.stderr)
        return 1
    finally:
        spark.stop()
    folders = [folder for _, folder, _ in sorted(done)]
    try:
        merged = crawlsift.merge(folders, args.out, text=args.text, force=True, quiet=False)
    except crawlsift.CrawlsiftError as e:
        print(f"spark_dedup: the merge failed: {e}", file=sys.stderr)
        return 1
    # The command line's statuses: 3 when some input had problems (counted in report.json).
    problems = merged.get("problems") or any(c.get("problems") for _, _, c in done)
    return 3 if problems else 0

if __name__ == "__main__":
    sys.exit(main())
