//! Verification on the words and joining without chains: every candidate pair is judged on the
//! share of words it has in common outside template lines; documents then join, in index order,
//! the most similar earlier representative they are near-duplicates of, so every member of a
//! cluster is a verified near-duplicate of its representative.

use super::profiles::Docs;
use super::template::{judge_pairs, SiteTemplates};
use super::{Cluster, ClusterStats, DocPrint, MatchKind, Member};
use crate::error::SpillError;
use crate::fingerprint::DedupConfig;
use crate::profile::word_share;

/// The outcome of joining: each head's representative (itself when it is one) and its share of
/// words with it.
pub(super) struct Joined {
    rep_of: Vec<u32>,
    share: Vec<f32>,
}

/// Verifies the candidate pairs (heads `a < b`, sorted) and joins each head to a representative.
pub(super) fn join(
    cfg: &DedupConfig,
    docs: Docs<'_>,
    pairs: &[(u32, u32)],
    templates: &SiteTemplates,
    boilerplate_head: &[bool],
    stats: &mut ClusterStats,
    (threads, budget): (usize, usize),
) -> Result<Joined, SpillError> {
    let n = docs.len();
    let eligible = |d: u32| !boilerplate_head[d as usize];
    let pairs: Vec<(u32, u32)> = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| eligible(a) && eligible(b))
        .collect();
    stats.verified_pairs = pairs.len() as u64;
    let shares = judge_pairs(
        &pairs,
        threads,
        budget,
        |d| docs.profile_words(d),
        |d, out| {
            templates.own_bag_into(&*docs.profile(d)?, out);
            Ok(())
        },
        word_share,
    )?;
    // Edges (b, a, share) with share >= threshold, in pair order.
    let mut edges: Vec<(u32, u32, f32)> = pairs
        .iter()
        .zip(shares)
        .filter(|&(_, s)| s >= cfg.threshold)
        .map(|(&(a, b), s)| (b, a, s as f32))
        .collect();
    stats.near_pairs = edges.len() as u64;
    edges.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
    let mut rep_of: Vec<u32> = (0..n as u32).collect();
    let mut share = vec![1.0f32; n];
    for run in edges.chunk_by(|x, y| x.0 == y.0) {
        let b = run[0].0;
        // The most similar earlier representative; ties go to the lowest index.
        let mut best: Option<(f32, u32)> = None;
        for &(_, a, s) in run {
            if rep_of[a as usize] != a {
                stats.not_joined_to_representative += 1;
                continue;
            }
            if best.is_none_or(|(bs, _)| s > bs) {
                best = Some((s, a));
            }
        }
        if let Some((s, a)) = best {
            rep_of[b as usize] = a;
            share[b as usize] = s;
        }
    }
    Ok(Joined { rep_of, share })
}

/// The clusters: each representative with its exact copies, the heads joined to it and their
/// exact copies; clusters of one document, and the groups `left_out[head]`, are dropped.
pub(super) fn gather(
    fps: &[DocPrint],
    head_of: &[u32],
    joined: &Joined,
    left_out: &[bool],
    stats: &mut ClusterStats,
) -> Vec<Cluster> {
    let n = fps.len();
    let mut by_rep: Vec<Vec<u32>> = vec![Vec::new(); n];
    for d in 0..n {
        if fps[d].words == 0 {
            continue;
        }
        let head = head_of[d];
        if left_out[head as usize] {
            continue;
        }
        let rep = joined.rep_of[head as usize];
        by_rep[rep as usize].push(d as u32);
    }
    let mut clusters = Vec::new();
    for (rep, docs) in by_rep.into_iter().enumerate() {
        if docs.len() < 2 {
            continue;
        }
        let rep = rep as u32;
        debug_assert_eq!(docs[0], rep);
        let members: Vec<Member> = docs
            .iter()
            .map(|&d| {
                let head = head_of[d as usize];
                let (kind, similarity) = if d == rep {
                    (MatchKind::Representative, 1.0)
                } else if head == rep {
                    (MatchKind::Exact, 1.0)
                } else {
                    (MatchKind::Near, joined.share[head as usize])
                };
                Member {
                    doc: d,
                    similarity,
                    kind,
                }
            })
            .collect();
        let lowest_similarity = members.iter().map(|m| m.similarity).fold(1.0f32, f32::min);
        for m in &members {
            match m.kind {
                MatchKind::Exact => stats.exact_duplicates += 1,
                MatchKind::Near => stats.near_duplicates += 1,
                MatchKind::Representative => {}
            }
        }
        clusters.push(Cluster {
            representative: rep,
            members,
            lowest_similarity,
        });
    }
    stats.clusters = clusters.len() as u64;
    clusters
}
