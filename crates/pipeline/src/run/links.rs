//! `links` ([`run`]): the web graph of the inputs. Every HTTP response read is a page: an HTML
//! one (a `Content-Type` naming HTML, or none and a body that starts like markup) gives its
//! links ([`crawlsift_extractor::links`]: `<a href>` with anchor text, `<link rel=canonical>`,
//! meta refresh), a redirect (3xx) the target of its `Location` header; each is resolved against
//! the page's URL and `<base>` and normalised ([`crawlsift_links::resolve`]). The workers read the
//! pages; the links are gathered in input order ([`GraphBuilder`]) and written as the page and host
//! graphs in cc-webgraph's layout and `anchors.jsonl.gz`, the same bytes for any thread count.

use std::path::PathBuf;

use crawlsift_extractor::charset::{charset_param, decode};
use crawlsift_extractor::links::{links_of, LinkKind};
use crawlsift_extractor::CharsetMode;
use crawlsift_links::{page_base, resolve, GraphBuilder, GraphSummary, Link};
use crawlsift_reader::{ReaderConfig, Record};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::output;

/// What a `links` run is asked to do.
#[derive(Debug, Clone)]
pub struct LinksRequest {
    /// Archive files or directories; `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Overwrite the outputs of an earlier run.
    pub force: bool,
}

/// What a `links` run did.
#[derive(Debug, Default, Serialize)]
pub struct LinksOutcome {
    /// The graphs, as written.
    #[serde(flatten)]
    pub graph: GraphSummary,
    /// Redirects (3xx responses with a `Location`) among the links.
    pub redirects: u64,
    /// Hrefs that name no `http(s)` resource or do not resolve (`mailto:`, `javascript:`, ...).
    pub unresolved: u64,
    /// How the reading went.
    #[serde(skip)]
    pub tally: ReadTally,
}

impl LinksOutcome {
    /// The summary line.
    pub fn summary(&self) -> String {
        let g = &self.graph;
        format!(
            "{} pages, {} links ({} nofollow, {} redirects, {} hrefs not resolved): page graph \
             {} vertices and {} edges, host graph {} and {}; {} anchor texts",
            g.pages,
            g.links,
            g.nofollow,
            self.redirects,
            self.unresolved,
            g.vertices,
            g.edges,
            g.hosts,
            g.host_edges,
            g.anchor_texts
        )
    }
}

/// The files of a `links` run in its output folder.
pub const LINKS_OUTPUTS: [&str; 6] = [
    "pages/vertices.txt.gz",
    "pages/edges.txt.gz",
    "hosts/vertices.txt.gz",
    "hosts/edges.txt.gz",
    "anchors.jsonl.gz",
    "links-report.json",
];

/// A page's links as a worker leaves them: its URL and (target, anchor text, nofollow).
struct PageOut {
    url: String,
    links: Vec<(String, String, bool)>,
    redirect: bool,
    unresolved: u64,
}

/// The page of a record, if it is one, and its resolved links.
fn page_links(rec: &Record) -> Option<PageOut> {
    let resp = rec.http()?.ok()?;
    let base_url = page_base(rec.url.as_deref()?, None)?;
    let url = resolve(&base_url, base_url.as_str())?;
    let mut out = PageOut {
        url,
        links: Vec::new(),
        redirect: false,
        unresolved: 0,
    };
    if (300..400).contains(&resp.status) {
        if let Some(target) = resp.header("location").and_then(|l| resolve(&base_url, l)) {
            out.links.push((target, String::new(), false));
            out.redirect = true;
        }
        return Some(out);
    }
    let ctype = resp.header("content-type").unwrap_or("");
    let html = if ctype.is_empty() {
        resp.body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
    } else {
        ctype.to_ascii_lowercase().contains("html")
    };
    if !html || resp.status != 200 {
        return Some(out);
    }
    let text = decode(&resp.body, charset_param(ctype), CharsetMode::Auto).text;
    let page = links_of(&text);
    let base = page_base(base_url.as_str(), page.base.as_deref())?;
    for l in page.links {
        match resolve(&base, &l.href) {
            Some(target) => {
                let text = if l.kind == LinkKind::Anchor {
                    l.text
                } else {
                    String::new()
                };
                out.links.push((target, text, l.nofollow));
            }
            None => out.unresolved += 1,
        }
    }
    Some(out)
}

/// Reads every input and writes its graphs into `req.out` (see the module doc).
pub fn run(req: &LinksRequest, hooks: &Hooks<'_>) -> Result<LinksOutcome> {
    let inputs = InputSet::expand(&req.inputs)?;
    output::writable_dir(&req.out)?;
    output::refuse_existing(LINKS_OUTPUTS.map(|f| req.out.join(f)), req.force)?;
    let cfg = ReaderConfig {
        threads: req.threads,
        ..ReaderConfig::default()
    };
    hooks.progress.start(inputs.total_bytes());
    let map = |_: &mut (), batch: Vec<Record>| {
        let last = batch.last().map(|r| (r.pos.file, r.read_to));
        (
            batch.iter().filter_map(page_links).collect::<Vec<_>>(),
            last,
        )
    };
    let mut graph = GraphBuilder::new();
    let mut done = LinksOutcome::default();
    let set = &inputs;
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "links",
        || (),
        map,
        |(pages, last): (Vec<PageOut>, Option<(u32, u64)>)| -> Result<()> {
            for p in pages {
                done.redirects += u64::from(p.redirect);
                done.unresolved += p.unresolved;
                let links = p.links.iter().map(|(url, text, nofollow)| Link {
                    url,
                    text,
                    nofollow: *nofollow,
                });
                graph.add_page(&p.url, links).map_err(links_error)?;
            }
            if let Some((file, read_to)) = last {
                hooks
                    .progress
                    .update(set.bytes_before(file) + read_to, graph.pages());
            }
            Ok(())
        },
    )?;
    hooks.progress.finish();
    done.tally = inputs.tally(&reports, true);
    if (hooks.cancelled)() {
        return Ok(done);
    }
    done.graph = graph.write(&req.out).map_err(links_error)?;
    let mut f = output::AtomicFile::create(&req.out.join("links-report.json"))?;
    serde_json::to_writer_pretty(&mut f, &done)?;
    std::io::Write::write_all(&mut f, b"\n").map_err(|e| Error::io("writing", &req.out, e))?;
    f.commit()?;
    Ok(done)
}

fn links_error(e: crawlsift_links::LinksError) -> Error {
    Error::failed(e.to_string())
}
