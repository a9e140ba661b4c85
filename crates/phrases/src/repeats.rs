//! `--drop-popular-phrases`: removing from the clean corpus the sentences that pages of other
//! classes already said.
//!
//! **Unit and rule.** The unit is the sentence: a line of the main text cut after `.`, `!`, `?`
//! (or `。`, `！`, `？`) followed by whitespace. A sentence of at least
//! [`PHRASE_WORDS`](crawlsift_common::limits::PHRASE_WORDS) words whose words
//! ([`crawlsift_common::words`]: runs of letters and digits, lower-cased) appeared in an earlier kept document is dropped; the
//! first document to hold it keeps it. Shorter sentences are never dropped: a phrase shorter than
//! the k words of a popularity phrase is too common to say anything was copied.
//!
//! This is what training-data pipelines do, at the grain of this tool's texts: C4 (and
//! datatrove's sentence dedup after it) "discarded all but one of any three-sentence span
//! occurring more than once"; CCNet and Dolma hash normalised paragraphs and drop the ones seen
//! before. Sentences rather than paragraphs or 3-sentence spans because a slice-and-dice page
//! borrows one or two sentences at a time, and boilerplate left in a main text (a byline, a
//! newsletter line) is one sentence: a larger unit would keep both. The kept documents are one
//! per `dedup` class, so every repeat dropped is a repeat across classes.
//!
//! **Deterministic and bounded.** Documents are filtered one at a time in document order, so the
//! answer does not depend on threads or shards. A document's own repeats stay (its sentences join
//! the seen set after it is filtered). At most
//! [`PHRASE_MAX_SENTENCES_SEEN`](crawlsift_common::limits::PHRASE_MAX_SENTENCES_SEEN) sentence
//! hashes are kept (8 bytes each); sentences met after that are counted as untracked and never
//! dropped.

use std::collections::HashSet;

use crawlsift_common::{limits, words};
use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64;

/// What dropping repeated sentences removed, for `report.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DropReport {
    /// The unit and rule, in words.
    pub rule: String,
    /// Kept documents filtered.
    pub documents: u64,
    /// Of those, documents that lost at least one sentence.
    pub documents_changed: u64,
    /// Sentences read.
    pub sentences: u64,
    /// Sentences dropped because an earlier kept document (another class) held them.
    pub repeated_sentences: u64,
    /// Bytes of main text those sentences took.
    pub repeated_bytes: u64,
    /// Sentences too short to be judged (fewer words than a phrase): never dropped.
    pub short_sentences: u64,
    /// Sentences met once the seen set was full: never dropped.
    pub untracked_sentences: u64,
}

/// Drops sentences already seen in earlier documents.
#[derive(Debug)]
pub struct SentenceFilter {
    seen: HashSet<u64>,
    cap: usize,
    min_words: usize,
    report: DropReport,
    /// Scratch of [`key`].
    buf: String,
    /// Scratch of [`key`]: one word lower-cased.
    word: String,
}

impl Default for SentenceFilter {
    fn default() -> Self {
        Self::new(limits::PHRASE_MAX_SENTENCES_SEEN)
    }
}

/// The byte ranges of the sentences of one line (no newline in it), in order, covering it.
fn sentences(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut after_stop = false;
    for (i, ch) in line.char_indices() {
        if after_stop && ch.is_whitespace() {
            // The whitespace after a stop belongs to the sentence it ends.
            let end = line[i..]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map_or(line.len(), |(j, _)| i + j);
            if end > start {
                out.push((start, end));
            }
            start = end;
            after_stop = false;
            continue;
        }
        if i < start {
            continue;
        }
        after_stop = matches!(ch, '.' | '!' | '?' | '。' | '！' | '？');
    }
    if start < line.len() {
        out.push((start, line.len()));
    }
    out
}

/// The hash of a sentence's words and their count: the words of [`crawlsift_common::words`]
/// (runs of letters and digits, lower-cased), each followed by a space, in `buf`, hashed at once
/// (XXH3) rather than a hasher call per word. `word` is scratch space for lower-casing. These are
/// not dedup's words (`crawlsift_dedup::normalize`, whose module notes why the definitions
/// differ): keying sentences on those changes which sentences are dropped.
fn key(sentence: &str, buf: &mut String, word: &mut String) -> (u64, usize) {
    buf.clear();
    let mut words = 0;
    words::for_each_word(sentence, word, |w| {
        buf.push_str(w);
        buf.push(' ');
        words += 1;
    });
    (xxh3_64(buf.as_bytes()), words)
}

impl SentenceFilter {
    /// A filter keeping at most `cap` sentence hashes.
    pub fn new(cap: usize) -> Self {
        SentenceFilter {
            seen: HashSet::new(),
            cap,
            min_words: limits::PHRASE_WORDS,
            buf: String::new(),
            word: String::new(),
            report: DropReport {
                rule: format!(
                    "a sentence of {} words or more whose lowercased words an earlier kept \
                     document (another class) holds is dropped; the first keeps it",
                    limits::PHRASE_WORDS
                ),
                ..DropReport::default()
            },
        }
    }

    /// The next kept document's text without the sentences earlier ones held (`None`: nothing
    /// dropped). A line whose every sentence goes goes with its newline.
    pub fn filter(&mut self, text: &str) -> Option<String> {
        self.report.documents += 1;
        let mut out = String::new();
        let mut dropped = false;
        let mut mine = Vec::new();
        for line in text.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let mut kept_any = false;
            let mut kept = String::new();
            for (a, b) in sentences(body) {
                let s = &body[a..b];
                self.report.sentences += 1;
                let (h, words) = key(s, &mut self.buf, &mut self.word);
                if words < self.min_words {
                    if words > 0 {
                        self.report.short_sentences += 1;
                    }
                    kept.push_str(s);
                    kept_any |= words > 0;
                    continue;
                }
                if self.seen.contains(&h) {
                    self.report.repeated_sentences += 1;
                    self.report.repeated_bytes += s.len() as u64;
                    dropped = true;
                    continue;
                }
                mine.push(h);
                kept.push_str(s);
                kept_any = true;
            }
            if kept_any || body.trim().is_empty() {
                out.push_str(&kept);
                if line.len() > body.len() {
                    out.push('\n');
                }
            } else {
                self.report.repeated_bytes += (line.len() - body.len()) as u64;
            }
        }
        for h in mine {
            if self.seen.len() >= self.cap && !self.seen.contains(&h) {
                self.report.untracked_sentences += 1;
            } else {
                self.seen.insert(h);
            }
        }
        if dropped {
            self.report.documents_changed += 1;
            Some(out)
        } else {
            None
        }
    }

    /// What was dropped so far.
    pub fn report(&self) -> &DropReport {
        &self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_cover_the_line() {
        let line = "One two three. Four five? Six";
        let s = sentences(line);
        let parts: Vec<&str> = s.iter().map(|&(a, b)| &line[a..b]).collect();
        assert_eq!(parts, vec!["One two three. ", "Four five? ", "Six"]);
        assert_eq!(sentences("3.5 percent rose."), vec![(0, 17)]);
        assert!(sentences("").is_empty());
    }

    #[test]
    fn later_documents_lose_what_earlier_ones_said() {
        let mut f = SentenceFilter::default();
        let shared = "The harbour council met on Tuesday to discuss the ferry.";
        let a = format!("First page opens here with its own words. {shared}\nShort one.");
        assert_eq!(f.filter(&a), None);
        let b = format!("Another page, its own opening sentence here. {shared} Ok then.\n{shared}\nEnd of it all now, truly the end.");
        let got = f.filter(&b).unwrap();
        assert_eq!(
            got,
            "Another page, its own opening sentence here. Ok then.\nEnd of it all now, truly the end."
        );
        // Case and punctuation do not hide a repeat.
        let c = "the HARBOUR council met on tuesday to discuss the ferry!";
        assert_eq!(f.filter(c).unwrap(), "");
        let r = f.report();
        assert_eq!(
            (r.documents, r.documents_changed, r.repeated_sentences),
            (3, 2, 3)
        );
        assert_eq!(r.short_sentences, 2);
        assert_eq!(
            r.repeated_bytes as usize,
            shared.len() + 1 + shared.len() + 1 + c.len()
        );
    }

    #[test]
    fn a_documents_own_repeats_stay_and_the_cap_holds() {
        let mut f = SentenceFilter::new(1);
        let s = "This sentence says the same thing twice over.";
        assert_eq!(f.filter(&format!("{s} {s}")), None);
        assert_eq!(f.filter("A wholly different sentence of many words."), None);
        assert_eq!(f.report().untracked_sentences, 1);
        assert_eq!(f.filter(s).as_deref(), Some(""));
        assert_eq!(f.filter("A wholly different sentence of many words."), None);
    }
}
