//! Ranks a graph folder in cc-webgraph's layout: reads `DIR/vertices.txt.gz` and
//! `DIR/edges.txt.gz`, computes PageRank (damping 0.85, tolerance 1e-12), HITS (tolerance 1e-12)
//! and exact harmonic centrality, and writes `DIR/ranks.txt.gz` and `DIR/hits.txt.gz`. The
//! networkx gate (`scripts/ci-gates/ranks.sh`) runs it; the `crawlsift rank` command is the
//! user's way.
//!
//! usage: cargo run --release -p crawlsift-rank --example ranks -- DIR [THREADS]

use std::path::PathBuf;
use std::process::ExitCode;

use crawlsift_rank::{harmonic, hits, pagerank, read_graph, write_hits, write_ranks, RankError};

fn run(dir: PathBuf, threads: usize) -> Result<(), RankError> {
    let graph = read_graph(&dir)?;
    let (pr, pr_iterations) = pagerank(&graph, 0.85, 1e-12, 10_000)?;
    let h = hits(&graph, 1e-12, 10_000)?;
    let hc = harmonic(&graph, threads)?;
    write_ranks(&dir, graph.names(), &pr, &hc)?;
    write_hits(&dir, graph.names(), &h.hubs, &h.authorities)?;
    println!(
        "{}: {} vertices, {} edges ({} bytes); pagerank {} iterations, hits {} iterations",
        dir.display(),
        graph.vertices(),
        graph.edges(),
        graph.bytes(),
        pr_iterations,
        h.iterations
    );
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: ranks DIR [THREADS]");
        return ExitCode::from(2);
    };
    let threads = match args.next().map(|t| t.to_string_lossy().parse::<usize>()) {
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(Ok(t)) => t,
        Some(Err(_)) => {
            eprintln!("usage: ranks DIR [THREADS] (THREADS a number)");
            return ExitCode::from(2);
        }
    };
    match run(PathBuf::from(dir), threads) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ranks: {e}");
            ExitCode::FAILURE
        }
    }
}
