//! Gathering a crawl's links into its page and host graphs and its anchor texts, and writing them
//! in cc-webgraph's layout (see the crate doc).
//!
//! Every URL seen (a page read, or a link's target) gets an id as it comes; at the end the
//! vertices are numbered in the order of their SURT keys (`crawlsift_cdxj::surt`: pages of a
//! host together, as cc-webgraph numbers them), the hosts in the order of their reversed names,
//! and the edges are renumbered, sorted and made unique. A link from a page to itself is no edge;
//! the host graph holds the links between two hosts. The outputs depend only on the inputs'
//! order, never on the thread count.
//!
//! Memory, all held until written: each distinct URL (its text once in a [`Strings`] arena, 12
//! bytes of index, some 20 of hash table and 8 of ids), 8 bytes an edge, each distinct (target,
//! anchor text) pair (its text once and some 40 bytes); numbering adds each URL's SURT key for the
//! sort. About 170 bytes of peak an edge on the 80k corpus (docs/benchmarks.md). A crawl's graph
//! larger than memory (edges spilled in sorted runs) is not done yet.

use hashbrown::{HashMap, HashTable};
use std::io::{BufWriter, Write};
use std::path::Path;

use crawlsift_common::fs::AtomicFile;
use flate2::write::GzEncoder;
use serde::Serialize;

use crate::bvgraph::write_bvgraph;
use crate::resolve::host_key;
use crate::strings::Strings;
use crate::LinksError;

/// A link of a page, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link<'a> {
    /// The target, resolved and normalised ([`crate::resolve`]).
    pub url: &'a str,
    /// Its anchor text (empty for none).
    pub text: &'a str,
    /// `rel=nofollow`.
    pub nofollow: bool,
}

/// What a graph holds, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphSummary {
    /// Pages whose links were read.
    pub pages: u64,
    /// Links read (self-links included).
    pub links: u64,
    /// Of them, `rel=nofollow` (they are edges too: the attribute is in `anchors.jsonl.gz`'s
    /// counts of nothing; rank them out with the raw links if wanted).
    pub nofollow: u64,
    /// Vertices of the page graph (pages read and the URLs they link to).
    pub vertices: u64,
    /// Edges of the page graph.
    pub edges: u64,
    /// Vertices of the host graph.
    pub hosts: u64,
    /// Edges of the host graph.
    pub host_edges: u64,
    /// Distinct (target, anchor text) pairs in `anchors.jsonl.gz`.
    pub anchor_texts: u64,
    /// Bytes of the page graph's compressed successor lists (`pages/graph.graph`).
    pub page_bvgraph_bytes: u64,
    /// Bytes of the host graph's (`hosts/graph.graph`).
    pub host_bvgraph_bytes: u64,
}

/// The graphs being gathered.
#[derive(Default)]
pub struct GraphBuilder {
    /// URL ids with their hash, looked up by the URL's text in `names` (each URL held once; the
    /// hash kept so that growing the table hashes no URL again).
    ids: HashTable<(u64, u32)>,
    hasher: hashbrown::DefaultHashBuilder,
    names: Strings,
    /// Host id of each URL id.
    url_host: Vec<u32>,
    hosts: HashMap<String, u32>,
    host_names: Vec<String>,
    edges: Vec<(u32, u32)>,
    /// (target, text) pairs, looked up by their key in `anchor_keys`: the target, the text's
    /// index in `anchor_texts`, and the links giving it from other hosts and from the same host.
    anchor_ids: HashTable<(u64, u32)>,
    anchor_keys: Vec<(u32, u32, [u64; 2])>,
    anchor_texts: Strings,
    summary: GraphSummary,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pages added so far.
    pub fn pages(&self) -> u64 {
        self.summary.pages
    }

    fn id(&mut self, url: &str) -> Result<u32, LinksError> {
        use std::hash::BuildHasher;
        let hash = self.hasher.hash_one(url);
        let names = &self.names;
        if let Some(&(_, id)) = self.ids.find(hash, |&(_, i)| names.get(i) == url) {
            return Ok(id);
        }
        let id = self.names.push(url).ok_or(LinksError::TooManyVertices)?;
        let host = host_key(url).unwrap_or_default();
        let h = match self.hosts.get(host.as_str()) {
            Some(&h) => h,
            None => {
                let h = self.host_names.len() as u32;
                self.hosts.insert(host.clone(), h);
                self.host_names.push(host);
                h
            }
        };
        self.ids.insert_unique(hash, (hash, id), |&(h, _)| h);
        self.url_host.push(h);
        Ok(id)
    }

    /// Adds a page (its normalised URL) and its links.
    pub fn add_page<'a>(
        &mut self,
        page_url: &str,
        links: impl IntoIterator<Item = Link<'a>>,
    ) -> Result<(), LinksError> {
        use std::hash::BuildHasher;
        let src = self.id(page_url)?;
        self.summary.pages += 1;
        for l in links {
            self.summary.links += 1;
            self.summary.nofollow += u64::from(l.nofollow);
            let dst = self.id(l.url)?;
            if dst != src {
                self.edges.push((src, dst));
            }
            let text = l.text.trim();
            if text.is_empty() {
                continue;
            }
            let same = usize::from(self.url_host[src as usize] == self.url_host[dst as usize]);
            let hash = self.hasher.hash_one((dst, text));
            let (keys, texts) = (&self.anchor_keys, &self.anchor_texts);
            let found = self.anchor_ids.find(hash, |&(_, i)| {
                let k = &keys[i as usize];
                k.0 == dst && texts.get(k.1) == text
            });
            match found {
                Some(&(_, i)) => self.anchor_keys[i as usize].2[same] += 1,
                None => {
                    let t = self
                        .anchor_texts
                        .push(text)
                        .ok_or(LinksError::TooManyVertices)?;
                    let mut n = [0u64; 2];
                    n[same] = 1;
                    let i = self.anchor_keys.len() as u32;
                    self.anchor_keys.push((dst, t, n));
                    self.anchor_ids.insert_unique(hash, (hash, i), |&(h, _)| h);
                }
            }
        }
        Ok(())
    }

    /// Numbers the vertices (pages in SURT order, hosts in name order, the SURT keys made on
    /// `threads` threads), renumbers, sorts and dedups the edges and groups the anchor texts by
    /// target: the graph as it will be written, and the anchors each URL is given.
    pub fn finish(self, threads: usize) -> Graph {
        let GraphBuilder {
            ids,
            hasher,
            names,
            url_host,
            host_names,
            edges,
            anchor_keys,
            anchor_texts,
            mut summary,
            ..
        } = self;
        // Pages in SURT order.
        let mut order: Vec<(String, u32)> = surt_keys(&names, threads);
        order.sort_unstable_by(|a, b| (&a.0, names.get(a.1)).cmp(&(&b.0, names.get(b.1))));
        let mut page_id = vec![0u32; names.len()];
        for (new, (_, old)) in order.iter().enumerate() {
            page_id[*old as usize] = new as u32;
        }
        drop(order);
        let mut host_order: Vec<u32> = (0..host_names.len() as u32).collect();
        host_order.sort_unstable_by(|a, b| host_names[*a as usize].cmp(&host_names[*b as usize]));
        let mut host_id = vec![0u32; host_names.len()];
        for (new, old) in host_order.iter().enumerate() {
            host_id[*old as usize] = new as u32;
        }
        let mut page_edges: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(s, d)| (page_id[s as usize], page_id[d as usize]))
            .collect();
        page_edges.sort_unstable();
        page_edges.dedup();
        let mut host_edges: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(s, d)| (url_host[s as usize], url_host[d as usize]))
            .filter(|(s, d)| s != d)
            .map(|(s, d)| (host_id[s as usize], host_id[d as usize]))
            .collect();
        drop(edges);
        host_edges.sort_unstable();
        host_edges.dedup();
        let mut by_page: Vec<u32> = vec![0; names.len()];
        for (old, new) in page_id.iter().enumerate() {
            by_page[*new as usize] = old as u32;
        }
        summary.vertices = names.len() as u64;
        summary.edges = page_edges.len() as u64;
        summary.hosts = host_names.len() as u64;
        summary.host_edges = host_edges.len() as u64;
        summary.anchor_texts = anchor_keys.len() as u64;
        // Anchors by target (in vertex order), then most given first, then text.
        let mut anchors: Vec<(u32, u32, [u64; 2])> = anchor_keys
            .into_iter()
            .map(|(t, text, n)| (page_id[t as usize], text, n))
            .collect();
        anchors.sort_unstable_by(|a, b| {
            let given = |n: &[u64; 2]| std::cmp::Reverse(n[0] + n[1]);
            (a.0, given(&a.2), anchor_texts.get(a.1)).cmp(&(
                b.0,
                given(&b.2),
                anchor_texts.get(b.1),
            ))
        });
        Graph {
            ids,
            hasher,
            names,
            page_id,
            by_page,
            page_edges,
            host_order,
            host_names,
            host_edges,
            anchors,
            anchor_texts,
            summary,
        }
    }
}

/// An anchor text given to a target: the target's page id, the text's index, and the links that
/// gave it from other hosts and from the target's own.
pub(crate) type AnchorRow = (u32, u32, [u64; 2]);

/// One anchor text a target is given, and how many links gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnchorGiven<'a> {
    /// The anchor text, trimmed.
    pub text: &'a str,
    /// Links from pages of other hosts.
    pub other_hosts: u64,
    /// Links from pages of the target's own host.
    pub same_host: u64,
}

/// A finished graph ([`GraphBuilder::finish`]): numbered, sorted, ready to write, and able to say
/// which anchor texts a URL is given.
pub struct Graph {
    ids: HashTable<(u64, u32)>,
    hasher: hashbrown::DefaultHashBuilder,
    /// URLs by the id they were given as they came.
    names: Strings,
    /// Page id (SURT order) of each URL id, and back.
    page_id: Vec<u32>,
    by_page: Vec<u32>,
    page_edges: Vec<(u32, u32)>,
    /// Host ids in name order, and the names by the id they were given as they came.
    host_order: Vec<u32>,
    host_names: Vec<String>,
    host_edges: Vec<(u32, u32)>,
    /// (target page id, text, counts), sorted by target, then most given first, then text.
    anchors: Vec<(u32, u32, [u64; 2])>,
    anchor_texts: Strings,
    summary: GraphSummary,
}

impl Graph {
    /// What the graph holds.
    pub fn summary(&self) -> &GraphSummary {
        &self.summary
    }

    /// The anchor texts `url` (normalised as [`crate::resolve`] gives it) is given, most given
    /// first; none for a URL no link named.
    pub fn anchors_of(&self, url: &str) -> impl Iterator<Item = AnchorGiven<'_>> {
        use std::hash::BuildHasher;
        let hash = self.hasher.hash_one(url);
        let names = &self.names;
        let range = match self.ids.find(hash, |&(_, i)| names.get(i) == url) {
            Some(&(_, old)) => {
                let target = self.page_id[old as usize];
                let from = self.anchors.partition_point(|r| r.0 < target);
                from..from + self.anchors[from..].partition_point(|r| r.0 == target)
            }
            None => 0..0,
        };
        self.anchors[range].iter().map(|r| self.given(r))
    }

    pub(crate) fn given(&self, r: &(u32, u32, [u64; 2])) -> AnchorGiven<'_> {
        AnchorGiven {
            text: self.anchor_texts.get(r.1),
            other_hosts: r.2[0],
            same_host: r.2[1],
        }
    }

    /// Writes `dir/pages/`, `dir/hosts/` and `dir/anchors.jsonl.gz`, each file whole or not at
    /// all and each on a thread of its own, and says what they hold.
    pub fn write(&self, dir: &Path) -> Result<GraphSummary, LinksError> {
        std::thread::scope(|s| {
            let pages = s.spawn(|| {
                let names = self.by_page.iter().map(|&old| self.names.get(old));
                let (dir, n) = (dir.join("pages"), self.by_page.len());
                write_layout(&dir, names, &self.page_edges)?;
                write_bvgraph(&dir, BVGRAPH_NAME, n, &self.page_edges)
            });
            let hosts = s.spawn(|| {
                let names = self
                    .host_order
                    .iter()
                    .map(|&old| self.host_names[old as usize].as_str());
                let (dir, n) = (dir.join("hosts"), self.host_order.len());
                write_layout(&dir, names, &self.host_edges)?;
                write_bvgraph(&dir, BVGRAPH_NAME, n, &self.host_edges)
            });
            let anchors = self.write_anchors(&dir.join("anchors.jsonl.gz"));
            let join = |h: std::thread::ScopedJoinHandle<'_, Result<u64, LinksError>>| {
                h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
            };
            let (pages, hosts) = (join(pages)?, join(hosts)?);
            anchors?;
            let mut summary = self.summary.clone();
            summary.page_bvgraph_bytes = pages;
            summary.host_bvgraph_bytes = hosts;
            Ok(summary)
        })
    }

    /// Each linked URL with its anchor rows, in vertex order.
    pub(crate) fn anchor_groups(&self) -> impl Iterator<Item = (&str, &[AnchorRow])> + '_ {
        self.anchors
            .chunk_by(|a, b| a.0 == b.0)
            .map(|g| (self.names.get(self.by_page[g[0].0 as usize]), g))
    }

    fn write_anchors(&self, path: &Path) -> Result<(), LinksError> {
        let mut out = GzWriter::create(path)?;
        let mut buf = Vec::new();
        for (url, group) in self.anchor_groups() {
            let line = AnchorLine {
                url,
                anchors: group.iter().map(|r| self.given(r)).collect(),
            };
            buf.clear();
            serde_json::to_writer(&mut buf, &line).expect("strings and numbers serialise");
            buf.push(b'\n');
            out.write(&buf)?;
        }
        out.commit()
    }
}

/// The SURT key of every name, with its index, made on `threads` threads in chunks.
fn surt_keys(names: &Strings, threads: usize) -> Vec<(String, u32)> {
    let threads = threads.clamp(1, 64);
    let n = names.len() as u32;
    let chunk = (n.div_ceil(threads as u32)).max(4096);
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..n)
            .step_by(chunk as usize)
            .map(|from| {
                s.spawn(move || {
                    (from..n.min(from + chunk))
                        .map(|i| (crawlsift_cdxj::surt::surt(names.get(i)), i))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The base name of the BVGraph of `pages/` and of `hosts/` (`graph.graph`, `graph.offsets`,
/// `graph.properties`, `graph.ef`).
pub const BVGRAPH_NAME: &str = "graph";

#[derive(Serialize)]
struct AnchorLine<'a> {
    url: &'a str,
    anchors: Vec<AnchorGiven<'a>>,
}

/// A gzipped text output written whole or not at all.
struct GzWriter {
    path: std::path::PathBuf,
    /// Lines are gathered before they reach the encoder: one small deflate call a line costs
    /// more than the compression itself.
    gz: BufWriter<GzEncoder<BufWriter<AtomicFile>>>,
}

impl GzWriter {
    fn create(path: &Path) -> Result<Self, LinksError> {
        let io = |e| LinksError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let f = AtomicFile::create(path).map_err(io)?;
        Ok(GzWriter {
            path: path.to_path_buf(),
            // Level 1: the graph's files are written once and read by tools that stream them;
            // stronger levels cost more time than the size they save is worth here.
            gz: BufWriter::with_capacity(
                1 << 18,
                GzEncoder::new(BufWriter::new(f), flate2::Compression::new(1)),
            ),
        })
    }

    fn write(&mut self, b: &[u8]) -> Result<(), LinksError> {
        self.gz.write_all(b).map_err(|e| self.error(e))
    }

    fn error(&self, e: std::io::Error) -> LinksError {
        LinksError::Io {
            path: self.path.clone(),
            source: e,
        }
    }

    fn commit(self) -> Result<(), LinksError> {
        let path = self.path.clone();
        let io = |e| LinksError::Io {
            path: path.clone(),
            source: e,
        };
        let gz = self.gz.into_inner().map_err(|e| io(e.into_error()))?;
        let buf = gz.finish().map_err(io)?;
        let f = buf.into_inner().map_err(|e| io(e.into_error()))?;
        f.commit().map_err(io)
    }
}

/// `dir/vertices.txt.gz` (`ID<TAB>NAME`) and `dir/edges.txt.gz` (`SRC<TAB>DST`).
fn write_layout<'a>(
    dir: &Path,
    names: impl Iterator<Item = &'a str>,
    edges: &[(u32, u32)],
) -> Result<(), LinksError> {
    let mut v = GzWriter::create(&dir.join("vertices.txt.gz"))?;
    let mut line = String::new();
    for (i, n) in names.enumerate() {
        use std::fmt::Write as _;
        line.clear();
        let _ = write!(line, "{i}\t");
        line.push_str(n);
        line.push('\n');
        v.write(line.as_bytes())?;
    }
    v.commit()?;
    let mut e = GzWriter::create(&dir.join("edges.txt.gz"))?;
    for (s, d) in edges {
        use std::fmt::Write as _;
        line.clear();
        let _ = writeln!(line, "{s}\t{d}");
        e.write(line.as_bytes())?;
    }
    e.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(p: &Path) -> String {
        let mut s = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    fn link(url: &'static str, text: &'static str) -> Link<'static> {
        Link {
            url,
            text,
            nofollow: false,
        }
    }

    #[test]
    fn pages_hosts_and_anchors_in_cc_webgraph_layout() {
        let mut g = GraphBuilder::new();
        g.add_page(
            "http://www.b.example/",
            [
                link("http://a.example/x", "Read A"),
                link("http://www.b.example/two", "next"),
                link("http://www.b.example/", "home"),
                link("http://a.example/x", "Read A"),
            ],
        )
        .unwrap();
        g.add_page(
            "http://a.example/x",
            [
                link("http://www.b.example/", "B"),
                link("http://c.example/", ""),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let s = g.finish(1).write(dir.path()).unwrap();
        assert_eq!((s.pages, s.links, s.vertices, s.edges), (2, 6, 4, 4));
        assert_eq!((s.hosts, s.host_edges), (3, 3));
        // SURT order: a.example, b.example (www stripped by SURT), then c.example.
        assert_eq!(
            gunzip(&dir.path().join("pages/vertices.txt.gz")),
            "0\thttp://a.example/x\n1\thttp://www.b.example/\n2\thttp://www.b.example/two\n\
             3\thttp://c.example/\n"
                .replace("\n             ", "\n")
        );
        assert_eq!(
            gunzip(&dir.path().join("pages/edges.txt.gz")),
            "0\t1\n0\t3\n1\t0\n1\t2\n"
        );
        assert_eq!(
            gunzip(&dir.path().join("hosts/vertices.txt.gz")),
            "0\texample.a\n1\texample.b\n2\texample.c\n"
        );
        assert_eq!(
            gunzip(&dir.path().join("hosts/edges.txt.gz")),
            "0\t1\n0\t2\n1\t0\n"
        );
        let anchors = gunzip(&dir.path().join("anchors.jsonl.gz"));
        let lines: Vec<&str> = anchors.lines().collect();
        assert_eq!(
            lines[0],
            r#"{"url":"http://a.example/x","anchors":[{"text":"Read A","other_hosts":2,"same_host":0}]}"#
        );
        assert_eq!(
            lines[1],
            r#"{"url":"http://www.b.example/","anchors":[{"text":"B","other_hosts":1,"same_host":0},{"text":"home","other_hosts":0,"same_host":1}]}"#
        );
        assert_eq!(lines.len(), 3);
    }
}
