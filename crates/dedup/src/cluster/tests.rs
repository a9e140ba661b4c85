//! Tests of the clustering steps together: exact and near copies, templates, chains, threads.

use super::*;
use crate::fingerprint::Fingerprinter;
use crate::minhash::{agreements, estimate_jaccard};
use crate::simhash::hamming;

/// Deterministic pseudo-random words (SplitMix64), no dependency on a RNG crate.
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        crate::minhash::mix64(self.0)
    }
    fn word(&mut self) -> String {
        format!("w{}", self.next() % 5000)
    }
    fn text(&mut self, n: usize) -> Vec<String> {
        (0..n).map(|_| self.word()).collect()
    }
    /// Replaces about `rate` of the words.
    fn edit(&mut self, words: &[String], rate: f64) -> Vec<String> {
        words
            .iter()
            .map(|w| {
                if (self.next() % 10_000) as f64 / 10_000.0 < rate {
                    self.word()
                } else {
                    w.clone()
                }
            })
            .collect()
    }
}

fn run(texts: &[String]) -> Clustering {
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let mut c = Clusterer::new(&cfg).unwrap();
    for t in texts {
        c.add(f.fingerprint(t));
    }
    c.finish().unwrap()
}

fn same_cluster(r: &Clustering, a: u32, b: u32) -> bool {
    r.clusters
        .iter()
        .any(|c| c.members.iter().any(|m| m.doc == a) && c.members.iter().any(|m| m.doc == b))
}

#[test]
fn exact_and_edited_copies_cluster_and_different_texts_do_not() {
    let mut g = Words(1);
    let a = g.text(400);
    let edited = g.edit(&a, 0.10);
    let other = g.text(400);
    let texts = vec![
        a.join(" "),
        other.join(" "),
        a.join("  ").to_uppercase(), // exact after normalization
        edited.join(" "),
    ];
    let r = run(&texts);
    assert_eq!(r.clusters.len(), 1, "{r:?}");
    let c = &r.clusters[0];
    assert_eq!(c.representative, 0);
    let kinds: Vec<(u32, MatchKind)> = c.members.iter().map(|m| (m.doc, m.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            (0, MatchKind::Representative),
            (2, MatchKind::Exact),
            (3, MatchKind::Near)
        ]
    );
    assert!(c.members[2].similarity > 0.3 && c.members[2].similarity < 1.0);
    assert_eq!(r.stats.exact_duplicates, 1);
    assert_eq!(r.stats.near_duplicates, 1);
}

#[test]
fn too_short_texts_are_reported_and_only_exact_copies_of_them_clustered() {
    let stub =
        "Sign in to Example. Email Password. Forgot your password? New here? Create an account.";
    let other =
        "Sign in to Example. Email Password. Forgot your password? New here? Join us today.";
    let texts = [
        stub.to_string(),
        stub.to_uppercase(),
        other.into(),
        String::new(),
        String::new(),
    ];
    let r = run(&texts);
    assert_eq!(r.too_short, vec![0, 1, 2, 3, 4]);
    // An exact copy is a copy at any length; a near one is too short to judge; empty texts are
    // nobody's copies.
    assert_eq!(r.clusters.len(), 1, "{:?}", r.clusters);
    let kinds: Vec<(u32, MatchKind)> = r.clusters[0]
        .members
        .iter()
        .map(|m| (m.doc, m.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![(0, MatchKind::Representative), (1, MatchKind::Exact)]
    );

    // On the web, a short page's text is what its site's software prints: pages of different
    // sites showing the same few words are not clustered; one site showing them twice is.
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let mut c = Clusterer::new(&cfg).unwrap();
    for (i, t) in texts.iter().enumerate() {
        c.add_on_site(f.fingerprint(t), &format!("site{}.example", i % 2));
    }
    let r = c.finish().unwrap();
    assert!(r.clusters.is_empty(), "{:?}", r.clusters);
    assert_eq!(r.stats.short_web_exact_groups, 1);
    let mut c = Clusterer::new(&cfg).unwrap();
    for t in &texts {
        c.add_on_site(f.fingerprint(t), "one.example");
    }
    assert_eq!(c.finish().unwrap().clusters.len(), 1);
}

#[test]
fn chains_of_borderline_pairs_do_not_join_unrelated_documents() {
    // Seven segments; A = s1..s5, B = s2..s6, C = s3..s7: A~B and B~C share 80% of their words,
    // A and C only 60%, below the threshold. B joins A; C may not join through B.
    let mut g = Words(2);
    let s: Vec<Vec<String>> = (0..7).map(|_| g.text(60)).collect();
    let cat = |from: usize| s[from..from + 5].concat().join(" ");
    let r = run(&[cat(0), cat(1), cat(2)]);
    assert!(same_cluster(&r, 0, 1), "{r:?}");
    assert!(!same_cluster(&r, 0, 2) && !same_cluster(&r, 1, 2), "{r:?}");
    assert_eq!(r.stats.not_joined_to_representative, 1);
    let m = &r.clusters[0].members[1];
    assert!((m.similarity - 0.8).abs() < 0.02, "{m:?}");
    assert_eq!(r.clusters[0].lowest_similarity, m.similarity);
}

#[test]
fn a_site_skeleton_does_not_make_its_pages_near_duplicates() {
    // Five pages of one site: the same header, intro and footer lines (half the words) around
    // text of their own; and a copy of one of them on the same site with a few words changed.
    let mut g = Words(11);
    let skeleton: Vec<String> = (0..4).map(|_| g.text(45).join(" ")).collect();
    let page = |own: &str| {
        format!(
            "{}\n{}\n{own}\n{}\n{}",
            skeleton[0], skeleton[1], skeleton[2], skeleton[3]
        )
    };
    let owns: Vec<Vec<String>> = (0..5).map(|_| g.text(170)).collect();
    let mut texts: Vec<String> = owns.iter().map(|o| page(&o.join(" "))).collect();
    texts.push(page(&g.edit(&owns[0], 0.05).join(" ")));
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let mut c = Clusterer::new(&cfg).unwrap();
    for t in &texts {
        c.add_on_site(f.fingerprint(t), "www.example.org");
    }
    let r = c.finish().unwrap();
    assert_eq!(r.clusters.len(), 1, "{:?}", r.clusters);
    assert_eq!(r.clusters[0].members.len(), 2);
    assert!(same_cluster(&r, 0, 5));
    assert_eq!(r.stats.template_lines, 4);
    assert!(
        r.template_share.iter().all(|&s| (s - 0.51).abs() < 0.02),
        "{:?}",
        r.template_share
    );

    // Without the site (each page alone on its own host) the skeleton is half of every page's
    // words, and the siblings would be near-duplicates of each other.
    let mut c = Clusterer::new(&cfg).unwrap();
    for (i, t) in texts.iter().enumerate() {
        c.add_on_site(f.fingerprint(t), &format!("host{i}"));
    }
    assert_eq!(c.finish().unwrap().stats.template_lines, 0);
}

/// Pages of one site without an article: a template block (cookie notice, newsletter box)
/// and a few words of their own. Two of them share 80% of their words, but not because one
/// copies the other.
fn template_site(g: &mut Words, stubs: usize) -> (Vec<String>, Vec<String>) {
    let template = g.text(100);
    let texts = (0..stubs)
        .map(|_| [template.clone(), g.text(20)].concat().join(" "))
        .collect();
    (template, texts)
}

#[test]
fn template_pages_are_boilerplate_and_copies_carrying_the_template_still_join() {
    let mut g = Words(6);
    let (template, mut texts) = template_site(&mut g, 60);
    let stub = [template.clone(), g.text(15)].concat().join(" ");
    texts.push(stub.clone()); // identical template pages: exact copies, one cluster
    texts.push(stub);
    let article = g.text(300);
    let copy = g.edit(&article, 0.10);
    texts.push([template.clone(), article].concat().join(" "));
    texts.push([template, copy].concat().join(" "));
    let n = texts.len() as u32;
    let r = run(&texts);
    assert_eq!(r.clusters.len(), 2, "{:?}", r.clusters);
    assert!(same_cluster(&r, n - 2, n - 1));
    assert!(same_cluster(&r, n - 4, n - 3));
    assert_eq!(r.boilerplate, (0..n - 2).collect::<Vec<_>>());
    assert_eq!(r.stats.boilerplate, u64::from(n - 2));
    assert_eq!(r.stats.exact_duplicates, 1);
    assert!(r.too_short.is_empty());

    // Without the popular-phrase rule the template pages would all be one cluster.
    let cfg = DedupConfig {
        popular_docs: 10_000,
        ..DedupConfig::default()
    };
    let mut f = Fingerprinter::new(&cfg);
    let mut c = Clusterer::new(&cfg).unwrap();
    for t in &texts {
        c.add(f.fingerprint(t));
    }
    let r = c.finish().unwrap();
    assert!(r.boilerplate.is_empty());
    assert!(r.clusters.iter().any(|c| c.members.len() >= 60));
}

#[test]
fn short_template_pages_count_towards_popularity() {
    // 60 stubs under 100 words (too short) make the template popular, so the two long pages
    // that carry it with little text of their own are boilerplate rather than a cluster.
    let mut g = Words(7);
    let template = g.text(70);
    let mut texts: Vec<String> = (0..60)
        .map(|_| [template.clone(), g.text(10)].concat().join(" "))
        .collect();
    for _ in 0..2 {
        texts.push([template.clone(), g.text(40)].concat().join(" "));
    }
    let r = run(&texts);
    assert_eq!(r.too_short, (0..60).collect::<Vec<_>>());
    assert_eq!(r.boilerplate, vec![60, 61]);
    assert!(r.clusters.is_empty(), "{:?}", r.clusters);
}

#[test]
fn a_family_of_near_copies_is_not_mistaken_for_template() {
    // 20 lightly edited copies of one article share most phrases with each other, but fewer
    // distinct texts than `popular_docs`: they form one cluster, none is boilerplate.
    let mut g = Words(8);
    let base = g.text(400);
    let mut texts = vec![base.join(" ")];
    for _ in 0..20 {
        texts.push(g.edit(&base, 0.03).join(" "));
    }
    let r = run(&texts);
    assert!(r.boilerplate.is_empty());
    assert_eq!(r.clusters.len(), 1);
    assert_eq!(r.clusters[0].members.len(), 21);
}

#[test]
fn a_family_larger_than_the_popular_limit_is_one_cluster_not_boilerplate() {
    // A story syndicated to 60 sites, each copy with a few words changed: 61 distinct texts,
    // more than `popular_docs`, all sharing the story's phrases. They are a few same-text
    // groups, so the phrases stay evidence: one cluster, none boilerplate.
    let mut g = Words(9);
    let base = g.text(400);
    let mut texts = vec![base.join(" ")];
    for _ in 0..60 {
        texts.push(g.edit(&base, 0.01).join(" "));
    }
    let distinct: std::collections::HashSet<&String> = texts.iter().collect();
    assert!(distinct.len() > DedupConfig::default().popular_docs + 20);
    let r = run(&texts);
    assert!(r.boilerplate.is_empty(), "{:?}", r.boilerplate);
    assert_eq!(r.clusters.len(), 1, "{:?}", r.clusters);
    assert_eq!(r.clusters[0].members.len(), 61);

    // Counting distinct texts instead (only identical signatures grouped), the family's
    // phrases were template and its copies boilerplate.
    let cfg = DedupConfig {
        popular_same_text: 1.0,
        ..DedupConfig::default()
    };
    let mut f = Fingerprinter::new(&cfg);
    let mut c = Clusterer::new(&cfg).unwrap();
    for t in &texts {
        c.add(f.fingerprint(t));
    }
    let r = c.finish().unwrap();
    assert!(r.boilerplate.len() > 30, "{:?}", r.boilerplate);
}

#[test]
fn every_pair_above_threshold_found_by_brute_force_is_clustered() {
    // 12 families of a base text and edited variants (2-12% of words), plus unrelated texts.
    let mut g = Words(3);
    let mut texts = Vec::new();
    for _ in 0..12 {
        let len = 150 + (g.next() % 300) as usize;
        let base = g.text(len);
        texts.push(base.join(" "));
        for k in 0..3 {
            texts.push(g.edit(&base, 0.02 + 0.05 * f64::from(k)).join(" "));
        }
        texts.push(g.text(200).join(" "));
    }
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let fps: Vec<Fingerprint> = texts.iter().map(|t| f.fingerprint(t)).collect();
    let mut c = Clusterer::new(&cfg).unwrap();
    for fp in &fps {
        c.add(fp.clone());
    }
    let r = c.finish().unwrap();
    let mut above = 0;
    for i in 0..fps.len() {
        for j in i + 1..fps.len() {
            let jac = estimate_jaccard(
                agreements(&fps[i].minhash, &fps[j].minhash),
                cfg.minhash_perms,
            );
            let close = hamming(fps[i].simhash, fps[j].simhash) <= cfg.simhash_max_hamming;
            // At J >= 0.4 a pair misses all 96 bands with probability < 1e-7; SimHash pairs
            // within the bound are candidates by construction.
            if jac >= 0.4 || close {
                above += 1;
                assert!(
                    same_cluster(&r, i as u32, j as u32),
                    "pair {i},{j} J~{jac} missed"
                );
            }
            if jac < 0.05 && !close {
                assert!(
                    !same_cluster(&r, i as u32, j as u32),
                    "pair {i},{j} J~{jac} joined"
                );
            }
        }
    }
    assert!(above >= 12 * 3, "{above} pairs above the threshold");
}

#[test]
fn simhash_blocks_find_every_pair_within_the_bound() {
    // Crafted fingerprints: unrelated MinHash signatures, SimHashes 0..=d bits apart, the same
    // words within each pair (so verification passes once the pair is a candidate).
    let cfg = DedupConfig::default();
    let mut g = Words(4);
    let mut c = Clusterer::new(&cfg).unwrap();
    let mut hashes = Vec::new();
    let mut f = Fingerprinter::new(&cfg);
    for i in 0..40u32 {
        let profile = f.fingerprint(&g.text(300).join(" ")).profile;
        let base = g.next();
        let mut h = base;
        for _ in 0..(i % (cfg.simhash_max_hamming + 1)) {
            h ^= 1u64 << (g.next() % 64);
        }
        for (k, sh) in [base, h].into_iter().enumerate() {
            let minhash: Box<[u8]> = (0..cfg.minhash_perms).map(|_| g.next() as u8).collect();
            let minhash_wide: Box<[u8]> = (0..cfg.minhash_perms).map(|_| g.next() as u8).collect();
            c.add(Fingerprint {
                words: 500,
                exact: u128::from(g.next()) << 1 | k as u128,
                adler32: 0,
                simhash: sh,
                minhash,
                minhash_wide,
                profile: profile.clone(),
            });
            hashes.push(sh);
        }
    }
    let r = c.finish().unwrap();
    for i in 0..hashes.len() {
        for j in i + 1..hashes.len() {
            if hamming(hashes[i], hashes[j]) <= cfg.simhash_max_hamming {
                assert!(same_cluster(&r, i as u32, j as u32), "pair {i},{j}");
            }
        }
    }
}

#[test]
fn clusters_do_not_depend_on_fingerprinting_order_or_threads() {
    let mut g = Words(5);
    let mut texts = Vec::new();
    for _ in 0..20 {
        let base = g.text(300);
        texts.push(base.join(" "));
        texts.push(g.edit(&base, 0.08).join(" "));
        texts.push(g.text(300).join(" "));
    }
    let cfg = DedupConfig::default();
    let serial = run(&texts);
    for threads in [2usize, 4] {
        let mut fps: Vec<Option<Fingerprint>> = vec![None; texts.len()];
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads)
                .map(|w| {
                    let (texts, cfg) = (&texts, &cfg);
                    s.spawn(move || {
                        let mut f = Fingerprinter::new(cfg);
                        // Each worker goes backwards through its share.
                        (w..texts.len())
                            .step_by(threads)
                            .rev()
                            .map(|i| (i, f.fingerprint(&texts[i])))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in hs {
                for (i, fp) in h.join().unwrap() {
                    fps[i] = Some(fp);
                }
            }
        });
        let mut c = Clusterer::new(&cfg).unwrap();
        for fp in fps.into_iter().flatten() {
            c.add(fp);
        }
        assert_eq!(c.finish_on(threads).unwrap(), serial);
    }
    assert_eq!(serial.clusters.len(), 20);
    assert!(serial
        .clusters
        .windows(2)
        .all(|w| w[0].representative < w[1].representative));
}

#[test]
fn wide_band_keys_drop_chance_meetings_not_copies() {
    // Many unrelated texts and families of edited copies (5-30% of words replaced): keyed on 16
    // bits a row, bands meet by chance far less often than on the 8-bit rows alone, and the
    // clusters are the same (a wider key only drops meetings of rows whose top 8 bits agreed by
    // chance, which copies do not need).
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg).wide_keys(true);
    let mut g = Words(77);
    let mut fps = Vec::new();
    for i in 0..1500 {
        let base = g.text(150 + (i % 7) * 20);
        fps.push(f.fingerprint(&base.join(" ")));
        if i % 5 == 0 {
            for k in 1..4 {
                let copy = g.edit(&base, 0.05 * k as f64 * 2.0);
                fps.push(f.fingerprint(&copy.join(" ")));
            }
        }
    }
    let cluster = |wide: bool| {
        let mut c = Clusterer::new(&cfg).unwrap();
        for fp in &fps {
            let mut fp = fp.clone();
            if !wide {
                fp.minhash_wide = Box::default();
            }
            c.add(fp);
        }
        c.finish_on(2).unwrap()
    };
    let (narrow, wide) = (cluster(false), cluster(true));
    assert_eq!(wide.clusters, narrow.clusters);
    assert!(wide.clusters.len() >= 250, "{}", wide.clusters.len());
    // Chance meetings of 16-bit keys: about bands x C(n, 2) / 2^16 (copies' bands meet in both).
    let n = fps.len() as f64;
    let chance = cfg.lsh_bands as f64 * n * (n - 1.0) / 2.0 / 65_536.0;
    let dropped = narrow.stats.minhash_candidate_checks - wide.stats.minhash_candidate_checks;
    assert!(
        dropped as f64 > 0.7 * chance,
        "{dropped} dropped, {chance} expected"
    );
    // A head without wide bytes puts the whole run on the 8-bit keys.
    let mut c = Clusterer::new(&cfg).unwrap();
    for (i, fp) in fps.iter().enumerate() {
        let mut fp = fp.clone();
        if i == 3 {
            fp.minhash_wide = Box::default();
        }
        c.add(fp);
    }
    let mixed = c.finish().unwrap();
    assert_eq!(mixed.clusters, narrow.clusters);
    assert_eq!(
        mixed.stats.minhash_candidate_checks,
        narrow.stats.minhash_candidate_checks
    );
}

#[test]
fn the_memory_budget_changes_nothing_but_how_steps_are_cut() {
    // Copies, template pages and site skeletons; clustered whole, then with a budget so small
    // that popularity counts one row at a time, each candidate pair's bags are made on their own
    // and bands are searched on one thread: the same result, counters included.
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let mut g = Words(5);
    let mut texts = Vec::new();
    for _ in 0..60 {
        let base = g.text(200);
        texts.push(base.join(" "));
        texts.push(g.edit(&base, 0.1).join(" "));
    }
    let (_, stubs) = template_site(&mut g, 40);
    texts.extend(stubs);
    let mut c = Clusterer::new(&cfg).unwrap();
    for (i, t) in texts.iter().enumerate() {
        c.add_on_site(
            f.fingerprint(t),
            if i % 3 == 0 { "a.example" } else { "b.example" },
        );
    }
    let whole = c
        .cluster_with_templates(2, &MemoryBudget::default())
        .unwrap();
    let cut = c
        .cluster_with_templates(2, &MemoryBudget::working_only(1))
        .unwrap();
    assert_eq!(cut, whole);
    assert!(whole.0.clusters.len() >= 60, "{}", whole.0.clusters.len());
    assert!(whole.0.stats.popular_row_pairs > 0);
}

#[test]
fn spilled_word_profiles_give_the_same_clustering() {
    spilled_word_profiles_and_signatures_cluster_the_same(false);
}

#[test]
fn spilled_signatures_with_wide_bytes_give_the_same_clustering() {
    spilled_word_profiles_and_signatures_cluster_the_same(true);
}

fn spilled_word_profiles_and_signatures_cluster_the_same(wide: bool) {
    // The corpus of the budget test, clustered with every profile in memory and with every
    // profile and most signatures spilled to files (and template lines learnt in many passes):
    // the same result, profiles read back whole, and whole fingerprints refused for spilled
    // documents. With wide bytes, band keys are 32 bits read from the spilled rows.
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg).wide_keys(wide);
    let mut g = Words(9);
    let mut texts = Vec::new();
    for _ in 0..40 {
        let base = g.text(200);
        texts.push(base.join(" "));
        texts.push(g.edit(&base, 0.1).join(" "));
    }
    let (_, stubs) = template_site(&mut g, 40);
    texts.extend(stubs);
    // Pages of one site around a skeleton of four lines: its template.
    let skeleton: Vec<String> = (0..4).map(|_| g.text(45).join(" ")).collect();
    for _ in 0..6 {
        let own = g.text(170).join(" ");
        texts.push(format!(
            "{}\n{own}\n{}",
            skeleton[..2].join("\n"),
            skeleton[2..].join("\n")
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut whole = Clusterer::new(&cfg).unwrap();
    let mut spilled = Clusterer::new(&cfg).unwrap();
    spilled.signatures = SignatureStore::new(cfg.minhash_perms, 8);
    let mut given = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let site = match i {
            _ if i >= texts.len() - 6 => "c.example",
            _ if i % 3 == 0 => "a.example",
            _ => "b.example",
        };
        let fp = f.fingerprint(t);
        whole.add_on_site(fp.clone(), site);
        spilled.add_on_site(fp.clone(), site);
        given.push(fp);
    }
    spilled.spill_profiles(usize::MAX, dir.path()).unwrap();
    assert_eq!(spilled.spilled_documents(), texts.len());
    // Signatures too, in chunks of 8 documents: all but the last few go to disk.
    spilled.spill_signatures(usize::MAX, dir.path()).unwrap();
    assert_eq!(spilled.spilled_signatures(), texts.len() / 8 * 8);
    assert!(spilled.spilled_signatures() < texts.len());
    assert_eq!(
        spilled.index_bytes_per_document(),
        whole.index_bytes_per_document()
    );
    let budget = MemoryBudget::default();
    let expected = whole.cluster_with_templates(2, &budget).unwrap();
    assert_eq!(
        spilled.cluster_with_templates(2, &budget).unwrap(),
        expected
    );
    // Working memory so small that template lines take many passes.
    let tiny = MemoryBudget::working_only(1);
    assert_eq!(spilled.cluster_with_templates(1, &tiny).unwrap(), expected);
    assert!(
        expected.0.clusters.len() >= 40,
        "{}",
        expected.0.clusters.len()
    );
    assert!(expected.0.stats.template_lines > 0);
    assert_eq!(expected.0.stats.band_key_bits, if wide { 32 } else { 16 });
    for d in 0..texts.len() as u32 {
        assert_eq!(spilled.profile(d).unwrap(), whole.profile(d).unwrap());
        assert!(spilled.fingerprint(d).is_none());
        assert_eq!(whole.fingerprint(d).as_ref(), Some(&given[d as usize]));
    }
    assert_eq!(
        spilled.profile_bytes_per_document(),
        whole.profile_bytes_per_document()
    );

    // A spill file that can no longer be read is an error naming its folder, not empty words.
    spilled.spill.as_mut().unwrap().break_reads();
    let e = spilled.cluster_with_templates(1, &tiny).unwrap_err();
    assert_eq!((e.what, e.action), ("word profile", "reading back"));
    let shown = e.to_string();
    assert!(shown.contains(&*dir.path().to_string_lossy()), "{shown}");
    assert!(spilled.profile(0).is_err());
    assert!(whole.profile(0).unwrap().is_some());
    assert!(spilled.profile(texts.len() as u32).unwrap().is_none());
}

#[test]
fn pair_bags_laid_end_to_end_are_each_documents_own_bag() {
    let make = |d: u32| -> Vec<u32> { (0..d % 7).map(|w| w * 1000 + d).collect() };
    let pairs: Vec<(u32, u32)> = (0..40u32).map(|i| (i * 3 % 50, i * 3 % 50 + 5)).collect();
    for threads in 1..=4 {
        let words = |d: u32| make(d).len();
        let bags = template::PairBags::new(&pairs, threads, words, |d, out: &mut Vec<u32>| {
            out.extend(make(d));
            Ok(())
        })
        .unwrap();
        for &(a, b) in &pairs {
            assert_eq!(bags.get(a), make(a).as_slice(), "{a} on {threads} threads");
            assert_eq!(bags.get(b), make(b).as_slice(), "{b} on {threads} threads");
        }
        assert!(bags.get(1000).is_empty(), "not a document of the pairs");
    }
}

#[test]
fn sweeping_the_popularity_counters_changes_nothing() {
    // Stubs of one template (popular rows) among distinct texts and copies: counters reset value
    // by value and by sweeping the tables mark the same rows and count the same pairs.
    let cfg = DedupConfig::default();
    let mut f = Fingerprinter::new(&cfg);
    let mut g = Words(11);
    let mut texts: Vec<String> = (0..40).map(|_| g.text(150).join(" ")).collect();
    let (_, stubs) = template_site(&mut g, 60);
    texts.extend(stubs);
    let fps: Vec<Fingerprint> = texts.iter().map(|t| f.fingerprint(t)).collect();
    let distinct: Vec<u32> = (0..fps.len() as u32).collect();
    let mut store = SignatureStore::new(cfg.minhash_perms, 16);
    for fp in &fps {
        store.push(&mut fp.clone());
    }
    let sigs = Signatures::new(&store);
    let groups = popularity::same_text_groups(&cfg, sigs, &distinct, 2);
    let measure = |sweep_from: usize| {
        let mut stats = ClusterStats::default();
        let plan = popularity::PopularityPlan {
            sweep_from,
            ..popularity::PopularityPlan::new(2, usize::MAX)
        };
        let p = Popularity::measure(&cfg, sigs, (&distinct, &groups), &mut stats, plan);
        (p, stats)
    };
    let (by_value, by_sweep) = (measure(usize::MAX), measure(0));
    assert!(by_value.1.popular_row_pairs > 0, "the template is popular");
    assert_eq!(by_value, by_sweep);
}
