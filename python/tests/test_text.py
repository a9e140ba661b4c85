"""`crawlsift.extract()` and `crawlsift.fingerprint()` agree with `crawlsift dedup`."""

import gzip
import json
import subprocess

import pytest

import crawlsift

PAGE = (
    "<html><head><title>Harbour news</title></head><body><nav>Home | About</nav>"
    "<article><h1>Bridge reopens</h1><p>The harbour bridge reopened on Monday after two years "
    "of repairs, the city said, and traffic returned to the old road.</p></article>"
    "<footer>Copyright</footer></body></html>"
)


def test_extract_gives_title_and_main_text():
    got = crawlsift.extract(PAGE)
    assert got["title"] == "Harbour news"
    assert "harbour bridge reopened" in got["text"]
    assert "Copyright" not in got["text"]
    assert got["method"] == "blocks" and got["charset"]
    assert crawlsift.extract(PAGE.encode("utf-8"))["text"] == got["text"]
    assert "Copyright" in crawlsift.extract(PAGE, method="full")["text"]


def test_extract_honours_the_http_charset():
    body = "<p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, served every morning.</p>".encode("latin-1")
    got = crawlsift.extract(body, content_type="text/html; charset=ISO-8859-1")
    assert "Caf\u00e9" in got["text"]


def test_extract_refuses_what_is_not_text():
    with pytest.raises(ValueError, match="no text"):
        crawlsift.extract(b"\x89PNG\r\n\x1a\n" + bytes(200), content_type="image/png")
    with pytest.raises(ValueError):
        crawlsift.extract(PAGE, method="nonsense")


def test_fingerprints_equal_the_dedup_run(binary, root, tmp_path):
    out = tmp_path / "out"
    subprocess.run(
        [binary, "dedup", str(root / "data" / "sample.warc.gz"), "--out", str(out), "--quiet",
         "--text", str(tmp_path / "text.jsonl.gz")],
        check=True,
    )
    docs = {}
    with gzip.open(out / "documents.jsonl.gz", "rt") as f:
        for line in f:
            d = json.loads(line)
            if d.get("exact_hash"):
                docs[d["id"]] = d
    compared = 0
    with gzip.open(tmp_path / "text.jsonl.gz", "rt") as f:
        for line in f:
            t = json.loads(line)
            fp = crawlsift.fingerprint(t["text"])
            d = docs[t["id"]]
            assert fp["exact"] == d["exact_hash"]
            assert f'{fp["simhash"]:016x}' == d["simhash"]
            assert fp["words"] == d["words"]
            compared += 1
    assert compared >= 5


def test_fingerprint_is_deterministic_and_sized():
    a = crawlsift.fingerprint("one two three four five six seven eight nine ten " * 10)
    b = crawlsift.fingerprint("one two three four five six seven eight nine ten " * 10)
    assert a == b and len(a["minhash"]) > 0 and len(a["exact"]) == 32
    assert crawlsift.fingerprint("")["words"] == 0
