//! The memory budget of a run (`dedup --memory`, `merge --memory`): the one owner of what a run
//! counts against it, what it measures beyond the count, in which order the parts held per
//! document move to disk, and how much working memory each clustering step may take.
//!
//! A run keeps, per document, [`Part`]s of four kinds: what never leaves memory (fingerprints,
//! site ids, where each spilled item went), word profiles, the records of the catalog, and
//! MinHash signatures. Each owner counts what it adds ([`MemoryBudget::count`]); while the count
//! and what the process was measured to hold beyond it pass the resident share
//! (`limits::DEDUP_PROFILE_RESIDENT_PERCENT` of the budget), [`MemoryBudget::keep`] asks the
//! spillable parts, in [`Part::SPILL_ORDER`], to move their oldest items to disk: profiles first
//! (the largest, read back only by verification and template learning), then catalog records
//! (read back once, in order, at the end), then signatures (read back by every clustering step).
//! The parts themselves only store and read back; none of them decides when or in which order.
//!
//! Without a spill folder (a shard writing whole fingerprints, a search against an index) nothing
//! moves: the count is kept for the report and the steps work in the whole budget.

use std::path::{Path, PathBuf};

use crate::{limits, memory};

/// A kind of memory a run holds per document, counted against the resident share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// What stays in memory whatever happens: fingerprints (32 bytes a document), site ids and
    /// names, and where each spilled item went.
    Fixed,
    /// Word profiles, read back when a pair is verified or template lines are learnt.
    Profiles,
    /// The catalog's records for `documents.jsonl.gz`, read back once as it is written.
    Catalog,
    /// MinHash signatures (and wide bytes), read back by every clustering step.
    Signatures,
}

impl Part {
    /// The parts that can move to disk, in the order they do.
    pub const SPILL_ORDER: [Part; 3] = [Part::Profiles, Part::Catalog, Part::Signatures];

    fn slot(self) -> usize {
        match self {
            Part::Fixed => 0,
            Part::Profiles => 1,
            Part::Catalog => 2,
            Part::Signatures => 3,
        }
    }
}

/// What one spill of a part did: bytes it no longer holds in memory, and bytes it now holds to
/// find them again (counted as [`Part::Fixed`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spilled {
    /// Bytes moved out of memory.
    pub freed: usize,
    /// Bytes kept in memory to find them (a slot a spilled item).
    pub kept: usize,
}

/// The budget of one run (see the module doc).
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    /// The whole budget, in bytes.
    memory: usize,
    /// Bytes the parts held per document may take before the oldest move to disk.
    resident_share: usize,
    /// Where spilled parts go; `None`: nothing moves.
    spill_dir: Option<PathBuf>,
    /// Bytes counted in memory, by [`Part::slot`].
    counted: [usize; 4],
    /// Bytes the process was last measured to hold beyond the count and beyond the room the
    /// budget leaves beside the resident share ([`MemoryBudget::measure`]).
    unseen: usize,
    /// Documents counted, for the cadence of measurements.
    documents: usize,
}

impl Default for MemoryBudget {
    /// `limits::DEDUP_MEMORY_DEFAULT`, with no spill folder.
    fn default() -> Self {
        Self::new(limits::DEDUP_MEMORY_DEFAULT, None)
    }
}

impl MemoryBudget {
    /// A budget of about `bytes` (at least `limits::DEDUP_MEMORY_MIN`); with `spill_to`, the
    /// parts held per document move there past the resident share.
    pub fn new(bytes: usize, spill_to: Option<&Path>) -> Self {
        let memory = bytes.max(limits::DEDUP_MEMORY_MIN);
        Self {
            memory,
            resident_share: memory / 100 * limits::DEDUP_PROFILE_RESIDENT_PERCENT,
            spill_dir: spill_to.map(Path::to_path_buf),
            counted: [0; 4],
            unseen: 0,
            documents: 0,
        }
    }

    /// A budget of exactly `bytes` of working memory and no spill folder, below the smallest a
    /// user may give: for tests and benchmarks that make every step work in many parts.
    pub fn working_only(bytes: usize) -> Self {
        Self {
            memory: bytes,
            resident_share: 0,
            ..Self::new(bytes, None)
        }
    }

    /// The folder spilled parts go to, if any.
    pub fn spill_dir(&self) -> Option<&Path> {
        self.spill_dir.as_deref()
    }

    /// Counts `bytes` more held by `part`.
    pub fn count(&mut self, part: Part, bytes: usize) {
        let c = &mut self.counted[part.slot()];
        *c = c.saturating_add(bytes);
    }

    /// Takes back `bytes` `part` no longer holds.
    pub fn release(&mut self, part: Part, bytes: usize) {
        let c = &mut self.counted[part.slot()];
        *c = c.saturating_sub(bytes);
    }

    /// Bytes counted for `part`.
    pub fn held(&self, part: Part) -> usize {
        self.counted[part.slot()]
    }

    /// Bytes counted for every part.
    pub fn counted(&self) -> usize {
        self.counted.iter().sum()
    }

    /// Bytes past the resident share (counted and unseen); always 0 without a spill folder.
    pub fn excess(&self) -> usize {
        if self.spill_dir.is_none() {
            return 0;
        }
        (self.counted() + self.unseen).saturating_sub(self.resident_share)
    }

    /// Notes one more document; every `limits::DEDUP_MEASURE_EVERY_DOCS` documents, measures
    /// what the process holds ([`measure`](Self::measure)).
    pub fn document_added(&mut self) {
        self.documents += 1;
        if self
            .documents
            .is_multiple_of(limits::DEDUP_MEASURE_EVERY_DOCS)
        {
            self.measure();
        }
    }

    /// Measures what the process holds beyond the count (the reading threads' batches, the
    /// allocator's slack) and counts what of it passes the room the budget leaves beside the
    /// resident share (less `limits::DEDUP_WORKING_UNPLANNED_PERCENT`), so that more spills and
    /// the process stays within the budget while documents are read. Nothing without a spill
    /// folder, or where the resident set cannot be read.
    pub fn measure(&mut self) {
        if self.spill_dir.is_none() {
            return;
        }
        let Some(measured) = memory::settled_resident_bytes() else {
            return;
        };
        let whole = self.memory / 100 * (100 - limits::DEDUP_WORKING_UNPLANNED_PERCENT);
        let room = whole.saturating_sub(self.resident_share);
        let beyond = measured.saturating_sub(self.counted());
        self.unseen = beyond.saturating_sub(room);
    }

    /// Working memory of the next clustering step: the budget, less what is held when parts
    /// spill (the larger of the count and the process's measured resident set, which sees the
    /// allocator's slack and what earlier steps still hold), less
    /// `limits::DEDUP_WORKING_UNPLANNED_PERCENT` for what steps hold beside their plans, and
    /// never less than `limits::DEDUP_WORKING_MIN_PERCENT`. Without a spill folder, the whole
    /// budget.
    pub fn working_memory(&self) -> usize {
        if self.spill_dir.is_none() {
            return self.memory;
        }
        let counted = self.counted() + self.unseen;
        let measured = memory::settled_resident_bytes().unwrap_or(0);
        let percent = |p: usize| self.memory / 100 * p;
        let planned = self.memory - percent(limits::DEDUP_WORKING_UNPLANNED_PERCENT);
        let floor = percent(limits::DEDUP_WORKING_MIN_PERCENT);
        planned.saturating_sub(counted.max(measured)).max(floor)
    }

    /// Brings the count back within the resident share: asks each part of [`Part::SPILL_ORDER`]
    /// in turn, through `spill(part, bytes, folder)`, to move about `bytes` of its oldest items
    /// to `folder`, until nothing passes or every part has nothing more to give (a spill that
    /// frees nothing). An error of `spill` ends it and is returned: the run is not to go on.
    pub fn keep<E>(
        &mut self,
        mut spill: impl FnMut(Part, usize, &Path) -> Result<Spilled, E>,
    ) -> Result<(), E> {
        let Some(dir) = self.spill_dir.clone() else {
            return Ok(());
        };
        for part in Part::SPILL_ORDER {
            while self.excess() > 0 && self.held(part) > 0 {
                let done = spill(part, self.excess(), &dir)?;
                self.release(part, done.freed);
                self.count(Part::Fixed, done.kept);
                if done.freed == 0 {
                    break;
                }
            }
            if self.excess() == 0 {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part of `items` items of `each` bytes, keeping 1 byte a spilled item.
    struct Stack {
        items: usize,
        each: usize,
        spilled: usize,
    }

    impl Stack {
        fn spill(&mut self, bytes: usize) -> Spilled {
            let n = bytes.div_ceil(self.each).min(self.items - self.spilled);
            self.spilled += n;
            Spilled {
                freed: n * self.each,
                kept: n,
            }
        }
    }

    #[test]
    fn parts_spill_in_order_and_only_as_much_as_passes() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = MemoryBudget::new(0, Some(dir.path()));
        let share = b.resident_share;
        assert_eq!(
            share,
            limits::DEDUP_MEMORY_MIN / 100 * limits::DEDUP_PROFILE_RESIDENT_PERCENT
        );
        let mut parts = [
            Stack {
                items: 10,
                each: share / 20,
                spilled: 0,
            },
            Stack {
                items: 10,
                each: share / 20,
                spilled: 0,
            },
            Stack {
                items: 10,
                each: share / 20,
                spilled: 0,
            },
        ];
        for part in Part::SPILL_ORDER {
            b.count(part, 10 * (share / 20));
        }
        let mut order = Vec::new();
        b.keep(|part, bytes, at| -> Result<Spilled, ()> {
            assert_eq!(at, dir.path());
            order.push(part);
            let i = Part::SPILL_ORDER.iter().position(|&p| p == part).unwrap();
            Ok(parts[i].spill(bytes))
        })
        .unwrap();
        // Every profile went first, then catalog records until the count fit (the kept slots
        // included); signatures stayed.
        assert_eq!(parts[0].spilled, 10);
        assert!(parts[1].spilled > 0 && parts[1].spilled < 10);
        assert_eq!(parts[2].spilled, 0);
        assert_eq!(b.excess(), 0);
        assert_eq!(order.first(), Some(&Part::Profiles));
        assert!(!order.contains(&Part::Signatures));
        assert_eq!(b.held(Part::Fixed), parts[0].spilled + parts[1].spilled);
    }

    #[test]
    fn a_part_with_nothing_to_give_passes_the_turn_and_errors_end_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = MemoryBudget::new(0, Some(dir.path()));
        b.count(Part::Profiles, b.resident_share);
        b.count(Part::Signatures, 100);
        let mut asked = Vec::new();
        let r = b.keep(|part, _, _| {
            asked.push(part);
            match part {
                Part::Signatures => Err("disk full"),
                _ => Ok(Spilled::default()),
            }
        });
        assert_eq!(r, Err("disk full"));
        assert_eq!(asked, [Part::Profiles, Part::Signatures]);
    }

    #[test]
    fn without_a_folder_nothing_moves_and_steps_take_the_whole_budget() {
        let mut b = MemoryBudget::new(64 << 20, None);
        b.count(Part::Profiles, 1 << 40);
        assert_eq!(b.excess(), 0);
        assert_eq!(b.working_memory(), 64 << 20);
        b.keep(|_, _, _| -> Result<Spilled, ()> { panic!("nothing spills") })
            .unwrap();
        assert_eq!(MemoryBudget::working_only(1).working_memory(), 1);
    }
}
