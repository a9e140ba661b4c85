"""`crawlsift.records()` yields what `crawlsift records` prints, record for record."""

import io
import json
import os
import socket
import shutil
import subprocess

import pytest

import crawlsift


def cli_lines(binary, path):
    out = subprocess.run([binary, "records", str(path)], capture_output=True, check=False)
    assert out.returncode in (0, 3), out.stderr.decode(errors="replace")
    return [json.loads(line) for line in out.stdout.splitlines()]


HEADERS = ("warc_headers", "http_headers")


def rows(recs):
    """The records without the headers, which the CLI's rows do not carry."""
    return [{k: v for k, v in r.items() if k not in HEADERS} for r in recs]


def test_sample_matches_the_cli_field_for_field(binary, root):
    path = root / "data" / "sample.warc.gz"
    got = list(crawlsift.records(str(path)))
    assert rows(got) == cli_lines(binary, path)
    assert len(got) > 10


def test_payload_is_the_body_on_request(root):
    path = root / "data" / "sample.warc.gz"
    it = crawlsift.records(path, payload=True)
    recs = list(it)
    assert all(len(r["payload"]) == r["payload_length"] for r in recs)
    pages = [r for r in recs if r["http_status"] == 200]
    assert pages and all(b"<" in r["payload"] for r in pages)
    assert it.report == {
        "records": len(recs),
        "bytes": path.stat().st_size,
        "errors": {},
        "skipped_inputs": {},
        "invalid_dates": 0,
        "failed_inputs": [],
    }
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


def test_a_missing_file_raises_file_not_found_naming_it(tmp_path, root):
    with pytest.raises(FileNotFoundError, match="no-such-file.warc"):
        crawlsift.records("/nonexistent/no-such-file.warc")
    with pytest.raises(FileNotFoundError, match="gone.warc"):
        crawlsift.records([root / "data" / "sample.warc.gz", tmp_path / "gone.warc"])


def test_an_unreadable_input_alone_raises_and_among_others_is_passed_over(tmp_path, root):
    # A socket file cannot be opened by anyone (ENXIO), root included: an input that exists and
    # cannot be read.
    sample = root / "data" / "sample.warc.gz"
    unreadable = tmp_path / "b.warc"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(unreadable))
        with pytest.raises(OSError, match="b.warc"):
            list(crawlsift.records(unreadable))
        # Among several inputs it is passed over as the CLI passes it over: counted, warned of,
        # and the others read.
        it = crawlsift.records([unreadable, sample])
        with pytest.warns(RuntimeWarning, match="b.warc"):
            got = list(it)
        assert len(got) == len(list(crawlsift.records(sample)))
        (failed,) = it.report["failed_inputs"]
        assert "b.warc" in failed and "cannot open" in failed
    finally:
        sock.close()


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


SAMPLE_WARC = "data/sample.warc.gz"


def sample(root):
    return root / SAMPLE_WARC


def without_file(recs):
    return [{k: v for k, v in r.items() if k != "file"} for r in recs]


def test_a_list_of_paths_reads_each_in_turn(root, tmp_path):
    a = sample(root)
    b = tmp_path / "copy.warc.gz"
    b.write_bytes(a.read_bytes())
    one = list(crawlsift.records(a))
    it = crawlsift.records([a, str(b)])
    both = list(it)
    assert len(both) == 2 * len(one)
    assert without_file(both) == without_file(one) * 2
    assert {r["file"] for r in both[: len(one)]} == {str(a)}
    assert {r["file"] for r in both[len(one) :]} == {str(b)}
    assert it.report["records"] == 2 * len(one)
    assert it.report["bytes"] == 2 * a.stat().st_size
    # A tuple is a list too; the same file twice is read once, as the CLI does.
    it = crawlsift.records((a, a))
    assert len(list(it)) == len(one)
    assert it.report["skipped_inputs"] == {"duplicate": 1}


def test_a_folder_gives_what_the_cli_gives_for_it(binary, root, tmp_path):
    folder = tmp_path / "crawl"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(sample(root), folder / "b.warc.gz")
    shutil.copy(sample(root), folder / "sub" / "a.warc.gz")
    (folder / "README.txt").write_text("not an archive\n")
    it = crawlsift.records(folder)
    got = list(it)
    assert rows(got) == cli_lines(binary, folder)
    files = [r["file"] for r in got]
    assert files == sorted(files) and len(set(files)) == 2
    assert it.report["skipped_inputs"] == {"not_archive": 1}
    assert it.report["records"] == len(got)


def test_a_binary_file_object_is_read_in_chunks(root):
    path = sample(root)
    expected = without_file(crawlsift.records(path))
    with open(path, "rb") as f:
        got = list(crawlsift.records(f))
    assert without_file(got) == expected
    assert {r["file"] for r in got} == {str(path)}
    got = list(crawlsift.records(io.BytesIO(path.read_bytes())))
    assert without_file(got) == expected
    assert {r["file"] for r in got} == {"<stream>"}


def test_a_stream_that_cannot_seek_works(root):
    path = sample(root)
    expected = without_file(crawlsift.records(path, payload=True))
    # A pipe: no seek, no size; read(n) may return fewer bytes than asked.
    proc = subprocess.Popen(["cat", str(path)], stdout=subprocess.PIPE)
    try:
        assert not proc.stdout.seekable()
        got = list(crawlsift.records(proc.stdout, payload=True))
    finally:
        proc.stdout.close()
        proc.wait()
    assert without_file(got) == expected

    class Trickle:
        """Gives at most 7 bytes a call, and no other method."""

        def __init__(self, data):
            self.data = data

        def read(self, n=-1):
            n = 7 if n < 0 else min(n, 7)
            out, self.data = self.data[:n], self.data[n:]
            return out

    got = list(crawlsift.records(Trickle(path.read_bytes())))
    assert without_file(got) == without_file(crawlsift.records(path))


def test_bytes_are_an_archive_in_memory(root):
    path = sample(root)
    expected = without_file(crawlsift.records(path))
    for data in (path.read_bytes(), bytearray(path.read_bytes())):
        it = crawlsift.records(data)
        got = list(it)
        assert without_file(got) == expected
        assert {r["file"] for r in got} == {"<bytes>"}
        assert it.report["bytes"] == len(data)


def test_other_sources_raise_a_clear_type_error(root):
    for bad in (3, None, 2.5, {"path": "x"}, [sample(root), 3]):
        with pytest.raises(TypeError, match="records"):
            crawlsift.records(bad)
    with open(sample(root), "r", encoding="latin-1") as f:
        with pytest.raises(TypeError, match="binary mode"):
            crawlsift.records(f)

    class Liar:
        def read(self, n=-1):
            return "text, not bytes"

    with pytest.raises(OSError, match="binary mode"):
        list(crawlsift.records(Liar()))

    class Broken:
        def read(self, n=-1):
            raise RuntimeError("the disk fell off")

    with pytest.raises(OSError, match="the disk fell off"):
        list(crawlsift.records(Broken()))


def test_headers_are_ordered_name_value_pairs(root):
    recs = list(crawlsift.records(sample(root)))
    for r in recs:
        names = [k for k, _ in r["warc_headers"]]
        assert names[0] == "WARC-Type" or "WARC-Type" in names
        assert dict(r["warc_headers"])["WARC-Type"] == r["type"]
        assert dict(r["warc_headers"])["WARC-Record-ID"] == r["id"]
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in r["warc_headers"])
    responses = [r for r in recs if r["http_status"] is not None]
    assert responses
    for r in responses:
        assert any(k.lower() == "content-type" for k, _ in r["http_headers"])
    assert all(r["http_headers"] is None for r in recs if r["type"] in ("warcinfo", "request"))


def warc(http_head: bytes, body: bytes, date: bytes = b"2020-01-02T03:04:05Z") -> bytes:
    block = http_head + b"\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: " + date + b"\r\nWARC-Target-URI: http://example.com/\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(block)).encode() + b"\r\n\r\n"
    )
    return head + block + b"\r\n\r\n"


def test_http_headers_keep_every_byte_and_repeat(root):
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\n"
        b"Set-Cookie: b=2\r\nX-Name: caf\xe9\r\nX-Utf8: caf\xc3\xa9\r\nContent-Length: 4\r\n"
    )
    (rec,) = crawlsift.records(warc(head, b"body"), payload=True)
    h = rec["http_headers"]
    assert [v for k, v in h if k == "Set-Cookie"] == ["a=1", "b=2"]
    assert dict(h)["X-Name"].encode("latin-1") == b"caf\xe9"
    assert dict(h)["X-Utf8"] == "caf\u00e9"
    assert rec["payload"] == b"body"


def test_warc_header_lines_keep_every_byte_as_warcio_reads_them():
    # A WARC header line that is not UTF-8 reads as ISO-8859-1, line by line, as warcio's
    # decode_header does: no byte becomes U+FFFD, and the other lines stay UTF-8.
    data = warc(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", b"hi")
    data = data.replace(
        b"WARC-Type: response\r\n",
        b"WARC-Type: response\r\nX-Latin: caf\xe9\r\nX-Utf8: caf\xc3\xa9\r\n",
    )
    (rec,) = crawlsift.records(data)
    h = dict(rec["warc_headers"])
    assert h["X-Latin"].encode("latin-1") == b"caf\xe9"
    assert h["X-Utf8"] == "caf\u00e9"
    assert "\ufffd" not in "".join(v for _, v in rec["warc_headers"])


def test_dates_are_iso_utc_and_invalid_ones_are_counted():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
    data = (
        warc(head, b"hi")
        + warc(head, b"hi", b"2009-03-28T08:13:42-0700")
        + warc(head, b"hi", b"2009-03-78T08:13:42-0700")
    )
    it = crawlsift.records(data)
    a, b, c = list(it)
    assert a["date"] == "2020-01-02T03:04:05Z" and "date_raw" not in a
    assert b["date"] == "2009-03-28T15:13:42Z" and b["date_raw"] == "2009-03-28T08:13:42-0700"
    assert c["date"] is None and c["date_raw"] == "2009-03-78T08:13:42-0700"
    assert it.report["invalid_dates"] == 1


def test_record_at_reads_every_record_back_from_its_place_in_a_file_gzipped_whole(tmp_path, root):
    # The sample's records gzipped as one member: every record but the first has a uoffset, and
    # one RecordReader reads each back from (offset, uoffset), payload included.
    import gzip

    plain = gzip.decompress(sample(root).read_bytes())
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(plain))
    recs = list(crawlsift.records(whole, payload=True))
    assert sum(1 for r in recs if r.get("uoffset", 0) > 0) == len(recs) - 1
    reader = crawlsift.RecordReader()
    for r in recs:
        back = reader.record_at(whole, r["offset"], r.get("uoffset", 0), payload=True)
        assert (back["id"], back["type"], back["payload"]) == (r["id"], r["type"], r["payload"])
        assert back.get("uoffset") == r.get("uoffset")
    last = recs[-1]
    assert crawlsift.record_at(str(whole), 0, last["uoffset"])["id"] == last["id"]
    with pytest.raises(ValueError, match="cannot read a record there"):
        reader.record_at(whole, 0, last["uoffset"] + 1)
    with pytest.raises(FileNotFoundError):
        crawlsift.record_at(tmp_path / "gone.warc.gz", 0)
