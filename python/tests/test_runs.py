"""shard() and merge(): the two steps of a distributed dedup give the single run's bytes, and a
run that cannot finish raises the package's own exceptions."""

import subprocess

import crawlsift
import pytest


def parts(root, tmp_path):
    sample = (root / "data" / "sample.warc.gz").read_bytes()
    inputs = []
    for i in range(3):
        p = tmp_path / f"part-{i}.warc.gz"
        p.write_bytes(sample * (i + 1))
        inputs.append(str(p))
    return inputs


def test_shard_and_merge_give_the_single_run(binary, root, tmp_path):
    inputs = parts(root, tmp_path)
    single = tmp_path / "single"
    subprocess.run([binary, "dedup", *inputs, "--out", str(single), "--quiet"], check=True)
    folders = [tmp_path / f"shard-{i}" for i in range(2)]
    read = 0
    for i, folder in enumerate(folders):
        done = crawlsift.shard(inputs, i, 2, folder)
        assert not done["problems"] and done["failed_inputs"] == 0
        read += done["inputs"]
    assert read == len(inputs)
    merged = crawlsift.merge(folders[::-1], tmp_path / "merged")
    assert merged["documents"] > 0 and not merged["problems"]
    for name in ("clusters.jsonl", "documents.jsonl.gz"):
        assert (single / name).read_bytes() == (tmp_path / "merged" / name).read_bytes()


def test_failures_raise_typed_exceptions(root, tmp_path):
    inputs = parts(root, tmp_path)
    folders = [tmp_path / f"shard-{i}" for i in range(2)]
    for i, folder in enumerate(folders):
        crawlsift.shard(inputs, i, 2, folder)
    # One shard of two: not a complete run.
    with pytest.raises(crawlsift.ShardsError, match="shards missing: 1/2"):
        crawlsift.merge(folders[:1], tmp_path / "again")
    # A shard that does not exist.
    with pytest.raises(crawlsift.UsageError, match="not a shard"):
        crawlsift.shard(inputs[:1], 2, 2, tmp_path / "x")
    with pytest.raises(crawlsift.UsageError):
        crawlsift.shard(inputs[:1], 0, 2, tmp_path / "y", method="nonsense")
    # Outputs of a run are replaced only with force=True.
    crawlsift.merge(folders, tmp_path / "merged")
    with pytest.raises(crawlsift.OutputExistsError, match="force"):
        crawlsift.merge(folders, tmp_path / "merged")
    assert crawlsift.merge(folders, tmp_path / "merged", force=True)["documents"] > 0
    # A missing input names its path; every exception is a CrawlsiftError.
    with pytest.raises(crawlsift.CrawlsiftError, match="no-such-file"):
        crawlsift.shard([str(tmp_path / "no-such-file.warc")], 0, 1, tmp_path / "z")
    assert issubclass(crawlsift.ShardsError, crawlsift.CrawlsiftError)
