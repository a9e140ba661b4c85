//! The vocabulary of a collection with bounded memory: exact counts in a hash map for the first
//! [`STATS_EXACT_WORDS`] distinct words, then a count-min sketch for words met after the map is
//! full (the tail: mostly rare words, since frequent words appear early). While the sketch is
//! unused every figure is exact; once it is used, [`Vocabulary::approximate`] says so: a tail
//! word's count may be overestimated and a new word may be taken for a seen one, so the
//! vocabulary and hapax figures of the tail are estimates.

use crawlsift_common::limits::{STATS_EXACT_WORDS, STATS_SKETCH_DEPTH, STATS_SKETCH_WIDTH};
use hashbrown::HashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The frequency above which a word counts in `words_over_1000` (the AP89 table's column).
pub const FREQUENT: u64 = 1000;

/// Word counts: exact for the head, sketched for the tail (see the module doc).
#[derive(Debug, Clone)]
pub struct Vocabulary {
    exact: HashMap<Box<str>, u64>,
    limit: usize,
    tail: Option<Tail>,
    occurrences: u64,
}

/// Counts of words past the exact map's bound.
#[derive(Debug, Clone)]
struct Tail {
    sketch: Vec<u32>,
    occurrences: u64,
    distinct: u64,
    hapax: u64,
    frequent: u64,
}

impl Tail {
    fn new() -> Self {
        Tail {
            sketch: vec![0; STATS_SKETCH_WIDTH * STATS_SKETCH_DEPTH],
            occurrences: 0,
            distinct: 0,
            hapax: 0,
            frequent: 0,
        }
    }

    /// Adds `n` occurrences of `word`; keeps the distinct, hapax and frequent counts by the
    /// sketch's estimate before and after.
    fn add(&mut self, word: &str, n: u64) {
        let n32 = u32::try_from(n).unwrap_or(u32::MAX);
        let mut before = u32::MAX;
        for row in 0..STATS_SKETCH_DEPTH {
            let slot = row * STATS_SKETCH_WIDTH
                + (xxh3_64_with_seed(word.as_bytes(), row as u64) as usize % STATS_SKETCH_WIDTH);
            before = before.min(self.sketch[slot]);
            self.sketch[slot] = self.sketch[slot].saturating_add(n32);
        }
        let (before, after) = (u64::from(before), u64::from(before) + n);
        self.occurrences += n;
        if before == 0 {
            self.distinct += 1;
        }
        if before == 1 {
            self.hapax = self.hapax.saturating_sub(1);
        }
        if after == 1 {
            self.hapax += 1;
        }
        if before <= FREQUENT && after > FREQUENT {
            self.frequent += 1;
        }
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::with_limit(STATS_EXACT_WORDS)
    }
}

impl Vocabulary {
    /// A vocabulary counting at most `limit` distinct words exactly (tests use small limits).
    pub fn with_limit(limit: usize) -> Self {
        Vocabulary {
            exact: HashMap::new(),
            limit,
            tail: None,
            occurrences: 0,
        }
    }

    /// Adds `n` occurrences of `word`.
    pub fn add(&mut self, word: &str, n: u64) {
        self.occurrences += n;
        if let Some(c) = self.exact.get_mut(word) {
            *c += n;
        } else if self.exact.len() < self.limit {
            self.exact.insert(word.into(), n);
        } else {
            self.tail.get_or_insert_with(Tail::new).add(word, n);
        }
    }

    /// The count of `word` (an estimate, possibly too high, for a word of the tail).
    pub fn get(&self, word: &str) -> u64 {
        if let Some(c) = self.exact.get(word) {
            return *c;
        }
        let Some(t) = &self.tail else { return 0 };
        (0..STATS_SKETCH_DEPTH)
            .map(|row| {
                let slot = row * STATS_SKETCH_WIDTH
                    + (xxh3_64_with_seed(word.as_bytes(), row as u64) as usize
                        % STATS_SKETCH_WIDTH);
                u64::from(t.sketch[slot])
            })
            .min()
            .unwrap_or(0)
    }

    /// Whether some words were counted by the sketch (the figures are then estimates).
    pub fn approximate(&self) -> bool {
        self.tail.is_some()
    }

    /// Word occurrences (exact).
    pub fn occurrences(&self) -> u64 {
        self.occurrences
    }

    /// Distinct words.
    pub fn vocabulary(&self) -> u64 {
        self.exact.len() as u64 + self.tail.as_ref().map_or(0, |t| t.distinct)
    }

    /// Words occurring exactly once (hapax legomena).
    pub fn hapax(&self) -> u64 {
        self.exact.values().filter(|&&c| c == 1).count() as u64
            + self.tail.as_ref().map_or(0, |t| t.hapax)
    }

    /// Words occurring more than [`FREQUENT`] times.
    pub fn frequent(&self) -> u64 {
        self.exact.values().filter(|&&c| c > FREQUENT).count() as u64
            + self.tail.as_ref().map_or(0, |t| t.frequent)
    }

    /// The exactly counted words, most frequent first (ties in word order, so the order is the
    /// same on every run).
    pub fn ranked(&self) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self.exact.iter().map(|(w, c)| (&**w, *c)).collect();
        v.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_counts_give_vocabulary_hapax_and_ranks() {
        let mut v = Vocabulary::default();
        for w in ["b", "a", "b", "c", "b", "a"] {
            v.add(w, 1);
        }
        v.add("d", 1001);
        assert_eq!(v.occurrences(), 1007);
        assert_eq!(v.vocabulary(), 4);
        assert_eq!(v.hapax(), 1);
        assert_eq!(v.frequent(), 1);
        assert_eq!(v.ranked(), [("d", 1001), ("b", 3), ("a", 2), ("c", 1)]);
        assert!(!v.approximate());
    }

    #[test]
    fn words_past_the_bound_are_sketched_and_marked_approximate() {
        let mut v = Vocabulary::with_limit(2);
        for w in ["x", "y", "z", "z", "w"] {
            v.add(w, 1);
        }
        assert!(v.approximate());
        assert_eq!(v.occurrences(), 5);
        assert_eq!(v.vocabulary(), 4);
        assert_eq!(v.hapax(), 3);
        assert_eq!(v.get("z"), 2);
        assert_eq!(v.ranked(), [("x", 1), ("y", 1)]);
    }
}
