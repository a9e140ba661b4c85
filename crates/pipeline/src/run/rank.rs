//! `rank` ([`run`]): link-analysis ranks of a graph `crawlsift links` wrote (its `hosts/` or
//! `pages/` folder, cc-webgraph's layout): PageRank (damping and tolerance as asked, dangling
//! vertices' rank spread evenly, as networkx computes it), HITS hubs and authorities, and exact
//! harmonic centrality, into `ranks.txt.gz` (cc-webgraph's `#harmonicc_pos #harmonicc_val #pr_pos
//! #pr_val #host_rev`) and `hits.txt.gz` beside the graph ([`crawlsift_rank`]). Harmonic
//! centrality is exact up to `RANK_HARMONIC_EXACT_MAX_VERTICES` vertices and HyperBall's
//! estimate past them ([`Harmonic::Auto`]), or either as asked.
//!
//! With a `dedup` run's `clusters.jsonl` over the same archives, the page graph is also ranked
//! with duplicates collapsed into their cluster's representative ([`crawlsift_rank::collapse`]:
//! a copy's links are its representative's, links to a copy go to the representative, each
//! distinct link counted once, so a mirror casts no extra votes); its ranks go to
//! `pages/collapsed/`, and the summary says how far PageRank moved.

use std::path::PathBuf;

use crawlsift_common::limits::RANK_HARMONIC_EXACT_MAX_VERTICES;
use crawlsift_rank::hyperball::relative_standard_error;
pub use crawlsift_rank::hyperball::DEFAULT_LOG2M;
use crawlsift_rank::{
    collapse, harmonic, harmonic_estimate, hits, movement, pagerank, read_graph, write_hits,
    write_ranks, Graph, Movement, RankError,
};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};

/// What a `rank` run is asked to do.
#[derive(Debug, Clone)]
pub struct RankRequest {
    /// A `crawlsift links` output folder.
    pub dir: PathBuf,
    /// Rank the page graph (`pages/`) instead of the host graph (`hosts/`).
    pub pages: bool,
    /// PageRank's damping factor, in (0, 1).
    pub damping: f64,
    /// Convergence tolerance of PageRank and HITS (per vertex, as networkx takes it).
    pub tolerance: f64,
    /// Most iterations of PageRank and HITS.
    pub max_iterations: usize,
    /// Threads for harmonic centrality.
    pub threads: usize,
    /// How harmonic centrality is computed.
    pub harmonic: Harmonic,
    /// HyperBall's counters have 2^`log2m` registers.
    pub log2m: u32,
    /// A `dedup` run's `clusters.jsonl`: rank the page graph with duplicates collapsed too.
    pub clusters: Option<PathBuf>,
}

/// How harmonic centrality is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Harmonic {
    /// Exact up to `RANK_HARMONIC_EXACT_MAX_VERTICES` vertices, HyperBall's estimate past them.
    #[default]
    Auto,
    /// One breadth-first search per vertex (refused past the cap).
    Exact,
    /// HyperBall's estimate ([`crawlsift_rank::hyperball`]), whatever the graph's size.
    HyperBall,
}

/// What collapsing duplicates did to the page graph and its PageRank.
#[derive(Debug, Serialize)]
pub struct CollapsedRanks {
    /// Page vertices merged into their representative.
    pub merged: usize,
    /// Vertices and edges of the collapsed graph.
    pub vertices: usize,
    /// Edges.
    pub edges: usize,
    /// How far PageRank moved, over the vertices kept.
    pub pagerank: Movement,
}

/// What a `rank` run did.
#[derive(Debug, Serialize)]
pub struct Ranked {
    /// The graph folder ranked.
    pub graph: PathBuf,
    /// Its vertices and edges.
    pub vertices: usize,
    /// Edges.
    pub edges: usize,
    /// PageRank's and HITS' iterations.
    pub iterations: (usize, usize),
    /// How harmonic centrality was computed (`exact`, or HyperBall's registers and error).
    pub harmonic: String,
    /// The vertices of highest PageRank (name, value), at most ten.
    pub top: Vec<(String, f64)>,
    /// With clusters: the collapsed graph's figures.
    pub collapsed: Option<CollapsedRanks>,
}

impl Ranked {
    /// The summary lines.
    pub fn summary(&self) -> String {
        let top: Vec<String> = self
            .top
            .iter()
            .map(|(n, v)| format!("  {v:.6}  {n}"))
            .collect();
        let collapsed = match &self.collapsed {
            Some(c) => format!(
                "\nduplicates collapsed: {} pages merged into their representatives, {} vertices \
                 and {} edges left; PageRank over the pages kept: Spearman {:.4}, mean position \
                 change {:.1}, {} of the ten highest still among them",
                c.merged,
                c.vertices,
                c.edges,
                c.pagerank.spearman,
                c.pagerank.mean_position_change,
                c.pagerank.top10_kept
            ),
            None => String::new(),
        };
        format!(
            "{}: {} vertices, {} edges; PageRank in {} iterations, HITS in {}; harmonic centrality {}; highest PageRank:\n{}{collapsed}",
            self.graph.display(),
            self.vertices,
            self.edges,
            self.iterations.0,
            self.iterations.1,
            self.harmonic,
            top.join("\n")
        )
    }
}

/// Ranks the graph (see the module doc).
pub fn run(req: &RankRequest, hooks: &Hooks<'_>) -> Result<Ranked> {
    // Written so that NaN is refused too.
    let valid = req.damping > 0.0 && req.damping < 1.0 && req.tolerance > 0.0;
    if !valid {
        return Err(Error::Usage(
            "--damping must be in (0, 1) and --tolerance above 0".into(),
        ));
    }
    let range = crawlsift_rank::hyperball::LOG2M_RANGE;
    if !range.contains(&req.log2m) {
        return Err(Error::Usage(format!(
            "--registers must be from {} to {}",
            range.start(),
            range.end()
        )));
    }
    let pages = req.pages || req.clusters.is_some();
    let dir = req.dir.join(if pages { "pages" } else { "hosts" });
    let err = |e: RankError| Error::failed(e.to_string());
    let graph = read_graph(&dir).map_err(err)?;
    let (pr, pr_iterations) =
        pagerank(&graph, req.damping, req.tolerance, req.max_iterations).map_err(err)?;
    let h = hits(&graph, req.tolerance, req.max_iterations).map_err(err)?;
    let (hc, how) = harmonic_of(&graph, req)?;
    if req.harmonic == Harmonic::Auto && how != "exact" {
        (hooks.notice)(&format!(
            "{} vertices, over the {RANK_HARMONIC_EXACT_MAX_VERTICES} of exact harmonic centrality: {how}",
            graph.vertices()
        ));
    }
    write_ranks(&dir, graph.names(), &pr, &hc).map_err(err)?;
    write_hits(&dir, graph.names(), &h.hubs, &h.authorities).map_err(err)?;
    let top = crawlsift_rank::rank_order(&pr)
        .into_iter()
        .take(10)
        .map(|v| {
            let name = graph.names().get(v as usize).unwrap_or_default();
            (name.to_string(), pr[v as usize])
        })
        .collect();
    let collapsed = match &req.clusters {
        Some(c) => Some(rank_collapsed(req, &graph, &pr, c, &dir)?),
        None => None,
    };
    Ok(Ranked {
        graph: dir,
        vertices: graph.vertices(),
        edges: graph.edges(),
        iterations: (pr_iterations, h.iterations),
        harmonic: how,
        top,
        collapsed,
    })
}

/// Harmonic centrality as `req` asks, and how it was computed.
fn harmonic_of(graph: &Graph, req: &RankRequest) -> Result<(Vec<f64>, String)> {
    let err = |e: RankError| Error::failed(e.to_string());
    let exact = match req.harmonic {
        Harmonic::Exact => true,
        Harmonic::HyperBall => false,
        Harmonic::Auto => graph.vertices() <= RANK_HARMONIC_EXACT_MAX_VERTICES,
    };
    if exact {
        return Ok((harmonic(graph, req.threads).map_err(err)?, "exact".into()));
    }
    let hc = harmonic_estimate(graph, req.log2m, req.threads).map_err(err)?;
    let how = format!(
        "estimated by HyperBall (2^{} registers a counter: {:.1}% relative standard error a ball)",
        req.log2m,
        100.0 * relative_standard_error(req.log2m)
    );
    Ok((hc, how))
}

/// Each page vertex's representative from `clusters.jsonl`: members' URLs (normalised as
/// `links` normalises them) point to their representative's vertex; pages in no cluster, or
/// whose representative is no vertex, are their own.
fn representatives(graph: &Graph, clusters: &std::path::Path) -> Result<Vec<u32>> {
    let norm = |u: &str| {
        crawlsift_links::page_base(u, None).and_then(|b| crawlsift_links::resolve(&b, b.as_str()))
    };
    let ids: std::collections::HashMap<&str, u32> = graph
        .names()
        .iter()
        .enumerate()
        .map(|(i, n)| (n, i as u32))
        .collect();
    let vertex = |m: &crate::lines::MemberRead| {
        m.url
            .as_deref()
            .and_then(norm)
            .and_then(|u| ids.get(u.as_str()).copied())
    };
    let mut rep: Vec<u32> = (0..graph.vertices() as u32).collect();
    for c in crate::lines::read_clusters(clusters)? {
        let Some(r) = c.members.first().and_then(vertex) else {
            continue;
        };
        for x in c.members[1..].iter().filter_map(vertex) {
            if x != r && rep[x as usize] == x {
                rep[x as usize] = r;
            }
        }
    }
    // No chains: a representative merged into another keeps itself, and so do its members.
    for v in 0..rep.len() {
        let r = rep[v] as usize;
        if rep[r] as usize != r {
            rep[v] = v as u32;
        }
    }
    for v in 0..rep.len() {
        let r = rep[v] as usize;
        if rep[r] as usize != r {
            rep[v] = v as u32;
        }
    }
    Ok(rep)
}

/// Ranks the page graph with duplicates collapsed into `dir/collapsed/` and compares.
fn rank_collapsed(
    req: &RankRequest,
    graph: &Graph,
    pr: &[f64],
    clusters: &std::path::Path,
    dir: &std::path::Path,
) -> Result<CollapsedRanks> {
    let err = |e: RankError| Error::failed(e.to_string());
    let rep = representatives(graph, clusters)?;
    let c = collapse(graph, &rep).map_err(err)?;
    let (cpr, _) =
        pagerank(&c.graph, req.damping, req.tolerance, req.max_iterations).map_err(err)?;
    let (chc, _) = harmonic_of(&c.graph, req)?;
    let out = dir.join("collapsed");
    std::fs::create_dir_all(&out).map_err(|e| Error::io("creating", &out, e))?;
    write_ranks(&out, c.graph.names(), &cpr, &chc).map_err(err)?;
    let kept: Vec<bool> = (0..rep.len()).map(|v| rep[v] as usize == v).collect();
    Ok(CollapsedRanks {
        merged: kept.iter().filter(|k| !**k).count(),
        vertices: c.graph.vertices(),
        edges: c.graph.edges(),
        pagerank: movement(pr, &cpr, &c.into, &kept),
    })
}
