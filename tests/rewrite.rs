//! `crawlsift rewrite` (issue #38): archives written anew as WARC/1.1, a gzip member per record,
//! every record kept in order; a response whose payload was written before becomes a revisit
//! (identical-payload-digest) naming the first; ARC and TREC come out as WARC; the same bytes for
//! any thread count, and outputs our own strict check finds nothing wrong in.

mod util;

use std::path::Path;

use crawlsift_reader::{read_input, Input, ReaderConfig, Record, RecordKind};
use util::*;

fn response(id: &str, url: &str, date: &str, body: &str) -> String {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Date: {date}\r\n\
         WARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\n\
         WARC-Payload-Digest: sha1:0123456789abcdef0123456789abcdef01234567\r\n\
         Content-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
}

fn records(path: &Path) -> Vec<Record> {
    let mut out = Vec::new();
    let cfg = ReaderConfig {
        verify_digests: true,
        ..ReaderConfig::default()
    };
    let rep = read_input(&Input::Path(path.to_path_buf()), 0, &cfg, &mut |b| {
        out.extend(b);
        true
    })
    .unwrap();
    assert_eq!(rep.error_count(), 0, "{:?}", rep.error_examples);
    assert_eq!(rep.digests.mismatch, 0);
    out
}

/// `rewrite --zstd`: NAME.warc.zst, a zstd frame per record, starting with the dictionary in a
/// skippable frame (magic 0x184D2A5D, the dictionary zstd-compressed); libzstd itself (the zstd
/// crate, not crawlsift's reader) decodes it with that dictionary to the bytes of the gzip
/// rewrite; our reader reads the same records; the same bytes for 1 and 3 threads. Without a
/// dictionary, plain frames.
#[test]
fn zstd_frames_with_a_trained_dictionary_decode_to_the_gzip_rewrite() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let sample = root().join("data/sample.warc.gz");
    let s = sample.to_str().unwrap();
    let out = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    crawlsift_ok(&["rewrite", s, "--out", &out("gz"), "-q"], 0);
    for threads in ["1", "3"] {
        let o = out(&format!("zst{threads}"));
        crawlsift_ok(
            &["rewrite", s, "--out", &o, "-q", "--zstd", "-j", threads],
            0,
        );
    }
    let zst = contents(&dir.path().join("zst1/sample.warc.zst"));
    assert_eq!(zst, contents(&dir.path().join("zst3/sample.warc.zst")));
    let gz = contents(&dir.path().join("gz/sample.warc.gz"));
    assert_eq!(&zst[..4], &[0x5d, 0x2a, 0x4d, 0x18]);
    let len = u32::from_le_bytes(zst[4..8].try_into().unwrap()) as usize;
    let dict = zstd::decode_all(&zst[8..8 + len]).unwrap();
    assert!(
        dict.len() > 1000,
        "a trained dictionary, {} bytes",
        dict.len()
    );
    let mut plain = Vec::new();
    let mut d = zstd::stream::read::Decoder::with_dictionary(&zst[8 + len..], &dict).unwrap();
    d.read_to_end(&mut plain).unwrap();
    assert_eq!(
        plain, gz,
        "libzstd decodes the frames to the gzip rewrite's records"
    );
    let ids = |p: &Path| {
        records(p)
            .into_iter()
            .map(|r| (r.id, r.kind))
            .collect::<Vec<_>>()
    };
    let zrecs = records(&dir.path().join("zst1/sample.warc.zst"));
    assert_eq!(
        zrecs
            .iter()
            .map(|r| (r.id.clone(), r.kind.clone()))
            .collect::<Vec<_>>(),
        ids(&dir.path().join("gz/sample.warc.gz"))
    );
    // A frame a record: each record starts where the one before ended, past the dictionary.
    assert_eq!(zrecs[0].pos.offset, 8 + len as u64);
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &dict).unwrap();
    c.include_checksum(true).unwrap();
    let mut plain_records = gz.as_slice();
    let first_len = {
        let text = String::from_utf8_lossy(plain_records);
        let head_end = text.find("\r\n\r\n").unwrap() + 4;
        let cl: usize = text[..head_end]
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        head_end + cl + 4
    };
    let frame = c.compress(&plain_records[..first_len]).unwrap();
    plain_records = &plain_records[first_len..];
    assert!(!plain_records.is_empty());
    assert_eq!(zrecs[1].pos.offset, (8 + len + frame.len()) as u64);
    // Without a dictionary: zstd frames alone.
    crawlsift_ok(
        &[
            "rewrite",
            s,
            "--out",
            &out("nd"),
            "-q",
            "--zstd",
            "--no-dictionary",
        ],
        0,
    );
    let nd = contents(&dir.path().join("nd/sample.warc.zst"));
    assert_eq!(&nd[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
    assert_eq!(zstd::decode_all(nd.as_slice()).unwrap(), gz);
    // A level out of range is a usage error.
    crawlsift_ok(
        &[
            "rewrite",
            s,
            "--out",
            &out("bad"),
            "-q",
            "--zstd",
            "--zstd-level",
            "23",
        ],
        2,
    );
}

#[test]
fn identical_payloads_become_revisits_and_every_format_comes_out_as_warc() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    let page = "<html><body>the same page served twice</body></html>";
    let mut warc = response("a", "http://a.example/", "2024-01-01T00:00:00Z", page);
    warc += &response(
        "b",
        "http://b.example/",
        "2024-01-02T00:00:00Z",
        "<html>other</html>",
    );
    warc += &response("c", "http://c.example/copy", "2024-01-03T00:00:00Z", page);
    std::fs::write(inputs.join("crawl.warc"), &warc).unwrap();
    std::fs::copy(
        root().join("data/sample.warc.gz"),
        inputs.join("sample.warc.gz"),
    )
    .unwrap();
    let trec = "<DOC>\n<DOCNO>D-1</DOCNO>\n<TEXT>\nA text of the collection.\n</TEXT>\n</DOC>\n";
    std::fs::write(inputs.join("docs.trectext"), trec).unwrap();
    let mut outs = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.path().join(format!("out{threads}"));
        let i = inputs.to_str().unwrap();
        let o = out.to_str().unwrap();
        // Status 3: the input's written payload digests do not match (counted, then mended).
        crawlsift_ok(&["rewrite", i, "--out", o, "-q", "-j", threads], 3);
        outs.push(out);
    }
    for name in ["crawl.warc.gz", "sample.warc.gz", "docs.warc.gz"] {
        assert_eq!(
            contents(&outs[0].join(name)),
            contents(&outs[1].join(name)),
            "{name}: the same bytes for 1 and 3 threads"
        );
    }
    let got = records(&outs[0].join("crawl.warc.gz"));
    assert_eq!(got.len(), 3);
    let (a, c) = (&got[0], &got[2]);
    assert_eq!(got[1].kind, RecordKind::Response);
    assert_eq!(c.kind, RecordKind::Revisit);
    assert_eq!(c.id, "<urn:uuid:c>");
    assert_eq!(c.header("WARC-Refers-To"), Some("<urn:uuid:a>"));
    assert_eq!(
        c.header("WARC-Refers-To-Target-URI"),
        Some("http://a.example/")
    );
    assert_eq!(
        c.header("WARC-Refers-To-Date"),
        Some("2024-01-01T00:00:00Z")
    );
    assert_eq!(
        c.header("WARC-Profile"),
        Some("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
    );
    assert_eq!(
        c.header("WARC-Payload-Digest"),
        a.header("WARC-Payload-Digest")
    );
    assert!(c.block.starts_with(b"HTTP/1.1 200 OK") && c.block.ends_with(b"\r\n\r\n"));
    assert!(!String::from_utf8_lossy(&c.block).contains("served twice"));
    // The written payload digest that did not match is the payload's now.
    assert_ne!(
        a.header("WARC-Payload-Digest"),
        Some("sha1:0123456789abcdef0123456789abcdef01234567")
    );
    // Each record its own gzip member, as WARC/1.1.
    for r in &got {
        assert_eq!(r.uoffset, 0);
    }
    // (`contents` gives a .gz file decompressed.)
    let plain = String::from_utf8(contents(&outs[0].join("crawl.warc.gz"))).unwrap();
    assert_eq!(plain.matches("WARC/1.1\r\n").count(), 3);
    // The sample: every record, in order, ids and blocks kept, but for its exact copies: a
    // response whose payload an earlier response of the run had is a revisit of that one, its
    // block the HTTP head of the response.
    let before = records(&root().join("data/sample.warc.gz"));
    let after = records(&outs[0].join("sample.warc.gz"));
    assert_eq!(before.len(), after.len());
    let mut revisits = 0;
    for (x, y) in before.iter().zip(&after) {
        assert_eq!(x.id, y.id);
        if x.kind == RecordKind::Response && y.kind == RecordKind::Revisit {
            revisits += 1;
            assert!(x.block.starts_with(&y.block) && y.block.ends_with(b"\r\n\r\n"));
            let first = after
                .iter()
                .find(|o| Some(o.id.as_str()) == y.header("WARC-Refers-To"))
                .expect("the original is in the file");
            assert_eq!(first.kind, RecordKind::Response);
            assert_eq!(first.payload(), x.payload());
        } else {
            assert_eq!((&x.kind, &x.block), (&y.kind, &y.block));
        }
    }
    assert!(revisits >= 1, "the sample holds exact copies");
    // TREC: a resource record with its DOCNO and a date.
    let docs = records(&outs[0].join("docs.warc.gz"));
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].header("WARC-TREC-ID"), Some("D-1"));
    assert_eq!(docs[0].kind, RecordKind::Resource);
    assert!(docs[0].header("WARC-Date").is_some());
    // Our strict check finds nothing in any output; a second run refuses to overwrite.
    for name in ["crawl.warc.gz", "sample.warc.gz", "docs.warc.gz"] {
        let o = crawlsift(&["check", outs[0].join(name).to_str().unwrap(), "-q"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    let again = [
        "rewrite",
        inputs.to_str().unwrap(),
        "--out",
        outs[0].to_str().unwrap(),
    ];
    crawlsift_ok(&again, 1);
}

/// Near-duplicates never become revisits (a revisit replays the same bytes): given a `dedup`
/// run's clusters, `rewrite-report.json` lists each near-duplicate with its representative and
/// where it was written, and the record is there, whole.
#[test]
fn near_duplicates_are_listed_in_the_report_not_revisited() {
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<String> = (0..150).map(|i| format!("word{i}")).collect();
    let page = |change: usize| {
        let mut w = words.clone();
        for x in w.iter_mut().take(change) {
            *x = format!("{x}changed");
        }
        format!(
            "<html><body><article><p>{}</p></article></body></html>",
            w.join(" ")
        )
    };
    let mut warc = response("a", "http://a.example/", "2024-01-01T00:00:00Z", &page(0));
    warc += &response("b", "http://b.example/", "2024-01-02T00:00:00Z", &page(3));
    warc += &response("c", "http://c.example/", "2024-01-03T00:00:00Z", &page(0));
    let input = dir.path().join("crawl.warc");
    std::fs::write(&input, &warc).unwrap();
    let (i, d, o) = (
        input.to_str().unwrap(),
        dir.path().join("dedup"),
        dir.path().join("out"),
    );
    crawlsift_ok(&["dedup", i, "--out", d.to_str().unwrap(), "-q"], 0);
    let clusters = d.join("clusters.jsonl");
    let c = clusters.to_str().unwrap();
    crawlsift_ok(
        &[
            "rewrite",
            i,
            "--out",
            o.to_str().unwrap(),
            "-q",
            "--clusters",
            c,
        ],
        3,
    );
    let report: serde_json::Value =
        serde_json::from_slice(&contents(&o.join("rewrite-report.json"))).unwrap();
    assert_eq!(report["revisits"], 1, "{report}");
    let near = report["near_duplicates"].as_array().unwrap();
    assert_eq!(near.len(), 1, "{report}");
    assert_eq!(near[0]["id"], "<urn:uuid:b>");
    assert_eq!(near[0]["representative"], "<urn:uuid:a>");
    assert_eq!(near[0]["file"], "crawl.warc.gz");
    let at = near[0]["offset"].as_u64().unwrap();
    let rec = crawlsift_reader::record_at(&o.join("crawl.warc.gz"), at, 0).unwrap();
    assert_eq!(
        (rec.id.as_str(), &rec.kind),
        ("<urn:uuid:b>", &RecordKind::Response)
    );
    assert!(String::from_utf8_lossy(&rec.payload()).contains("word0changed"));
    // A second run refuses to overwrite the report without --force.
    crawlsift_ok(&["rewrite", i, "--out", o.to_str().unwrap(), "-q"], 1);
}
