//! Segments round-trip, merge into what one build writes, and survive damage without panicking.

use std::path::Path;

use crawlsift_dedup::{DedupConfig, Fingerprint, Fingerprinter};

use crate::bands::{table_count, table_key};
use crate::file::Access;
use crate::manifest::InputEntry;
use crate::merge::merge_segments;
use crate::segment::{segment_paths, write_segment, DocIn, Segment};

fn cfg() -> DedupConfig {
    DedupConfig {
        min_words: 5,
        ..DedupConfig::default()
    }
}

fn fingerprints(n: usize) -> Vec<Fingerprint> {
    let mut f = Fingerprinter::new(&cfg());
    (0..n)
        .map(|i| {
            let words: String = (0..40 + i % 7)
                .map(|w| format!("w{} ", (w * 7 + i / 3) % 97))
                .collect();
            let text = if i % 5 == 4 {
                String::new()
            } else {
                format!("{words}\nline two of {i}")
            };
            f.fingerprint(&text)
        })
        .collect()
}

fn inputs(names: &[&str]) -> Vec<InputEntry> {
    names
        .iter()
        .map(|n| InputEntry {
            path: n.to_string(),
            size: 10,
            identity: format!("id-{n}"),
        })
        .collect()
}

fn docs<'a>(
    fps: &'a [Fingerprint],
    ids: &'a [String],
    file: impl Fn(usize) -> u32,
) -> Vec<DocIn<'a>> {
    fps.iter()
        .enumerate()
        .map(|(i, fp)| DocIn {
            fp,
            id: &ids[i],
            url: (i % 6 != 3).then_some(ids[i].as_str()),
            file: file(i),
            offset: 1000 * i as u64,
            index: i as u32,
        })
        .collect()
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("http://h{}/p{i}", i % 3)).collect()
}

/// Writes segment `s` of `n` documents (all of input `a`) in `dir`; returns their fingerprints
/// and ids.
fn one_segment(dir: &Path, n: usize) -> (Vec<Fingerprint>, Vec<String>) {
    let (fps, ids) = (fingerprints(n), ids(n));
    write_segment(dir, "s", &cfg(), &inputs(&["a"]), &docs(&fps, &ids, |_| 0)).unwrap();
    (fps, ids)
}

#[test]
fn a_segment_gives_back_what_was_written_and_finds_each_row_in_its_buckets() {
    let d = tempfile::tempdir().unwrap();
    let (fps, ids) = one_segment(d.path(), 30);
    for access in [Access::Map, Access::Read] {
        let seg = Segment::open_as(d.path(), "s", access).unwrap();
        seg.verify().unwrap();
        assert_eq!(seg.docs(), 30);
        let c = cfg();
        let mut rows = Vec::new();
        for (i, fp) in fps.iter().enumerate() {
            let r = i as u32;
            assert_eq!(&seg.fingerprint(r).unwrap(), fp);
            let row = seg.row(r).unwrap();
            assert_eq!(
                (&*row.id, row.offset, row.index),
                (ids[i].as_str(), 1000 * i as u64, r)
            );
            assert_eq!(row.url.is_some(), i % 6 != 3);
            if let Some(u) = row.url {
                assert_eq!(seg.find_url(&u).unwrap(), Some(r));
            }
            for t in 0..table_count(&c) {
                rows.clear();
                if let Some(k) = table_key(&c, t, &fp.minhash, fp.simhash) {
                    seg.bucket(t, k, usize::MAX, &mut rows).unwrap();
                    assert_eq!(rows.contains(&r), fp.words > 0, "row {r} table {t}");
                }
            }
        }
        assert_eq!(seg.find_url("http://nowhere/").unwrap(), None);
        let sizes = seg.sizes();
        assert!(sizes.fingerprints_and_tables > 0 && sizes.profiles > 0);
    }
}

#[test]
fn merged_segments_are_the_segment_one_build_writes() {
    let d = tempfile::tempdir().unwrap();
    let fps = fingerprints(40);
    let ids = ids(40);
    let all = docs(&fps, &ids, |i| u32::from(i >= 25));
    write_segment(d.path(), "whole", &cfg(), &inputs(&["a", "b"]), &all).unwrap();
    let first = all[..25].to_vec();
    let second: Vec<DocIn<'_>> = all[25..].iter().map(|d| DocIn { file: 0, ..*d }).collect();
    write_segment(d.path(), "p0", &cfg(), &inputs(&["a"]), &first).unwrap();
    write_segment(d.path(), "p1", &cfg(), &inputs(&["b"]), &second).unwrap();
    let (p0, p1) = (
        Segment::open(d.path(), "p0").unwrap(),
        Segment::open(d.path(), "p1").unwrap(),
    );
    merge_segments(&[&p0, &p1], d.path(), "merged").unwrap();
    let bytes = |name: &str| {
        let (fp, prof) = segment_paths(d.path(), name);
        (std::fs::read(fp).unwrap(), std::fs::read(prof).unwrap())
    };
    assert!(
        bytes("whole") == bytes("merged"),
        "merged segment differs from one build"
    );
    let other = DedupConfig {
        lsh_bands: 48,
        ..cfg()
    };
    write_segment(d.path(), "other", &other, &inputs(&["c"]), &first).unwrap();
    let o = Segment::open(d.path(), "other").unwrap();
    assert!(merge_segments(&[&p0, &o], d.path(), "bad").is_err());
}

/// Every accessor over every row of a (damaged) segment: errors are fine, panics are not.
fn read_everything(dir: &Path) -> bool {
    let mapped = read_everything_as(dir, Access::Map);
    assert_eq!(
        read_everything_as(dir, Access::Read),
        mapped,
        "read and mapped differ"
    );
    mapped
}

fn read_everything_as(dir: &Path, access: Access) -> bool {
    let Ok(seg) = Segment::open_as(dir, "s", access) else {
        return false;
    };
    let c = seg.config().clone();
    let mut rows = Vec::new();
    let mut all_ok = seg.verify().is_ok();
    for r in 0..seg.docs() {
        all_ok &= seg.fingerprint(r).is_ok();
        if let Ok(row) = seg.row(r) {
            if let Some(u) = row.url {
                all_ok &= seg.find_url(&u).is_ok();
            }
        }
        if let Ok(sig) = seg.signature(r) {
            for t in 0..table_count(&c) {
                if let Some(k) = table_key(&c, t, &sig, 0) {
                    all_ok &= seg.bucket(t, k, 100, &mut rows).is_ok();
                }
            }
        }
    }
    all_ok
}

#[test]
fn damaged_segments_are_errors_never_panics() {
    let d = tempfile::tempdir().unwrap();
    one_segment(d.path(), 12);
    assert!(read_everything(d.path()));
    let (fp_path, prof_path) = segment_paths(d.path(), "s");
    for path in [fp_path, prof_path] {
        let good = std::fs::read(&path).unwrap();
        let step = (good.len() / 300).max(1);
        for n in (0..good.len()).step_by(step) {
            std::fs::write(&path, &good[..n]).unwrap();
            assert!(
                !read_everything(d.path()),
                "{} truncated to {n}",
                path.display()
            );
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for i in (0..good.len()).step_by(step) {
            let mut b = good.clone();
            state = crawlsift_dedup::minhash::mix64(state);
            b[i] ^= (state as u8) | 1;
            std::fs::write(&path, &b).unwrap();
            assert!(
                !read_everything(d.path()),
                "{} byte {i} changed",
                path.display()
            );
        }
        let garbage: Vec<u8> = (0..good.len()).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, &garbage).unwrap();
        assert!(Segment::open(d.path(), "s").is_err());
        std::fs::write(&path, &good).unwrap();
    }
}

/// A segment rewritten with valid checksums around a hostile table directory or hostile table
/// bits: refused on opening, or errors on reading, never a panic.
#[test]
fn hostile_band_tables_with_valid_checksums_are_errors_never_panics() {
    use crate::file::{write_file, StoreFile};
    use crate::segment::MAGIC;
    let d = tempfile::tempdir().unwrap();
    one_segment(d.path(), 40);
    let (fp_path, _) = segment_paths(d.path(), "s");
    let good = StoreFile::open(&fp_path, MAGIC, 7).unwrap();
    let sections: Vec<Vec<u8>> = (0..7)
        .map(|i| {
            let s = good.section(i);
            s.slice(0, s.len()).unwrap().into_owned()
        })
        .collect();
    let rewrite = |secs: &[Vec<u8>]| {
        let refs: Vec<&[u8]> = secs.iter().map(|s| &s[..]).collect();
        write_file(&fp_path, MAGIC, 40, &cfg(), &refs).unwrap();
    };
    // A directory claiming more entries than rows, or tables not back to back.
    for (at, value) in [(8usize, 41u64), (16, 3), (8, 0)] {
        let mut secs = sections.clone();
        secs[2][at..at + 8].copy_from_slice(&value.to_le_bytes());
        rewrite(&secs);
        assert!(
            Segment::open(d.path(), "s").is_err(),
            "directory {at} = {value}"
        );
    }
    // Table bits scrambled (sizes kept): every read an answer or an error.
    let mut state = 5u64;
    for round in 0..30 {
        let mut secs = sections.clone();
        for _ in 0..1 + round {
            state = crawlsift_dedup::minhash::mix64(state);
            let i = (state >> 8) as usize % secs[3].len();
            secs[3][i] ^= state as u8 | 1;
        }
        rewrite(&secs);
        let seg = Segment::open(d.path(), "s").unwrap();
        let _ = seg.signatures();
        for r in 0..seg.docs() {
            let _ = seg.fingerprint(r);
        }
        read_everything(d.path());
    }
    rewrite(&sections);
    assert!(read_everything(d.path()));
}
