//! A page's links as a worker reads them ([`page_links`]) and their gathering into the web graph
//! in input order ([`LinkGatherer`]), for `crawlsift links` and `dedup --links` alike.
//!
//! Every HTTP response read is a page: an HTML one (a `Content-Type` naming HTML, or none and a
//! body that starts like markup) gives its links ([`crawlsift_extractor::links`]: `<a href>` with
//! anchor text, `<link rel=canonical>`, meta refresh), a redirect (3xx) the target of its
//! `Location` header; each is resolved against the page's URL and `<base>` and normalised
//! ([`crawlsift_links::resolve`]).

use crawlsift_extractor::charset::{charset_param, decode};
use crawlsift_extractor::links::{links_of, LinkKind, PageLinks as RawLinks};
use crawlsift_extractor::CharsetMode;
use crawlsift_links::{normalise, page_base, resolve, Graph, GraphBuilder, GraphSummary, Link};
use crawlsift_reader::Record;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crawlsift_common::limits::LINKS_QUEUE_CAP;

/// A page's links as a worker leaves them (and a checkpoint keeps them). Their strings are held
/// in one buffer: a page has a hundred links, and a string each, allocated on a worker and freed
/// on the collector, cost more than the graph itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLinks {
    /// The page's URL, normalised.
    pub url: String,
    /// The links' targets and anchor texts, one after another.
    strings: String,
    /// Per link, in page order: where its target and its anchor text end in `strings`, and
    /// whether it is `nofollow`.
    ends: Vec<(u32, u32, bool)>,
    /// Whether the page is a redirect (its one link is the `Location`).
    pub redirect: bool,
    /// Hrefs that name no `http(s)` resource or do not resolve.
    pub unresolved: u64,
}

impl PageLinks {
    pub(crate) fn new(url: String) -> Self {
        PageLinks {
            url,
            strings: String::new(),
            ends: Vec::new(),
            redirect: false,
            unresolved: 0,
        }
    }

    /// Adds a link; one that would take the buffer past 4 GiB is not kept (no page gives that
    /// much: links and their texts are bounded per page by the extractor).
    pub(crate) fn push(&mut self, target: &str, text: &str, nofollow: bool) {
        let Ok(url_end) = u32::try_from(self.strings.len() + target.len()) else {
            return;
        };
        let Ok(text_end) = u32::try_from(url_end as usize + text.len()) else {
            return;
        };
        self.strings.push_str(target);
        self.strings.push_str(text);
        self.ends.push((url_end, text_end, nofollow));
    }

    /// The links, in page order.
    pub fn links(&self) -> impl Iterator<Item = Link<'_>> {
        let mut start = 0usize;
        self.ends.iter().map(move |&(url_end, text_end, nofollow)| {
            let (u, t) = (url_end as usize, text_end as usize);
            let link = Link {
                url: self.strings.get(start..u).unwrap_or(""),
                text: self.strings.get(u..t).unwrap_or(""),
                nofollow,
            };
            start = t;
            link
        })
    }
}

/// The page of a record, if it is one (an HTTP response with a URL), and its resolved links.
/// `parsed` is what the extractor read of the same body in its own parse, when it parsed it as
/// HTML decoded as here ([`crawlsift_extractor::Extractor::take_links`] with
/// [`CharsetMode::Auto`]): the page is then not decoded and tokenised a second time.
pub fn page_links(rec: &Record, parsed: Option<RawLinks>) -> Option<PageLinks> {
    let resp = rec.http()?.ok()?;
    let base_url = page_base(rec.url.as_deref()?, None)?;
    let url = normalise(base_url.as_str())?;
    let mut out = PageLinks::new(url);
    if (300..400).contains(&resp.status) {
        if let Some(target) = resp.header("location").and_then(|l| resolve(&base_url, l)) {
            out.push(&target, "", false);
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
    let page = parsed.unwrap_or_else(|| {
        links_of(&decode(&resp.body, charset_param(ctype), CharsetMode::Auto).text)
    });
    let base = page_base(base_url.as_str(), page.base.as_deref())?;
    let bytes: usize = page.links.iter().map(|l| l.href.len() + l.text.len()).sum();
    out.strings.reserve(bytes + bytes / 4);
    out.ends.reserve(page.links.len());
    for l in page.links {
        match resolve(&base, &l.href) {
            Some(target) => {
                let text = if l.kind == LinkKind::Anchor {
                    l.text.as_str()
                } else {
                    ""
                };
                out.push(&target, text, l.nofollow);
            }
            None => out.unresolved += 1,
        }
    }
    Some(out)
}

/// The pages' links gathered in input order, and the counts of what was not an edge.
#[derive(Default)]
pub struct LinkGatherer {
    graph: GraphBuilder,
    /// Redirects (3xx responses with a `Location`) among the links.
    pub redirects: u64,
    /// Hrefs that name no `http(s)` resource or do not resolve.
    pub unresolved: u64,
}

impl LinkGatherer {
    /// Adds a page's links.
    pub fn add(&mut self, p: &PageLinks) -> Result<()> {
        self.redirects += u64::from(p.redirect);
        self.unresolved += p.unresolved;
        self.graph.add_page(&p.url, p.links()).map_err(links_error)
    }

    /// The finished graph ([`GraphBuilder::finish`] on `threads` threads).
    pub fn finish(self, threads: usize) -> FinishedLinks {
        FinishedLinks {
            graph: self.graph.finish(threads),
            redirects: self.redirects,
            unresolved: self.unresolved,
        }
    }
}

/// A [`LinkGatherer`] on a thread of its own, given the pages in input order through a bounded
/// channel: the interning of a crawl's URLs (a hash lookup a link) is serial work, and on the
/// collector's thread it would lengthen the read by as much.
pub struct LinkThread {
    tx: Option<crossbeam_channel::Sender<PageLinks>>,
    handle: Option<std::thread::JoinHandle<Result<LinkGatherer>>>,
}

impl LinkThread {
    /// Starts the thread.
    pub fn start() -> Result<Self> {
        let (tx, rx) = crossbeam_channel::bounded::<PageLinks>(LINKS_QUEUE_CAP);
        let handle = std::thread::Builder::new()
            .name("links".into())
            .spawn(move || {
                let mut g = LinkGatherer::default();
                for p in rx {
                    g.add(&p)?;
                }
                Ok(g)
            })
            .map_err(|e| Error::io("starting the thread that gathers the links", "links", e))?;
        Ok(LinkThread {
            tx: Some(tx),
            handle: Some(handle),
        })
    }

    /// Gives the thread the next page; the thread's error when it stopped on one.
    pub fn add(&mut self, p: PageLinks) -> Result<()> {
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(p).is_ok());
        if sent {
            return Ok(());
        }
        self.tx = None;
        match self.join() {
            Err(e) => Err(e),
            Ok(_) => Err(Error::failed("the links thread stopped")),
        }
    }

    /// Every page given: the gathered links.
    pub fn finish(mut self) -> Result<LinkGatherer> {
        self.tx = None;
        self.join()
    }

    fn join(&mut self) -> Result<LinkGatherer> {
        match self.handle.take() {
            Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            None => Err(Error::failed("the links thread stopped")),
        }
    }
}

impl Drop for LinkThread {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A gathered graph, numbered and ready to write.
pub struct FinishedLinks {
    /// The graph.
    pub graph: Graph,
    /// Redirects among the links.
    pub redirects: u64,
    /// Hrefs not resolved.
    pub unresolved: u64,
}

/// What was written of a graph, for `links-report.json` and `report.json`'s `links` section.
#[derive(Debug, Default, Clone, Serialize)]
pub struct LinksSummary {
    /// The graphs, as written.
    #[serde(flatten)]
    pub graph: GraphSummary,
    /// Redirects (3xx responses with a `Location`) among the links.
    pub redirects: u64,
    /// Hrefs that name no `http(s)` resource or do not resolve (`mailto:`, `javascript:`, ...).
    pub unresolved: u64,
}

impl FinishedLinks {
    /// Writes the graphs and the anchors into `dir` ([`Graph::write`]).
    pub fn write(&self, dir: &std::path::Path) -> Result<LinksSummary> {
        Ok(LinksSummary {
            graph: self.graph.write(dir).map_err(links_error)?,
            redirects: self.redirects,
            unresolved: self.unresolved,
        })
    }
}

/// The files a graph is written as, in its output folder: cc-webgraph's text layout and the
/// BVGraph of the page and the host graph, and the anchor texts.
pub const GRAPH_FILES: [&str; 13] = [
    "pages/vertices.txt.gz",
    "pages/edges.txt.gz",
    "pages/graph.graph",
    "pages/graph.offsets",
    "pages/graph.properties",
    "pages/graph.ef",
    "hosts/vertices.txt.gz",
    "hosts/edges.txt.gz",
    "hosts/graph.graph",
    "hosts/graph.offsets",
    "hosts/graph.properties",
    "hosts/graph.ef",
    "anchors.jsonl.gz",
];

fn links_error(e: crawlsift_links::LinksError) -> Error {
    Error::failed(e.to_string())
}
