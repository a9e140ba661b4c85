//! Band tables: for each MinHash band and each SimHash block, the segment's rows sorted by key,
//! so a search binary-searches one table per band instead of scanning the segment.
//!
//! An entry is a little-endian u32: the key's low 16 bits above the row number (16 bits: a
//! segment holds at most `STORE_SEGMENT_MAX_DOCS` rows). With the default settings a band key is
//! two one-byte minima and a SimHash block 16 bits, so the low 16 bits are the whole key; with
//! wider keys a bucket holds rows of several keys, and the search checks each row's own key.
//! Tables are MinHash bands `0..lsh_bands`, then SimHash blocks `0..=simhash_max_hamming`; only
//! rows with a signature are in them.

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

/// The entry of `row` under `key`.
pub fn entry(key: u64, row: u32) -> u32 {
    (key as u32 & 0xFFFF) << 16 | (row & 0xFFFF)
}

/// The range of entries of a bucket: every entry whose key bits are those of `key`.
pub fn bucket_bounds(key: u64) -> (u32, u32) {
    let k = key as u32 & 0xFFFF;
    (k << 16, k << 16 | 0xFFFF)
}

/// Every table's sorted entries for rows `(signature, simhash)` (rows without a signature, the
/// `None`s, are left out).
pub fn build_tables(cfg: &DedupConfig, rows: &[Option<(&[u8], u64)>]) -> Vec<Vec<u32>> {
    (0..table_count(cfg))
        .map(|t| {
            let mut v: Vec<u32> = rows
                .iter()
                .enumerate()
                .filter_map(|(r, x)| {
                    let (sig, sh) = (*x)?;
                    key_of(cfg, t, sig, sh).map(|k| entry(k, r as u32))
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
    fn a_bucket_holds_exactly_the_rows_of_its_key() {
        let cfg = DedupConfig::default();
        let sig_a = vec![7u8; cfg.minhash_perms];
        let mut sig_b = sig_a.clone();
        sig_b[0] = 8; // differs in band 0 only
        let tables = build_tables(&cfg, &[Some((&sig_a, 1)), Some((&sig_b, 1)), None]);
        assert_eq!(tables.len(), table_count(&cfg));
        let (lo, hi) = bucket_bounds(key_of(&cfg, 0, &sig_a, 1).unwrap());
        let in_bucket: Vec<u32> = tables[0]
            .iter()
            .filter(|&&e| (lo..=hi).contains(&e))
            .map(|e| e & 0xFFFF)
            .collect();
        assert_eq!(in_bucket, [0]);
        assert_eq!(tables[1].len(), 2);
        assert!(tables[1].windows(2).all(|w| w[0] < w[1]));
    }
}
