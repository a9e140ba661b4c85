//! The table of payloads a rewrite has written: each distinct response payload's digest with the
//! record that first held it ([`Original`]: id, URI, date), for `identical-payload-digest`
//! revisits. It lives in a map while the map fits its budget (`rewrite --memory`); past it, every
//! entry moves to an open-addressed table in an unnamed file of the output folder (32-byte slots:
//! a key and where the original's fields lie in a second file), which lookups read by place, so
//! memory stays within the budget whatever the collection. The answers are the same either way.
//!
//! A key is the SHA-1 of the digest value (`sha1:` and base32): 20 bytes whatever the digest's
//! algorithm or spelling.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crawlsift_common::fs::spill_file;
use crawlsift_common::limits::PAYLOAD_TABLE_FIRST_SLOTS;

use crate::error::{Error, Result};
use crate::warc_out::Original;

/// Bytes of a slot of the table on disk: the 20-byte key, 4 zero bytes, the original's place + 1
/// (little-endian u64; 0 is an empty slot).
const SLOT: usize = 32;

/// Bytes a map entry is counted for beyond its strings (key, map overhead, string headers).
const ENTRY_OVERHEAD: usize = 128;

type Key = [u8; 20];

fn key(digest: &str) -> Key {
    crawlsift_reader::digest::sha1(digest.as_bytes())
}

/// The payloads written so far (see the module doc).
pub struct PayloadTable {
    map: HashMap<Key, Original>,
    held: usize,
    budget: usize,
    dir: PathBuf,
    disk: Option<Disk>,
}

/// The table on disk: slots, and the originals' fields appended to a second file.
struct Disk {
    dir: PathBuf,
    slots: File,
    capacity: u64,
    used: u64,
    originals: File,
    originals_len: u64,
}

impl PayloadTable {
    /// An empty table that holds up to `budget` bytes in memory and spills to `dir` past it.
    pub fn new(budget: usize, dir: &Path) -> Self {
        PayloadTable {
            map: HashMap::new(),
            held: 0,
            budget,
            dir: dir.to_path_buf(),
            disk: None,
        }
    }

    /// Whether the table has moved to disk.
    pub fn spilled(&self) -> bool {
        self.disk.is_some()
    }

    /// The original of the payload with `digest`, if one was written.
    pub fn get(&self, digest: &str) -> Result<Option<Original>> {
        let k = key(digest);
        match &self.disk {
            None => Ok(self.map.get(&k).cloned()),
            Some(d) => d.get(&k).map_err(|e| self.error(e)),
        }
    }

    /// Notes that the payload with `digest` was first written by `original` (a payload noted
    /// before keeps its first original).
    pub fn insert(&mut self, digest: &str, original: Original) -> Result<()> {
        let k = key(digest);
        if let Some(d) = &mut self.disk {
            return d.insert(&k, &original).map_err(|e| error(&self.dir, e));
        }
        let bytes = ENTRY_OVERHEAD
            + original.id.len()
            + original.uri.as_ref().map_or(0, String::len)
            + original.date.as_ref().map_or(0, String::len);
        if let std::collections::hash_map::Entry::Vacant(e) = self.map.entry(k) {
            e.insert(original);
            self.held += bytes;
        }
        if self.held > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Moves every entry to the table on disk.
    fn spill(&mut self) -> Result<()> {
        let mut d = Disk::new(&self.dir).map_err(|e| error(&self.dir, e))?;
        // In key order, so the files are the same whatever the map's order.
        let mut entries: Vec<(Key, Original)> = self.map.drain().collect();
        entries.sort_unstable_by_key(|e| e.0);
        for (k, o) in &entries {
            d.insert(k, o).map_err(|e| error(&self.dir, e))?;
        }
        self.map = HashMap::new();
        self.held = 0;
        self.disk = Some(d);
        Ok(())
    }

    fn error(&self, e: std::io::Error) -> Error {
        error(&self.dir, e)
    }
}

fn error(dir: &Path, e: std::io::Error) -> Error {
    Error::io("the table of payloads written (spilled)", dir, e)
}

impl Disk {
    fn new(dir: &Path) -> std::io::Result<Disk> {
        let slots = spill_file(dir, "payload table")?;
        slots.set_len(PAYLOAD_TABLE_FIRST_SLOTS * SLOT as u64)?;
        Ok(Disk {
            dir: dir.to_path_buf(),
            slots,
            capacity: PAYLOAD_TABLE_FIRST_SLOTS,
            used: 0,
            originals: spill_file(dir, "payload originals")?,
            originals_len: 0,
        })
    }

    /// The slot of `k` (where it is, or the empty one where it would go) and its place + 1.
    fn probe(slots: &File, capacity: u64, k: &Key) -> std::io::Result<(u64, u64)> {
        let mask = capacity - 1;
        let mut i = u64::from_le_bytes(k[..8].try_into().expect("eight bytes")) & mask;
        let mut slot = [0u8; SLOT];
        loop {
            slots.read_exact_at(&mut slot, i * SLOT as u64)?;
            let place = u64::from_le_bytes(slot[24..].try_into().expect("eight bytes"));
            if place == 0 || slot[..20] == k[..] {
                return Ok((i, place));
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, k: &Key) -> std::io::Result<Option<Original>> {
        let (_, place) = Disk::probe(&self.slots, self.capacity, k)?;
        if place == 0 {
            return Ok(None);
        }
        self.read_original(place - 1).map(Some)
    }

    fn insert(&mut self, k: &Key, o: &Original) -> std::io::Result<()> {
        if (self.used + 1) * 2 > self.capacity {
            self.grow()?;
        }
        let (i, place) = Disk::probe(&self.slots, self.capacity, k)?;
        if place != 0 {
            return Ok(());
        }
        let at = self.originals_len;
        let mut rec = Vec::new();
        for field in [Some(&o.id), o.uri.as_ref(), o.date.as_ref()] {
            match field {
                Some(s) => {
                    let len = u32::try_from(s.len()).map_err(std::io::Error::other)?;
                    rec.extend(len.to_le_bytes());
                    rec.extend(s.as_bytes());
                }
                None => rec.extend(u32::MAX.to_le_bytes()),
            }
        }
        self.originals.write_all_at(&rec, at)?;
        self.originals_len += rec.len() as u64;
        self.write_slot(i, k, at + 1)?;
        self.used += 1;
        Ok(())
    }

    fn write_slot(&self, i: u64, k: &Key, place: u64) -> std::io::Result<()> {
        let mut slot = [0u8; SLOT];
        slot[..20].copy_from_slice(k);
        slot[24..].copy_from_slice(&place.to_le_bytes());
        self.slots.write_all_at(&slot, i * SLOT as u64)
    }

    /// Doubles the slots: every entry goes to its place in a new file.
    fn grow(&mut self) -> std::io::Result<()> {
        let capacity = self.capacity * 2;
        let grown = spill_file(&self.dir, "payload table")?;
        grown.set_len(capacity * SLOT as u64)?;
        let old = std::mem::replace(&mut self.slots, grown);
        let mut chunk = vec![0u8; SLOT * 4096];
        let mut at = 0u64;
        let end = self.capacity * SLOT as u64;
        while at < end {
            let n = chunk.len().min((end - at) as usize);
            old.read_exact_at(&mut chunk[..n], at)?;
            for slot in chunk[..n].chunks_exact(SLOT) {
                let place = u64::from_le_bytes(slot[24..].try_into().expect("eight bytes"));
                if place != 0 {
                    let k: Key = slot[..20].try_into().expect("twenty bytes");
                    let (i, _) = Disk::probe(&self.slots, capacity, &k)?;
                    let mut s = [0u8; SLOT];
                    s.copy_from_slice(slot);
                    self.slots.write_all_at(&s, i * SLOT as u64)?;
                }
            }
            at += n as u64;
        }
        self.capacity = capacity;
        Ok(())
    }

    fn read_original(&self, at: u64) -> std::io::Result<Original> {
        let mut fields: Vec<Option<String>> = Vec::with_capacity(3);
        let mut pos = at;
        for _ in 0..3 {
            let mut len = [0u8; 4];
            self.originals.read_exact_at(&mut len, pos)?;
            pos += 4;
            let len = u32::from_le_bytes(len);
            if len == u32::MAX {
                fields.push(None);
                continue;
            }
            let mut s = vec![0u8; len as usize];
            self.originals.read_exact_at(&mut s, pos)?;
            pos += u64::from(len);
            fields.push(Some(String::from_utf8(s).map_err(std::io::Error::other)?));
        }
        let date = fields.pop().flatten();
        let uri = fields.pop().flatten();
        let id = fields.pop().flatten().unwrap_or_default();
        Ok(Original { id, uri, date })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn original(i: usize) -> Original {
        Original {
            id: format!("<urn:uuid:{i}>"),
            uri: (!i.is_multiple_of(3)).then(|| format!("http://example.com/{i}")),
            date: (!i.is_multiple_of(5)).then(|| "2024-01-01T00:00:00Z".to_string()),
        }
    }

    #[test]
    fn spilled_or_not_the_table_gives_the_same_answers() {
        let dir = tempfile::tempdir().unwrap();
        let mut small = PayloadTable::new(4096, dir.path());
        let mut large = PayloadTable::new(usize::MAX, dir.path());
        for i in 0..5000 {
            let d = format!("sha1:{i:032}");
            for t in [&mut small, &mut large] {
                if t.get(&d).unwrap().is_none() {
                    t.insert(&d, original(i)).unwrap();
                }
            }
            // A payload seen again keeps its first original.
            if i % 7 == 0 {
                let again = format!("sha1:{:032}", i / 2);
                for t in [&mut small, &mut large] {
                    t.insert(&again, original(999_999)).unwrap();
                }
            }
        }
        assert!(small.spilled() && !large.spilled());
        for i in 0..5000 {
            let d = format!("sha1:{i:032}");
            let (a, b) = (
                small.get(&d).unwrap().unwrap(),
                large.get(&d).unwrap().unwrap(),
            );
            assert_eq!((&a.id, &a.uri, &a.date), (&b.id, &b.uri, &b.date));
        }
        assert!(small.get("sha1:nothing").unwrap().is_none());
    }
}
