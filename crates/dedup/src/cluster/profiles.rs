//! Where the word profiles of a clustering are kept: in memory, in a queue of the documents not yet
//! spilled; when the run's memory budget says so (`crawlsift_common::budget`, profiles first of
//! the parts that spill), the oldest profiles still in memory are appended to an unnamed temporary
//! file, in document order, each document's place kept in memory (16 bytes a document).
//! Verification, template learning and the report read a spilled profile back with one
//! positioned read (`pread`) of its bytes, so resident memory holds only the profiles being
//! compared; the file is gone when the clusterer is dropped, however the run ends.
//!
//! [`Docs`] is the clustering steps' view of every document's profile, wherever that is. A write
//! or read of the spill file that fails (the disk, not the input) is a [`SpillError`] returned to
//! the caller: no document is judged on missing words.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crawlsift_common::budget::Spilled;
use crawlsift_common::limits::DEDUP_SPILL_WRITE_BUFFER as SPILL_WRITE_BUFFER;

use crate::error::SpillError;

use crate::profile::{Line, WordProfile};

/// Bytes of a spilled line: the hash (8) and the end (4), little-endian.
const LINE_BYTES: usize = 12;

/// Where one spilled profile is in the file.
#[derive(Debug, Clone, Copy)]
struct Slot {
    offset: u64,
    words: u32,
    lines: u32,
}

impl Slot {
    fn bytes(&self) -> usize {
        self.words as usize * 4 + self.lines as usize * LINE_BYTES
    }
}

/// The profiles moved to disk, oldest first.
#[derive(Debug)]
pub(crate) struct ProfileSpill {
    /// Folder of the temporary file.
    dir: PathBuf,
    /// Where the profile of each spilled document is: documents spill in order, oldest first,
    /// so the spilled ones are the first `slots.len()`.
    slots: Vec<Slot>,
    /// The file, and its writer (locked only to flush it before reads).
    file: Option<(File, Mutex<BufWriter<File>>)>,
    end: u64,
}

impl ProfileSpill {
    /// A spill into an unnamed file in `dir`, made at the first profile.
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            slots: Vec::new(),
            file: None,
            end: 0,
        }
    }

    /// Documents whose profile was spilled.
    pub(crate) fn spilled(&self) -> usize {
        self.slots.len()
    }

    /// Moves the oldest profiles of `resident` (the profiles of the documents not spilled yet,
    /// oldest first) into the file, in document order, until `bytes` of memory are freed or
    /// every profile is in the file. After an error the spill is not to be used again.
    pub(crate) fn spill(
        &mut self,
        resident: &mut VecDeque<WordProfile>,
        bytes: usize,
    ) -> Result<Spilled, SpillError> {
        let mut done = Spilled::default();
        while done.freed < bytes {
            let Some(p) = resident.pop_front() else {
                break;
            };
            done.freed += p.memory_bytes();
            done.kept += std::mem::size_of::<Slot>(); // where it went stays in memory
            let at = self.end;
            self.write(&p).map_err(|e| self.error("writing", at, e))?;
        }
        Ok(done)
    }

    /// The error of a failed write or read at byte `offset` of the file.
    fn error(&self, action: &'static str, offset: u64, source: std::io::Error) -> SpillError {
        SpillError {
            what: "word profile",
            action,
            dir: self.dir.clone(),
            offset,
            source,
        }
    }

    /// Appends a profile to the file (made at the first), noting where it is.
    fn write(&mut self, p: &WordProfile) -> std::io::Result<()> {
        if self.file.is_none() {
            let file = crawlsift_common::fs::spill_file(&self.dir, "word profile")?;
            let writer = BufWriter::with_capacity(SPILL_WRITE_BUFFER, file.try_clone()?);
            self.file = Some((file, Mutex::new(writer)));
        }
        let Some((_, w)) = self.file.as_mut() else {
            unreachable!("the file was just made");
        };
        let w = w.get_mut().unwrap_or_else(|p| p.into_inner());
        let slot = Slot {
            offset: self.end,
            words: p.words.len() as u32,
            lines: p.lines.len() as u32,
        };
        // Counted before writing: after a failed write the spill is not used again.
        self.end += slot.bytes() as u64;
        self.slots.push(slot);
        for word in p.words.iter() {
            w.write_all(&word.to_le_bytes())?;
        }
        for line in p.lines.iter() {
            w.write_all(&line.hash.to_le_bytes())?;
            w.write_all(&line.end.to_le_bytes())?;
        }
        Ok(())
    }

    /// Writes out what is buffered, before profiles are read back.
    pub(crate) fn flush(&self) -> Result<(), SpillError> {
        if let Some((_, w)) = self.file.as_ref() {
            let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
            w.flush().map_err(|e| self.error("writing", self.end, e))?;
        }
        Ok(())
    }

    fn slot(&self, doc: u32) -> Option<&Slot> {
        self.slots.get(doc as usize)
    }

    /// The spilled profile of `doc`, read back (`None` when it is in memory).
    fn read(&self, doc: u32) -> Result<Option<WordProfile>, SpillError> {
        let Some(&slot) = self.slot(doc) else {
            return Ok(None);
        };
        let Some((file, _)) = self.file.as_ref() else {
            return Ok(None);
        };
        let mut buf = vec![0u8; slot.bytes()];
        file.read_exact_at(&mut buf, slot.offset)
            .map_err(|e| self.error("reading back", slot.offset, e))?;
        let (words, lines) = buf.split_at(slot.words as usize * 4);
        let words = words
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let lines = lines
            .chunks_exact(LINE_BYTES)
            .map(|c| {
                let mut hash = [0u8; 8];
                hash.copy_from_slice(&c[..8]);
                Line {
                    hash: u64::from_le_bytes(hash),
                    end: u32::from_le_bytes([c[8], c[9], c[10], c[11]]),
                }
            })
            .collect();
        Ok(Some(WordProfile { words, lines }))
    }

    /// Makes every later read of the file fail, as a disk that fails would (for tests): the file
    /// read from becomes one opened for writing only.
    #[cfg(test)]
    pub(crate) fn break_reads(&mut self) {
        if let Some((file, _)) = self.file.as_mut() {
            *file = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/null")
                .expect("/dev/null opens");
        }
    }
}

/// Every document's word profile, as the clustering steps see them.
#[derive(Clone, Copy)]
pub(crate) struct Docs<'a> {
    /// The profiles of the documents not spilled, oldest first.
    resident: &'a VecDeque<WordProfile>,
    spill: Option<&'a ProfileSpill>,
}

impl<'a> Docs<'a> {
    /// The view of the profiles in `resident` and, before them, in `spill`.
    pub(crate) fn new(
        resident: &'a VecDeque<WordProfile>,
        spill: Option<&'a ProfileSpill>,
    ) -> Self {
        Self { resident, spill }
    }

    /// Documents whose profiles were spilled: the first ones.
    fn spilled(&self) -> usize {
        self.spill.map_or(0, ProfileSpill::spilled)
    }

    /// Documents.
    pub(crate) fn len(&self) -> usize {
        self.spilled() + self.resident.len()
    }

    /// The profile of document `d` in memory (`None` when it was spilled).
    pub(crate) fn resident(&self, d: u32) -> Option<&'a WordProfile> {
        let at = (d as usize).checked_sub(self.spilled())?;
        self.resident.get(at)
    }

    /// The profile of document `d`, read back when it was spilled (empty past the last); an
    /// error when it cannot be read back.
    pub(crate) fn profile(&self, d: u32) -> Result<Cow<'a, WordProfile>, SpillError> {
        if let Some(p) = self.spill.map(|s| s.read(d)).transpose()?.flatten() {
            return Ok(Cow::Owned(p));
        }
        Ok(self.resident(d).map_or_else(Cow::default, Cow::Borrowed))
    }

    /// Words and lines in the profile of document `d` (without reading it back).
    fn sizes(&self, d: u32) -> (usize, usize) {
        match self.spill.and_then(|s| s.slot(d)) {
            Some(slot) => (slot.words as usize, slot.lines as usize),
            None => self
                .resident(d)
                .map_or((0, 0), |p| (p.words.len(), p.lines.len())),
        }
    }

    /// Words in the profile of document `d` (without reading it back).
    pub(crate) fn profile_words(&self, d: u32) -> usize {
        self.sizes(d).0
    }

    /// Bytes the profile of document `d` takes in memory once read.
    pub(crate) fn profile_bytes(&self, d: u32) -> usize {
        let (words, lines) = self.sizes(d);
        words * 4 + lines * std::mem::size_of::<Line>()
    }

    /// Lines in the profile of document `d` (without reading it back).
    pub(crate) fn profile_lines(&self, d: u32) -> usize {
        self.sizes(d).1
    }
}
