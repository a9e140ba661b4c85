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
//! Memory, all held until written: each distinct URL (its text once and some 40 bytes), 8 bytes
//! an edge, each distinct (target, anchor text) pair (its text and some 50 bytes). A crawl's graph
//! larger than memory (edges spilled in sorted runs) is not done yet.

use hashbrown::{HashMap, HashTable};
use std::io::{BufWriter, Write};
use std::path::Path;

use crawlsift_common::fs::AtomicFile;
use flate2::write::GzEncoder;
use serde::Serialize;

use crate::resolve::host_key;
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
}

/// The graphs being gathered.
#[derive(Default)]
pub struct GraphBuilder {
    /// URL ids, looked up by the URL's text in `names` (each URL held once).
    ids: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    names: Vec<String>,
    /// Host id of each URL id.
    url_host: Vec<u32>,
    hosts: HashMap<String, u32>,
    host_names: Vec<String>,
    edges: Vec<(u32, u32)>,
    /// (target, text) → links from other hosts, from the same host.
    anchors: HashMap<(u32, String), [u64; 2]>,
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
        if let Some(&id) = self.ids.find(hash, |&i| names[i as usize] == url) {
            return Ok(id);
        }
        let id = u32::try_from(self.names.len()).map_err(|_| LinksError::TooManyVertices)?;
        let host = host_key(url).unwrap_or_default();
        let next = self.host_names.len() as u32;
        let h = *self.hosts.entry(host.clone()).or_insert(next);
        if h == next {
            self.host_names.push(host);
        }
        let (names, hasher) = (&self.names, &self.hasher);
        self.ids
            .insert_unique(hash, id, |&i| hasher.hash_one(&names[i as usize]));
        self.names.push(url.to_string());
        self.url_host.push(h);
        Ok(id)
    }

    /// Adds a page (its normalised URL) and its links.
    pub fn add_page<'a>(
        &mut self,
        page_url: &str,
        links: impl IntoIterator<Item = Link<'a>>,
    ) -> Result<(), LinksError> {
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
            if !text.is_empty() {
                let same = self.url_host[src as usize] == self.url_host[dst as usize];
                let key = AnchorKey(dst, text);
                match self.anchors.get_mut(&key) {
                    Some(n) => n[usize::from(same)] += 1,
                    None => {
                        let mut n = [0u64; 2];
                        n[usize::from(same)] = 1;
                        self.anchors.insert((dst, text.to_string()), n);
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes `dir/pages/`, `dir/hosts/` and `dir/anchors.jsonl.gz` (each file whole or not at
    /// all) and says what they hold.
    pub fn write(self, dir: &Path) -> Result<GraphSummary, LinksError> {
        let GraphBuilder {
            names,
            url_host,
            host_names,
            edges,
            anchors,
            mut summary,
            ..
        } = self;
        // Pages in SURT order.
        let mut order: Vec<(String, u32)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (crawlsift_cdxj::surt::surt(n), i as u32))
            .collect();
        order.sort_unstable_by(|a, b| {
            (&a.0, &names[a.1 as usize]).cmp(&(&b.0, &names[b.1 as usize]))
        });
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
        write_layout(
            &dir.join("pages"),
            by_page.iter().map(|&old| names[old as usize].as_str()),
            &page_edges,
        )?;
        write_layout(
            &dir.join("hosts"),
            host_order
                .iter()
                .map(|&old| host_names[old as usize].as_str()),
            &host_edges,
        )?;
        summary.vertices = names.len() as u64;
        summary.edges = page_edges.len() as u64;
        summary.hosts = host_names.len() as u64;
        summary.host_edges = host_edges.len() as u64;
        summary.anchor_texts = anchors.len() as u64;
        // Anchors by target (in vertex order), then most given first, then text.
        let mut rows: Vec<(u32, String, [u64; 2])> = anchors
            .into_iter()
            .map(|((t, text), n)| (page_id[t as usize], text, n))
            .collect();
        rows.sort_unstable_by(|a, b| {
            (a.0, std::cmp::Reverse(a.2[0] + a.2[1]), &a.1).cmp(&(
                b.0,
                std::cmp::Reverse(b.2[0] + b.2[1]),
                &b.1,
            ))
        });
        let path = dir.join("anchors.jsonl.gz");
        let mut out = GzWriter::create(&path)?;
        for group in rows.chunk_by(|a, b| a.0 == b.0) {
            let line = AnchorLine {
                url: &names[by_page[group[0].0 as usize] as usize],
                anchors: group
                    .iter()
                    .map(|(_, text, n)| AnchorCount {
                        text,
                        other_hosts: n[0],
                        same_host: n[1],
                    })
                    .collect(),
            };
            let mut s = serde_json::to_string(&line).expect("strings and numbers serialise");
            s.push('\n');
            out.write(s.as_bytes())?;
        }
        out.commit()?;
        Ok(summary)
    }
}

/// A (target, anchor text) key looked up without making its `String`: hashes as the tuple
/// `(u32, String)` does.
struct AnchorKey<'a>(u32, &'a str);

impl std::hash::Hash for AnchorKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
        self.1.hash(h);
    }
}

impl hashbrown::Equivalent<(u32, String)> for AnchorKey<'_> {
    fn equivalent(&self, key: &(u32, String)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

#[derive(Serialize)]
struct AnchorLine<'a> {
    url: &'a str,
    anchors: Vec<AnchorCount<'a>>,
}

#[derive(Serialize)]
struct AnchorCount<'a> {
    text: &'a str,
    other_hosts: u64,
    same_host: u64,
}

/// A gzipped text output written whole or not at all.
struct GzWriter {
    path: std::path::PathBuf,
    gz: GzEncoder<BufWriter<AtomicFile>>,
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
            gz: GzEncoder::new(BufWriter::new(f), flate2::Compression::new(1)),
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
        let buf = self.gz.finish().map_err(io)?;
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
        line.clear();
        line.push_str(&i.to_string());
        line.push('\t');
        line.push_str(n);
        line.push('\n');
        v.write(line.as_bytes())?;
    }
    v.commit()?;
    let mut e = GzWriter::create(&dir.join("edges.txt.gz"))?;
    for (s, d) in edges {
        e.write(format!("{s}\t{d}\n").as_bytes())?;
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
        let s = g.write(dir.path()).unwrap();
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
