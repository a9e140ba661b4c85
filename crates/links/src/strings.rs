//! [`Strings`]: many strings held end to end in large chunks, each known by its index. A graph
//! holds a million URLs and as many anchor texts: a `String` each would cost 24 bytes of header
//! and an allocation of its own (some 16 bytes more, and a malloc and a free), about as much as
//! the text itself.

/// Bytes of one chunk; a longer string gets a chunk of its own.
const CHUNK_BYTES: usize = 1 << 20;

/// Strings appended one by one and read back by index.
#[derive(Default)]
pub struct Strings {
    chunks: Vec<String>,
    /// Per string: its chunk, start and length.
    at: Vec<(u32, u32, u32)>,
}

impl Strings {
    /// How many strings are held.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// String `i` (empty past the end).
    pub fn get(&self, i: u32) -> &str {
        match self.at.get(i as usize) {
            Some(&(c, s, n)) => self.chunks[c as usize]
                .get(s as usize..(s + n) as usize)
                .unwrap_or(""),
            None => "",
        }
    }

    /// Appends `s` and returns its index; `None` when the index or the string's length would
    /// not fit 32 bits.
    pub fn push(&mut self, s: &str) -> Option<u32> {
        let i = u32::try_from(self.at.len()).ok()?;
        let n = u32::try_from(s.len()).ok()?;
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.len() + s.len() <= c.capacity());
        if !fits {
            self.chunks
                .push(String::with_capacity(CHUNK_BYTES.max(s.len())));
        }
        let c = self.chunks.len() - 1;
        let chunk = &mut self.chunks[c];
        let start = chunk.len() as u32;
        chunk.push_str(s);
        self.at.push((c as u32, start, n));
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_by_index_across_chunks() {
        let mut s = Strings::default();
        let long = "x".repeat(CHUNK_BYTES + 5);
        let a = s.push("alpha").unwrap();
        let b = s.push(&long).unwrap();
        let c = s.push("").unwrap();
        let d = s.push("gamma").unwrap();
        assert_eq!((a, b, c, d), (0, 1, 2, 3));
        assert_eq!(s.get(a), "alpha");
        assert_eq!(s.get(b), long);
        assert_eq!(s.get(c), "");
        assert_eq!(s.get(d), "gamma");
        assert_eq!(s.get(9), "");
        assert_eq!(s.len(), 4);
        for i in 0..3000 {
            s.push(&format!("u{i:0>600}")).unwrap();
        }
        assert_eq!(s.get(4 + 2999), format!("u{:0>600}", 2999));
        assert!(s.chunks.len() >= 3);
    }
}
