//! The word profiles of a segment (`NAME.prof`): what verification compares, kept apart from the
//! fingerprints so the size of each is known and a search touches only the profiles it verifies.
//!
//! Sections (after the shared header, see [`crate::file`]):
//! 0. index, 24 bytes per row: first word (u64), first line (u64), words (u32), lines (u32);
//! 1. words, u32 each (the 32-bit word hashes, in text order);
//! 2. line hashes, u64 each;
//! 3. line ends, u32 each (words before the end of the line).

use std::path::Path;

use crawlsift_dedup::profile::{Line, WordProfile};
use crawlsift_dedup::DedupConfig;

use crate::error::Result;
use crate::file::{write_file_with, Access, StoreFile};

/// Magic of a profiles file.
pub const MAGIC: &[u8; 8] = b"CSFPPRO\0";
const SECTIONS: usize = 4;
const INDEX_ROW: usize = 24;

/// A segment's word profiles, opened with no load step.
#[derive(Debug)]
pub struct Profiles {
    file: StoreFile,
}

impl Profiles {
    /// Opens and checks the header of `path`, which must describe `docs` rows.
    pub fn open(path: &Path, docs: u64, access: Access) -> Result<Self> {
        let file = StoreFile::open_as(path, MAGIC, SECTIONS, access)?;
        if file.docs() != docs {
            return Err(file.damaged(16, format!("{} rows, the segment has {docs}", file.docs())));
        }
        let n = usize::try_from(docs).map_err(|_| file.damaged(16, "row count too large"))?;
        file.section(0)
            .expect_len(n.saturating_mul(INDEX_ROW), "profile index")?;
        Ok(Profiles { file })
    }

    /// The opened file.
    pub fn file(&self) -> &StoreFile {
        &self.file
    }

    /// The profile of `row`.
    pub fn get(&self, row: u32) -> Result<WordProfile> {
        let index = self.file.section(0);
        let at = row as usize * INDEX_ROW;
        let (w0, l0) = (index.u64(at)?, index.u64(at + 8)?);
        let (nw, nl) = (index.u32(at + 16)? as usize, index.u32(at + 20)? as usize);
        let too_big = |what: &str| index.damaged(at, format!("{what} start past the section"));
        let w0 = usize::try_from(w0).map_err(|_| too_big("word"))?;
        let l0 = usize::try_from(l0).map_err(|_| too_big("line"))?;
        let words = self
            .file
            .section(1)
            .slice(w0.saturating_mul(4), nw.saturating_mul(4))?;
        let hashes = self
            .file
            .section(2)
            .slice(l0.saturating_mul(8), nl.saturating_mul(8))?;
        let ends = self
            .file
            .section(3)
            .slice(l0.saturating_mul(4), nl.saturating_mul(4))?;
        let u32s = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let lines: Vec<Line> = hashes
            .chunks_exact(8)
            .zip(u32s(&ends))
            .map(|(h, end)| {
                let mut w = [0u8; 8];
                w.copy_from_slice(h);
                Line {
                    hash: u64::from_le_bytes(w),
                    end,
                }
            })
            .collect();
        Ok(WordProfile {
            words: u32s(&words).into(),
            lines: lines.into(),
        })
    }

    /// Bytes of the file.
    pub fn bytes(&self) -> u64 {
        self.file.len() as u64
    }
}

/// Writes the profiles of `rows` (in row order) to `path`, each section straight from the
/// profiles (no copy of them is gathered first: they are most of a segment's bytes).
pub fn write_profiles(path: &Path, cfg: &DedupConfig, rows: &[&WordProfile]) -> Result<()> {
    let words: usize = rows.iter().map(|p| p.words.len()).sum();
    let lines: usize = rows.iter().map(|p| p.lines.len()).sum();
    let lens = [rows.len() * INDEX_ROW, words * 4, lines * 8, lines * 4];
    write_file_with(path, MAGIC, rows.len() as u64, cfg, &lens, |section, w| {
        match section {
            0 => {
                let (mut nw, mut nl) = (0u64, 0u64);
                for p in rows {
                    let mut row = [0u8; INDEX_ROW];
                    row[..8].copy_from_slice(&nw.to_le_bytes());
                    row[8..16].copy_from_slice(&nl.to_le_bytes());
                    row[16..20].copy_from_slice(&(p.words.len() as u32).to_le_bytes());
                    row[20..].copy_from_slice(&(p.lines.len() as u32).to_le_bytes());
                    w.put(&row)?;
                    nw += p.words.len() as u64;
                    nl += p.lines.len() as u64;
                }
            }
            1 => {
                for p in rows {
                    w.put_u32s(&p.words)?;
                }
            }
            2 => {
                for l in rows.iter().flat_map(|p| p.lines.iter()) {
                    w.put(&l.hash.to_le_bytes())?;
                }
            }
            _ => {
                for l in rows.iter().flat_map(|p| p.lines.iter()) {
                    w.put(&l.end.to_le_bytes())?;
                }
            }
        }
        Ok(())
    })
}
