//! `crawlsift dedup`: the main job. Reads archives, extracts each page's main text, fingerprints
//! it and writes clusters of exact and near-duplicate documents, with a report.
//!
//! Threads: one reader (which itself inflates a large file on all cores), extract workers,
//! fingerprint workers, and the collector on the calling thread, joined by bounded channels
//! (`pipeline`). The collector restores input order, so outputs are the same bytes for any
//! `--threads`.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use crawlsift_common::limits::{RAW_QUEUE_CAP, TEXT_QUEUE_CAP};
use crawlsift_dedup::{
    probability, Clusterer, Clustering, DedupConfig, Fingerprint, Fingerprinter, MatchKind,
};
use crawlsift_extractor::{ExtractorBuilder, Method};
use crawlsift_reader::{FileReport, ReaderConfig, Record};
use serde_json::json;

use crate::docs::{extract_record, Origin, Outcome};
use crate::inputs::{InputSet, ReadTally};
use crate::output::AtomicFile;
use crate::pipeline::{self, Reorder};
use crate::progress::Progress;

/// The files `dedup` writes into `--out`; an existing one needs `--force`.
const OUTPUT_FILES: [&str; 3] = ["clusters.jsonl", "documents.jsonl.gz", "report.json"];

/// Arguments of `crawlsift dedup`.
#[derive(Args, Debug)]
pub struct DedupArgs {
    /// Archive files or directories (recursed in sorted order); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Also write the clean corpus: every unique document and one representative per cluster.
    #[arg(long, value_name = "FILE.jsonl.gz")]
    pub text: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Main-text method: blocks, plateau or full.
    #[arg(long, default_value = "blocks")]
    pub method: Method,
    /// Overwrite outputs of an earlier run.
    #[arg(long)]
    pub force: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// One record after extraction (and, for pages, fingerprinting).
struct DocOut {
    origin: Origin,
    file_index: u32,
    outcome: Result<Page, &'static str>,
}

/// A page: what the collector keeps of it and its text (dropped unless `--text`).
struct Page {
    title: String,
    text: String,
    fp: Option<Fingerprint>,
}

/// What the collector keeps per document for `documents.jsonl.gz`.
struct DocMeta {
    origin: Origin,
    title: String,
    /// Words, exact hash and SimHash of a page.
    fp: Option<(u32, u128, u64)>,
    skipped: Option<&'static str>,
    doc: Option<u32>,
}

/// Busy time per stage, summed over its threads.
#[derive(Default)]
struct StageTimes {
    read_ns: AtomicU64,
    extract_ns: AtomicU64,
    fingerprint_ns: AtomicU64,
}

fn timed<T>(acc: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    acc.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Runs `crawlsift dedup`.
pub fn run(args: DedupArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let inputs = InputSet::expand(&args.inputs)?;
    prepare_out_dir(&args.out, args.force)?;
    let threads = crate::threads(args.threads)?;
    let dedup_cfg = DedupConfig::default();
    let clusterer_check = Clusterer::new(&dedup_cfg).context("dedup configuration")?;
    drop(clusterer_check);
    let extractor = ExtractorBuilder::new().method(args.method);
    extractor
        .clone()
        .build()
        .context("extractor configuration")?;
    let reader_cfg = ReaderConfig {
        threads,
        ..ReaderConfig::default()
    };
    let times = StageTimes::default();
    let progress = Progress::new(inputs.total_bytes(), args.quiet);

    let spill_path = args
        .out
        .join(format!(".text-spill.tmp-{}", std::process::id()));
    let mut spill = match &args.text {
        Some(_) => Some(TextSpill::create(&spill_path)?),
        None => None,
    };
    let mut clusterer = Clusterer::new(&dedup_cfg)?;
    let mut metas: Vec<DocMeta> = Vec::new();
    let mut skipped: BTreeMap<&'static str, u64> = BTreeMap::new();

    let collect = std::thread::scope(|s| -> anyhow::Result<Vec<Result<FileReport, String>>> {
        let (producer, raw_rx) = pipeline::producer::<Vec<Record>>(RAW_QUEUE_CAP);
        let (inputs_ref, reader_cfg) = (&inputs, &reader_cfg);
        let reader = std::thread::Builder::new()
            .name("reader".into())
            .spawn_scoped(s, move || inputs_ref.read_all(reader_cfg, producer))?;
        let extract_rx = pipeline::stage(
            s,
            "extract",
            threads,
            raw_rx,
            TEXT_QUEUE_CAP,
            || {
                extractor
                    .clone()
                    .build()
                    .expect("the configuration was checked before any thread started")
            },
            |ex, batch: Vec<Record>| {
                timed(&times.extract_ns, || {
                    batch
                        .iter()
                        .map(|rec| DocOut {
                            origin: Origin::of(rec),
                            file_index: rec.pos.file,
                            outcome: match extract_record(rec, ex) {
                                Outcome::Page(p, _) if p.method == "feed" => Err("feed"),
                                Outcome::Page(p, _) => Ok(Page {
                                    title: p.title,
                                    text: p.text,
                                    fp: None,
                                }),
                                Outcome::Skipped(why) => Err(why),
                            },
                        })
                        .collect::<Vec<_>>()
                })
            },
        );
        let cfg = &dedup_cfg;
        let fp_rx = pipeline::stage(
            s,
            "fingerprint",
            threads,
            extract_rx,
            TEXT_QUEUE_CAP,
            || Fingerprinter::new(cfg),
            |fper, mut batch: Vec<DocOut>| {
                timed(&times.fingerprint_ns, || {
                    for d in batch.iter_mut() {
                        if let Ok(page) = &mut d.outcome {
                            page.fp = Some(fper.fingerprint(&page.text));
                        }
                    }
                    batch
                })
            },
        );
        let mut docs_seen = 0u64;
        let drained = Reorder::drain(fp_rx, |batch: Vec<DocOut>| -> anyhow::Result<()> {
            for d in batch {
                let last_pos = d.origin.pos;
                match d.outcome {
                    Ok(page) => {
                        let fp = page
                            .fp
                            .expect("the fingerprint stage fingerprints every page");
                        let summary = (fp.words, fp.exact, fp.simhash);
                        let doc = clusterer.add(fp);
                        if let Some(sp) = spill.as_mut() {
                            sp.push(&d.origin, &page.title, &page.text)?;
                        }
                        metas.push(DocMeta {
                            origin: d.origin,
                            title: page.title,
                            fp: Some(summary),
                            skipped: None,
                            doc: Some(doc),
                        });
                        docs_seen += 1;
                    }
                    Err(why) => {
                        *skipped.entry(why).or_default() += 1;
                        if why != "record_type" {
                            metas.push(DocMeta {
                                origin: d.origin,
                                title: String::new(),
                                fp: None,
                                skipped: Some(why),
                                doc: None,
                            });
                        }
                    }
                }
                progress.update(
                    inputs.bytes_before(d.file_index) + last_pos.offset,
                    docs_seen,
                );
            }
            Ok(())
        });
        let (reports, read_busy) = reader.join().expect("the reader thread does not panic");
        times
            .read_ns
            .fetch_add(read_busy.as_nanos() as u64, Ordering::Relaxed);
        drained.map(|()| reports)
    });
    progress.finish();
    let reports = collect?;
    let tally = inputs.tally(&reports, args.quiet);
    let read_done = started.elapsed();

    let cluster_start = Instant::now();
    let index_bytes = clusterer.index_bytes_per_document();
    let clustering = clusterer.finish();
    let cluster_time = cluster_start.elapsed();

    // Everything below writes outputs: from here, failure leaves no partial file.
    let doc_metas: Vec<usize> = metas
        .iter()
        .enumerate()
        .filter(|(_, m)| m.doc.is_some())
        .map(|(i, _)| i)
        .collect();
    let write_start = Instant::now();
    write_clusters(
        &args.out.join("clusters.jsonl"),
        &clustering,
        &metas,
        &doc_metas,
        &inputs,
    )?;
    write_documents(
        &args.out.join("documents.jsonl.gz"),
        &clustering,
        &metas,
        &doc_metas,
        &inputs,
    )?;
    if let (Some(path), Some(sp)) = (&args.text, spill.take()) {
        sp.write_clean_corpus(path, &clustering, doc_metas.len())?;
    }
    let _ = fs::remove_file(&spill_path);
    let write_time = write_start.elapsed();

    let total = started.elapsed();
    let report = build_report(ReportParts {
        reports: &reports,
        inputs: &inputs,
        tally: &tally,
        skipped: &skipped,
        clustering: &clustering,
        documents: doc_metas.len(),
        cfg: &dedup_cfg,
        threads,
        times: &times,
        read_done,
        cluster_time,
        write_time,
        total,
        input_bytes: inputs.total_bytes(),
        index_bytes,
    });
    let mut f = AtomicFile::create(&args.out.join("report.json"))?;
    serde_json::to_writer_pretty(&mut f, &report)?;
    f.write_all(b"\n")?;
    f.commit()?;

    if !args.quiet {
        let st = &clustering.stats;
        eprintln!(
            "crawlsift dedup: {} documents from {} records in {:.1} s; {} clusters, {} duplicates ({} exact, {} near), {} too short to judge",
            doc_metas.len(),
            tally.records,
            total.as_secs_f64(),
            st.clusters,
            st.exact_duplicates + st.near_duplicates,
            st.exact_duplicates,
            st.near_duplicates,
            st.too_short,
        );
        eprintln!("  clusters:  {}", args.out.join("clusters.jsonl").display());
        eprintln!(
            "  documents: {}",
            args.out.join("documents.jsonl.gz").display()
        );
        eprintln!("  report:    {}", args.out.join("report.json").display());
        if let Some(t) = &args.text {
            eprintln!("  text:      {}", t.display());
        }
    }
    Ok(crate::exit_code(tally.failed_inputs, tally.record_errors))
}

/// Creates `out`, refusing to overwrite an earlier run's outputs without `force`.
fn prepare_out_dir(out: &Path, force: bool) -> anyhow::Result<()> {
    fs::create_dir_all(out)
        .with_context(|| format!("cannot create output directory {}", out.display()))?;
    let existing: Vec<&str> = OUTPUT_FILES
        .iter()
        .copied()
        .filter(|f| out.join(f).exists())
        .collect();
    if !existing.is_empty() && !force {
        bail!(
            "{} already holds outputs of a run ({}); pass --force to overwrite them",
            out.display(),
            existing.join(", ")
        );
    }
    Ok(())
}

fn member_json(
    m: &DocMeta,
    similarity: f32,
    kind: MatchKind,
    inputs: &InputSet,
) -> serde_json::Value {
    json!({
        "id": m.origin.id,
        "url": m.origin.url,
        "file": inputs.name(m.origin.pos.file),
        "offset": m.origin.pos.offset,
        "similarity": (similarity as f64 * 10_000.0).round() / 10_000.0,
        "match": match kind { MatchKind::Representative => "representative", MatchKind::Exact => "exact", MatchKind::Near => "near" },
    })
}

fn write_clusters(
    path: &Path,
    c: &Clustering,
    metas: &[DocMeta],
    doc_metas: &[usize],
    inputs: &InputSet,
) -> anyhow::Result<()> {
    let mut f = AtomicFile::create(path)?;
    for (ci, cl) in c.clusters.iter().enumerate() {
        let members: Vec<_> = cl
            .members
            .iter()
            .map(|m| {
                member_json(
                    &metas[doc_metas[m.doc as usize]],
                    m.similarity,
                    m.kind,
                    inputs,
                )
            })
            .collect();
        let line = json!({
            "cluster": ci,
            "size": cl.members.len(),
            "representative": metas[doc_metas[cl.representative as usize]].origin.id,
            "members": members,
        });
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    f.commit()
}

fn write_documents(
    path: &Path,
    c: &Clustering,
    metas: &[DocMeta],
    doc_metas: &[usize],
    inputs: &InputSet,
) -> anyhow::Result<()> {
    let assign = c.assignments(doc_metas.len());
    let mut dup_of: Vec<Option<u32>> = vec![None; doc_metas.len()];
    for cl in &c.clusters {
        for m in &cl.members {
            if m.doc != cl.representative {
                dup_of[m.doc as usize] = Some(cl.representative);
            }
        }
    }
    let too_short: std::collections::HashSet<u32> = c.too_short.iter().copied().collect();
    let mut f = AtomicFile::create(path)?;
    for m in metas {
        let line = match m.doc {
            Some(d) => {
                let fp = m.fp;
                json!({
                    "id": m.origin.id, "url": m.origin.url, "file": inputs.name(m.origin.pos.file),
                    "offset": m.origin.pos.offset, "title": m.title, "words": fp.map(|f| f.0),
                    "exact_hash": fp.map(|f| format!("{:032x}", f.1)),
                    "simhash": fp.map(|f| format!("{:016x}", f.2)),
                    "cluster": assign[d as usize],
                    "duplicate_of": dup_of[d as usize].map(|r| &metas[doc_metas[r as usize]].origin.id),
                    "too_short": too_short.contains(&d),
                    "skipped": null,
                })
            }
            None => json!({
                "id": m.origin.id, "url": m.origin.url, "file": inputs.name(m.origin.pos.file),
                "offset": m.origin.pos.offset, "cluster": null, "duplicate_of": null, "skipped": m.skipped,
            }),
        };
        serde_json::to_writer(&mut f, &line)?;
        f.write_all(b"\n")?;
    }
    f.commit()
}

/// Page texts, written as they come to a temporary file, so `--text` can keep the unique ones
/// after clustering without holding every text in memory.
struct TextSpill {
    file: BufWriter<File>,
    path: PathBuf,
}

impl TextSpill {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(TextSpill {
            file: BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    fn push(&mut self, o: &Origin, title: &str, text: &str) -> anyhow::Result<()> {
        serde_json::to_writer(
            &mut self.file,
            &json!({"id": o.id, "url": o.url, "title": title, "text": text}),
        )?;
        self.file.write_all(b"\n")?;
        Ok(())
    }

    /// Writes the lines of documents that are in no cluster or represent one.
    fn write_clean_corpus(self, target: &Path, c: &Clustering, docs: usize) -> anyhow::Result<()> {
        let mut keep = vec![true; docs];
        for cl in &c.clusters {
            for m in &cl.members {
                if m.doc != cl.representative {
                    keep[m.doc as usize] = false;
                }
            }
        }
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.flush()?;
        file.seek(SeekFrom::Start(0))?;
        let spill = File::open(&self.path)?;
        let mut out = AtomicFile::create(target)?;
        for (line, keep) in BufReader::new(spill).lines().zip(keep) {
            let line = line?;
            if keep {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        out.commit()
    }
}

struct ReportParts<'a> {
    reports: &'a [Result<FileReport, String>],
    inputs: &'a InputSet,
    tally: &'a ReadTally,
    skipped: &'a BTreeMap<&'static str, u64>,
    clustering: &'a Clustering,
    documents: usize,
    cfg: &'a DedupConfig,
    threads: usize,
    times: &'a StageTimes,
    read_done: Duration,
    cluster_time: Duration,
    write_time: Duration,
    total: Duration,
    input_bytes: u64,
    index_bytes: f64,
}

fn build_report(p: ReportParts) -> serde_json::Value {
    let mut records = 0u64;
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let mut files = Vec::new();
    for (fi, r) in p.reports.iter().enumerate() {
        let path = p.inputs.name(fi as u32);
        match r {
            Ok(r) => {
                records += r.records;
                for (k, n) in &r.records_by_kind {
                    *by_kind.entry(k.clone()).or_default() += n;
                }
                for (k, n) in &r.errors {
                    *errors.entry(k.as_str().to_string()).or_default() += n;
                }
                files.push(json!({
                    "file": path, "records": r.records, "bytes": r.bytes_in,
                    "errors": r.errors.iter().map(|(k, n)| (k.as_str().to_string(), *n)).collect::<BTreeMap<_, _>>(),
                    "error_examples": r.error_examples.iter().take(5).map(|e| e.to_string()).collect::<Vec<_>>(),
                }));
            }
            Err(e) => files.push(json!({"file": path, "error": e})),
        }
    }
    let st = &p.clustering.stats;
    let secs = |d: Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    let ns = |a: &AtomicU64| (a.load(Ordering::Relaxed) as f64 / 1e9 * 1000.0).round() / 1000.0;
    let bounds = candidate_bounds(p.cfg, st);
    json!({
        "records": records,
        "records_by_type": by_kind,
        "record_errors": errors,
        "skipped": p.skipped,
        "documents": p.documents,
        "too_short": st.too_short,
        "clusters": st.clusters,
        "duplicates": {"exact": st.exact_duplicates, "near": st.near_duplicates},
        "adler32_collisions": st.adler32_collisions,
        "cluster_stats": st,
        "parameters": p.cfg,
        "candidate_probabilities": bounds,
        "threads": p.threads,
        "seconds": {
            "read_extract_fingerprint": secs(p.read_done), "cluster": secs(p.cluster_time),
            "write": secs(p.write_time), "total": secs(p.total),
            "busy": {"read": ns(&p.times.read_ns), "extract": ns(&p.times.extract_ns), "fingerprint": ns(&p.times.fingerprint_ns)},
        },
        "throughput": {
            "documents_per_second": p.documents as f64 / p.total.as_secs_f64().max(1e-9),
            "input_mb_per_second": p.input_bytes as f64 / 1e6 / p.total.as_secs_f64().max(1e-9),
        },
        "peak_memory_bytes": crate::peak_rss_bytes(),
        "index_bytes_per_document": p.index_bytes,
        "inputs_not_archives": p.tally.not_archives,
        "files": files,
    })
}

/// The seed formulas at a few similarities, for the chosen parameters, beside the rates measured
/// in this run: SimHash with L groups of K bits, P(miss) = (1 - p^K)^L for a pair agreeing on a
/// fraction p of bits and P(false candidate) = 1 - (1 - q^K)^L; b-bit MinHash LSH with b bands of
/// r rows, P(candidate) = 1 - (1 - s'^r)^b.
fn candidate_bounds(cfg: &DedupConfig, st: &crawlsift_dedup::ClusterStats) -> serde_json::Value {
    let l = cfg.simhash_max_hamming + 1; // pigeonhole blocks: a pair within the bound shares one
    let k = 64 / l;
    let simhash: Vec<_> = [0u32, 2, 3, 4, 6, 10, 16, 20, 32]
        .iter()
        .map(|&h| {
            let p = 1.0 - f64::from(h) / 64.0;
            json!({
                "hamming": h, "bit_agreement": p,
                "p_miss": probability::simhash_miss(p, k, l),
                "p_candidate": probability::simhash_false_candidate(p, k, l),
            })
        })
        .collect();
    let minhash: Vec<_> = [0.05f64, 0.1, 0.19, 0.3, 0.5, 0.8]
        .iter()
        .map(|&s| {
            let c = probability::bbit_minhash_candidate(
                s,
                crawlsift_common::limits::DEDUP_MINHASH_BITS,
                cfg.lsh_rows as u32,
                cfg.lsh_bands as u32,
            );
            json!({"jaccard": s, "p_candidate": c, "p_miss": 1.0 - c})
        })
        .collect();
    let checks = st.minhash_candidate_checks + st.simhash_candidate_checks;
    json!({
        "simhash": {"groups_l": l, "bits_per_group_k": k, "by_hamming_distance": simhash},
        "minhash_lsh": {"bands": cfg.lsh_bands, "rows": cfg.lsh_rows, "by_jaccard": minhash},
        "measured": {
            "candidate_checks": checks,
            "verified_pairs": st.verified_pairs,
            "rejected_fraction": if checks > 0 { 1.0 - st.verified_pairs as f64 / checks as f64 } else { 0.0 },
        },
    })
}
