/*!
The web graph of a crawl (issue #37): the links of its pages ([`crawlsift_extractor::links`]
reads them from the HTML, the pipeline adds HTTP redirects) resolved against each page's URL and
`<base>` and normalised ([`resolve`]), gathered into the page graph and the host graph with the
anchor text each URL is given ([`graph::GraphBuilder`]), and written in Common Crawl's
cc-webgraph layout: `vertices.txt.gz` (`ID<TAB>NAME`, ids from 0 in name order) and
`edges.txt.gz` (`SRC<TAB>DST`, sorted, no duplicates), gzipped text, for the pages under
`pages/` and for the hosts (reversed host names, `www.` stripped) under `hosts/`; and
`anchors.jsonl.gz`, each linked URL with its incoming anchor texts and how many links gave each,
from other hosts and from the page's own host apart; and the anchor files an index keeps and
looks URLs up in ([`anchor_file`]).

[`crawlsift_extractor::links`]: https://docs.rs/crawlsift-extractor
*/

#![deny(missing_docs)]

pub mod anchor_file;
pub mod bvgraph;
pub mod graph;
pub mod resolve;
pub mod strings;

use std::path::PathBuf;

use thiserror::Error;

pub use graph::{AnchorGiven, Graph, GraphBuilder, GraphSummary, Link};
pub use resolve::{host_key, normalise, page_base, resolve};

/// What can go wrong writing a graph.
#[derive(Debug, Error)]
pub enum LinksError {
    /// Writing an output failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An anchor file that breaks its layout ([`anchor_file`]).
    #[error("{}: byte {offset}: {what}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Where.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// More vertices than 32-bit ids hold.
    #[error("more than 4,294,967,295 vertices")]
    TooManyVertices,
}
