//! Covering sets: the fewest other classes whose shingles cover a page's borrowed shingles, by
//! the greedy set-cover rule (take the class covering most of what is still uncovered; ties go to
//! the lowest class id, so the answer does not depend on input order). Greedy is within a factor
//! H(n) <= 1 + ln n of the fewest (Johnson 1974, Chvátal 1979), and exact on the small, nearly
//! disjoint covers slice-and-dice pages have.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// One class of a covering set and the page's shingles it covered when it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Covered {
    /// The class.
    pub class: u32,
    /// Shingles it covered that no earlier class of the set did.
    pub new: u32,
    /// Shingles of the page it holds in all.
    pub shared: u32,
}

/// The greedy covering set of `items` shingles, where `holders[i]` lists the classes holding
/// shingle i (any order, duplicates ignored). Shingles no class holds stay uncovered.
///
/// Lazy greedy: a class's gain only falls as others are taken, so classes wait in a heap under
/// their last known gain and a popped class whose gain is still current is the best (ties: the
/// lowest class id, as the heap orders by gain, then by class id reversed).
pub fn greedy_cover<L: AsRef<[u32]>>(holders: &[L]) -> Vec<Covered> {
    // class -> the shingles it holds (ascending, distinct).
    let mut sets: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (i, hs) in holders.iter().enumerate() {
        for &c in hs.as_ref() {
            let v = sets.entry(c).or_default();
            if v.last() != Some(&(i as u32)) {
                v.push(i as u32);
            }
        }
    }
    let mut heap: BinaryHeap<(u32, Reverse<u32>)> = sets
        .iter()
        .map(|(&c, items)| (items.len() as u32, Reverse(c)))
        .collect();
    let mut covered = vec![false; holders.len()];
    let mut out = Vec::new();
    while let Some((stale, Reverse(class))) = heap.pop() {
        let items = &sets[&class];
        let gain = items.iter().filter(|&&i| !covered[i as usize]).count() as u32;
        if gain == 0 {
            continue;
        }
        if gain < stale {
            heap.push((gain, Reverse(class)));
            continue;
        }
        for &i in items {
            covered[i as usize] = true;
        }
        out.push(Covered {
            class,
            new: gain,
            shared: items.len() as u32,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The fewest classes covering every coverable shingle, by trying every subset.
    fn brute_force(holders: &[Vec<u32>]) -> usize {
        let mut classes: Vec<u32> = holders.iter().flatten().copied().collect();
        classes.sort_unstable();
        classes.dedup();
        let need: usize = holders.iter().filter(|h| !h.is_empty()).count();
        (0..1u32 << classes.len())
            .filter(|mask| {
                holders
                    .iter()
                    .filter(|h| {
                        h.iter().any(|c| {
                            let j = classes.binary_search(c).unwrap();
                            mask >> j & 1 == 1
                        })
                    })
                    .count()
                    == need
            })
            .map(|mask| mask.count_ones() as usize)
            .min()
            .unwrap_or(0)
    }

    #[test]
    fn greedy_takes_the_largest_first_and_breaks_ties_by_class() {
        let h = vec![vec![7, 3], vec![7], vec![3], vec![9], vec![]];
        let cover = greedy_cover(&h);
        assert_eq!(
            cover,
            vec![
                Covered {
                    class: 3,
                    new: 2,
                    shared: 2
                },
                Covered {
                    class: 7,
                    new: 1,
                    shared: 2
                },
                Covered {
                    class: 9,
                    new: 1,
                    shared: 1
                },
            ]
        );
    }

    /// The plain greedy rule, recomputing every gain each round.
    fn naive_greedy(holders: &[Vec<u32>]) -> Vec<u32> {
        let mut covered = vec![false; holders.len()];
        let mut out = Vec::new();
        loop {
            let mut best: Option<(usize, u32)> = None;
            let mut classes: Vec<u32> = holders.iter().flatten().copied().collect();
            classes.sort_unstable();
            classes.dedup();
            for c in classes {
                let gain = (0..holders.len())
                    .filter(|&i| !covered[i] && holders[i].contains(&c))
                    .count();
                if gain > 0 && best.is_none_or(|(g, _)| gain > g) {
                    best = Some((gain, c));
                }
            }
            let Some((_, c)) = best else { return out };
            for (i, h) in holders.iter().enumerate() {
                if h.contains(&c) {
                    covered[i] = true;
                }
            }
            out.push(c);
        }
    }

    proptest! {
        #[test]
        fn lazy_greedy_equals_plain_greedy(
            holders in proptest::collection::vec(proptest::collection::vec(0u32..12, 0..5), 0..30)
        ) {
            let lazy: Vec<u32> = greedy_cover(&holders).iter().map(|c| c.class).collect();
            prop_assert_eq!(lazy, naive_greedy(&holders));
        }

        /// On small cases greedy covers everything coverable and is never worse than the
        /// H(n) bound of the optimum; on disjoint sources (what a stitched page is) it is optimal.
        #[test]
        fn greedy_against_brute_force(
            holders in proptest::collection::vec(proptest::collection::vec(0u32..8, 0..3), 0..12)
        ) {
            let cover = greedy_cover(&holders);
            let covered: std::collections::BTreeSet<u32> = cover.iter().map(|c| c.class).collect();
            for h in &holders {
                prop_assert!(h.is_empty() || h.iter().any(|c| covered.contains(c)));
            }
            let best = brute_force(&holders);
            let n = holders.len().max(1) as f64;
            prop_assert!(cover.len() >= best);
            prop_assert!(cover.len() as f64 <= best as f64 * (1.0 + n.ln()) + 1e-9);
            let total: u32 = cover.iter().map(|c| c.new).sum();
            prop_assert_eq!(total as usize, holders.iter().filter(|h| !h.is_empty()).count());
        }

        #[test]
        fn greedy_is_optimal_when_each_shingle_has_one_source(
            owners in proptest::collection::vec(0u32..10, 0..20)
        ) {
            let holders: Vec<Vec<u32>> = owners.iter().map(|&c| vec![c]).collect();
            prop_assert_eq!(greedy_cover(&holders).len(), brute_force(&holders));
        }
    }
}
