//! Opening and searching a fingerprint index segment (`IDX/fp/NAME.fp` and `NAME.prof`) made of
//! arbitrary bytes. A real segment of a few dozen documents is written once; each input then
//! damages its sections (byte changes, values written over, sections cut or grown, the row count
//! changed) and the files are written again with valid checksums, so damage reaches the parsers
//! behind them; or, when the input's first byte is odd, the input itself is the `.fp` file. Every
//! accessor over every row, and a search for each real document, must give an answer or an
//! error, never a panic, a hang or an unbounded allocation; hits name rows that exist.
#![no_main]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crawlsift_common::budget::MemoryBudget;
use crawlsift_dedup::{Clusterer, DedupConfig, Fingerprint, Fingerprinter};
use crawlsift_store::bands::{table_count, table_key};
use crawlsift_store::file::{write_file, Access, StoreFile};
use crawlsift_store::index::{Index, FP_DIR};
use crawlsift_store::manifest::{InputEntry, Manifest, SegmentEntry};
use crawlsift_store::search::search;
use crawlsift_store::segment::{segment_paths, write_segment, DocIn, Segment};
use crawlsift_store::state::write_state;
use crawlsift_store::{profiles, segment};
use libfuzzer_sys::fuzz_target;

const NAME: &str = "seg-000000";
const DOCS: usize = 12;
/// Base documents searched for per input (each search probes every band table).
const SEARCHES: usize = 3;
/// Sections of the fingerprint file, then of the profiles file.
const FP_SECTIONS: usize = 7;
const PROF_SECTIONS: usize = 4;

/// The real segment every input starts from.
struct Base {
    /// The index folder (`IDX`) the damaged segment is written into.
    idx: PathBuf,
    cfg: DedupConfig,
    fps: Vec<Fingerprint>,
    sections: Vec<Vec<u8>>,
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let idx = std::env::temp_dir().join(format!("crawlsift-fuzz-store-{}", std::process::id()));
        let dir = idx.join(FP_DIR);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let cfg = DedupConfig {
            min_words: 5,
            ..DedupConfig::default()
        };
        let mut f = Fingerprinter::new(&cfg);
        let fps: Vec<Fingerprint> = (0..DOCS)
            .map(|i| {
                let words: String = (0..40 + i % 7)
                    .map(|w| format!("w{} ", (w * 7 + i / 3) % 97))
                    .collect();
                f.fingerprint(&if i % 5 == 4 {
                    String::new()
                } else {
                    format!("{words}\nline {i}")
                })
            })
            .collect();
        let ids: Vec<String> = (0..DOCS)
            .map(|i| format!("http://h{}/p{i}", i % 3))
            .collect();
        let inputs = vec![InputEntry {
            path: "/a.warc.gz".into(),
            size: 10,
            identity: "0".into(),
        }];
        let docs: Vec<DocIn<'_>> = fps
            .iter()
            .enumerate()
            .map(|(i, fp)| DocIn {
                fp,
                id: &ids[i],
                url: (i % 6 != 3).then_some(ids[i].as_str()),
                file: 0,
                offset: 1000 * i as u64,
                index: i as u32,
            })
            .collect();
        write_segment(&dir, NAME, &cfg, &inputs, &docs).expect("the base segment");
        let mut clusterer = Clusterer::new(&cfg).expect("settings");
        for fp in &fps {
            clusterer.add(fp.clone());
        }
        let (clustering, templates) = clusterer
            .cluster_with_templates(1, &MemoryBudget::default())
            .expect("no budget is set, so nothing spills");
        write_state(&dir, &cfg, DOCS, &clustering, &templates).expect("the state");
        let mut manifest = Manifest::new(cfg.clone());
        manifest.segments.push(SegmentEntry {
            name: NAME.into(),
            documents: DOCS as u64,
            inputs,
        });
        manifest.write(&dir).expect("the manifest");
        let (fp_path, prof_path) = segment_paths(&dir, NAME);
        let mut sections = Vec::new();
        for (path, magic, n) in [
            (&fp_path, segment::MAGIC, FP_SECTIONS),
            (&prof_path, profiles::MAGIC, PROF_SECTIONS),
        ] {
            let file = StoreFile::open(path, magic, n).expect("the base files");
            for i in 0..n {
                let s = file.section(i);
                sections.push(s.slice(0, s.len()).expect("a section").into_owned());
            }
        }
        Base {
            idx,
            cfg,
            fps,
            sections,
        }
    })
}

/// Applies the damage the input describes to the base sections: 4-byte steps
/// `(section, kind, position, value)`; a kind-3 step takes the 8 bytes after it as a value.
/// Returns the sections and the row count to write.
fn damage(base: &Base, data: &[u8]) -> (Vec<Vec<u8>>, u64) {
    let mut secs = base.sections.clone();
    let mut docs = DOCS as u64;
    let mut at = 0;
    while at + 4 <= data.len() {
        let (s, kind, pos, v) = (data[at], data[at + 1], data[at + 2], data[at + 3]);
        at += 4;
        let n = secs.len();
        let sec = &mut secs[s as usize % n];
        let pos = (usize::from(pos) << (kind >> 4)) % (sec.len() + 1);
        match kind % 6 {
            0 => {
                if let Some(b) = sec.get_mut(pos) {
                    *b ^= v | 1;
                }
            }
            1 => sec.truncate(pos),
            2 => sec
                .splice(pos..pos, std::iter::repeat_n(v, usize::from(v % 64) + 1))
                .for_each(drop),
            3 => {
                let Some(word) = data.get(at..at + 8) else {
                    break;
                };
                at += 8;
                let end = (pos + 8).min(sec.len());
                sec[pos..end].copy_from_slice(&word[..end - pos]);
            }
            4 => docs = u64::from(v),
            _ => {
                if let Some(b) = sec.get_mut(pos) {
                    *b = v;
                }
            }
        }
    }
    (secs, docs)
}

/// Every accessor over every row (the signatures rebuilt once: rebuilding one row's scans every
/// table); the first row's signature alone; searches for some base documents through an index.
fn read_everything(idx: &Path, cfg: &DedupConfig, fps: &[Fingerprint], access: Access) {
    let dir = idx.join(FP_DIR);
    if let Ok(seg) = Segment::open_as(&dir, NAME, access) {
        let c = seg.config().clone();
        let _ = seg.verify();
        let _ = seg.fingerprint(0);
        let sigs = seg.signatures();
        let mut rows = Vec::new();
        for r in 0..seg.docs() {
            let _ = seg.profile(r);
            if let Ok(row) = seg.row(r) {
                if let Some(u) = row.url {
                    if let Ok(Some(found)) = seg.find_url(&u) {
                        assert!(found < seg.docs());
                    }
                }
            }
            let Ok(sigs) = &sigs else { continue };
            let Ok(fp) = seg.fingerprint_with(r, sigs) else {
                continue;
            };
            for t in 0..table_count(&c) {
                if let Some(k) = table_key(&c, t, &fp.minhash, fp.simhash) {
                    rows.clear();
                    if seg.bucket(t, k, 100, &mut rows).is_ok() {
                        assert!(rows.len() <= 100);
                        assert!(rows.iter().all(|&x| x < seg.docs()));
                    }
                }
            }
        }
    }
    if let Ok(index) = Index::open_as(idx, access) {
        let _ = index.verify();
        for fp in fps.iter().take(SEARCHES) {
            if let Ok(hits) = search(&index, fp, cfg.threshold, None) {
                for h in hits {
                    assert!(h.doc.segment < index.segments().len());
                    assert!(h.doc.row < index.segments()[h.doc.segment].docs());
                    let _ = index.locate(h.doc);
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let base = base();
    let dir = base.idx.join(FP_DIR);
    let (fp_path, prof_path) = segment_paths(&dir, NAME);
    if data.first().is_some_and(|b| b & 1 == 1) {
        std::fs::write(&fp_path, &data[1..]).expect("writing the segment");
        let prof: Vec<&[u8]> = base.sections[FP_SECTIONS..]
            .iter()
            .map(|s| &s[..])
            .collect();
        write_file(&prof_path, profiles::MAGIC, DOCS as u64, &base.cfg, &prof).expect("profiles");
    } else {
        let (secs, docs) = damage(base, data.get(1..).unwrap_or(&[]));
        let refs: Vec<&[u8]> = secs.iter().map(|s| &s[..]).collect();
        write_file(
            &fp_path,
            segment::MAGIC,
            docs,
            &base.cfg,
            &refs[..FP_SECTIONS],
        )
        .expect("writing the segment");
        write_file(
            &prof_path,
            profiles::MAGIC,
            docs,
            &base.cfg,
            &refs[FP_SECTIONS..],
        )
        .expect("writing the profiles");
    }
    read_everything(&base.idx, &base.cfg, &base.fps, Access::Map);
    read_everything(&base.idx, &base.cfg, &base.fps, Access::Read);
});
