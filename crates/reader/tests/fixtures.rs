//! One small fixture per malformation class (built here byte by byte; see data/reader/README.md),
//! each read with every buffer size from 1 byte up so every carry-over boundary is crossed, plus
//! a property test that writes random records with random compression and reads them back.

mod common;

use common::{cfg, gz, http_block, read_all, warc_record};
use crawlsift_reader::{ErrorKind, ReaderConfig, RecordKind};
use proptest::prelude::*;

/// Reads `data` with buffer sizes 1..=40 and a large one; all must agree. Returns ids, errors.
fn read_every_way(data: &[u8]) -> (Vec<String>, Vec<(ErrorKind, u64)>) {
    let (recs, rep) = read_all(data, &cfg(1 << 20));
    let base: Vec<_> = recs.iter().map(common::key).collect();
    for b in (1..=40).chain([97, 4096]) {
        let (r2, rep2) = read_all(data, &cfg(b));
        assert_eq!(
            r2.iter().map(common::key).collect::<Vec<_>>(),
            base,
            "buffer {b}"
        );
        assert_eq!(rep2.errors, rep.errors, "buffer {b}");
    }
    (
        recs.iter().map(|r| r.id.clone()).collect(),
        rep.errors.iter().map(|(k, v)| (*k, *v)).collect(),
    )
}

fn two_records() -> (Vec<u8>, Vec<u8>) {
    (
        warc_record(
            "response",
            "1",
            "<http://a.example/>",
            &http_block("<p>one</p>"),
        ),
        warc_record(
            "response",
            "2",
            "http://b.example/",
            &http_block("<p>two</p>"),
        ),
    )
}

#[test]
fn truncated_member() {
    let (a, b) = two_records();
    let mut f = gz(&a);
    let gb = gz(&b);
    f.extend_from_slice(&gb[..gb.len() - 12]);
    let (ids, errs) = read_every_way(&f);
    assert_eq!(ids[0], "<urn:uuid:1>");
    assert!(errs.iter().any(|e| e.0 == ErrorKind::BadGzip), "{errs:?}");
}

#[test]
fn empty_member_between_records() {
    let (a, b) = two_records();
    let mut f = gz(&a);
    f.extend_from_slice(&gz(b""));
    f.extend_from_slice(&gz(&b));
    let (ids, errs) = read_every_way(&f);
    assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"]);
    assert!(errs.is_empty());
}

#[test]
fn wrong_content_length_both_ways() {
    let (a, b) = two_records();
    let s = String::from_utf8(a.clone()).unwrap();
    let n = http_block("<p>one</p>").len();
    for wrong in [n - 5, n + 30] {
        let bad = s.replace(
            &format!("Content-Length: {n}\r\n"),
            &format!("Content-Length: {wrong}\r\n"),
        );
        let mut f = bad.into_bytes();
        f.extend_from_slice(&b);
        let (ids, errs) = read_every_way(&f);
        assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"], "length {wrong}");
        assert_eq!(errs, [(ErrorKind::BadLength, 1)], "length {wrong}");
    }
}

#[test]
fn lf_only_line_endings() {
    let body = "HTTP/1.1 200 OK\nContent-Type: text/html\n\n<p>lf</p>";
    let f = format!(
        "WARC/0.18\nWARC-Type: response\nWARC-Record-ID: <urn:x>\nWARC-Target-URI: http://lf/\nContent-Length: {}\n\n{body}\n\nWARC/0.18\nWARC-Type: warcinfo\nContent-Length: 0\n\n",
        body.len()
    );
    let (recs, rep) = read_all(f.as_bytes(), &cfg(7));
    assert_eq!(recs.len(), 2);
    assert_eq!(rep.error_count(), 0);
    let h = recs[0].http().unwrap().unwrap();
    assert_eq!(&h.body[..], b"<p>lf</p>");
    assert_eq!(read_every_way(f.as_bytes()).0.len(), 2);
}

#[test]
fn missing_content_length() {
    let (_, b) = two_records();
    let mut f =
        b"WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Record-ID: <urn:m>\r\n\r\nfetchTimeMs: 1\r\n\r\n"
            .to_vec();
    f.extend_from_slice(&b);
    let (ids, errs) = read_every_way(&f);
    assert_eq!(ids, ["<urn:m>", "<urn:uuid:2>"]);
    assert_eq!(errs, [(ErrorKind::MissingLength, 1)]);
    let (recs, _) = read_all(&f, &cfg(1 << 20));
    assert_eq!(&recs[0].block[..], b"fetchTimeMs: 1");
}

#[test]
fn stray_end_and_trec_kinds() {
    let f = b"</DOC>\n<DOC>\n<DOCNO> D1 </DOCNO>\n<DOCHDR>\nhttp://x/ 1.2.3.4 20040101000000 text/html 3\nHTTP/1.0 404 Not Found\nContent-Type: text/html\n</DOCHDR>\nabc\n</DOC>\n<DOC id=\"t2\">\n<TEXT>\ntext\n</TEXT>\n</DOC>\n";
    let (ids, errs) = read_every_way(f);
    assert_eq!(ids, ["D1", "t2"]);
    assert_eq!(errs, [(ErrorKind::StrayEnd, 1)]);
    let (recs, _) = read_all(f, &cfg(1 << 20));
    assert_eq!(recs[0].kind, RecordKind::TrecWeb);
    assert_eq!(recs[0].http().unwrap().unwrap().status, 404);
    assert_eq!(recs[1].kind, RecordKind::TrecText);
    assert_eq!(recs[1].content_type.as_deref(), Some("text/plain"));
    assert_eq!(&recs[1].block[..], b"text");
}

#[test]
fn nul_bytes_between_and_inside_records() {
    let (a, b) = two_records();
    let mut f = a.clone();
    f.extend_from_slice(&[0u8; 17]);
    f.extend_from_slice(&b);
    let (ids, errs) = read_every_way(&f);
    assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"]);
    // NUL padding between records is tolerated (as the peers do).
    assert!(errs.is_empty(), "{errs:?}");
    // NULs where a record should start, with text: counted as garbage, next record found.
    let mut g = a.clone();
    g.extend_from_slice(b"\0\0junk\0");
    g.extend_from_slice(&b);
    let (ids, errs) = read_every_way(&g);
    assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"]);
    assert_eq!(errs, [(ErrorKind::BadLength, 1)]);
    // NULs inside a block are just bytes.
    let r = warc_record("resource", "n", "x:", b"a\0\0b");
    let (recs, rep) = read_all(&r, &cfg(3));
    assert_eq!((&recs[0].block[..], rep.error_count()), (&b"a\0\0b"[..], 0));
}

#[test]
fn lying_chunked_and_gzip_headers_keep_the_record() {
    let block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n<html>plain</html>";
    let f = warc_record("response", "lie", "http://l/", block);
    let (recs, rep) = read_all(&f, &cfg(5));
    assert_eq!(rep.error_count(), 0);
    let h = recs[0].http().unwrap().unwrap();
    assert!(h.flags.chunked_lie && h.flags.encoding_lie);
    assert_eq!(&h.body[..], b"<html>plain</html>");
}

#[test]
fn folded_017_headers() {
    let f = b"WARC/0.17\r\nWARC-Type:\r\n  response\r\nWARC-Record-ID:\r\n\t<urn:f>\r\nWARC-Target-URI: http://f/\r\nContent-Length:\r\n 3\r\n\r\nabc\r\n\r\n";
    let (recs, rep) = read_all(f, &cfg(1));
    assert_eq!(rep.error_count(), 0);
    assert_eq!(
        (recs[0].kind.clone(), recs[0].id.as_str()),
        (RecordKind::Response, "<urn:f>")
    );
    assert_eq!(read_every_way(f).0, ["<urn:f>"]);
}

#[test]
fn trailing_garbage_plain_and_gzip() {
    let (a, _) = two_records();
    let mut f = a.clone();
    f.extend_from_slice(b"this is not a record\n");
    let (ids, errs) = read_every_way(&f);
    assert_eq!((ids.len(), errs), (1, vec![(ErrorKind::Garbage, 1)]));
    let mut g = gz(&a);
    g.extend_from_slice(b"junk after the last member");
    let (ids, errs) = read_every_way(&g);
    assert_eq!((ids.len(), errs), (1, vec![(ErrorKind::Garbage, 1)]));
}

#[test]
fn members_not_aligned_with_records_and_whole_file_gzip() {
    let (a, b) = two_records();
    let mut all = a.clone();
    all.extend_from_slice(&b);
    let whole = gz(&all);
    let mut split = Vec::new();
    for piece in all.chunks(37) {
        split.extend_from_slice(&gz(piece));
    }
    for f in [whole, split] {
        let (ids, errs) = read_every_way(&f);
        assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"]);
        assert!(errs.is_empty());
    }
}

#[test]
fn arc_short_header_and_filedesc() {
    let rec2 = "HTTP/1.0 200 OK\r\n\r\nhi";
    let desc = "1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n";
    let f = format!(
        "filedesc://x.arc 0.0.0.0 20080101000000 text/plain {}\n{desc}\nhttp://a/ 1.2.3.4 20080101000001  {}\n{rec2}\n",
        desc.len(),
        rec2.len()
    );
    let (ids, errs) = read_every_way(f.as_bytes());
    assert_eq!(
        ids,
        [
            "filedesc://x.arc 20080101000000",
            "http://a/ 20080101000001"
        ]
    );
    assert!(errs.is_empty());
    let (recs, _) = read_all(f.as_bytes(), &cfg(9));
    assert_eq!(recs[0].kind, RecordKind::ArcHeader);
    assert_eq!(&recs[1].http().unwrap().unwrap().body[..], b"hi");
}

#[test]
fn offsets_point_at_records_and_members() {
    let (a, b) = two_records();
    let mut plain = a.clone();
    plain.extend_from_slice(&b);
    let (recs, _) = read_all(&plain, &cfg(10));
    assert_eq!(recs[1].pos.offset, a.len() as u64);
    let ga = gz(&a);
    let mut g = ga.clone();
    g.extend_from_slice(&gz(&b));
    let (recs, _) = read_all(&g, &cfg(10));
    assert_eq!(
        (recs[0].pos.offset, recs[1].pos.offset),
        (0, ga.len() as u64)
    );
    assert_eq!((recs[0].pos.index, recs[1].pos.index), (0, 1));
}

#[test]
fn lz4_and_zstd_frames() {
    let (a, b) = two_records();
    let mut lz = Vec::new();
    let mut zs = Vec::new();
    for r in [&a, &b] {
        let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
        std::io::Write::write_all(&mut e, r).unwrap();
        lz.extend_from_slice(&e.finish().unwrap());
        zs.extend_from_slice(&zstd::encode_all(&r[..], 3).unwrap());
    }
    for f in [lz, zs] {
        let (ids, errs) = read_every_way(&f);
        assert_eq!(ids, ["<urn:uuid:1>", "<urn:uuid:2>"]);
        assert!(errs.is_empty());
    }
}

#[test]
fn huge_declared_length_is_bounded() {
    let f = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 99999999999999\r\n\r\nabc\r\n\r\n";
    let (recs, rep) = read_all(f, &cfg(4));
    assert!(recs.is_empty());
    assert_eq!(rep.errors.get(&ErrorKind::TooLarge), Some(&1));
}

#[test]
fn record_indices_run_on_across_ranges_holding_several_batches() {
    // More records per range than one batch holds (BATCH_RECORDS): each range hands on several
    // batches, and indices must still count every record of the file once, in order.
    let records = 3 * crawlsift_common::limits::BATCH_RECORDS + 17;
    let mut f = Vec::new();
    for i in 0..records {
        let r = warc_record("response", &i.to_string(), "http://p/", &http_block("x"));
        f.extend_from_slice(&gz(&r));
    }
    let c = ReaderConfig {
        threads: 2,
        parallel_range_bytes: f.len() / 2,
        parallel_min_file_bytes: 0,
        ..ReaderConfig::default()
    };
    let (par, rep) = read_all(&f, &c);
    assert!(rep.parallel_ranges > 1);
    let indices: Vec<u64> = par.iter().map(|r| r.pos.index).collect();
    assert_eq!(indices, (0..records as u64).collect::<Vec<_>>());
}

#[test]
fn parallel_tiny_ranges_give_identical_output() {
    let mut f = Vec::new();
    for i in 0..300 {
        let r = warc_record(
            "response",
            &i.to_string(),
            "http://p/",
            &http_block(&"x".repeat(i * 7 % 500)),
        );
        f.extend_from_slice(&gz(&r));
    }
    let (seq, _) = read_all(&f, &cfg(1 << 20));
    assert_eq!(seq.len(), 300);
    for (threads, range) in [(2, 1), (2, 100), (3, 2000), (8, 5000)] {
        let c = ReaderConfig {
            threads,
            parallel_range_bytes: range,
            parallel_min_file_bytes: 0,
            buffer_bytes: 333,
            ..ReaderConfig::default()
        };
        let (par, rep) = read_all(&f, &c);
        assert!(rep.parallel_ranges > 1, "threads {threads} range {range}");
        assert_eq!(
            par.iter().map(common::key).collect::<Vec<_>>(),
            seq.iter().map(common::key).collect::<Vec<_>>()
        );
    }
    // A damaged member mid-file: parallel output still equals sequential.
    let mut d = f.clone();
    let mid = d.len() / 2;
    d[mid] ^= 0xff;
    d[mid + 1] ^= 0xff;
    let (seq, srep) = read_all(&d, &cfg(1 << 20));
    let c = ReaderConfig {
        threads: 2,
        parallel_range_bytes: 3000,
        parallel_min_file_bytes: 0,
        ..ReaderConfig::default()
    };
    let (par, prep) = read_all(&d, &c);
    assert_eq!(
        par.iter().map(common::key).collect::<Vec<_>>(),
        seq.iter().map(common::key).collect::<Vec<_>>()
    );
    assert_eq!(srep.errors, prep.errors);
}

#[derive(Debug, Clone)]
enum Comp {
    None,
    GzipPerRecord,
    GzipWhole,
    Lz4,
    Zstd,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_records_round_trip(
        bodies in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 1..12),
        comp in prop_oneof![Just(Comp::None), Just(Comp::GzipPerRecord), Just(Comp::GzipWhole), Just(Comp::Lz4), Just(Comp::Zstd)],
        buffer in 1usize..200,
    ) {
        let recs: Vec<Vec<u8>> = bodies.iter().enumerate()
            .map(|(i, b)| warc_record("resource", &i.to_string(), "urn:x", b)).collect();
        let data: Vec<u8> = match comp {
            Comp::None => recs.concat(),
            Comp::GzipPerRecord => recs.iter().flat_map(|r| gz(r)).collect(),
            Comp::GzipWhole => gz(&recs.concat()),
            Comp::Lz4 => recs.iter().flat_map(|r| {
                let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
                std::io::Write::write_all(&mut e, r).unwrap();
                e.finish().unwrap()
            }).collect(),
            Comp::Zstd => recs.iter().flat_map(|r| zstd::encode_all(&r[..], 1).unwrap()).collect(),
        };
        let (got, rep) = read_all(&data, &cfg(buffer));
        prop_assert_eq!(rep.error_count(), 0);
        prop_assert_eq!(got.len(), bodies.len());
        for (i, (r, b)) in got.iter().zip(&bodies).enumerate() {
            prop_assert_eq!(&r.id, &format!("<urn:uuid:{i}>"));
            prop_assert_eq!(&r.block[..], &b[..]);
            prop_assert_eq!(r.pos.index, i as u64);
        }
        // Piped, the same records at the same offsets (their members' or frames').
        let (piped, prep) = read_streamed(&data, &cfg(buffer));
        prop_assert_eq!(prep.error_count(), 0);
        prop_assert_eq!(
            piped.iter().map(common::key).collect::<Vec<_>>(),
            got.iter().map(common::key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..2000), buffer in 1usize..64) {
        let (mut recs, _) = read_all(&data, &cfg(buffer));
        recs.extend(read_streamed(&data, &cfg(buffer)).0);
        for r in &recs {
            let _ = r.http();
            let _ = r.payload();
        }
    }
}

/// Reads `data` as a stream (stdin, a pipe): records and the report.
fn read_streamed(
    data: &[u8],
    cfg: &ReaderConfig,
) -> (Vec<crawlsift_reader::Record>, crawlsift_reader::FileReport) {
    let mut recs = Vec::new();
    let rep = crawlsift_reader::read_stream(std::io::Cursor::new(data), 0, cfg, &mut |b| {
        recs.extend(b);
        true
    })
    .unwrap();
    (recs, rep)
}

#[test]
fn piped_gzip_records_carry_their_member_offsets() {
    // Members: record a, an empty member, record b, then a and b in one member.
    let (a, b) = two_records();
    let mut both = a.clone();
    both.extend_from_slice(&b);
    let mut f = gz(&a);
    f.extend_from_slice(&gz(b""));
    f.extend_from_slice(&gz(&b));
    f.extend_from_slice(&gz(&both));
    for buffer in [7, 64, 1 << 20] {
        let (mapped, _) = read_all(&f, &cfg(buffer));
        let (piped, rep) = read_streamed(&f, &cfg(buffer));
        let offsets =
            |r: &[crawlsift_reader::Record]| r.iter().map(|r| r.pos.offset).collect::<Vec<_>>();
        assert_eq!(offsets(&piped), offsets(&mapped), "buffer {buffer}");
        assert_eq!(piped.len(), 4);
        assert!(rep.errors.is_empty(), "{:?}", rep.errors);
        assert_eq!(rep.bytes_in, f.len() as u64);
    }
    // A broken last member is counted at its own offset; the records before it are kept.
    let good = f.len() as u64;
    let gb = gz(&b);
    f.extend_from_slice(&gb[..gb.len() / 2]);
    let (piped, rep) = read_streamed(&f, &cfg(64));
    assert_eq!(piped.len(), 4);
    let (_, mapped) = read_all(&f, &cfg(64));
    assert_eq!(rep.errors, mapped.errors);
    let bad = rep
        .error_examples
        .iter()
        .find(|e| e.kind == ErrorKind::BadGzip);
    assert_eq!(
        bad.map(|e| e.offset),
        Some(good),
        "{:?}",
        rep.error_examples
    );
}

#[test]
fn piped_stray_bytes_between_members_are_counted_and_skipped_as_when_mapped() {
    let (a, b) = two_records();
    let lz4 = |r: &[u8]| {
        let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
        std::io::Write::write_all(&mut e, r).unwrap();
        e.finish().unwrap()
    };
    let zst = |r: &[u8]| zstd::encode_all(r, 1).unwrap();
    type Encode<'a> = &'a dyn Fn(&[u8]) -> Vec<u8>;
    let kinds: [(&str, Encode); 3] = [("gzip", &gz), ("lz4", &lz4), ("zstd", &zst)];
    for (name, enc) in kinds {
        let junk: [&[u8]; 7] = [
            b"\x1f",
            b"\x01",
            b"\x04\x22",
            b"\x1f\x8b",
            b"\x28\xb5\x2f",
            b"junk",
            &[0x18; 300],
        ];
        for stray in junk {
            for trailing in [false, true] {
                let mut f = enc(&a);
                f.extend_from_slice(stray);
                if !trailing {
                    f.extend_from_slice(&enc(&b));
                }
                let (mapped, mrep) = read_all(&f, &cfg(64));
                let (piped, prep) = read_streamed(&f, &cfg(64));
                let what = format!("{name} + {stray:?}, trailing {trailing}");
                let ids = |v: &[crawlsift_reader::Record]| {
                    v.iter()
                        .map(|r| (r.id.clone(), r.pos.offset))
                        .collect::<Vec<_>>()
                };
                assert_eq!(ids(&piped), ids(&mapped), "{what}");
                assert_eq!(prep.errors, mrep.errors, "{what}");
                assert!(prep.error_count() >= 1, "{what}");
                // One member loop for both paths: the same errors, messages included.
                assert_eq!(prep.error_examples, mrep.error_examples, "{what}");
            }
        }
    }
}

#[test]
fn piped_gzip_goes_on_after_a_corrupt_member_as_when_mapped() {
    let (a, b) = two_records();
    let mut bad = gz(&a);
    let n = bad.len();
    bad[n / 2] ^= 0x55; // deflate data
    bad[n - 8] ^= 0xff; // and the CRC, should the flip still inflate
    let f = [gz(&a), bad, gz(&b)].concat();
    for buffer in [1, 64, 1 << 20] {
        let (mapped, mrep) = read_all(&f, &cfg(buffer));
        let (piped, prep) = read_streamed(&f, &cfg(buffer));
        let ids = |v: &[crawlsift_reader::Record]| {
            v.iter()
                .map(|r| (r.id.clone(), r.pos.offset))
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&piped), ids(&mapped), "buffer {buffer}");
        assert!(ids(&piped).iter().any(|(id, _)| id.contains('2')));
        assert_eq!(prep.error_examples, mrep.error_examples, "buffer {buffer}");
        assert!(prep.errors.contains_key(&ErrorKind::BadGzip));
    }
}
