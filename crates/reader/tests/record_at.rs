//! Every record of a file is read back from its place (`pos.offset`, `uoffset`) with
//! `record_at`, whatever the compression: whole-file gzip (WARC and TREC, large enough for inflate
//! checkpoints), one-frame LZ4 and zstd, per-record gzip, several zstd frames, uncompressed ARC.

mod common;

use std::io::Write;
use std::path::Path;

use crawlsift_reader::{
    read_input, record_at, Input, ReaderConfig, Record, RecordReader, SeekIndex,
};

/// `n` WARC response records whose pages are about `size` bytes of varied text.
fn warc(n: usize, size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut x = 7u64;
    for i in 0..n {
        let mut body = format!("<html><body><h1>page {i}</h1><p>");
        while body.len() < size {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            body.push_str(&format!("word{} ", x >> 52));
        }
        body.push_str("</p></body></html>");
        let rec = common::warc_record(
            "response",
            &format!("{i:08}"),
            &format!("http://example.com/{i}"),
            &common::http_block(&body),
        );
        out.extend_from_slice(&rec);
    }
    out
}

/// `n` TREC Web documents.
fn trec(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(
            format!(
                "<DOC>\n<DOCNO>doc-{i:05}</DOCNO>\n<DOCHDR>\nhttp://example.org/{i} 1.2.3.4 \
                 20080430204825 text/html 100\nHTTP/1.1 200 OK\nContent-Type: text/html\n\n\
                 </DOCHDR>\n<html><body><p>document {i} {}</p></body></html>\n</DOC>\n",
                "text ".repeat(i % 50)
            )
            .as_bytes(),
        );
    }
    out
}

fn lz4(data: &[u8]) -> Vec<u8> {
    let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

fn records_of(path: &Path) -> Vec<Record> {
    let mut recs = Vec::new();
    let rep = read_input(
        &Input::Path(path.to_path_buf()),
        0,
        &ReaderConfig::default(),
        &mut |b| {
            recs.extend(b);
            true
        },
    )
    .unwrap();
    assert_eq!(rep.error_count(), 0, "{:?}", rep.error_examples);
    recs
}

/// Reads every record of `data` back from its place; returns how many records had a non-zero
/// `uoffset`.
fn every_record_read_back(name: &str, data: &[u8]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    let recs = records_of(&path);
    assert!(recs.len() > 1, "{name}");
    let mut reader = RecordReader::new();
    let mut places = std::collections::HashSet::new();
    for r in &recs {
        assert!(
            places.insert((r.pos.offset, r.uoffset)),
            "{name}: two records share a place"
        );
        let back = reader.record_at(&path, r.pos.offset, r.uoffset).unwrap();
        assert_eq!(
            (&back.id, &back.kind, &back.url, &back.date, &back.headers),
            (&r.id, &r.kind, &r.url, &r.date, &r.headers),
            "{name}: record {}",
            r.pos.index
        );
        assert_eq!(back.block, r.block, "{name}: record {}", r.pos.index);
        assert_eq!(
            back.http_head, r.http_head,
            "{name}: record {}",
            r.pos.index
        );
        assert_eq!((back.pos.offset, back.uoffset), (r.pos.offset, r.uoffset));
    }
    // The one-call form reads the same, here the last record.
    let last = recs.last().unwrap();
    let back = record_at(&path, last.pos.offset, last.uoffset).unwrap();
    assert_eq!(back.id, last.id);
    recs.iter().filter(|r| r.uoffset > 0).count()
}

#[test]
fn whole_file_gzip_warc_large_enough_for_checkpoints() {
    let data = warc(90, 60_000);
    assert!(data.len() > 5 << 20);
    let n = every_record_read_back("whole.warc.gz", &common::gz(&data));
    assert_eq!(n, 89, "every record but the first is inside the one member");
}

#[test]
fn a_saved_seek_index_reads_records_in_another_reader() {
    // One reader inflates the member once and saves its checkpoints; another, given them back,
    // reads the last record and its stored bytes without inflating from the start (the same
    // record, the same bytes as the splitter saw), and bytes that are no seek index are refused.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("whole.warc.gz");
    let plain = warc(90, 60_000);
    std::fs::write(&path, common::gz(&plain)).unwrap();
    let recs = records_of(&path);
    let saved = RecordReader::new()
        .seek_index(&path, 0)
        .unwrap()
        .expect("a gzip file")
        .to_bytes();
    assert!(saved.len() > 32 << 10, "checkpoints with their windows");
    let mut later = RecordReader::new();
    later.add_seek_index(&path, 0, SeekIndex::from_bytes(&saved).unwrap());
    let (last, before) = (&recs[recs.len() - 1], &recs[recs.len() - 2]);
    let back = later.record_at(&path, 0, last.uoffset).unwrap();
    assert_eq!((&back.id, &back.block), (&last.id, &last.block));
    let len = (last.uoffset - before.uoffset) as usize;
    let stored = later.bytes_at(&path, 0, before.uoffset, len).unwrap();
    let at = before.uoffset as usize;
    assert_eq!(stored, &plain[at..at + len]);
    assert!(SeekIndex::from_bytes(b"not an index").is_err());
    assert!(SeekIndex::from_bytes(&saved[..saved.len() - 1]).is_err());
    // A file that is not gzip-compressed has none.
    let flat = dir.path().join("flat.warc");
    std::fs::write(&flat, &plain).unwrap();
    assert!(RecordReader::new().seek_index(&flat, 0).unwrap().is_none());
}

#[test]
fn whole_file_gzip_trec() {
    assert_eq!(
        every_record_read_back("whole.trec.gz", &common::gz(&trec(400))),
        399
    );
}

#[test]
fn one_frame_lz4_and_zstd() {
    let data = warc(40, 20_000);
    assert_eq!(every_record_read_back("one.warc.lz4", &lz4(&data)), 39);
    assert_eq!(every_record_read_back("one.warc.zst", &zstd(&data)), 39);
}

#[test]
fn per_record_members_and_frames_keep_uoffset_zero() {
    let recs: Vec<Vec<u8>> = (0..30).map(|i| warc(1, 500 + i * 10)).collect();
    let gz: Vec<u8> = recs.iter().flat_map(|r| common::gz(r)).collect();
    assert_eq!(every_record_read_back("per-record.warc.gz", &gz), 0);
    let zst: Vec<u8> = recs.iter().flat_map(|r| zstd(r)).collect();
    assert_eq!(every_record_read_back("per-record.warc.zst", &zst), 0);
    // Members holding several records each: offsets name the member, uoffset the record in it.
    let chunks: Vec<u8> = recs
        .chunks(7)
        .flat_map(|c| common::gz(&c.concat()))
        .collect();
    assert_eq!(every_record_read_back("chunks.warc.gz", &chunks), 30 - 5);
}

/// A `.warc.zst` file as IIPC's WARC zstd proposal writes it: a skippable frame (magic
/// 0x184D2A5D) holding the dictionary, raw or itself zstd-compressed, then one frame a record
/// compressed with it. Every record is read in order and read back from its frame; without the
/// dictionary the frames do not decode.
#[test]
fn zstd_frames_with_the_files_dictionary() {
    let recs: Vec<Vec<u8>> = (0..12).map(|i| warc(1, 400 + i * 30)).collect();
    let dict: Vec<u8> = recs[..4].concat();
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &dict).unwrap();
    let frames: Vec<u8> = recs.iter().flat_map(|r| c.compress(r).unwrap()).collect();
    for stored in [dict.clone(), zstd(&dict)] {
        let mut file = vec![0x5d, 0x2a, 0x4d, 0x18];
        file.extend((stored.len() as u32).to_le_bytes());
        file.extend(&stored);
        file.extend(&frames);
        assert_eq!(every_record_read_back("dict.warc.zst", &file), 0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dict.warc.zst");
        std::fs::write(&path, &file).unwrap();
        let got = records_of(&path);
        assert_eq!(got.len(), recs.len());
        assert_eq!(got[0].pos.offset, 8 + stored.len() as u64);
    }
    // A dictionary frame cut short is an error of the file, not a panic or a hang.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.warc.zst");
    let mut cut = vec![0x5d, 0x2a, 0x4d, 0x18];
    cut.extend(1000u32.to_le_bytes());
    cut.extend(&dict[..100]);
    std::fs::write(&path, &cut).unwrap();
    let rep = read_input(
        &Input::Path(path.clone()),
        0,
        &ReaderConfig::default(),
        &mut |_| true,
    )
    .unwrap();
    assert!(rep.error_count() > 0);
    // The frames alone, with no dictionary, are damage (counted), never records made up.
    let path = dir.path().join("nodict.warc.zst");
    std::fs::write(&path, &frames).unwrap();
    let mut n = 0;
    let rep = read_input(&Input::Path(path), 0, &ReaderConfig::default(), &mut |b| {
        n += b.len();
        true
    })
    .unwrap();
    assert!(
        rep.error_count() > 0 && n < recs.len(),
        "{n} records, {rep:?}"
    );
}

#[test]
fn uncompressed_warc_and_trec() {
    assert_eq!(every_record_read_back("plain.warc", &warc(20, 3000)), 0);
    assert_eq!(every_record_read_back("plain.trec", &trec(20)), 0);
}

#[test]
fn a_place_that_holds_no_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, common::gz(&warc(5, 2000))).unwrap();
    let e = record_at(&path, 0, 17).unwrap_err().to_string();
    assert!(e.contains("whole.warc.gz: byte 0, decoded byte 17"), "{e}");
    assert!(record_at(&path, 3, 0).is_err());
    assert!(record_at(&path, 1 << 40, 0).is_err());
    assert!(record_at(&path, 0, 1 << 40).is_err());
    assert!(record_at(&dir.path().join("missing"), 0, 0).is_err());
}

/// `read_to` tells how far a file compressed whole has been read while its records come, though
/// every record has the offset of the one member or frame (0): what progress shows. It never
/// goes back, never passes the file's end, and is at least the record's own offset. (A mapped
/// gzip member that fits one libdeflate call is read at once: its records all say the end.)
#[test]
fn read_to_moves_through_a_file_compressed_whole() {
    let data = warc(90, 60_000);
    let cfg = ReaderConfig {
        buffer_bytes: 1 << 18,
        ..ReaderConfig::default()
    };
    let check = |name: &str, recs: &[Record], len: u64, streamed: bool| {
        assert_eq!(recs.len(), 90, "{name}");
        assert!(recs.iter().all(|r| r.pos.offset == 0 && r.read_to <= len));
        assert!(
            recs.windows(2).all(|w| w[0].read_to <= w[1].read_to),
            "{name}"
        );
        let inside = recs
            .iter()
            .filter(|r| r.read_to > 0 && r.read_to < len)
            .count();
        assert!(
            !streamed || inside > 10,
            "{name}: {inside} records read before the end"
        );
    };
    let gz = common::gz(&data);
    let mut recs: Vec<Record> = Vec::new();
    crawlsift_reader::read_stream(std::io::Cursor::new(&gz), 0, &cfg, &mut |b| {
        recs.extend(b);
        true
    })
    .unwrap();
    check("whole.warc.gz on a pipe", &recs, gz.len() as u64, true);
    for (name, bytes, streamed) in [
        ("whole.warc.gz", gz.clone(), false),
        ("one.warc.zst", zstd(&data), true),
        ("one.warc.lz4", lz4(&data), true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let mut recs: Vec<Record> = Vec::new();
        read_input(&Input::Path(path), 0, &cfg, &mut |b| {
            recs.extend(b);
            true
        })
        .unwrap();
        check(name, &recs, bytes.len() as u64, streamed);
    }
}
