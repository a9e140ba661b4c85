//! A graph's compressed form: Boldi and Vigna's BVGraph, written by the `webgraph` crate (Vigna and
//! Fontana's `webgraph-rs`) as `NAME.graph` (the successor lists, gap- and reference-coded),
//! `NAME.offsets`, `NAME.properties` (Java WebGraph's layout: big endian, the default codes, so
//! Java's `BVGraph` and cc-webgraph read it too) and `NAME.ef` (the Elias–Fano offsets
//! `BvGraph::with_basename(NAME).load()` needs for random access).
//!
//! Why the crate and not our own coder: the format is its authors' and the crate is theirs; a
//! graph it writes is by construction one it and Java's WebGraph read.
//!
//! The files are written in a fresh folder beside their place and renamed into it one by one
//! once all are whole, as every output of crawlsift is; the bytes depend only on the edges.

use std::path::{Path, PathBuf};

use dsi_bitstream::traits::BE;
use webgraph::graphs::arc_list_graph::ArcListGraph;
use webgraph::graphs::bvgraph::{
    store_ef_with_data, BvComp, EF_EXTENSION, GRAPH_EXTENSION, OFFSETS_EXTENSION,
    PROPERTIES_EXTENSION,
};

use crate::LinksError;

/// The extensions of a BVGraph's files, in the order they are written.
pub const BVGRAPH_EXTENSIONS: [&str; 4] = [
    GRAPH_EXTENSION,
    OFFSETS_EXTENSION,
    PROPERTIES_EXTENSION,
    EF_EXTENSION,
];

/// Writes the graph of `nodes` vertices and `edges` (sorted by source, then target, no
/// duplicates) as the BVGraph `dir/NAME.*` and returns the size of its `.graph` file in bytes.
pub fn write_bvgraph(
    dir: &Path,
    name: &str,
    nodes: usize,
    edges: &[(u32, u32)],
) -> Result<u64, LinksError> {
    let failed = |what: &str, e: anyhow::Error| LinksError::Io {
        path: dir.join(name),
        source: std::io::Error::other(format!("{what}: {e:#}")),
    };
    let io = |path: &Path, e: std::io::Error| LinksError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let scratch = tempfile::Builder::new()
        .prefix(".bvgraph-")
        .tempdir_in(dir)
        .map_err(|e| io(dir, e))?;
    let basename = scratch.path().join(name);
    let arcs = edges.iter().map(|&(s, d)| (s as usize, d as usize));
    BvComp::with_basename(&basename)
        .comp_graph::<BE>(ArcListGraph::new(nodes, arcs))
        .map_err(|e| failed("compressing the graph", e))?;
    let with = |ext: &str| -> PathBuf { basename.with_extension(ext) };
    store_ef_with_data(
        nodes,
        with(GRAPH_EXTENSION),
        with(OFFSETS_EXTENSION),
        with(EF_EXTENSION),
        dsi_progress_logger::no_logging![],
    )
    .map_err(|e| failed("writing the Elias-Fano offsets", e))?;
    let size = std::fs::metadata(with(GRAPH_EXTENSION))
        .map_err(|e| io(&with(GRAPH_EXTENSION), e))?
        .len();
    for ext in BVGRAPH_EXTENSIONS {
        let (from, to) = (with(ext), dir.join(format!("{name}.{ext}")));
        let f = std::fs::File::open(&from).map_err(|e| io(&from, e))?;
        f.sync_all().map_err(|e| io(&from, e))?;
        std::fs::rename(&from, &to).map_err(|e| io(&to, e))?;
    }
    crawlsift_common::fs::sync_dir(dir).map_err(|e| io(dir, e))?;
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use webgraph::prelude::*;

    #[test]
    fn the_webgraph_crate_reads_back_every_successor_list() {
        let edges: Vec<(u32, u32)> = vec![(0, 1), (0, 3), (1, 0), (1, 2), (1, 3), (3, 0), (4, 4)];
        let dir = tempfile::tempdir().unwrap();
        let bytes = write_bvgraph(dir.path(), "graph", 6, &edges).unwrap();
        assert!(bytes > 0);
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 4, "no scratch folder left: {names:?}");
        let g = BvGraph::with_basename(dir.path().join("graph"))
            .endianness::<BE>()
            .load()
            .unwrap();
        assert_eq!((g.num_nodes(), g.num_arcs()), (6, 7));
        let mut back = Vec::new();
        for v in 0..6 {
            for w in g.successors(v) {
                back.push((v as u32, w as u32));
            }
        }
        assert_eq!(back, edges);
        // The same edges give the same bytes.
        let again = tempfile::tempdir().unwrap();
        write_bvgraph(again.path(), "graph", 6, &edges).unwrap();
        for ext in BVGRAPH_EXTENSIONS {
            let f = format!("graph.{ext}");
            assert_eq!(
                std::fs::read(dir.path().join(&f)).unwrap(),
                std::fs::read(again.path().join(&f)).unwrap(),
                "{f}"
            );
        }
    }
}
