//! Band tables: for each MinHash band and each SimHash block, the segment's rows sorted by key,
//! so a search looks up one bucket per band instead of scanning the segment.
//!
//! A table's key is the band's signature bytes (one byte a row, without the band tag) or the
//! SimHash block's bits, whole: a bucket holds the rows of exactly one key, and the MinHash tables
//! together hold every signature (the index keeps no other copy: [`crate::segment`] rebuilds
//! them). Tables are MinHash bands `0..lsh_bands`, then SimHash blocks `0..=simhash_max_hamming`;
//! only rows with a signature are in them. They are stored packed ([`crate::packed`]).

use crawlsift_common::limits::STORE_MAX_TABLE_KEY_BITS;
use crawlsift_dedup::minhash::band_key;
use crawlsift_dedup::simhash::block_keys;
use crawlsift_dedup::DedupConfig;

/// Number of tables for `cfg`.
pub fn table_count(cfg: &DedupConfig) -> usize {
    cfg.lsh_bands + cfg.simhash_max_hamming as usize + 1
}

/// Key of table `t` for a document with signature `sig` and SimHash `sh`.
pub fn key_of(cfg: &DedupConfig, t: usize, sig: &[u8], sh: u64) -> Option<u64> {
    if t < cfg.lsh_bands {
        band_key(sig, t, cfg.lsh_rows)
    } else {
        block_keys(sh, cfg.simhash_max_hamming).nth(t - cfg.lsh_bands)
    }
}

/// Bands whose key the signature holds whole: band `t` covers signature bytes
/// `t * lsh_rows .. (t + 1) * lsh_rows`.
pub fn covered_bands(cfg: &DedupConfig) -> usize {
    cfg.lsh_bands.min(cfg.minhash_perms / cfg.lsh_rows.max(1))
}

/// Bits of table `t`'s keys as the table stores them: a band's rows (8 bits each, without the
/// band tag), a SimHash block's bits (without the block tag).
pub fn key_bits(cfg: &DedupConfig, t: usize) -> u32 {
    if t < cfg.lsh_bands {
        8 * cfg.lsh_rows as u32
    } else {
        let blocks = cfg.simhash_max_hamming.min(63) + 1;
        64 / blocks + u32::from(((t - cfg.lsh_bands) as u32) < 64 % blocks)
    }
}

/// Why an index cannot be made with `cfg`, if it cannot: every table key must fit
/// `STORE_MAX_TABLE_KEY_BITS`, and a band's key must be its signature bytes as they are (bands of
/// at most 6 rows), so the tables give the signatures back.
pub fn unsupported(cfg: &DedupConfig) -> Option<String> {
    let widest = (0..table_count(cfg)).map(|t| key_bits(cfg, t)).max()?;
    (widest > STORE_MAX_TABLE_KEY_BITS || cfg.lsh_rows == 0).then(|| {
        format!(
            "band tables of {widest}-bit keys (at most {STORE_MAX_TABLE_KEY_BITS}: lsh_rows <= {}, \
             simhash_max_hamming >= 1)",
            STORE_MAX_TABLE_KEY_BITS / 8
        )
    })
}

/// The key of table `t` as stored ([`key_of`] without its tag), `None` when the document has
/// none there.
pub fn table_key(cfg: &DedupConfig, t: usize, sig: &[u8], sh: u64) -> Option<u64> {
    let bits = key_bits(cfg, t);
    key_of(cfg, t, sig, sh).map(|k| if bits >= 64 { k } else { k & ((1 << bits) - 1) })
}

/// The band tables of a segment's rows, made one at a time ([`entries`](Self::entries)) so that
/// one table's entries are held at a time, not all of them (a hundred tables of 16-byte entries).
/// The rows' signatures are gathered once, each band's bytes together: the rows lie scattered in
/// memory, and a table then reads its bytes in order.
pub struct Tables<'c> {
    cfg: &'c DedupConfig,
    /// The rows with a signature, in order.
    rows: Vec<u32>,
    /// Byte `p` of the `i`th of them at `p * rows.len() + i`.
    bytes: Vec<u8>,
    /// Their SimHashes.
    simhashes: Vec<u64>,
}

impl<'c> Tables<'c> {
    /// The tables of `rows` (`(signature, simhash)`, `None` for a row without a signature; a
    /// signature must be `minhash_perms` bytes, or the row is left out as one without).
    pub fn new(cfg: &'c DedupConfig, rows: &[Option<(&[u8], u64)>]) -> Self {
        let perms = cfg.minhash_perms;
        let with: Vec<(u32, &[u8], u64)> = rows
            .iter()
            .enumerate()
            .filter_map(|(r, x)| {
                x.filter(|(sig, _)| sig.len() == perms)
                    .map(|(s, h)| (r as u32, s, h))
            })
            .collect();
        let n = with.len();
        let mut bytes = vec![0u8; n * perms];
        for (i, (_, sig, _)) in with.iter().enumerate() {
            for (p, &b) in sig.iter().enumerate() {
                bytes[p * n + i] = b;
            }
        }
        Tables {
            cfg,
            rows: with.iter().map(|w| w.0).collect(),
            simhashes: with.iter().map(|w| w.2).collect(),
            bytes,
        }
    }

    /// Entries of table `t`.
    pub fn len(&self, t: usize) -> usize {
        let cfg = self.cfg;
        let has = if t < cfg.lsh_bands {
            (t + 1) * cfg.lsh_rows <= cfg.minhash_perms
        } else {
            t < table_count(cfg) && t - cfg.lsh_bands <= cfg.simhash_max_hamming.min(63) as usize
        };
        if has {
            self.rows.len()
        } else {
            0
        }
    }

    /// Table `t`'s `(key, row)` entries, sorted, into `out` ([`len`](Self::len) of them).
    pub fn entries(&self, t: usize, out: &mut Vec<(u64, u32)>) {
        out.clear();
        if self.len(t) == 0 {
            return;
        }
        let cfg = self.cfg;
        let mask = match key_bits(cfg, t) {
            b if b >= 64 => u64::MAX,
            b => (1 << b) - 1,
        };
        let n = self.rows.len();
        if t < cfg.lsh_bands {
            let (lr, first) = (cfg.lsh_rows, t * cfg.lsh_rows);
            // The band's bytes in place in an otherwise empty signature: `band_key` reads those.
            let mut sig = vec![0u8; first + lr];
            for (i, &r) in self.rows.iter().enumerate() {
                for j in 0..lr {
                    sig[first + j] = self.bytes[(first + j) * n + i];
                }
                if let Some(k) = band_key(&sig, t, lr) {
                    out.push((k & mask, r));
                }
            }
        } else {
            let block = t - cfg.lsh_bands;
            for (&r, &sh) in self.rows.iter().zip(&self.simhashes) {
                if let Some(k) = block_keys(sh, cfg.simhash_max_hamming).nth(block) {
                    out.push((k & mask, r));
                }
            }
        }
        sort_by_key_bytes(out, key_bits(cfg, t));
    }
}

/// Sorts `v` by key, a byte of the key at a time from the lowest (the keys hold `key_bits`
/// bits), each pass stable: entries that come in row order leave ordered by (key, row), in
/// `key_bits / 8` passes over them instead of a comparison sort's `log2 n`.
fn sort_by_key_bytes(v: &mut Vec<(u64, u32)>, key_bits: u32) {
    let mut other = vec![(0u64, 0u32); v.len()];
    for pass in 0..key_bits.min(64).div_ceil(8) {
        let shift = 8 * pass;
        let byte = |k: u64| (k >> shift & 0xff) as usize;
        let mut at = [0usize; 257];
        for &(k, _) in v.iter() {
            at[byte(k) + 1] += 1;
        }
        if at.contains(&v.len()) {
            continue; // one value of this byte: the pass would change nothing
        }
        for b in 1..257 {
            at[b] += at[b - 1];
        }
        for &e in v.iter() {
            let b = byte(e.0);
            other[at[b]] = e;
            at[b] += 1;
        }
        std::mem::swap(v, &mut other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(cfg: &DedupConfig, rows: &[Option<(&[u8], u64)>]) -> Vec<Vec<(u64, u32)>> {
        let tables = Tables::new(cfg, rows);
        (0..table_count(cfg))
            .map(|t| {
                let mut e = vec![(9, 9)];
                tables.entries(t, &mut e);
                assert_eq!(e.len(), tables.len(t), "table {t}");
                e
            })
            .collect()
    }

    #[test]
    fn table_keys_are_the_signature_bytes_and_simhash_blocks() {
        let cfg = DedupConfig::default();
        let sig_a = vec![7u8; cfg.minhash_perms];
        let mut sig_b = sig_a.clone();
        sig_b[0] = 8; // differs in band 0 only
        let tables = all(&cfg, &[Some((&sig_a, 1)), Some((&sig_b, 1)), None]);
        assert_eq!(tables.len(), table_count(&cfg));
        assert_eq!(tables[0], [(0x0707, 0), (0x0807, 1)]);
        assert_eq!(tables[1], [(0x0707, 0), (0x0707, 1)]);
        assert_eq!(tables[cfg.lsh_bands], [(1, 0), (1, 1)]);
        assert!((0..table_count(&cfg)).all(|t| key_bits(&cfg, t) == 16));
        assert_eq!(unsupported(&cfg), None);
        let wide = DedupConfig {
            simhash_max_hamming: 0,
            ..cfg
        };
        assert!(unsupported(&wide).is_some());
    }

    #[test]
    fn tables_from_gathered_signatures_are_the_tables_of_each_row_keyed_alone() {
        // Each table on its own, each row keyed by `table_key`, the pairs sorted.
        fn per_table(cfg: &DedupConfig, rows: &[Option<(&[u8], u64)>]) -> Vec<Vec<(u64, u32)>> {
            (0..table_count(cfg))
                .map(|t| {
                    let mut v: Vec<(u64, u32)> = rows
                        .iter()
                        .enumerate()
                        .filter_map(|(r, x)| {
                            let (sig, sh) = x.filter(|x| x.0.len() == cfg.minhash_perms)?;
                            table_key(cfg, t, sig, sh).map(|k| (k, r as u32))
                        })
                        .collect();
                    v.sort_unstable();
                    v
                })
                .collect()
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Bands past the signature's end (the first) have no entries, nor blocks past 64 (the last).
        for (rows, bands, hamming) in [
            (2, 100, 3),
            (1, 192, 0),
            (4, 48, 7),
            (5, 38, 2),
            (3, 64, 70),
        ] {
            let cfg = DedupConfig {
                lsh_rows: rows,
                lsh_bands: bands,
                simhash_max_hamming: hamming,
                ..DedupConfig::default()
            };
            // Few distinct bytes, so that keys repeat and rows order the entries of a key.
            let sigs: Vec<Vec<u8>> = (0..300)
                .map(|_| (0..cfg.minhash_perms).map(|_| (next() % 3) as u8).collect())
                .collect();
            let docs: Vec<Option<(&[u8], u64)>> = sigs
                .iter()
                .map(|s| (next() % 5 != 0).then(|| (&s[..], next() & 0x0303_0303_0303_0303)))
                .chain([Some((&[1u8][..], 7))]) // a signature too short: no entry
                .collect();
            assert_eq!(all(&cfg, &docs), per_table(&cfg, &docs), "{rows} rows");
        }
    }
}
