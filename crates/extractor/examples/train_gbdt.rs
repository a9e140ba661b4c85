//! Trains the `learned` extraction method's gradient-boosted trees from a training table on
//! standard input and writes the Rust model (`crates/extractor/src/learned/model.rs`) to standard
//! output. Run by `scripts/train_extractor.py`, which makes the table and decompresses it.
//!
//! Input: a header line, then one row per block: `page<TAB>label<TAB>weight<TAB>f1 ... fN`.
//! Deterministic: every histogram cell sums its rows in row order (features are shared out
//! among threads, rows never), ties broken by the first feature and bin, and
//! every split threshold is one of the table's own `f32` values, so the model compares `f32`
//! features against exactly the values it was trained on.
//!
//! Two stages (stacking): the first reads a block's own features; the second reads them and the
//! [`context`] of the first stage's scores on the block's page. The second stage is trained on
//! out-of-fold first-stage scores (four parts by page, each scored by a model trained on the
//! other three), so it learns how far to trust scores on pages the first stage never saw. The
//! second stage is the mean of [`BAGS`] models, each tree learning from a draw of the pages.
//!
//! usage: train_gbdt [TREES] < table.tsv > model.rs

use crawlsift_extractor::learned::context;
use std::io::{BufRead, Write};

const DEPTH: usize = 4;
const INNER: usize = (1 << DEPTH) - 1;
const LEAVES: usize = 1 << DEPTH;
const MAX_BINS: usize = 64;
const LEARNING_RATE: f64 = 0.1;
const LAMBDA: f64 = 1.0;
const MIN_CHILD_HESSIAN: f64 = 0.5;

struct Tree {
    feature: [u8; INNER],
    threshold: [f32; INNER],
    leaf: [f32; LEAVES],
}

/// Out-of-fold parts of the first stage's training rows (by page, so a page's blocks are
/// scored by a model that never saw that page).
const FOLDS: u64 = 4;

/// The second stage is the mean of [`BAGS`] models, each tree of which learns from about
/// [`SUBSAMPLE`] percent of the pages (drawn by a hash of the page, the tree and the model).
/// One model's decisions on single pages swung with small changes of the table; the mean of
/// four is steadier. Leave-one-dataset-out, measured on 2026-11-29: one model 0.9195, one model
/// with pages drawn at 70% 0.9197, the mean of four 0.9232 (better on five of the six sets), one
/// model trained on the mean's probabilities (four times fewer trees to run) 0.9195, the mean of
/// four of 100 trees at twice the learning rate 0.9186. The mean cost `extract` about half again
/// its CPU time with the node-by-node scorer; the column-wise one (`learned/forest.rs`) took a
/// third off the whole (`dedup`, `index` and `stats` run `blocks`).
const BAGS: u64 = 4;
const SUBSAMPLE: u64 = 70;

/// One stage: trees and the log-odds before them.
struct Stage {
    trees: Vec<Tree>,
    bias: f64,
}

impl Stage {
    /// The score of row `i` of the columns `x`, summed in `f32` in tree order as
    /// `learned::score` sums it at run time.
    fn score(&self, x: &[Vec<f32>], i: usize) -> f32 {
        let mut sum = self.bias as f32;
        for t in &self.trees {
            let mut k = 0;
            for _ in 0..DEPTH {
                let right = x[t.feature[k] as usize][i] > t.threshold[k];
                k = 2 * k + 1 + usize::from(right);
            }
            sum += t.leaf[k - INNER];
        }
        sum
    }
}

fn main() {
    let trees: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let header = lines.next().expect("empty table").expect("read");
    let names: Vec<&str> = header.split('\t').skip(3).collect();
    let nf = names.len();
    let log_words = names
        .iter()
        .position(|n| *n == "log_words")
        .expect("a log_words column");
    let (mut y, mut w, mut x) = (Vec::new(), Vec::new(), Vec::<Vec<f32>>::new());
    let mut page: Vec<usize> = Vec::new();
    let mut fold: Vec<u64> = Vec::new();
    let mut last_page = String::new();
    let mut last_fold = 0;
    x.resize(nf, Vec::new());
    for line in lines {
        let line = line.expect("read");
        let mut cols = line.split('\t');
        let id = cols.next().unwrap_or("");
        let p = id.rsplit_once('#').map_or(id, |(p, _)| p);
        if p != last_page || page.is_empty() {
            last_page = p.to_string();
            last_fold = crawlsift_common::fnv::hash(p.bytes()) % FOLDS;
            page.push(page.last().map_or(0, |k| k + 1));
        } else {
            page.push(*page.last().unwrap_or(&0));
        }
        fold.push(last_fold);
        y.push(
            cols.next()
                .and_then(|c| c.parse::<f64>().ok())
                .expect("label"),
        );
        w.push(
            cols.next()
                .and_then(|c| c.parse::<f64>().ok())
                .expect("weight"),
        );
        for col in x.iter_mut() {
            col.push(
                cols.next()
                    .and_then(|c| c.parse::<f32>().ok())
                    .expect("feature"),
            );
        }
    }
    let n = y.len();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    // Stage one, on every row: the model run first at extraction.
    let (first, _) = fit(&x, &y, &w, &page, (0, 100), trees, threads);
    // Its out-of-fold scores: what the second stage will see at run time, on pages not learned.
    let oof = out_of_fold(&x, &y, &w, &page, &fold, trees, threads);
    // Stage two reads the block's features and the context of its page's first-stage scores.
    let mut x2 = x.clone();
    x2.resize(nf + context::NC, vec![0.0; n]);
    let (mut cs, mut out) = (context::ContextScratch::default(), Vec::new());
    let mut row: Vec<f32> = Vec::with_capacity(nf); // one block's features, for its keys
    let mut start = 0;
    while start < n {
        let end = (start..n).find(|&i| page[i] != page[start]).unwrap_or(n);
        let words: Vec<f32> = (start..end)
            .map(|i| context::words_of(x[log_words][i]))
            .collect();
        let keys: Vec<[u64; 2]> = (start..end)
            .map(|i| {
                row.clear();
                row.extend(x.iter().map(|c| c[i]));
                context::keys_of(&row)
            })
            .collect();
        context::compute(&words, &keys, &oof[start..end], &mut cs, &mut out);
        for (r, v) in out.iter().enumerate() {
            for (c, value) in v.iter().enumerate() {
                x2[nf + c][start + r] = *value;
            }
        }
        start = end;
    }
    // The threshold is chosen on the second stage's own training rows. Choosing it on its
    // out-of-fold scores instead (four more models) was measured on 2026-11-28: -0.50 instead of
    // 0.00, held-out WCXB 0.8732 instead of 0.8746 and dragnet's leave-one-out 0.8585 instead
    // of 0.8821, so it was not kept.
    // The second stage: the mean of BAGS models (each leaf divided by BAGS, the margins averaged).
    let mut second = Stage {
        trees: Vec::with_capacity(trees * BAGS as usize),
        bias: 0.0,
    };
    let mut margin = vec![0.0f64; n];
    for b in 0..BAGS {
        let (mut stage, m) = fit(&x2, &y, &w, &page, (b, SUBSAMPLE), trees, threads);
        for l in stage.trees.iter_mut().flat_map(|t| t.leaf.iter_mut()) {
            *l = (f64::from(*l) / BAGS as f64) as f32;
        }
        second.bias = stage.bias; // the same for every model: the labels' log-odds
        second.trees.extend(stage.trees);
        margin
            .iter_mut()
            .zip(m)
            .for_each(|(a, m)| *a += m / BAGS as f64);
    }
    let threshold = choose_threshold(&margin, &y, &w, &page);
    write_model(&first, &second, threshold, nf).expect("write");
}

/// Every row's score by a stage trained on the other parts' rows ([`FOLDS`] parts by page).
fn out_of_fold(
    x: &[Vec<f32>],
    y: &[f64],
    w: &[f64],
    page: &[usize],
    fold: &[u64],
    trees: usize,
    threads: usize,
) -> Vec<f32> {
    let n = y.len();
    let mut oof = vec![0.0f32; n];
    for q in 0..FOLDS {
        let rows: Vec<usize> = (0..n).filter(|&i| fold[i] != q).collect();
        let sub: Vec<Vec<f32>> = x
            .iter()
            .map(|c| rows.iter().map(|&i| c[i]).collect())
            .collect();
        let sy: Vec<f64> = rows.iter().map(|&i| y[i]).collect();
        let sw: Vec<f64> = rows.iter().map(|&i| w[i]).collect();
        let sp: Vec<usize> = rows.iter().map(|&i| page[i]).collect();
        let (model, _) = fit(&sub, &sy, &sw, &sp, (0, 100), trees, threads);
        for i in (0..n).filter(|&i| fold[i] == q) {
            oof[i] = model.score(x, i);
        }
        eprintln!("train_gbdt: fold {q}: {} rows held out", n - rows.len());
    }
    oof
}

/// Gradient-boosted trees on the columns `x` (weighted log-loss); also returns the training
/// rows' margins.
fn fit(
    x: &[Vec<f32>],
    y: &[f64],
    w: &[f64],
    page: &[usize],
    (seed, subsample): (u64, u64),
    trees: usize,
    threads: usize,
) -> (Stage, Vec<f64>) {
    let n = y.len();
    let nf = x.len();
    // Bin edges per feature: its distinct values, or quantiles of them when there are many.
    let mut edges: Vec<Vec<f32>> = Vec::with_capacity(nf);
    let mut bins: Vec<Vec<u8>> = Vec::with_capacity(nf);
    for col in x {
        let mut sorted = col.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let mut distinct = sorted.clone();
        distinct.dedup();
        let mut e: Vec<f32> = if distinct.len() <= MAX_BINS {
            distinct
        } else {
            let mut q: Vec<f32> = (1..MAX_BINS).map(|k| sorted[k * n / MAX_BINS]).collect();
            q.dedup();
            q
        };
        e.pop(); // nothing lies above the largest value
        let b: Vec<u8> = col
            .iter()
            .map(|v| e.partition_point(|t| t < v) as u8)
            .collect();
        edges.push(e);
        bins.push(b);
    }
    let (pos, neg) = y.iter().zip(w).fold((0.0, 0.0), |(p, q), (yi, wi)| {
        (p + yi * wi, q + (1.0 - yi) * wi)
    });
    let bias = (pos.max(1e-9) / neg.max(1e-9)).ln();
    let mut margin: Vec<f64> = vec![bias; n];
    let mut g = vec![0.0f64; n];
    let mut h = vec![0.0f64; n];
    let mut model: Vec<Tree> = Vec::with_capacity(trees);
    let mut node_of = vec![0usize; n];
    // Whether each page is in the current tree's draw: whole pages, chosen by a hash of the page,
    // the tree and the model (the same every run); all of them when nothing is left out.
    let mut drawn = vec![true; page.iter().max().map_or(0, |p| p + 1)];
    for tree in 0..trees {
        if subsample < 100 {
            for (p, d) in drawn.iter_mut().enumerate() {
                let bytes = (p as u64)
                    .to_le_bytes()
                    .into_iter()
                    .chain((tree as u64).to_le_bytes())
                    .chain(seed.to_le_bytes());
                *d = crawlsift_common::fnv::hash(bytes) % 100 < subsample;
            }
        }
        for i in 0..n {
            let p = 1.0 / (1.0 + (-margin[i]).exp());
            let s = if drawn[page[i]] { w[i] } else { 0.0 };
            g[i] = s * (p - y[i]);
            h[i] = s * p * (1.0 - p);
        }
        let mut t = Tree {
            feature: [0; INNER],
            threshold: [f32::INFINITY; INNER],
            leaf: [0.0; LEAVES],
        };
        node_of.iter_mut().for_each(|k| *k = 0);
        for level in 0..DEPTH {
            let first = (1 << level) - 1;
            let count = 1 << level;
            // Histograms of this level's nodes: [feature][node][bin] = (g, h). Each feature's
            // part is filled by one thread, row by row in order, so every cell sums in the same
            // order whatever the number of threads: the model is the same bytes.
            let mut hist = vec![(0.0f64, 0.0f64); nf * count * MAX_BINS];
            let per_thread = nf.div_ceil(threads).max(1);
            std::thread::scope(|s| {
                for (part, features) in hist
                    .chunks_mut(per_thread * count * MAX_BINS)
                    .zip(bins.chunks(per_thread))
                {
                    let (g, h, node_of) = (&g, &h, &node_of);
                    s.spawn(move || {
                        for (cells, col) in part.chunks_mut(count * MAX_BINS).zip(features) {
                            for i in 0..n {
                                let cell =
                                    &mut cells[(node_of[i] - first) * MAX_BINS + col[i] as usize];
                                cell.0 += g[i];
                                cell.1 += h[i];
                            }
                        }
                    });
                }
            });
            for k in 0..count {
                let (mut gt, mut ht) = (0.0, 0.0);
                for b in 0..MAX_BINS {
                    let c = hist[k * MAX_BINS + b];
                    gt += c.0;
                    ht += c.1;
                }
                let parent_gain = gt * gt / (ht + LAMBDA);
                let mut best = (1e-9, usize::MAX, 0usize);
                for (f, e) in edges.iter().enumerate() {
                    let (mut gl, mut hl) = (0.0, 0.0);
                    for (b, _) in e.iter().enumerate() {
                        let c = hist[(f * count + k) * MAX_BINS + b];
                        gl += c.0;
                        hl += c.1;
                        let (gr, hr) = (gt - gl, ht - hl);
                        if hl < MIN_CHILD_HESSIAN || hr < MIN_CHILD_HESSIAN {
                            continue;
                        }
                        let gain = gl * gl / (hl + LAMBDA) + gr * gr / (hr + LAMBDA) - parent_gain;
                        if gain > best.0 {
                            best = (gain, f, b);
                        }
                    }
                }
                if best.1 != usize::MAX {
                    t.feature[first + k] = best.1 as u8;
                    t.threshold[first + k] = edges[best.1][best.2];
                }
            }
            for i in 0..n {
                let k = node_of[i];
                let right = x[t.feature[k] as usize][i] > t.threshold[k];
                node_of[i] = 2 * k + 1 + usize::from(right);
            }
        }
        let (mut gs, mut hs) = ([0.0f64; LEAVES], [0.0f64; LEAVES]);
        for i in 0..n {
            let l = node_of[i] - INNER;
            gs[l] += g[i];
            hs[l] += h[i];
        }
        for l in 0..LEAVES {
            t.leaf[l] = (-gs[l] / (hs[l] + LAMBDA) * LEARNING_RATE) as f32;
        }
        for i in 0..n {
            margin[i] += f64::from(t.leaf[node_of[i] - INNER]);
        }
        model.push(t);
    }
    let (mut loss, mut right, mut total) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let p = (1.0 / (1.0 + (-margin[i]).exp())).clamp(1e-12, 1.0 - 1e-12);
        loss -= w[i] * (y[i] * p.ln() + (1.0 - y[i]) * (1.0 - p).ln());
        right += w[i] * f64::from(u8::from((margin[i] > 0.0) == (y[i] > 0.5)));
        total += w[i];
    }
    eprintln!(
        "train_gbdt: {n} rows, {nf} features, {trees} trees; weighted log-loss {:.4}, accuracy {:.4}",
        loss / total,
        right / total
    );
    (Stage { trees: model, bias }, margin)
}

/// The decision threshold (a logit) that maximises the mean page F1 on the training rows, the
/// metric the method is judged by: a page's kept tokens are its rows' weights (their share of the
/// page's tokens), right when labelled content. Candidates from -2 to 2 by 0.25; the first best.
fn choose_threshold(margin: &[f64], y: &[f64], w: &[f64], page: &[usize]) -> f32 {
    let pages = page.last().map_or(0, |p| p + 1);
    let mut best = (f64::MIN, 0.0f32);
    for k in -8i32..=8 {
        let t = k as f64 * 0.25;
        let (mut kept, mut right, mut truth) =
            (vec![0.0; pages], vec![0.0; pages], vec![0.0; pages]);
        for i in 0..margin.len() {
            let p = page[i];
            truth[p] += w[i] * y[i];
            if margin[i] > t {
                kept[p] += w[i];
                right[p] += w[i] * y[i];
            }
        }
        let mut sum = 0.0;
        for p in 0..pages {
            if right[p] > 0.0 {
                let (prec, rec) = (right[p] / kept[p], right[p] / truth[p]);
                sum += 2.0 * prec * rec / (prec + rec);
            }
        }
        let mean = sum / pages.max(1) as f64;
        eprintln!("train_gbdt: threshold {t:+.2}: mean page F1 {mean:.4} (training rows)");
        if mean > best.0 {
            best = (mean, t as f32);
        }
    }
    best.1
}

fn write_model(first: &Stage, second: &Stage, threshold: f32, nf: usize) -> std::io::Result<()> {
    let mut o = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(o, "use super::Trees;\n")?;
    writeln!(
        o,
        "/// Depth of every tree (complete, heap order).\npub(super) const DEPTH: usize = {DEPTH};"
    )?;
    writeln!(
        o,
        "/// Features the first stage reads: the block's own.\npub(super) const FIRST_FEATURES: usize = {nf};"
    )?;
    writeln!(
        o,
        "/// Features the second stage reads: the block's own, then its context.\npub(super) const SECOND_FEATURES: usize = {};",
        nf + context::NC
    )?;
    writeln!(o, "/// A block whose second-stage score exceeds this is content (chosen for the mean page F1).\npub(super) const THRESHOLD: f32 = {threshold:e};")?;
    for (name, doc, stage) in [
        ("FIRST", "The first stage: the block's own features", first),
        (
            "SECOND",
            "The second stage: the block's own features and the context of the first stage's scores",
            second,
        ),
    ] {
        let feats: Vec<String> = (stage.trees.iter())
            .flat_map(|t| t.feature.iter().map(|f| f.to_string()))
            .collect();
        let thr: Vec<String> = (stage.trees.iter())
            .flat_map(|t| t.threshold.iter().map(|v| fmt(*v)))
            .collect();
        let leaves: Vec<String> = (stage.trees.iter())
            .flat_map(|t| t.leaf.iter().map(|v| fmt(*v)))
            .collect();
        writeln!(
            o,
            "\n/// {doc}.\n#[rustfmt::skip]\npub(super) static {name}: Trees = Trees {{\n    count: {},\n    bias: {},",
            stage.trees.len(),
            fmt(stage.bias as f32)
        )?;
        // Long lines of generated numbers keep the file under the 800 lines a source file may
        // have (scripts/check_structure.py) with the second stage's four models.
        for (field, items, per) in [
            ("split_feature", &feats, 240),
            ("split_threshold", &thr, 60),
            ("leaf", &leaves, 60),
        ] {
            writeln!(o, "    {field}: &[")?;
            for chunk in items.chunks(per) {
                writeln!(o, "        {},", chunk.join(", "))?;
            }
            writeln!(o, "    ],")?;
        }
        writeln!(o, "}};")?;
    }
    Ok(())
}

fn fmt(v: f32) -> String {
    if v == f32::INFINITY {
        "f32::INFINITY".to_string()
    } else {
        format!("{v:e}")
    }
}
