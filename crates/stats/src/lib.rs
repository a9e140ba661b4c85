/*!
Term statistics of a text collection, as an index would see it: word counts with bounded
memory, Zipf's law (the table and a fitted exponent), Heaps' law (vocabulary growth), and how
unusual each document is. `crawlsift stats` feeds it the main text of documents; it knows
nothing of archives.

One module per concept:

* [`tokenize`]: words are maximal runs of Unicode letters and digits, lower-cased (no stemming,
  no stop list);
* [`counts`]: the vocabulary, exact up to a bound, then a count-min sketch for the tail;
* [`fit`]: least-squares lines; [`zipf`]: the Zipf table, exponent and curve; [`heaps`]: Heaps'
  law;
* [`unusual`]: the character 3-gram kernel commonality score of documents;
* [`corpus`]: documents in, [`Summary`] out (serialisable), and the words duplicates inflated;
* [`table`]: the text tables.

```
use crawlsift_stats::{Corpus, DocRef, DocTerms};

let mut corpus = Corpus::new(false).unwrap();
for (i, text) in ["The cat sat.", "The dog sat on the cat."].iter().enumerate() {
    let doc = DocRef { id: i.to_string(), url: None, file: "-".into(), offset: 0, duplicate: None };
    corpus.add(&doc, &DocTerms::of_text(text, false)).unwrap();
}
let s = corpus.finish(3).unwrap();
assert_eq!((s.documents, s.word_occurrences, s.vocabulary, s.hapax), (2, 9, 5, 2));
assert_eq!((s.zipf[0].word.as_str(), s.zipf[0].freq), ("the", 3));
```
*/
#![deny(missing_docs)]

pub mod corpus;
pub mod counts;
pub mod fit;
pub mod heaps;
pub mod table;
pub mod tokenize;
pub mod unusual;
pub mod zipf;

pub use corpus::{inflated, Corpus, DocTerms, Inflated, Summary};
pub use unusual::{DocRef, Scored, UnusualSummary};
