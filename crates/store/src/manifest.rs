//! The manifest of an index (`IDX/fp/manifest.json`): its settings and its segments in order,
//! each with the inputs it covers (absolute path, size and a content identity), so `--append`
//! skips inputs already indexed. It is written last, whole or not at all: an index is what its
//! manifest lists.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crawlsift_common::fs::AtomicFile;
use crawlsift_dedup::DedupConfig;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Result, StoreError};

/// File name of the manifest inside `IDX/fp/`.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The `format` field of a manifest.
pub const FORMAT: &str = "crawlsift-fingerprint-index";
/// Bytes read at each end of an input for its content identity.
const IDENTITY_EDGE: u64 = 1 << 20;

/// One input an index covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputEntry {
    /// Absolute path when indexed (or `-` for standard input).
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// XXH3-128 of the size and the first and last MiB (hex): the same file moved keeps it, a
    /// changed one loses it.
    pub identity: String,
}

/// One segment of an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    /// Its name (files `NAME.fp` and `NAME.prof`).
    pub name: String,
    /// Its rows.
    pub documents: u64,
    /// The inputs whose documents it holds.
    pub inputs: Vec<InputEntry>,
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Layout version ([`crate::file::VERSION`]).
    pub version: u32,
    /// The settings every segment was made with and the clusters were found with.
    pub config: DedupConfig,
    /// Segments in document order.
    pub segments: Vec<SegmentEntry>,
}

impl Manifest {
    /// An empty index made with `config`.
    pub fn new(config: DedupConfig) -> Self {
        Manifest {
            format: FORMAT.into(),
            version: crate::file::VERSION,
            config,
            segments: Vec::new(),
        }
    }

    /// Reads the manifest of the fingerprint folder `dir`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = std::fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        let m: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| StoreError::damaged(&path, e.column() as u64, e.to_string()))?;
        if m.format != FORMAT || m.version != crate::file::VERSION {
            return Err(StoreError::damaged(
                &path,
                0,
                format!(
                    "format {} version {}, not this crawlsift's",
                    m.format, m.version
                ),
            ));
        }
        Ok(m)
    }

    /// Writes it into `dir` ([`AtomicFile`]: temporary name, fsync, rename, folder fsync; the
    /// temporary removed on error).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(MANIFEST_FILE);
        let io = |e| StoreError::io(&path, e);
        let mut json =
            serde_json::to_vec_pretty(self).map_err(|e| StoreError::Invalid(e.to_string()))?;
        json.push(b'\n');
        let mut f = AtomicFile::create(&path).map_err(io)?;
        f.write_all(&json).map_err(io)?;
        f.commit().map_err(io)
    }

    /// Documents over all segments.
    pub fn documents(&self) -> u64 {
        self.segments.iter().map(|s| s.documents).sum()
    }

    /// Whether an input with this identity is already indexed.
    pub fn covers(&self, identity: &str) -> bool {
        self.segments
            .iter()
            .any(|s| s.inputs.iter().any(|i| i.identity == identity))
    }

    /// The name of the next segment.
    pub fn next_name(&self) -> String {
        format!("seg-{:06}", self.segments.len())
    }
}

/// The content identity of the file at `path` and its size.
pub fn content_identity(path: &Path) -> Result<(u64, String)> {
    let io = |e| StoreError::io(path, e);
    let mut f = std::fs::File::open(path).map_err(io)?;
    let size = f.metadata().map_err(io)?.len();
    let mut h = Xxh3::new();
    h.update(&size.to_le_bytes());
    let mut buf = vec![0u8; IDENTITY_EDGE.min(size) as usize];
    f.read_exact(&mut buf).map_err(io)?;
    h.update(&buf);
    if size > IDENTITY_EDGE {
        let tail = IDENTITY_EDGE.min(size - IDENTITY_EDGE);
        f.seek(SeekFrom::Start(size - tail)).map_err(io)?;
        buf.resize(tail as usize, 0);
        f.read_exact(&mut buf).map_err(io)?;
        h.update(&buf);
    }
    Ok((size, format!("{:032x}", h.digest128())))
}

/// Which fingerprint setting differs between `a` and `b` (the ones that make fingerprints and
/// band tables: signatures, bands and blocks), if any.
pub fn fingerprint_settings_differ(a: &DedupConfig, b: &DedupConfig) -> Option<String> {
    let pairs: [(&str, String, String); 6] = [
        (
            "shingle_words",
            a.shingle_words.to_string(),
            b.shingle_words.to_string(),
        ),
        (
            "minhash_perms",
            a.minhash_perms.to_string(),
            b.minhash_perms.to_string(),
        ),
        (
            "lsh_bands",
            a.lsh_bands.to_string(),
            b.lsh_bands.to_string(),
        ),
        ("lsh_rows", a.lsh_rows.to_string(), b.lsh_rows.to_string()),
        (
            "simhash_max_hamming",
            a.simhash_max_hamming.to_string(),
            b.simhash_max_hamming.to_string(),
        ),
        (
            "min_jaccard",
            a.min_jaccard.to_string(),
            b.min_jaccard.to_string(),
        ),
    ];
    pairs
        .into_iter()
        .find(|(_, x, y)| x != y)
        .map(|(name, x, y)| format!("{name} {x}, asked for {y}"))
}
