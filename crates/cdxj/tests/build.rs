//! A [`Build`] whose archives are read by someone else ([`Build::archive`], as `crawlsift index`
//! reads them once for both of its halves) writes the same index bytes as one that reads them
//! all itself: an archive read elsewhere, one whose reading stopped midway, and one nobody took
//! (read by [`Build::finish`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crawlsift_cdxj::{build, Build, BuildOptions};
use crawlsift_reader::ReaderConfig;

fn sample() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample.warc.gz");
    std::fs::read(root).expect("the repository's sample crawl")
}

/// The sample crawl three ways: gzipped per record, plain, and gzipped whole (one member).
fn archives(dir: &Path) -> Vec<PathBuf> {
    let gz = sample();
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&gz[..])
        .read_to_end(&mut plain)
        .unwrap();
    let mut whole = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    whole.write_all(&plain).unwrap();
    let files = [
        ("members.warc.gz", gz.clone()),
        ("plain.warc", plain),
        ("whole.warc.gz", whole.finish().unwrap()),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect()
}

#[test]
fn archives_read_elsewhere_give_the_same_index_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = archives(dir.path());
    let opts = BuildOptions {
        threads: 2,
        compress: false,
    };
    let alone = dir.path().join("alone");
    std::fs::create_dir(&alone).unwrap();
    let want = build(&inputs, &alone, &opts).unwrap();
    assert!(want.total_lines > 0);

    let tapped = dir.path().join("tapped");
    std::fs::create_dir(&tapped).unwrap();
    let b = Build::start(&inputs, &tapped, &opts, false).unwrap();
    let cfg = ReaderConfig {
        batch_records: 2,
        ..ReaderConfig::default()
    };
    // Read elsewhere, to its end.
    let mut r = b
        .archive(&inputs[1])
        .expect("the plain archive is to be read");
    let mut seen = 0;
    let report = r.read(7, &cfg, &mut |batch| {
        seen += batch.len();
        true
    });
    assert_eq!(seen as u64, report.records);
    r.done(report);
    assert!(b.archive(&inputs[1]).is_none(), "read once");
    // Stopped after its first batch: unread again once dropped.
    let mut r = b.archive(&inputs[0]).unwrap();
    assert!(b.archive(&inputs[0]).is_none(), "being read");
    let _ = r.read(0, &cfg, &mut |_| false);
    drop(r);
    assert!(b.archive(&dir.path().join("elsewhere.warc")).is_none());
    // inputs[2] is taken by nobody.
    let got = b.finish().unwrap();
    assert_eq!(
        std::fs::read(tapped.join("index.cdxj")).unwrap(),
        std::fs::read(alone.join("index.cdxj")).unwrap()
    );
    assert_eq!(got.total_lines, want.total_lines);
    for (g, w) in got.inputs.iter().zip(&want.inputs) {
        assert_eq!(
            (&g.path, g.records, g.lines, &g.skipped),
            (&w.path, w.records, w.lines, &w.skipped)
        );
    }
}
