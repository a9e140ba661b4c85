//! Merging segments built apart (shards, days of crawling) into one: rows in the order given,
//! each source's inputs appended to the merged input list, band and URL tables built again. The
//! result is the segment a single build over the same documents would have written.

use std::path::Path;

use crawlsift_dedup::Fingerprint;

use crate::error::{Result, StoreError};
use crate::manifest::{fingerprint_settings_differ, InputEntry};
use crate::segment::{write_segment, DocIn, Segment};

/// Writes segment `name` into `dir` holding every row of `sources`, in order. Each source's body
/// checksums are checked first; all must have been made with the same settings.
pub fn merge_segments(sources: &[&Segment], dir: &Path, name: &str) -> Result<()> {
    let Some(first) = sources.first() else {
        return Err(StoreError::Invalid("no segment to merge".into()));
    };
    let cfg = first.config().clone();
    let mut inputs: Vec<InputEntry> = Vec::new();
    let mut owned: Vec<(Fingerprint, String, Option<String>, u32, u64, u32)> = Vec::new();
    for s in sources {
        s.verify()?;
        if let Some(what) = fingerprint_settings_differ(&cfg, s.config()) {
            return Err(StoreError::OtherConfig {
                path: dir.join(s.name()),
                what,
            });
        }
        let base = inputs.len() as u32;
        inputs.extend_from_slice(s.inputs());
        let sigs = s.signatures()?;
        for r in 0..s.docs() {
            let row = s.row(r)?;
            let (id, url, file, offset, index) = (
                row.id.to_string(),
                row.url.map(|u| u.into_owned()),
                base + row.file,
                row.offset,
                row.index,
            );
            owned.push((s.fingerprint_with(r, &sigs)?, id, url, file, offset, index));
        }
    }
    let docs: Vec<DocIn<'_>> = owned
        .iter()
        .map(|(fp, id, url, file, offset, index)| DocIn {
            fp,
            id,
            url: url.as_deref(),
            file: *file,
            offset: *offset,
            index: *index,
        })
        .collect();
    write_segment(dir, name, &cfg, &inputs, &docs)
}
