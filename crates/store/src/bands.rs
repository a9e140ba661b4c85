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

/// Every table's `(key, row)` entries, sorted, for rows `(signature, simhash)` (rows without a
/// signature, the `None`s, are left out).
pub fn build_tables(cfg: &DedupConfig, rows: &[Option<(&[u8], u64)>]) -> Vec<Vec<(u64, u32)>> {
    (0..table_count(cfg))
        .map(|t| {
            let mut v: Vec<(u64, u32)> = rows
                .iter()
                .enumerate()
                .filter_map(|(r, x)| {
                    let (sig, sh) = (*x)?;
                    table_key(cfg, t, sig, sh).map(|k| (k, r as u32))
                })
                .collect();
            v.sort_unstable();
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_keys_are_the_signature_bytes_and_simhash_blocks() {
        let cfg = DedupConfig::default();
        let sig_a = vec![7u8; cfg.minhash_perms];
        let mut sig_b = sig_a.clone();
        sig_b[0] = 8; // differs in band 0 only
        let tables = build_tables(&cfg, &[Some((&sig_a, 1)), Some((&sig_b, 1)), None]);
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
}
