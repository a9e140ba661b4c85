//! A ZIP file whose entries are stored, not compressed: what a WACZ package is (its WARCs are
//! compressed already, and readers fetch their records by byte range). Written by hand over
//! `crc32fast` rather than with the `zip` crate: storing is the local headers, the data and the
//! central directory (some 150 lines with ZIP64), and the crate would bring compression code and
//! its dependencies for nothing.
//!
//! ZIP64 (APPNOTE 6.3, sections 4.3.14-4.3.15 and 4.5.3) is written exactly where a field would
//! not fit: an entry of 4 GiB or more gets the ZIP64 extra field with its sizes in its local header
//! and its central directory record, an entry starting at 4 GiB or more gets its offset there, and
//! an archive of 65,535 entries or more (the 16-bit count's marker value), or whose central
//! directory starts at or is 4 GiB or more, gets the ZIP64 end of central directory record and
//! its locator. Such entries say "version
//! needed 4.5". Everything else is written as a plain ZIP, so a package that needs no ZIP64 has the
//! same bytes as before ZIP64 was written; [`ZipStore::forcing_zip64`] writes every ZIP64 field on
//! small data, for tests.

use std::io::{self, Read, Write};

/// The value of a 32-bit field that says "see the ZIP64 extra field" (and the largest that is not).
const MAX32: u64 = 0xffff_ffff;
/// The value of a 16-bit entry count that says "see the ZIP64 end record".
const MAX16: usize = 0xffff;

/// One entry written: what the central directory needs.
struct Entry {
    name: String,
    crc: u32,
    size: u64,
    offset: u64,
    /// Its sizes are in a ZIP64 extra field (local header and central directory).
    sizes64: bool,
}

impl Entry {
    /// Whether its offset is in the central directory's ZIP64 extra field.
    fn offset64(&self, force: bool) -> bool {
        force || self.offset >= MAX32
    }
}

/// A stored ZIP being written to `W`.
pub struct ZipStore<W: Write> {
    out: W,
    at: u64,
    entries: Vec<Entry>,
    /// Write every ZIP64 field, needed or not.
    force64: bool,
}

/// A 32-bit field: the value, or the ZIP64 marker when `wide`.
fn field32(v: u64, wide: bool) -> [u8; 4] {
    if wide {
        u32::MAX.to_le_bytes()
    } else {
        (v as u32).to_le_bytes()
    }
}

/// The ZIP64 extra field (header 0x0001) holding `fields` in order.
fn extra64(fields: &[u64]) -> Vec<u8> {
    let mut x = Vec::with_capacity(4 + 8 * fields.len());
    x.extend_from_slice(&1u16.to_le_bytes());
    x.extend_from_slice(&((8 * fields.len()) as u16).to_le_bytes());
    for f in fields {
        x.extend_from_slice(&f.to_le_bytes());
    }
    x
}

impl<W: Write> ZipStore<W> {
    /// A ZIP writing to `out`, with ZIP64 only where it is needed.
    pub fn new(out: W) -> Self {
        ZipStore {
            out,
            at: 0,
            entries: Vec::new(),
            force64: false,
        }
    }

    /// A ZIP writing to `out` with every ZIP64 field, needed or not: each entry's sizes and offset
    /// in ZIP64 extra fields, and the ZIP64 end records (for tests of ZIP64 on small data).
    pub fn forcing_zip64(out: W) -> Self {
        ZipStore {
            force64: true,
            ..ZipStore::new(out)
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
        if name.len() > usize::from(u16::MAX) {
            return Err(io::Error::other(format!(
                "an entry name of {} bytes passes the 65,535 a ZIP holds",
                name.len()
            )));
        }
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
        let offset = self.at;
        let sizes64 = self.force64 || size >= MAX32;
        let zip64 = sizes64 || offset >= MAX32;
        let mut h = Vec::with_capacity(30 + name.len() + 20);
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.push(if zip64 { 45 } else { 20 }); // version needed: 4.5 for ZIP64, else 2.0
        h.extend_from_slice(&[0, 0, 0, 0, 0]); // flags, method: stored
        h.extend_from_slice(&[0, 0, 0x21, 0]); // time, date: 1980-01-01 00:00, for the same bytes
        h.extend_from_slice(&crc.to_le_bytes());
        h.extend_from_slice(&field32(size, sizes64));
        h.extend_from_slice(&field32(size, sizes64));
        h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        let extra = if sizes64 {
            extra64(&[size, size])
        } else {
            Vec::new()
        };
        h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        h.extend_from_slice(name.as_bytes());
        h.extend_from_slice(&extra);
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
        if copied != size {
            return Err(io::Error::other(format!(
                "{name} changed while it was packed"
            )));
        }
        self.entries.push(Entry {
            name: name.to_string(),
            crc,
            size,
            offset,
            sizes64,
        });
        Ok(())
    }

    /// Writes the central directory and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        let start = self.at;
        let entries = std::mem::take(&mut self.entries);
        for e in &entries {
            let offset64 = e.offset64(self.force64);
            let mut fields = Vec::with_capacity(3);
            if e.sizes64 {
                fields.extend([e.size, e.size]);
            }
            if offset64 {
                fields.push(e.offset);
            }
            let extra = if fields.is_empty() {
                Vec::new()
            } else {
                extra64(&fields)
            };
            let v = if fields.is_empty() { 20 } else { 45 };
            let mut c = Vec::with_capacity(46 + e.name.len() + extra.len());
            c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            c.extend_from_slice(&[v, 3, v, 0, 0, 0, 0, 0]); // made by (unix), needed, flags, stored
            c.extend_from_slice(&[0, 0, 0x21, 0]);
            c.extend_from_slice(&e.crc.to_le_bytes());
            c.extend_from_slice(&field32(e.size, e.sizes64));
            c.extend_from_slice(&field32(e.size, e.sizes64));
            c.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            c.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            c.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
            c.extend_from_slice(&(0o100644u32 << 16).to_le_bytes()); // a regular file, rw-r--r--
            c.extend_from_slice(&field32(e.offset, offset64));
            c.extend_from_slice(e.name.as_bytes());
            c.extend_from_slice(&extra);
            self.put(&c)?;
        }
        let size = self.at - start;
        let n = entries.len();
        if self.force64 || n >= MAX16 || start >= MAX32 || size >= MAX32 {
            let end64 = self.at;
            let mut z = Vec::with_capacity(56 + 20);
            z.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
            z.extend_from_slice(&44u64.to_le_bytes()); // the record's size after this field
            z.extend_from_slice(&[45, 3, 45, 0]); // made by (unix), needed: 4.5
            z.extend_from_slice(&[0; 8]); // this disk, the directory's disk
            z.extend_from_slice(&(n as u64).to_le_bytes());
            z.extend_from_slice(&(n as u64).to_le_bytes());
            z.extend_from_slice(&size.to_le_bytes());
            z.extend_from_slice(&start.to_le_bytes());
            z.extend_from_slice(&0x0706_4b50u32.to_le_bytes()); // the locator
            z.extend_from_slice(&[0; 4]); // the end record's disk
            z.extend_from_slice(&end64.to_le_bytes());
            z.extend_from_slice(&1u32.to_le_bytes()); // disks
            self.put(&z)?;
        }
        let count = (n.min(MAX16) as u16).to_le_bytes();
        let mut end = Vec::with_capacity(22);
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&[0, 0, 0, 0]);
        end.extend_from_slice(&count);
        end.extend_from_slice(&count);
        end.extend_from_slice(&field32(size, size >= MAX32));
        end.extend_from_slice(&field32(start, start >= MAX32));
        end.extend_from_slice(&[0, 0]);
        self.put(&end)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::process::Command;

    fn bytes(data: &'static [u8]) -> impl FnMut() -> io::Result<Box<dyn Read>> {
        move || Ok(Box::new(Cursor::new(data)))
    }

    /// Runs `script` with `python3`, the archive's path as its argument, and gives what it
    /// printed; python3 missing or the script failing fails the test.
    fn python(script: &str, zip: &std::path::Path) -> String {
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(zip)
            .output()
            .expect("python3 must be installed to test the ZIP writer");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// `unzip -t` passes the archive where unzip is installed.
    fn unzip_t(zip: &std::path::Path) {
        if let Ok(out) = Command::new("unzip").arg("-tqq").arg(zip).output() {
            assert!(
                out.status.success(),
                "unzip -t: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Offsets of `sig` (a record signature) in `b`.
    fn find(b: &[u8], sig: u32) -> Vec<usize> {
        let s = sig.to_le_bytes();
        b.windows(4)
            .enumerate()
            .filter(|(_, w)| *w == s)
            .map(|(i, _)| i)
            .collect()
    }

    /// Without need, no ZIP64: version 2.0, no extra field, no ZIP64 records, and every byte
    /// where the plain layout puts it (30 + name + data a local header and entry, 46 + name a
    /// directory record, 22 the end).
    #[test]
    fn small_archives_are_plain_zips() {
        let mut z = ZipStore::new(Vec::new());
        z.add("a.txt", bytes(b"hello")).unwrap();
        z.add("dir/b", bytes(b"")).unwrap();
        let b = z.finish().unwrap();
        assert_eq!(b.len(), (30 + 5 + 5) + (30 + 5) + (46 + 5) + (46 + 5) + 22);
        assert!(find(&b, 0x0606_4b50).is_empty() && find(&b, 0x0706_4b50).is_empty());
        assert_eq!(b[4], 20);
        let cd = find(&b, 0x0201_4b50);
        assert_eq!(cd, [75, 126]);
        for c in cd {
            assert_eq!((b[c + 4], b[c + 6]), (20, 20));
            assert_eq!(&b[c + 30..c + 32], &[0, 0], "no extra field");
        }
        assert_eq!(&b[b.len() - 10..b.len() - 6], &(102u32).to_le_bytes());
        assert_eq!(&b[b.len() - 6..b.len() - 2], &(75u32).to_le_bytes());
    }

    /// A forced-ZIP64 archive: every entry with its sizes and offset in ZIP64 extra fields,
    /// "version needed" 4.5, the ZIP64 end record and locator; Python's zipfile reads it back
    /// (every CRC checked) and so does `unzip -t`.
    #[test]
    fn forced_zip64_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("forced.zip");
        let mut z = ZipStore::forcing_zip64(std::fs::File::create(&path).unwrap());
        z.add("archive/a.warc.gz", bytes(b"first entry's bytes"))
            .unwrap();
        z.add("empty", bytes(b"")).unwrap();
        z.add("datapackage.json", bytes(b"{\"x\": 1}\n")).unwrap();
        z.finish().unwrap();
        let b = std::fs::read(&path).unwrap();
        assert_eq!(find(&b, 0x0606_4b50).len(), 1);
        assert_eq!(find(&b, 0x0706_4b50).len(), 1);
        for c in find(&b, 0x0201_4b50) {
            assert_eq!(b[c + 6], 45);
            assert_eq!(&b[c + 20..c + 28], &[0xff; 8], "sizes in the extra field");
            assert_eq!(&b[c + 42..c + 46], &[0xff; 4], "offset in the extra field");
        }
        let got = python(
            r#"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
for i in z.infolist():
    assert i.extra[:4] == b"\x01\x00\x18\x00", (i.filename, i.extra)
    assert i.extract_version == 45, i.extract_version
print(z.namelist(), z.read("archive/a.warc.gz"), z.read("empty"), z.read("datapackage.json"))
"#,
            &path,
        );
        assert_eq!(
            got.trim(),
            r#"['archive/a.warc.gz', 'empty', 'datapackage.json'] b"first entry's bytes" b'' b'{"x": 1}\n'"#
        );
        unzip_t(&path);
    }

    /// 70,000 entries pass the 16-bit count: the ZIP64 end record and locator carry it (the
    /// entries themselves stay plain), and Python and unzip read every entry back.
    #[test]
    fn seventy_thousand_entries_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.zip");
        let mut z = ZipStore::new(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        ));
        for i in 0..70_000u32 {
            let data = i.to_string().into_bytes();
            z.add(&format!("e/{i}"), move || {
                Ok(Box::new(Cursor::new(data.clone())))
            })
            .unwrap();
        }
        z.finish().unwrap().flush().unwrap();
        let b = std::fs::read(&path).unwrap();
        assert_eq!(find(&b[b.len() - 98..], 0x0606_4b50), [0]);
        assert_eq!(
            &b[b.len() - 14..b.len() - 10],
            &[0xff; 4],
            "the counts' marker"
        );
        let got = python(
            r#"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
names = z.namelist()
assert names == [f"e/{i}" for i in range(70000)], len(names)
assert all(z.read(f"e/{i}") == str(i).encode() for i in range(0, 70000, 997))
assert z.read("e/69999") == b"69999"
print(len(names))
"#,
            &path,
        );
        assert_eq!(got.trim(), "70000");
        unzip_t(&path);
    }

    /// A writer that keeps only the first and the last bytes written (an archive of 4 GiB is
    /// checked without being stored).
    struct Ends {
        head: Vec<u8>,
        tail: Vec<u8>,
        written: u64,
    }

    impl Write for Ends {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let room = 4096usize.saturating_sub(self.head.len());
            self.head.extend_from_slice(&b[..room.min(b.len())]);
            self.tail.extend_from_slice(b);
            if self.tail.len() > 1 << 20 {
                self.tail.drain(..self.tail.len() - (1 << 19));
            }
            self.written += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// An entry of exactly 0xFFFFFFFF bytes (the marker value: ZIP64 from there) and one after
    /// it, past 4 GiB: the first has its sizes in ZIP64 fields, the second its offset, the end
    /// has the ZIP64 records; Python's zipfile reads the directory and the second entry from the
    /// bytes kept (the 4 GiB between read as zeros, never checked).
    #[test]
    fn an_entry_of_4_gib_and_one_past_it() {
        let mut z = ZipStore::new(Ends {
            head: Vec::new(),
            tail: Vec::new(),
            written: 0,
        });
        z.add("big", || Ok(Box::new(io::repeat(7).take(MAX32))))
            .unwrap();
        z.add("after", bytes(b"past 4 GiB")).unwrap();
        let ends = z.finish().unwrap();
        assert_eq!(&ends.head[4..6], &[45, 0]);
        assert_eq!(&ends.head[18..26], &[0xff; 8]);
        let dir = tempfile::tempdir().unwrap();
        let (head, tail) = (dir.path().join("head"), dir.path().join("tail"));
        std::fs::write(&head, &ends.head).unwrap();
        std::fs::write(&tail, &ends.tail).unwrap();
        let got = python(
            &format!(
                r#"
import io, sys, zipfile, os
d = os.path.dirname(sys.argv[1])
head, tail = open(d + "/head", "rb").read(), open(d + "/tail", "rb").read()
size = {written}
tail_at = size - len(tail)
class Sparse(io.RawIOBase):
    pos = 0
    def readable(self): return True
    def seekable(self): return True
    def tell(self): return self.pos
    def seek(self, off, whence=0):
        self.pos = [off, self.pos + off, size + off][whence]
        return self.pos
    def readinto(self, b):
        n = max(0, min(len(b), size - self.pos))
        out = bytearray(n)
        for src, at in ((head, 0), (tail, tail_at)):
            lo, hi = max(self.pos, at), min(self.pos + n, at + len(src))
            if lo < hi:
                out[lo - self.pos:hi - self.pos] = src[lo - at:hi - at]
        b[:n] = out
        self.pos += n
        return n
z = zipfile.ZipFile(io.BufferedReader(Sparse()))
big, after = z.infolist()
assert big.file_size == 0xFFFFFFFF and big.compress_size == 0xFFFFFFFF, big
assert big.header_offset == 0
assert after.header_offset == 30 + 3 + 20 + 0xFFFFFFFF, after.header_offset
print(z.read("after").decode())
"#,
                written = ends.written
            ),
            &head,
        );
        assert_eq!(got.trim(), "past 4 GiB");
    }
}
