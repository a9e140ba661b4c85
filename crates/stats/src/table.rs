//! The text tables of `crawlsift stats`: the counts laid out like the AP89 table (Croft,
//! Metzler and Strohman, *Search Engines*, table 4.2), with a second column for the
//! deduplicated corpus when there is one, then the Zipf table, the fits, the unusualness of
//! documents and the words duplicates inflated most.

use std::fmt::Write;

use crate::corpus::{Inflated, Summary};
use crate::unusual::Scored;

/// `n` with thousands separators: `39,749,179`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The whole text report of `raw` (and of `dedup`, the corpus without duplicates, beside it).
pub fn render(raw: &Summary, dedup: Option<&Summary>, inflated: &[Inflated]) -> String {
    let mut o = String::new();
    counts(&mut o, raw, dedup);
    zipf(&mut o, "", raw);
    if let Some(d) = dedup {
        zipf(&mut o, " after dedup", d);
        if !inflated.is_empty() {
            let _ = writeln!(o, "\nWords the duplicates inflated most (share in %):");
            let _ = writeln!(
                o,
                "{:<20} {:>12} {:>12} {:>9} {:>9} {:>11}",
                "word", "raw freq", "dedup freq", "raw %", "dedup %", "excess"
            );
            for i in inflated {
                let _ = writeln!(
                    o,
                    "{:<20} {:>12} {:>12} {:>9.4} {:>9.4} {:>11.1}",
                    i.word,
                    thousands(i.raw_freq),
                    thousands(i.dedup_freq),
                    i.raw_p,
                    i.dedup_p,
                    i.excess
                );
            }
        }
    }
    unusual(&mut o, raw);
    o
}

fn counts(o: &mut String, raw: &Summary, dedup: Option<&Summary>) {
    type Figure = fn(&Summary) -> u64;
    let rows: [(&str, Figure); 5] = [
        ("Total documents", |s| s.documents),
        ("Total word occurrences", |s| s.word_occurrences),
        ("Vocabulary size", |s| s.vocabulary),
        ("Words occurring > 1000 times", |s| s.words_over_1000),
        ("Words occurring once", |s| s.hapax),
    ];
    if dedup.is_some() {
        let _ = writeln!(o, "{:<30} {:>15} {:>15}", "", "raw", "after dedup");
    }
    for (name, f) in rows {
        let _ = write!(o, "{name:<30} {:>15}", thousands(f(raw)));
        if let Some(d) = dedup {
            let _ = write!(o, " {:>15}", thousands(f(d)));
        }
        o.push('\n');
    }
    if raw.approximate || dedup.is_some_and(|d| d.approximate) {
        let _ = writeln!(
            o,
            "(the vocabulary outgrew its exact bound: vocabulary, hapax and > 1000 are estimates)"
        );
    }
}

fn zipf(o: &mut String, which: &str, s: &Summary) {
    let _ = writeln!(
        o,
        "\nZipf's law{which}: the {} most frequent words",
        s.zipf.len()
    );
    let _ = writeln!(
        o,
        "{:<20} {:>12} {:>6} {:>9} {:>7}",
        "Word", "Freq.", "r", "Pr(%)", "r.Pr"
    );
    for z in &s.zipf {
        let _ = writeln!(
            o,
            "{:<20} {:>12} {:>6} {:>9.2} {:>7.3}",
            z.word,
            thousands(z.freq),
            z.rank,
            z.p_r,
            z.r_p_r
        );
    }
    let (a, b) = s.zipf_fit_ranks;
    let _ = writeln!(
        o,
        "Zipf exponent s (freq ~ rank^-s, least squares on log-log, ranks {a}-{b}): {}",
        opt(s.zipf_exponent, 3)
    );
    let _ = writeln!(
        o,
        "Heaps' law (vocabulary = K * occurrences^beta): K = {}, beta = {}",
        opt(s.heaps.k, 2),
        opt(s.heaps.beta, 3)
    );
}

fn unusual(o: &mut String, s: &Summary) {
    let Some(u) = &s.unusual else { return };
    let _ = writeln!(
        o,
        "\nUnusualness (character 3-gram kernels) of {} documents:",
        thousands(u.scored)
    );
    let q: Vec<String> = u
        .quantiles
        .iter()
        .map(|(n, v)| format!("{n} {v:.3e}"))
        .collect();
    let _ = writeln!(o, "  {}", q.join(", "));
    let list = |o: &mut String, title: &str, v: &[Scored], dups: Option<usize>| {
        let _ = write!(o, "{title}");
        if let Some(d) = dups {
            let _ = write!(o, " ({d} of {} are duplicates)", v.len());
        }
        o.push_str(":\n");
        for d in v {
            let _ = writeln!(
                o,
                "  {:>10.3e}  {} @{} {}  {}",
                d.score,
                d.doc.file,
                d.doc.offset,
                d.doc.url.as_deref().unwrap_or(&d.doc.id),
                d.preview
            );
        }
    };
    list(o, "Most unusual", &u.most, u.most_duplicates);
    list(o, "Least unusual", &u.least, u.least_duplicates);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(39_749_179), "39,749,179");
    }
}
