//! Shards of a dedup run and their merge: `crawlsift dedup INPUT... --shard I/N --out DIR_I`, then
//! `crawlsift merge DIR_0 ... DIR_N-1 --out OUT`.
//!
//! Every shard expands the same inputs in the same order and takes its part of them by
//! [`assign`] (by file: largest first to the shard with the fewest bytes so far), so N processes on
//! N machines agree on the split without talking to each other. A shard reads only its inputs and
//! keeps, for each one read to its end, the checkpoint a resumable run keeps
//! ([`crate::checkpoint`]: the input's summary and every record's outcome, title, fingerprint and,
//! for `--text`, text), named by the input's number in the *whole* input list; then it writes
//! [`SHARD_FILE`] ([`ShardManifest`]): the run's [`RunKey`], its place `I/N`, the input list as
//! data ([`InputList`]) and which inputs it read or failed to read.
//!
//! A merge checks that the shards belong to one run (the same key and input list, every shard
//! `0..N` once, every input held by the shard [`assign`] gives it) and replays every input from
//! the shard holding it, in input order, into the same collector a single run fills. The collector
//! cannot tell a replayed input from a read one (which is also what makes a resumed run's outputs
//! the same bytes as an uninterrupted run's), so clustering and every output after it are
//! byte-identical to a single run over the same inputs, for any N. Nothing of the archives is
//! read again: the merge needs only the shards' folders.

use crate::error::{fail, Error, IoContext, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crawlsift_common::limits::{MAX_SHARDS, MAX_SHARD_MANIFEST_BYTES};
use serde::{Deserialize, Serialize};

use crate::checkpoint::RunKey;
use crate::flow::inputs::InputList;
use crate::output::AtomicFile;

/// The file in a shard's output folder that describes the shard.
pub const SHARD_FILE: &str = "shard.json";

/// The version of [`ShardManifest`]'s layout.
pub const SHARD_FORMAT: u32 = 1;

/// Which shard of how many: `I/N` with `0 <= I < N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// This shard's number, from 0.
    pub index: u32,
    /// How many shards the run is split into.
    pub count: u32,
}

impl FromStr for ShardSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}` is not a shard: write I/N with 0 <= I < N, as 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(format!("{count} shards: at most {MAX_SHARDS}"));
        }
        Ok(ShardSpec { index, count })
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard that reads each input, from the inputs' sizes alone: inputs by size, largest first
/// (equal sizes in input order), each to the shard with the fewest bytes so far (ties: the lowest
/// number). Every shard computes the same split; the largest shard holds at most the mean plus
/// the largest input.
pub fn assign(sizes: &[u64], count: u32) -> Vec<u32> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(sizes[i]), i));
    let mut load = vec![0u64; count as usize];
    let mut shard_of = vec![0u32; sizes.len()];
    for i in order {
        let (s, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(s, &l)| (l, s))
            .expect("at least one shard");
        load[s] += sizes[i];
        shard_of[i] = s as u32;
    }
    shard_of
}

/// What a shard's `shard.json` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// [`SHARD_FORMAT`].
    pub format: u32,
    /// The key of the whole run (all inputs, settings, version): equal in every shard.
    pub key: RunKey,
    /// Which shard this is.
    pub shard: ShardSpec,
    /// The whole input list, as the outputs name it.
    pub inputs: InputList,
    /// The inputs this shard read to its end (their checkpoints are in its folder).
    pub held: Vec<u32>,
    /// The inputs of this shard that could not be read, with the error a single run reports.
    pub failed: Vec<(u32, String)>,
}

impl ShardManifest {
    /// Writes the manifest into the shard's output folder (whole or not at all).
    pub fn write(&self, out: &Path) -> Result<()> {
        let mut f = AtomicFile::create(&out.join(SHARD_FILE))?;
        serde_json::to_writer_pretty(&mut f, self)?;
        f.commit()
    }

    /// Reads the manifest of the shard whose output folder is `dir`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(SHARD_FILE);
        let size = fs::metadata(&path)
            .at(&path, || {
                format!(
                    "{} is not a finished shard: {SHARD_FILE} is missing (run its \
                     `crawlsift dedup ... --shard I/N` again)",
                    dir.display()
                )
            })?
            .len();
        if size > MAX_SHARD_MANIFEST_BYTES {
            fail!("{}: {size} bytes is not a shard manifest", path.display());
        }
        let bytes = fs::read(&path).at(&path, || format!("reading {}", path.display()))?;
        let m: ShardManifest = serde_json::from_slice(&bytes).map_err(|e| {
            let at = e.column() as u64; // the manifest is one line of JSON
            Error::damaged(
                format!("{} is damaged", path.display()),
                &path,
                at,
                Some(Box::new(e)),
            )
        })?;
        if m.format != SHARD_FORMAT {
            fail!(
                "{}: shard format {} (this crawlsift reads {SHARD_FORMAT})",
                path.display(),
                m.format
            );
        }
        Ok(m)
    }
}

/// What a merge replays: the run's key and inputs, where each input's checkpoint is, and the
/// inputs that could not be read.
#[derive(Debug)]
pub struct MergePlan {
    /// The run's key (the shards' common one).
    pub key: RunKey,
    /// The whole input list.
    pub inputs: InputList,
    /// Per input, the output folder of the shard that holds its checkpoint.
    pub sources: Vec<Option<PathBuf>>,
    /// Inputs that could not be read, with their errors.
    pub failed: Vec<(u32, String)>,
}

/// Reads and checks the shards' manifests: one run, every shard once, every input accounted for by
/// the shard that [`assign`] gives it.
pub fn plan_merge(dirs: &[PathBuf]) -> Result<MergePlan> {
    let mut manifests = Vec::with_capacity(dirs.len());
    for d in dirs {
        manifests.push((d, ShardManifest::read(d)?));
    }
    let Some((first_dir, first)) = manifests.first() else {
        return Err(Error::Shards("no shard folders given".into()));
    };
    let count = first.shard.count;
    let n = first.inputs.names.len();
    if first.inputs.sizes.len() != n || first.key.inputs.len() != n {
        return Err(Error::Shards(format!(
            "{}: its input list is damaged",
            first_dir.display()
        )));
    }
    let mut seen: Vec<Option<&PathBuf>> = vec![None; count as usize];
    for (d, m) in &manifests {
        if m.key != first.key || m.inputs != first.inputs || m.shard.count != count {
            return Err(Error::Shards(format!(
                "{} and {} are shards of different runs (other inputs, settings, shard count or \
                 crawlsift version)",
                first_dir.display(),
                d.display()
            )));
        }
        match seen.get_mut(m.shard.index as usize) {
            Some(Some(other)) => {
                return Err(Error::Shards(format!(
                    "{} and {} are both shard {}",
                    other.display(),
                    d.display(),
                    m.shard
                )));
            }
            Some(slot) => *slot = Some(d),
            None => {
                return Err(Error::Shards(format!(
                    "{}: shard {} is out of range",
                    d.display(),
                    m.shard
                )));
            }
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|&i| seen[i as usize].is_none())
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Shards(format!(
            "shards missing: {}",
            missing.join(", ")
        )));
    }
    let owner = assign(&first.inputs.sizes, count);
    let mut sources: Vec<Option<PathBuf>> = vec![None; n];
    let mut accounted = vec![false; n];
    let mut failed = Vec::new();
    for (d, m) in &manifests {
        let held = m.held.iter().map(|&f| (f, None));
        let lost = m.failed.iter().map(|(f, e)| (*f, Some(e)));
        for (f, err) in held.chain(lost) {
            let Some(&o) = owner.get(f as usize) else {
                return Err(Error::Shards(format!(
                    "{}: input {f} is out of range",
                    d.display()
                )));
            };
            if o != m.shard.index || accounted[f as usize] {
                return Err(Error::Shards(format!(
                    "{}: input {} is not this shard's to read",
                    d.display(),
                    first.inputs.names[f as usize]
                )));
            }
            accounted[f as usize] = true;
            match err {
                None => sources[f as usize] = Some((*d).clone()),
                Some(e) => failed.push((f, e.clone())),
            }
        }
    }
    if let Some(f) = accounted.iter().position(|a| !a) {
        return Err(Error::Shards(format!(
            "input {} was read by no shard (shard {}/{count} is unfinished?)",
            first.inputs.names[f], owner[f]
        )));
    }
    failed.sort();
    Ok(MergePlan {
        key: first.key.clone(),
        inputs: first.inputs.clone(),
        sources,
        failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_refuse() {
        assert_eq!(
            "2/8".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 8 })
        );
        for bad in ["8/8", "1/0", "x/2", "3", "-1/2", "1/2/3", ""] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
        assert!(format!("0/{}", MAX_SHARDS + 1)
            .parse::<ShardSpec>()
            .is_err());
    }

    #[test]
    fn assignment_is_balanced_and_deterministic() {
        let sizes = [10, 50, 20, 20, 5, 40, 0];
        let a = assign(&sizes, 3);
        assert_eq!(a, assign(&sizes, 3));
        let mut load = [0u64; 3];
        for (i, &s) in a.iter().enumerate() {
            load[s as usize] += sizes[i];
        }
        let mean = sizes.iter().sum::<u64>() / 3;
        assert!(load.iter().all(|&l| l <= mean + 50), "{load:?}");
        assert_eq!(assign(&sizes, 1), vec![0; sizes.len()]);
        // More shards than inputs: some shards hold nothing, none holds two.
        let many = assign(&[1, 2, 3], 8);
        let mut sorted = many.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 3);
    }
}
