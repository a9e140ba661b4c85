//! What clustering decided for each document ([`Verdicts`]): its cluster, whether it is a
//! duplicate and of which document, and its flags. The keep/duplicate rule lives here, once: a
//! document is kept (in the clean corpus) unless it is a member of a cluster other than its
//! representative. Per-document facts that later reports add belong here too.

use crawlsift_dedup::Clustering;

/// Per-document outcome of a clustering, indexed by document number (order of `Clusterer::add`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdicts {
    /// The cluster (index into `Clustering::clusters`) of each document, if any.
    pub cluster: Vec<Option<u32>>,
    /// The representative of each duplicate; `None` for representatives and unclustered ones.
    pub duplicate_of: Vec<Option<u32>>,
    /// Too short to judge.
    pub too_short: Vec<bool>,
    /// Mostly template text.
    pub boilerplate: Vec<bool>,
    /// Share of the words in site-template lines.
    pub template_share: Vec<f32>,
}

impl Verdicts {
    /// The verdicts of `documents` documents clustered into `c`.
    pub fn new(c: &Clustering, documents: usize) -> Self {
        let mut duplicate_of = vec![None; documents];
        for cl in &c.clusters {
            for m in &cl.members {
                if m.doc != cl.representative {
                    duplicate_of[m.doc as usize] = Some(cl.representative);
                }
            }
        }
        let mut too_short = vec![false; documents];
        for &d in &c.too_short {
            too_short[d as usize] = true;
        }
        let mut boilerplate = vec![false; documents];
        for &d in &c.boilerplate {
            boilerplate[d as usize] = true;
        }
        let mut template_share = c.template_share.clone();
        template_share.resize(documents, 0.0);
        Verdicts {
            cluster: c.assignments(documents),
            duplicate_of,
            too_short,
            boilerplate,
            template_share,
        }
    }

    /// Whether document `doc` is kept: it is in no cluster or represents one.
    pub fn kept(&self, doc: u32) -> bool {
        self.duplicate_of[doc as usize].is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crawlsift_dedup::{Cluster, ClusterStats, MatchKind, Member};

    #[test]
    fn representatives_and_loners_are_kept_duplicates_are_not() {
        let member = |doc, kind| Member {
            doc,
            similarity: 1.0,
            kind,
        };
        let c = Clustering {
            clusters: vec![Cluster {
                representative: 1,
                members: vec![
                    member(1, MatchKind::Representative),
                    member(3, MatchKind::Exact),
                ],
                lowest_similarity: 1.0,
            }],
            template_share: Vec::new(),
            too_short: vec![0],
            boilerplate: vec![2],
            stats: ClusterStats::default(),
        };
        let v = Verdicts::new(&c, 4);
        assert_eq!(
            (0..4).map(|d| v.kept(d)).collect::<Vec<_>>(),
            [true, true, true, false]
        );
        assert_eq!(v.duplicate_of, [None, None, None, Some(1)]);
        assert_eq!(v.cluster, [None, Some(0), None, Some(0)]);
        assert_eq!(v.too_short, [true, false, false, false]);
        assert_eq!(v.boilerplate, [false, false, true, false]);
    }
}
