//! The cc-webgraph layout end to end: a graph folder written as the contract says is read back,
//! ranked, and its `ranks.txt.gz` and `hits.txt.gz` have cc-webgraph's header, one line per
//! vertex in position order, positions 1..n each once, values that read back as computed; and
//! a folder that breaks the contract is refused with the file and line named.

use std::io::{Read, Write};
use std::path::Path;

use crawlsift_rank::{
    harmonic, hits, pagerank, read_graph, write_hits, write_ranks, Fault, RankError,
};
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

fn gz_write(path: &Path, text: &str) {
    let mut enc = GzEncoder::new(std::fs::File::create(path).unwrap(), Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
}

fn gz_read(path: &Path) -> String {
    let mut text = String::new();
    MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn folder(vertices: &str, edges: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    gz_write(&dir.path().join("vertices.txt.gz"), vertices);
    gz_write(&dir.path().join("edges.txt.gz"), edges);
    dir
}

const VERTICES: &str =
    "0\tcom.example\n1\tcom.example.www\n2\torg.wikipedia\n3\tnet.dangling\n4\torg.isolated\n";
// 0 <-> 1, 1 -> 2, 2 -> 2 (self-loop), 2 -> 0, 3 -> 0 and 3 -> 2; 4 has no edge; 3 none in.
const EDGES: &str = "0\t1\n1\t0\n1\t2\n2\t0\n2\t2\n3\t0\n3\t2";

/// A line of a ranks file: (pos1, val1, pos2, val2, name).
type Row = (usize, f64, usize, f64, String);

/// The header and rows of a ranks file.
fn rows(text: &str) -> (String, Vec<Row>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l:?}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].to_string(),
            )
        })
        .collect();
    (header, rows)
}

#[test]
fn a_folder_is_read_ranked_and_written_in_cc_webgraphs_format() {
    let dir = folder(VERTICES, EDGES);
    let g = read_graph(dir.path()).unwrap();
    assert_eq!((g.vertices(), g.edges()), (5, 7));
    assert_eq!(g.successors(2), &[0, 2]);
    assert_eq!(g.predecessors(2), &[1, 2, 3]);
    assert_eq!(g.names().get(2), Some("org.wikipedia"));

    let (pr, _) = pagerank(&g, 0.85, 1e-12, 1000).unwrap();
    let hc = harmonic(&g, 2).unwrap();
    let h = hits(&g, 1e-12, 1000).unwrap();
    assert!((pr.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // By hand: 0 is reached from 1, 2, 3 at 1; 1 from 0 at 1, 2 and 3 at 2; 2 from 1, 3 at 1
    // and 0 at 2; 3 and 4 from nobody.
    assert_eq!(hc, vec![3.0, 2.0, 2.5, 0.0, 0.0]);
    write_ranks(dir.path(), g.names(), &pr, &hc).unwrap();
    write_hits(dir.path(), g.names(), &h.hubs, &h.authorities).unwrap();

    let (header, ranks) = rows(&gz_read(&dir.path().join("ranks.txt.gz")));
    assert_eq!(
        header,
        "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
    );
    let names: Vec<&str> = ranks.iter().map(|r| r.4.as_str()).collect();
    // Harmonic order; 3 and 4 tie at 0 and keep id order.
    assert_eq!(
        names,
        [
            "com.example",
            "org.wikipedia",
            "com.example.www",
            "net.dangling",
            "org.isolated"
        ]
    );
    let ids = [0usize, 2, 1, 3, 4];
    let mut pr_positions = Vec::new();
    for (k, row) in ranks.iter().enumerate() {
        assert_eq!(row.0, k + 1);
        assert_eq!(row.1, hc[ids[k]]);
        assert_eq!(row.3, pr[ids[k]], "values read back exactly");
        pr_positions.push(row.2);
    }
    // PageRank positions: 1..n once each, in decreasing PageRank (ties by id).
    let mut by_pos = ids.to_vec();
    by_pos.sort_by_key(|&v| pr_positions[ids.iter().position(|&i| i == v).unwrap()]);
    for w in by_pos.windows(2) {
        assert!(pr[w[0]] > pr[w[1]] || (pr[w[0]] == pr[w[1]] && w[0] < w[1]));
    }
    // 3 and 4 have no in-edges: the same (teleport-only) PageRank, 3 first.
    assert_eq!(pr[3], pr[4]);
    assert_eq!(pr_positions[3] + 1, pr_positions[4]);

    let (header, hits_rows) = rows(&gz_read(&dir.path().join("hits.txt.gz")));
    assert_eq!(
        header,
        "#hub_pos\t#hub_val\t#authority_pos\t#authority_val\t#host_rev"
    );
    assert_eq!(hits_rows.len(), 5);
    for (k, row) in hits_rows.iter().enumerate() {
        assert_eq!(row.0, k + 1);
        let v = g.names().iter().position(|n| n == row.4).unwrap();
        assert_eq!((row.1, row.3), (h.hubs[v], h.authorities[v]));
    }
    // No temporary file is left beside the outputs.
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "edges.txt.gz",
            "hits.txt.gz",
            "ranks.txt.gz",
            "vertices.txt.gz"
        ]
    );
}

#[test]
fn broken_folders_are_refused_with_file_and_line() {
    let line_fault = |vertices: &str, edges: &str| match read_graph(folder(vertices, edges).path())
    {
        Err(RankError::Line { path, line, fault }) => (
            path.file_name().unwrap().to_string_lossy().into_owned(),
            line,
            fault,
        ),
        other => panic!("expected a line error, got {other:?}"),
    };
    let (file, line, fault) = line_fault("0\ta\n2\tb\n", "");
    assert_eq!((file.as_str(), line), ("vertices.txt.gz", 2));
    assert_eq!(
        fault,
        Fault::IdOutOfOrder {
            got: 2,
            expected: 1
        }
    );
    let (file, line, fault) = line_fault("0\ta\n1\tb\n", "0\t1\n1\t2\n");
    assert_eq!((file.as_str(), line), ("edges.txt.gz", 2));
    assert_eq!(fault, Fault::VertexOutOfRange { id: 2, vertices: 2 });
    let (_, line, fault) = line_fault("0\ta\n1\tb\n", "1\t0\n0\t1\n");
    assert_eq!(line, 2);
    assert!(matches!(fault, Fault::Unsorted { .. }));
    let (_, line, fault) = line_fault("0\ta\n1\tb\n", "0\t1\n0\t1\n");
    assert_eq!(line, 2);
    assert!(matches!(fault, Fault::Unsorted { .. }));
    let (_, line, fault) = line_fault("0\ta\n1\tb\n", "0 1\n");
    assert_eq!((line, fault), (1, Fault::MissingTab));
    let (_, _, fault) = line_fault("0\ta\n1\tb\n", "0\tx\n");
    assert!(matches!(fault, Fault::BadId(_)));
    let (_, _, fault) = line_fault("0\t\u{fffd}\n1\t\n", "\n");
    assert_eq!(fault, Fault::MissingTab);

    // Not gzip, and missing: I/O errors naming the file.
    let dir = folder(VERTICES, EDGES);
    std::fs::write(dir.path().join("edges.txt.gz"), b"0\t1\n").unwrap();
    match read_graph(dir.path()) {
        Err(RankError::Io { path, .. }) => assert!(path.ends_with("edges.txt.gz")),
        other => panic!("expected an I/O error, got {other:?}"),
    }
    std::fs::remove_file(dir.path().join("vertices.txt.gz")).unwrap();
    match read_graph(dir.path()) {
        Err(RankError::Io { path, .. }) => assert!(path.ends_with("vertices.txt.gz")),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn bytes_that_are_not_utf8_and_overlong_lines_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(b"0\ta\n1\t\xff\xfe\n").unwrap();
    std::fs::write(dir.path().join("vertices.txt.gz"), enc.finish().unwrap()).unwrap();
    gz_write(&dir.path().join("edges.txt.gz"), "");
    match read_graph(dir.path()) {
        Err(RankError::Line {
            line: 2,
            fault: Fault::NotUtf8,
            ..
        }) => {}
        other => panic!("expected a UTF-8 error on line 2, got {other:?}"),
    }
    let long = format!(
        "0\t{}\n",
        "x".repeat(crawlsift_common::limits::RANK_MAX_LINE_BYTES)
    );
    gz_write(&dir.path().join("vertices.txt.gz"), &long);
    match read_graph(dir.path()) {
        Err(RankError::Line {
            line: 1,
            fault: Fault::TooLong(_),
            ..
        }) => {}
        other => panic!("expected a too-long line, got {other:?}"),
    }
}

#[test]
fn an_empty_folder_graph_ranks_to_a_header_only() {
    let dir = folder("", "");
    let g = read_graph(dir.path()).unwrap();
    assert_eq!(g.vertices(), 0);
    let (pr, _) = pagerank(&g, 0.85, 1e-12, 100).unwrap();
    let hc = harmonic(&g, 4).unwrap();
    write_ranks(dir.path(), g.names(), &pr, &hc).unwrap();
    assert_eq!(
        gz_read(&dir.path().join("ranks.txt.gz")),
        "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
    );
}
