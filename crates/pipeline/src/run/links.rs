//! `links` ([`run`]): the web graph of the inputs. The workers read each page's links
//! ([`crate::links::page_links`]); they are gathered in input order ([`LinkGatherer`]) and written
//! as the page and host graphs in cc-webgraph's layout and `anchors.jsonl.gz`, the same bytes for
//! any thread count.

use std::path::PathBuf;

use crawlsift_reader::{ReaderConfig, Record};
use serde::Serialize;

use super::Hooks;
use crate::error::{Error, Result};
use crate::flow::inputs::{InputSet, ReadTally};
use crate::flow::map_inputs;
use crate::links::{page_links, LinkThread, LinksSummary, PageLinks, GRAPH_FILES};
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
    /// The graphs, as written, and what was not an edge.
    #[serde(flatten)]
    pub links: LinksSummary,
    /// How the reading went.
    #[serde(skip)]
    pub tally: ReadTally,
}

impl LinksOutcome {
    /// The summary line.
    pub fn summary(&self) -> String {
        let g = &self.links.graph;
        format!(
            "{} pages, {} links ({} nofollow, {} redirects, {} hrefs not resolved): page graph \
             {} vertices and {} edges, host graph {} and {}; {} anchor texts",
            g.pages,
            g.links,
            g.nofollow,
            self.links.redirects,
            self.links.unresolved,
            g.vertices,
            g.edges,
            g.hosts,
            g.host_edges,
            g.anchor_texts
        )
    }
}

/// The report of a `links` run in its output folder.
pub const LINKS_REPORT: &str = "links-report.json";

/// Reads every input and writes its graphs into `req.out` (see the module doc).
pub fn run(req: &LinksRequest, hooks: &Hooks<'_>) -> Result<LinksOutcome> {
    let inputs = InputSet::expand(&req.inputs)?;
    output::writable_dir(&req.out)?;
    let outputs = GRAPH_FILES.iter().chain([&LINKS_REPORT]);
    output::refuse_existing(outputs.map(|f| req.out.join(f)), req.force)?;
    let cfg = ReaderConfig {
        threads: req.threads,
        ..ReaderConfig::default()
    };
    hooks.progress.start(inputs.total_bytes());
    let map = |_: &mut (), batch: Vec<Record>| {
        let last = batch.last().map(|r| (r.pos.file, r.read_to));
        (
            batch
                .iter()
                .filter_map(|r| page_links(r, None))
                .collect::<Vec<_>>(),
            last,
        )
    };
    let mut graph = LinkThread::start()?;
    let mut pages_done = 0u64;
    let mut done = LinksOutcome::default();
    let set = &inputs;
    let reports = map_inputs(
        &inputs,
        &cfg,
        hooks.cancelled,
        "links",
        || (),
        map,
        |(pages, last): (Vec<PageLinks>, Option<(u32, u64)>)| -> Result<()> {
            pages_done += pages.len() as u64;
            for p in pages {
                graph.add(p)?;
            }
            if let Some((file, read_to)) = last {
                hooks
                    .progress
                    .update(set.bytes_before(file) + read_to, pages_done);
            }
            Ok(())
        },
    )?;
    hooks.progress.finish();
    done.tally = inputs.tally(&reports, true);
    if (hooks.cancelled)() {
        return Ok(done);
    }
    done.links = graph.finish()?.finish(req.threads).write(&req.out)?;
    let mut f = output::AtomicFile::create(&req.out.join(LINKS_REPORT))?;
    serde_json::to_writer_pretty(&mut f, &done)?;
    std::io::Write::write_all(&mut f, b"\n").map_err(|e| Error::io("writing", &req.out, e))?;
    f.commit()?;
    Ok(done)
}
