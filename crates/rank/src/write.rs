//! The ranks files, in cc-webgraph's layout (`process_webgraph.sh`'s `GRAPH-ranks.txt.gz`,
//! written by its `JoinSortRanks`):
//!
//! - `DIR/ranks.txt.gz`: a header line of five tab-separated names,
//!   `#harmonicc_pos #harmonicc_val #pr_pos #pr_val #host_rev` ([`RANKS_HEADER`]), then one
//!   tab-separated line per vertex: its position by harmonic centrality, the value, its
//!   position by PageRank, the value, and its name. Positions run from 1 (the largest value);
//!   equal values are ordered by vertex id, the lower id first, so every position is held
//!   once (cc-webgraph sorts with the same tie rule). Lines are in harmonic-centrality position
//!   order. The last column is called `#host_rev` as in cc-webgraph whatever the names are
//!   (a reversed host name in a host graph, a URL in a page graph).
//! - `DIR/hits.txt.gz` (not a cc-webgraph file): the same shape for HITS,
//!   `#hub_pos #hub_val #authority_pos #authority_val #host_rev` ([`HITS_HEADER`]), in hub
//!   position order.
//!
//! Values are written as the shortest decimal that reads back as the same f64 (Rust's `{:?}`:
//! `0.25`, `3.0`, `1.5e-7`), so they round-trip exactly. cc-webgraph writes harmonic centrality
//! as a 32-bit float and both values with Java's `toString` (`1.5E-7`); any float parser reads
//! both forms.
//!
//! Each file is gzip, written under a temporary name and renamed into place
//! ([`crawlsift_common::fs::AtomicFile`]): it appears whole or not at all. Memory: 12 bytes a
//! vertex (the order and the second column's positions, u32) beside the values.

use std::cmp::Ordering;
use std::io::{BufWriter, Write};
use std::path::Path;

use crawlsift_common::fs::AtomicFile;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::error::RankError;
use crate::graph::Names;

/// The ranks file of a graph folder.
pub const RANKS_FILE: &str = "ranks.txt.gz";
/// The HITS file of a graph folder.
pub const HITS_FILE: &str = "hits.txt.gz";
/// The header of `ranks.txt.gz`, cc-webgraph's.
pub const RANKS_HEADER: &str = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev";
/// The header of `hits.txt.gz`.
pub const HITS_HEADER: &str = "#hub_pos\t#hub_val\t#authority_pos\t#authority_val\t#host_rev";

/// Writes `dir/ranks.txt.gz` from the vertices' names, PageRank and harmonic centrality.
pub fn write_ranks(
    dir: &Path,
    names: &Names,
    pagerank: &[f64],
    harmonic: &[f64],
) -> Result<(), RankError> {
    let columns = [("harmonic", harmonic), ("pagerank", pagerank)];
    write_table(&dir.join(RANKS_FILE), RANKS_HEADER, names, columns)
}

/// Writes `dir/hits.txt.gz` from the vertices' names, hub and authority values.
pub fn write_hits(
    dir: &Path,
    names: &Names,
    hubs: &[f64],
    authorities: &[f64],
) -> Result<(), RankError> {
    let columns = [("hubs", hubs), ("authorities", authorities)];
    write_table(&dir.join(HITS_FILE), HITS_HEADER, names, columns)
}

/// Vertex ids ordered by decreasing value, ties by increasing id: position k + 1 is `order[k]`.
pub fn rank_order(values: &[f64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| descending(values, a, b));
    order
}

fn descending(values: &[f64], a: u32, b: u32) -> Ordering {
    let (x, y) = (values[a as usize], values[b as usize]);
    y.partial_cmp(&x).unwrap_or(Ordering::Equal).then(a.cmp(&b))
}

/// One line per vertex: first column's position and value, second's, name; in the first
/// column's position order.
fn write_table(
    path: &Path,
    header: &str,
    names: &Names,
    columns: [(&'static str, &[f64]); 2],
) -> Result<(), RankError> {
    for (what, values) in columns {
        check_values(what, values, names.len())?;
    }
    let [(_, first), (_, second)] = columns;
    let order = rank_order(first);
    let mut second_pos = vec![0u32; names.len()];
    for (k, &v) in rank_order(second).iter().enumerate() {
        second_pos[v as usize] = k as u32 + 1;
    }
    let io = |e| RankError::io(path, e);
    let file = AtomicFile::create(path).map_err(io)?;
    let mut out = BufWriter::with_capacity(
        1 << 16,
        GzEncoder::new(BufWriter::new(file), Compression::default()),
    );
    writeln!(out, "{header}").map_err(io)?;
    for (k, &v) in order.iter().enumerate() {
        let v = v as usize;
        writeln!(
            out,
            "{}\t{:?}\t{}\t{:?}\t{}",
            k + 1,
            first[v],
            second_pos[v],
            second[v],
            names.get(v).unwrap_or("")
        )
        .map_err(io)?;
    }
    let gz = out.into_inner().map_err(|e| io(e.into_error()))?;
    let file = gz.finish().map_err(io)?;
    let file = file.into_inner().map_err(|e| io(e.into_error()))?;
    file.commit().map_err(io)
}

/// One value per vertex, every one finite.
fn check_values(what: &'static str, values: &[f64], vertices: usize) -> Result<(), RankError> {
    if values.len() != vertices {
        return Err(RankError::BadValues {
            what,
            problem: format!("{} values for {vertices} vertices", values.len()),
        });
    }
    if let Some(v) = values.iter().position(|x| !x.is_finite()) {
        return Err(RankError::BadValues {
            what,
            problem: format!("vertex {v} has {}", values[v]),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_lower_id() {
        assert_eq!(rank_order(&[0.5, 1.0, 0.5, 2.0, 1.0]), vec![3, 1, 4, 0, 2]);
        assert_eq!(rank_order(&[]), Vec::<u32>::new());
    }

    #[test]
    fn values_must_fit_the_graph() {
        let names: Names = ["a", "b"].into_iter().collect();
        let dir = tempfile::tempdir().unwrap();
        for (pr, hc) in [
            (&[0.5][..], &[1.0, 2.0][..]),
            (&[0.5, f64::NAN][..], &[1.0, 2.0][..]),
            (&[0.5, 0.5][..], &[1.0, f64::INFINITY][..]),
        ] {
            assert!(matches!(
                write_ranks(dir.path(), &names, pr, hc),
                Err(RankError::BadValues { .. })
            ));
        }
        assert!(!dir.path().join(RANKS_FILE).exists());
    }
}
