"""`crawlsift.records()` yields what `crawlsift records` prints, record for record."""

import json
import subprocess

import pytest

import crawlsift


def cli_lines(binary, path):
    out = subprocess.run([binary, "records", str(path)], capture_output=True, check=False)
    assert out.returncode in (0, 3), out.stderr.decode(errors="replace")
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_sample_matches_the_cli_field_for_field(binary, root):
    path = root / "data" / "sample.warc.gz"
    got = list(crawlsift.records(str(path)))
    assert got == cli_lines(binary, path)
    assert len(got) > 10


def test_payload_is_the_body_on_request(root):
    path = root / "data" / "sample.warc.gz"
    it = crawlsift.records(path, payload=True)
    recs = list(it)
    assert all(len(r["payload"]) == r["payload_length"] for r in recs)
    pages = [r for r in recs if r["http_status"] == 200]
    assert pages and all(b"<" in r["payload"] for r in pages)
    assert it.report == {"records": len(recs), "bytes": path.stat().st_size, "errors": {}}
    assert "payload" not in next(crawlsift.records(path))


def test_every_real_file_gives_as_many_records_as_the_cli(binary, shared):
    files = sorted(p for p in (shared / "corpus" / "real").iterdir() if p.suffix not in (".md", ".jsonl"))
    assert len(files) > 20
    for path in files:
        expected = cli_lines(binary, path)
        got = list(crawlsift.records(path, threads=2))
        assert len(got) == len(expected), path.name
        assert [(r["offset"], r["type"], r["id"]) for r in got] == [
            (r["offset"], r["type"], r["id"]) for r in expected
        ], path.name


def test_a_missing_file_raises_oserror_naming_it():
    with pytest.raises(OSError, match="no-such-file.warc"):
        list(crawlsift.records("/nonexistent/no-such-file.warc"))


def test_garbage_is_counted_not_raised(tmp_path):
    path = tmp_path / "junk.warc"
    path.write_bytes(b"WARC/1.0\r\nContent-Length: 99999999999\r\n\r\nshort" + bytes(range(256)) * 4)
    it = crawlsift.records(path)
    assert it.report is None
    assert list(it) == []
    assert it.report is not None and it.report["records"] == 0 and it.report["errors"]


def test_zero_threads_is_a_value_error(root):
    with pytest.raises(ValueError):
        crawlsift.records(root / "data" / "sample.warc.gz", threads=0)
