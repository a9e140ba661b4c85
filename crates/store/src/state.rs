//! What the clustering over all segments decided (`IDX/fp/state.bin`), rewritten whenever the
//! index is clustered again: per document its flags and cluster, and the site template lines,
//! so a search compares words exactly as clustering did.
//!
//! Sections (after the shared header, [`crate::file`]):
//! 0. flags, one byte per document in index order: bit 0 too short, bit 1 mostly template text;
//! 1. cluster, u32 per document (`u32::MAX`: in no cluster);
//! 2. template line hashes, u64 each, sorted.

use std::path::Path;

use crawlsift_common::limits::STORE_TEMPLATE_TABLE_READ_BYTES;
use crawlsift_dedup::{Clustering, DedupConfig};

use crate::error::Result;
use crate::file::{le64, write_file, Access, StoreFile};

/// Magic of a state file.
pub const MAGIC: &[u8; 8] = b"CSFPSTA\0";
/// File name inside `IDX/fp/`.
pub const STATE_FILE: &str = "state.bin";
const SECTIONS: usize = 3;
/// Flag: too short to judge.
pub const TOO_SHORT: u8 = 1;
/// Flag: mostly template text.
pub const BOILERPLATE: u8 = 2;
const NO_CLUSTER: u32 = u32::MAX;

/// The state of an index, opened without a load step (its template lines read whole when few).
#[derive(Debug)]
pub struct State {
    file: StoreFile,
    /// The template lines, when read whole (sorted).
    templates: Option<Vec<u64>>,
}

impl State {
    /// Opens `dir/state.bin`, which must describe `docs` documents.
    pub fn open(dir: &Path, docs: u64, access: Access) -> Result<Self> {
        let file = StoreFile::open_as(&dir.join(STATE_FILE), MAGIC, SECTIONS, access)?;
        if file.docs() != docs {
            return Err(file.damaged(
                16,
                format!("{} documents, the segments hold {docs}", file.docs()),
            ));
        }
        let n = usize::try_from(docs).map_err(|_| file.damaged(16, "too many documents"))?;
        file.section(0).expect_len(n, "flags")?;
        file.section(1)
            .expect_len(n.saturating_mul(4), "clusters")?;
        if file.section(2).len() % 8 != 0 {
            return Err(file.section(2).damaged(0, "template table not whole u64s"));
        }
        // Every line of every profile a search compares is looked up here: read the table
        // once when it is small, rather than a read per step of each lookup.
        let t = file.section(2);
        let templates = if t.len() <= STORE_TEMPLATE_TABLE_READ_BYTES {
            let b = t.slice(0, t.len())?;
            Some(b.chunks_exact(8).map(|c| le64(c, 0)).collect())
        } else {
            None
        };
        Ok(State { file, templates })
    }

    /// The mapped file.
    pub fn file(&self) -> &StoreFile {
        &self.file
    }

    /// Flags of document `d` (index order).
    pub fn flags(&self, d: u64) -> Result<u8> {
        Ok(self.file.section(0).slice(d as usize, 1)?[0])
    }

    /// Cluster of document `d`, if any.
    pub fn cluster(&self, d: u64) -> Result<Option<u32>> {
        let c = self.file.section(1).u32(d as usize * 4)?;
        Ok((c != NO_CLUSTER).then_some(c))
    }

    /// Whether a line (its hash) is site template text.
    pub fn is_template(&self, line: u64) -> Result<bool> {
        if let Some(t) = &self.templates {
            return Ok(t.binary_search(&line).is_ok());
        }
        let t = self.file.section(2);
        let (mut lo, mut hi) = (0usize, t.len() / 8);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let v = t.u64(mid * 8)?;
            match v.cmp(&line) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(true),
            }
        }
        Ok(false)
    }

    /// Template lines.
    pub fn template_lines(&self) -> usize {
        self.file.section(2).len() / 8
    }
}

/// Writes the state of `docs` documents clustered into `c` with templates `templates` (sorted).
pub fn write_state(
    dir: &Path,
    cfg: &DedupConfig,
    docs: usize,
    c: &Clustering,
    templates: &[u64],
) -> Result<()> {
    let mut flags = vec![0u8; docs];
    for &d in &c.too_short {
        if let Some(f) = flags.get_mut(d as usize) {
            *f |= TOO_SHORT;
        }
    }
    for &d in &c.boilerplate {
        if let Some(f) = flags.get_mut(d as usize) {
            *f |= BOILERPLATE;
        }
    }
    let clusters: Vec<u8> = c
        .assignments(docs)
        .into_iter()
        .flat_map(|a| a.unwrap_or(NO_CLUSTER).to_le_bytes())
        .collect();
    let lines: Vec<u8> = templates.iter().flat_map(|h| h.to_le_bytes()).collect();
    write_file(
        &dir.join(STATE_FILE),
        MAGIC,
        docs as u64,
        cfg,
        &[&flags, &clusters, &lines],
    )
}
