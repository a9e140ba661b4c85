//! A ZIP file whose entries are stored, not compressed: what a WACZ package is (its WARCs are
//! compressed already, and readers fetch their records by byte range). Written by hand over
//! `crc32fast` rather than with the `zip` crate: storing is the local headers, the data and the
//! central directory (some 80 lines), and the crate would bring compression code and its
//! dependencies for nothing. No ZIP64: an entry or a whole file past 4 GiB, or more than 65,535
//! entries, is refused with an error rather than written wrong.

use std::io::{self, Read, Write};

/// One entry written: what the central directory needs.
struct Entry {
    name: String,
    crc: u32,
    size: u32,
    offset: u32,
}

/// A stored ZIP being written to `W`.
pub struct ZipStore<W: Write> {
    out: W,
    at: u64,
    entries: Vec<Entry>,
}

fn too_large(what: &str) -> io::Error {
    io::Error::other(format!(
        "{what} passes the 4 GiB or 65,535 entries of a ZIP without ZIP64, which is not written"
    ))
}

impl<W: Write> ZipStore<W> {
    /// A ZIP writing to `out`.
    pub fn new(out: W) -> Self {
        ZipStore {
            out,
            at: 0,
            entries: Vec::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.at += bytes.len() as u64;
        Ok(())
    }

    /// Adds entry `name` with the bytes `data` gives (read twice: `data` is called again for the
    /// CRC and size, then for the copy, so a file is never held in memory whole).
    pub fn add(
        &mut self,
        name: &str,
        mut data: impl FnMut() -> io::Result<Box<dyn Read>>,
    ) -> io::Result<()> {
        let (mut crc, mut size) = (crc32fast::Hasher::new(), 0u64);
        let mut buf = vec![0u8; 1 << 16];
        let mut r = data()?;
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                break;
            }
            crc.update(&buf[..n]);
            size += n as u64;
        }
        let crc = crc.finalize();
        let size = u32::try_from(size).map_err(|_| too_large(name))?;
        let offset = u32::try_from(self.at).map_err(|_| too_large("the package"))?;
        if self.entries.len() >= 0xffff {
            return Err(too_large("the package"));
        }
        let mut h = Vec::with_capacity(30 + name.len());
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&[20, 0, 0, 0, 0, 0]); // version, flags, method: stored
        h.extend_from_slice(&[0, 0, 0x21, 0]); // time, date: 1980-01-01 00:00, for the same bytes
        h.extend_from_slice(&crc.to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        h.extend_from_slice(&[0, 0]);
        h.extend_from_slice(name.as_bytes());
        self.put(&h)?;
        let mut r = data()?;
        let mut copied = 0u64;
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                break;
            }
            self.put(&buf[..n])?;
            copied += n as u64;
        }
        if copied != u64::from(size) {
            return Err(io::Error::other(format!(
                "{name} changed while it was packed"
            )));
        }
        self.entries.push(Entry {
            name: name.to_string(),
            crc,
            size,
            offset,
        });
        Ok(())
    }

    /// Writes the central directory and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        let start = u32::try_from(self.at).map_err(|_| too_large("the package"))?;
        let entries = std::mem::take(&mut self.entries);
        for e in &entries {
            let mut c = Vec::with_capacity(46 + e.name.len());
            c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            c.extend_from_slice(&[20, 3, 20, 0, 0, 0, 0, 0]); // made by (unix), needed, flags, stored
            c.extend_from_slice(&[0, 0, 0x21, 0]);
            c.extend_from_slice(&e.crc.to_le_bytes());
            c.extend_from_slice(&e.size.to_le_bytes());
            c.extend_from_slice(&e.size.to_le_bytes());
            c.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            c.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attributes
            c.extend_from_slice(&(0o100644u32 << 16).to_le_bytes()); // a regular file, rw-r--r--
            c.extend_from_slice(&e.offset.to_le_bytes());
            c.extend_from_slice(e.name.as_bytes());
            self.put(&c)?;
        }
        let size =
            u32::try_from(self.at - u64::from(start)).map_err(|_| too_large("the package"))?;
        let mut end = Vec::with_capacity(22);
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&[0, 0, 0, 0]);
        end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        end.extend_from_slice(&size.to_le_bytes());
        end.extend_from_slice(&start.to_le_bytes());
        end.extend_from_slice(&[0, 0]);
        self.put(&end)?;
        Ok(self.out)
    }
}
