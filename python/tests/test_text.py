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
    assert got["method"] == "learned" and got["charset"]
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


ARTICLE = (
    '<html lang="en"><head><title>Harbour news</title>'
    '<meta name="author" content="Ada Byron"><meta property="og:site_name" content="Port Gazette">'
    '<meta property="article:published_time" content="2021-05-03T10:00:00Z"></head><body>'
    "<nav>Home | About</nav><article><h1>Bridge reopens</h1><p>The harbour bridge reopened on "
    "Monday after two years of repairs, the city said, and traffic returned to the old road.</p>"
    "<ul><li>Lanes: four</li><li>Toll: none</li></ul><p>Cyclists get a <b>separate</b> lane on the "
    "east side, which the council promised in its plan.</p></article>"
    "<footer>Copyright</footer></body></html>"
)


def header_value(headers, name):
    return next((v for k, v in headers or [] if k.lower() == name), None)


def test_extract_on_the_samples_image_says_no_text(root):
    recs = crawlsift.records(root / "data" / "sample.warc.gz", payload=True)
    images = [r for r in recs if (header_value(r["http_headers"], "content-type") or "").startswith("image/")]
    assert images, "the sample holds an image"
    for r in images:
        ctype = header_value(r["http_headers"], "content-type")
        with pytest.raises(crawlsift.NoTextError, match="no text: image") as e:
            crawlsift.extract(r["payload"], content_type=ctype)
        assert isinstance(e.value, ValueError) and isinstance(e.value, crawlsift.CrawlsiftError)
    with pytest.raises(crawlsift.NoTextError, match="PDF"):
        crawlsift.extract(b"%PDF-1.4 ...", content_type="application/pdf")
    with pytest.raises(crawlsift.NoTextError, match="no text"):
        crawlsift.extract(b"")


def test_extract_methods_are_the_clis(binary, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(ARTICLE)
    for method in ("blocks", "plateau", "full", "learned"):
        cli = subprocess.run(
            [binary, "extract", "--html", str(page), "--method", method],
            capture_output=True, check=True,
        ).stdout.decode()
        got = crawlsift.extract(ARTICLE, method=method)
        assert got["text"] + "\n" == cli, method
    assert crawlsift.extract(ARTICLE)["text"] == crawlsift.extract(ARTICLE, method="blocks")["text"]


def test_extract_formats_and_metadata_are_the_clis(binary, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(ARTICLE)
    for fmt in ("txt", "json", "markdown", "xml"):
        for metadata in (False, True):
            args = [binary, "extract", "--html", str(page), "--format", fmt]
            if metadata:
                args.append("--with-metadata")
            cli = subprocess.run(args, capture_output=True, check=True).stdout.decode()
            got = crawlsift.extract(ARTICLE.encode(), format=fmt, metadata=metadata)
            assert isinstance(got, str)
            assert (got if got.endswith("\n") else got + "\n") == cli, (fmt, metadata)
    doc = json.loads(crawlsift.extract(ARTICLE, format="json", metadata=True))
    assert doc["author"] == "Ada Byron" and doc["sitename"] == "Port Gazette"
    assert doc["title"] == "Harbour news" and "harbour bridge reopened" in doc["text"]
    got = crawlsift.extract(ARTICLE, metadata=True)
    assert got["metadata"]["author"] == "Ada Byron"
    assert got["metadata"]["language"] == "en"
    assert set(got["metadata"]) == {
        "title", "author", "published", "sitename", "language", "description", "canonical",
    }
    assert "metadata" not in crawlsift.extract(ARTICLE)
    with pytest.raises(ValueError, match="unknown format"):
        crawlsift.extract(ARTICLE, format="pdf")


def test_reuse_finds_a_pasted_passage_as_the_cli_does():
    source = (
        "The river rises in the northern hills and runs four hundred miles through farmland "
        "before it reaches the sea at the old harbour town."
    )
    copy = (
        "Travel notes. We learnt that the river rises in the northern hills and runs four "
        "hundred miles through farmland before it reaches the sea. Then we went home."
    )
    r = crawlsift.reuse(source, copy)
    (p,) = r["passages"]
    assert p["a_words"] == [0, 19] and p["b_words"] == [5, 24]
    a, b = p["a_chars"]
    assert source[a:b].startswith("The river rises") and source[a:b].endswith("reaches the sea")
    # 19 of the source's 24 words; 19 of the copy's 28.
    assert (r["a_share"], r["b_share"]) == (round(19 / 24, 4), round(19 / 28, 4))
    assert crawlsift.reuse(source, "nothing in common here at all")["passages"] == []
    assert crawlsift.reuse(source, copy, min_passage_words=30)["passages"] == []
    with pytest.raises(ValueError):
        crawlsift.reuse(source, copy, min_passage_words=0)


def test_kernel_similarity_tells_a_retold_story_from_an_unrelated_text():
    story = "Heavy rain flooded the lower town of Ribeira overnight, the mayor said."
    retold = "The lower town of Ribeira was flooded by heavy overnight rain, said its mayor."
    other = "Quarterly earnings of the chip maker rose by nine percent, beating forecasts."
    corpus = [other, "A recipe for lemon cake with almonds.", "Chess openings for beginners."]
    assert crawlsift.kernel_similarity(story, story, corpus) == 1.0
    retold_score = crawlsift.kernel_similarity(story, retold, corpus)
    unrelated = crawlsift.kernel_similarity(story, other, corpus)
    assert retold_score > 0.3 > 0.1 > unrelated
    assert crawlsift.kernel_similarity(retold, story, corpus) == retold_score
    assert 0.0 <= crawlsift.kernel_similarity(story, retold) <= 1.0
    assert crawlsift.kernel_similarity(story, "", corpus) == 0.0
    with pytest.raises(TypeError):
        crawlsift.kernel_similarity(story, retold, "one text")
