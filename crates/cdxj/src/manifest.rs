//! `IDX/archives.jsonl`: the archives an index covers, one JSON line each
//! (`{"name", "size", "path"}`: the base name CDXJ lines give as `filename`, the size when indexed,
//! the absolute path), so `crawlsift get` can open the archive a line points into and `--append`
//! knows what is already indexed.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::error::CdxjError;
use crate::write::Atomic;

pub use crate::layout::MANIFEST;

/// One indexed archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive {
    /// Base name (the CDXJ `filename`).
    pub name: String,
    /// Size in bytes when it was indexed.
    pub size: u64,
    /// Absolute path.
    pub path: PathBuf,
}

/// The archives of an index, in the order they were added.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// The archives.
    pub archives: Vec<Archive>,
}

impl Manifest {
    /// Reads `dir/archives.jsonl`; an empty manifest when there is none.
    pub fn load(dir: &Path) -> Result<Manifest, CdxjError> {
        let path = dir.join(MANIFEST);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(e) => return Err(CdxjError::io(&path, e)),
        };
        let mut archives = Vec::new();
        let mut offset = 0u64;
        for line in text.split_inclusive('\n') {
            let l = line.trim();
            if !l.is_empty() {
                let bad = |m: &str| CdxjError::damaged(&path, offset, m);
                let v: serde_json::Value =
                    serde_json::from_str(l).map_err(|e| bad(&format!("bad JSON: {e}")))?;
                archives.push(Archive {
                    name: v["name"]
                        .as_str()
                        .ok_or_else(|| bad("no name"))?
                        .to_string(),
                    size: v["size"].as_u64().ok_or_else(|| bad("no size"))?,
                    path: PathBuf::from(v["path"].as_str().ok_or_else(|| bad("no path"))?),
                });
            }
            offset += line.len() as u64;
        }
        Ok(Manifest { archives })
    }

    /// Writes `dir/archives.jsonl` atomically.
    pub fn save(&self, dir: &Path) -> Result<(), CdxjError> {
        let mut f = Atomic::create(&dir.join(MANIFEST))?;
        for a in &self.archives {
            let line = json!({"name": a.name, "size": a.size, "path": a.path.to_string_lossy()});
            f.write(format!("{line}\n").as_bytes())?;
        }
        f.commit()
    }

    /// The archive a CDXJ line's `filename` names.
    pub fn find(&self, name: &str) -> Option<&Archive> {
        self.archives.iter().find(|a| a.name == name)
    }
}
