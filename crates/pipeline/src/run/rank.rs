//! `rank` ([`run`]): link-analysis ranks of a graph `crawlsift links` wrote (its `hosts/` or
//! `pages/` folder, cc-webgraph's layout): PageRank (damping and tolerance as asked, dangling
//! vertices' rank spread evenly, as networkx computes it), HITS hubs and authorities, and exact
//! harmonic centrality (refused past `RANK_HARMONIC_EXACT_MAX_VERTICES`; the other ranks are
//! still written), into `ranks.txt.gz` (cc-webgraph's `#harmonicc_pos #harmonicc_val #pr_pos
//! #pr_val #host_rev`) and `hits.txt.gz` beside the graph ([`crawlsift_rank`]).

use std::path::PathBuf;

use crawlsift_rank::{harmonic, hits, pagerank, read_graph, write_hits, write_ranks, RankError};
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
    /// The vertices of highest PageRank (name, value), at most ten.
    pub top: Vec<(String, f64)>,
}

impl Ranked {
    /// The summary lines.
    pub fn summary(&self) -> String {
        let top: Vec<String> = self
            .top
            .iter()
            .map(|(n, v)| format!("  {v:.6}  {n}"))
            .collect();
        format!(
            "{}: {} vertices, {} edges; PageRank in {} iterations, HITS in {}; highest PageRank:\n{}",
            self.graph.display(),
            self.vertices,
            self.edges,
            self.iterations.0,
            self.iterations.1,
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
    let dir = req.dir.join(if req.pages { "pages" } else { "hosts" });
    let err = |e: RankError| Error::failed(e.to_string());
    let graph = read_graph(&dir).map_err(err)?;
    let (pr, pr_iterations) =
        pagerank(&graph, req.damping, req.tolerance, req.max_iterations).map_err(err)?;
    let h = hits(&graph, req.tolerance, req.max_iterations).map_err(err)?;
    let hc = match harmonic(&graph, req.threads) {
        Ok(hc) => hc,
        Err(e @ RankError::TooLargeForExact { .. }) => {
            (hooks.notice)(&format!("{e}; ranks.txt.gz gives 0 for it"));
            vec![0.0; graph.vertices()]
        }
        Err(e) => return Err(err(e)),
    };
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
    Ok(Ranked {
        graph: dir,
        vertices: graph.vertices(),
        edges: graph.edges(),
        iterations: (pr_iterations, h.iterations),
        top,
    })
}
