//! What a dedup run keeps per record for `documents.jsonl.gz`: the record's identity, title,
//! fingerprint summary or skip reason ([`DocMeta`]), in input order, and where each document's
//! record is ([`Catalog`]). The collector ([`crate::collect`]) fills it; the writers
//! ([`crate::write`]) read it.

use crate::page::Origin;

/// A page's fingerprint as `documents.jsonl.gz` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FingerprintSummary {
    /// Normalized words.
    pub words: u32,
    /// Exact hash of the normalized text.
    pub exact: u128,
    /// SimHash.
    pub simhash: u64,
}

/// What the collector keeps per record for `documents.jsonl.gz`.
#[derive(Debug, Clone)]
pub struct DocMeta {
    /// The record's identity.
    pub origin: Origin,
    /// The page's title (empty for a skipped record).
    pub title: String,
    /// The page's fingerprint summary.
    pub fp: Option<FingerprintSummary>,
    /// Why the record gave no page.
    pub skipped: Option<String>,
    /// The page's document number (order of `Clusterer::add`).
    pub doc: Option<u32>,
}

impl DocMeta {
    /// Bytes of its strings.
    fn string_bytes(&self) -> usize {
        self.origin.id.capacity()
            + self.origin.url.as_ref().map_or(0, String::capacity)
            + self.title.capacity()
            + self.skipped.as_ref().map_or(0, String::capacity)
    }

    /// Bytes it holds in memory (itself and its strings).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.string_bytes()
    }
}

/// Per-record metadata in input order, and where each document's record is.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Every record with a line in `documents.jsonl.gz`, in input order.
    pub metas: Vec<DocMeta>,
    /// For document `d`, the index of its record in `metas`.
    pub docs: Vec<usize>,
}

impl Catalog {
    /// The record of document `doc`.
    pub fn doc(&self, doc: u32) -> &DocMeta {
        &self.metas[self.docs[doc as usize]]
    }

    /// Documents (pages given to the clusterer).
    pub fn documents(&self) -> usize {
        self.docs.len()
    }

    /// Bytes this catalog holds in memory (its vectors and every record's strings), for
    /// accounting where a run's memory goes.
    pub fn memory_bytes(&self) -> usize {
        let strings: usize = self.metas.iter().map(DocMeta::string_bytes).sum();
        self.metas.capacity() * std::mem::size_of::<DocMeta>()
            + self.docs.capacity() * std::mem::size_of::<usize>()
            + strings
    }
}
