//! The corpus finder end to end on generated texts: pairs that share a passage are found in
//! document order whatever the thread count; a site's skeleton shared by its pages is no reuse.

use crawlsift_reuse::{Corpus, ReuseConfig, Sketch, Words};

/// `n` words unique to `tag`.
fn words(tag: &str, n: usize) -> String {
    (0..n).map(|i| format!("{tag}w{i} ")).collect()
}

fn find(texts: &[(String, Option<u32>)], threads: usize) -> Vec<(u32, u32, usize)> {
    let cfg = ReuseConfig::default();
    let mut c = Corpus::new(&cfg).unwrap();
    for (t, site) in texts {
        c.add(&Sketch::of(&Words::of(t, cfg.max_words), &cfg), *site);
    }
    let cand = c.candidates(threads);
    cand.align(threads, |d| Ok::<_, ()>(texts[d as usize].0.clone()))
        .unwrap()
        .into_iter()
        .map(|p| (p.a, p.b, p.passages.len()))
        .collect()
}

#[test]
fn copies_are_paired_and_a_sites_skeleton_is_not() {
    let skeleton = words("skel", 60);
    let quote = words("quote", 50);
    let mut texts = Vec::new();
    // Four pages of site 1 sharing only the skeleton.
    for p in 0..4 {
        texts.push((
            format!("{skeleton}{}", words(&format!("own{p}"), 200)),
            Some(1),
        ));
    }
    // A source and a page of another site pasting a passage of it.
    texts.push((
        format!("{}{quote}{}", words("src", 100), words("srcend", 80)),
        Some(2),
    ));
    texts.push((format!("{}{quote}", words("copier", 300)), Some(3)));
    // A page of site 4 copying the skeleton of site 1: its pages hold it as template, so it
    // pairs none of them.
    texts.push((format!("{}{skeleton}", words("other", 100)), Some(4)));
    let one = find(&texts, 1);
    assert_eq!(one, [(4, 5, 1)]);
    for threads in [2, 3, 8] {
        assert_eq!(find(&texts, threads), one, "{threads} threads");
    }
    // Without sites, the skeleton is shared text like any other.
    let no_sites: Vec<_> = texts.iter().map(|(t, _)| (t.clone(), None)).collect();
    assert_eq!(find(&no_sites, 2).len(), 1 + 10);
}
