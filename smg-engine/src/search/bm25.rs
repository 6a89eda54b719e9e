//! Okapi BM25 over short texts, with English stopwords and Snowball stemming
//! (rust-stemmers): a compact index (term → postings) that scores a query in time
//! proportional to the postings of its terms.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::scores::Scores;

use rust_stemmers::{Algorithm, Stemmer};

use crate::text;

/// Term-frequency saturation.
const K1: f64 = 1.2;
/// Length normalisation.
const B: f64 = 0.75;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Index terms of a text: content words, stemmed.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    text::terms(text)
        .map(|w| STEMMER.stem(&w).into_owned())
        .collect()
}

/// Most words a [`tokens_cached`] cache holds before it starts over.
const STEM_CACHE: usize = 1 << 16;

/// [`tokens`], remembering stems: stemming is most of the cost of indexing, and a
/// text repeats its words.
pub(crate) fn tokens_cached(text: &str, stems: &mut HashMap<String, String>) -> Vec<String> {
    text::terms(text)
        .map(|w| {
            if let Some(s) = stems.get(&w) {
                return s.clone();
            }
            if stems.len() >= STEM_CACHE {
                stems.clear();
            }
            let s = STEMMER.stem(&w).into_owned();
            stems.insert(w, s.clone());
            s
        })
        .collect()
}

/// A BM25 index over documents numbered from 0.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Bm25 {
    /// Every term, sorted.
    terms: Vec<String>,
    /// Where each term's postings begin in `docs` and `tfs`, and where the last ends.
    starts: Vec<usize>,
    /// The documents of each term, ascending.
    #[serde(with = "gaps")]
    docs: Vec<u32>,
    /// How often the term is in each of them.
    tfs: Vec<u16>,
    lengths: Vec<u32>,
    average: f64,
}

/// Documents as a stored index keeps them: each as the gap from the one before (small
/// numbers, which postcard writes in a byte or two; where a term's list begins the
/// gap wraps around).
mod gaps {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(docs: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let mut last = 0u32;
        s.collect_seq(docs.iter().map(|&d| {
            let gap = d.wrapping_sub(last);
            last = d;
            gap
        }))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let mut docs = Vec::<u32>::deserialize(d)?;
        let mut last = 0u32;
        for doc in &mut docs {
            last = last.wrapping_add(*doc);
            *doc = last;
        }
        Ok(docs)
    }
}

impl Bm25 {
    /// Index `docs`, each already split into tokens.
    pub(crate) fn new(docs: impl IntoIterator<Item = Vec<String>>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u16)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (d, mut tokens) in docs.into_iter().enumerate() {
            lengths.push(tokens.len() as u32);
            // Equal tokens side by side: each run is one term and its frequency.
            tokens.sort_unstable();
            let mut rest = tokens.as_slice();
            while let Some(first) = rest.first() {
                let n = rest.iter().take_while(|t| *t == first).count();
                let tf = u16::try_from(n).unwrap_or(u16::MAX);
                match postings.get_mut(first) {
                    Some(list) => list.push((d as u32, tf)),
                    None => {
                        postings.insert(first.clone(), vec![(d as u32, tf)]);
                    }
                }
                rest = &rest[n..];
            }
        }
        let mut terms: Vec<(String, Vec<(u32, u16)>)> = postings.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let total: usize = terms.iter().map(|t| t.1.len()).sum();
        let mut index = Bm25 {
            starts: Vec::with_capacity(terms.len() + 1),
            docs: Vec::with_capacity(total),
            tfs: Vec::with_capacity(total),
            ..Bm25::default()
        };
        for (term, list) in terms {
            index.starts.push(index.docs.len());
            index.terms.push(term);
            index.docs.extend(list.iter().map(|p| p.0));
            index.tfs.extend(list.iter().map(|p| p.1));
        }
        index.starts.push(index.docs.len());
        let sum: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        index.average = sum as f64 / lengths.len().max(1) as f64;
        index.lengths = lengths;
        index
    }

    /// The documents that hold `term`, and how often each does.
    fn postings(&self, term: &str) -> Option<(&[u32], &[u16])> {
        let i = self.terms.binary_search_by(|t| t.as_str().cmp(term)).ok()?;
        let (from, to) = (self.starts[i], self.starts[i + 1]);
        Some((&self.docs[from..to], &self.tfs[from..to]))
    }

    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Inverse document frequency (the non-negative form of Lucene).
    pub(crate) fn idf(&self, term: &str) -> f64 {
        let n = self.df(term) as f64;
        let total = self.len() as f64;
        ((total - n + 0.5) / (n + 0.5) + 1.0).ln()
    }

    /// Scores of every document that shares a term with `query` (weighted terms).
    pub(crate) fn scores(&self, query: &[(String, f64)]) -> Scores {
        let mut out = Scores::default();
        self.add_scores(&mut out, query);
        out
    }

    /// Add the scores of more query terms to `out`, as if they had been part of the
    /// query that made it (each document's sum is taken in the same order).
    pub(crate) fn add_scores(&self, out: &mut Scores, query: &[(String, f64)]) {
        for (term, weight) in query {
            let Some((docs, tfs)) = self.postings(term) else {
                continue;
            };
            let idf = self.idf(term);
            for (&d, &tf) in docs.iter().zip(tfs) {
                let tf = f64::from(tf);
                let dl = f64::from(self.lengths[d as usize]);
                let norm = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / self.average.max(1.0)));
                *out.entry(d) += weight * idf * norm;
            }
        }
    }

    /// How many documents hold `term`.
    pub(crate) fn df(&self, term: &str) -> usize {
        self.postings(term).map_or(0, |(docs, _)| docs.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_are_the_same_tokens() {
        let mut stems = HashMap::new();
        for text in [
            "Running runners ran",
            "the running of the runners",
            "Ünïcode Wörds",
        ] {
            assert_eq!(tokens_cached(text, &mut stems), tokens(text));
        }
        assert!(stems.contains_key("running"));
    }

    #[test]
    fn stems_and_ranks_the_matching_document_first() {
        assert_eq!(tokens("The painters were painting"), ["painter", "paint"]);
        let docs = [
            "I painted a sunrise over the lake",
            "We went camping in the mountains",
            "Painting is my way to relax",
        ];
        let index = Bm25::new(docs.iter().map(|d| tokens(d)));
        let q: Vec<(String, f64)> = tokens("when did she paint the lake")
            .into_iter()
            .map(|t| (t, 1.0))
            .collect();
        let scores = index.scores(&q);
        let best = scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!(best.0, 0);
        assert!(scores.iter().all(|(d, _)| d != 1));
        assert!(index.idf("lake") > index.idf("paint"));
    }
}
