//! Term statistics of several indexes taken together: what BM25 weighs a term by
//! (how many documents hold it, of how many, and their mean length) over a network
//! of linked memories, so that each file's matches score as they would in one index
//! of them all, and one ranking over the files means something.

use std::collections::HashMap;

use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;
use tantivy::Term;

use super::{guarded, FullText};

/// The statistics of some terms over several indexes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Stats {
    docs: u64,
    tokens: u64,
    df: HashMap<String, u64>,
}

impl Stats {
    /// Count `index`'s documents, their terms, and how many of them hold each of
    /// `terms` (a damaged index counts as empty).
    pub(crate) fn add<'a>(&mut self, index: &FullText, terms: impl IntoIterator<Item = &'a str>) {
        let Some(inner) = &index.0 else {
            return;
        };
        let counted = guarded(|| {
            let docs = inner.searcher.total_num_docs()?;
            let tokens = inner.searcher.total_num_tokens(inner.text)?;
            Ok((docs, tokens))
        });
        let Ok((docs, tokens)) = counted else {
            return;
        };
        self.docs += docs;
        self.tokens += tokens;
        for t in terms {
            *self.df.entry(t.to_string()).or_default() += index.df(t) as u64;
        }
    }

    /// How many documents of all hold `term` (0 for a term not counted).
    pub(crate) fn df(&self, term: &str) -> usize {
        usize::try_from(self.df.get(term).copied().unwrap_or(0)).unwrap_or(usize::MAX)
    }

    /// Documents in all.
    pub(crate) fn docs(&self) -> usize {
        usize::try_from(self.docs).unwrap_or(usize::MAX)
    }

    /// These statistics as tantivy's scorer reads them, for the field `text`.
    pub(super) fn provider(&self, text: Field) -> Provider<'_> {
        Provider { stats: self, text }
    }
}

/// [`Stats`] for tantivy's BM25.
pub(super) struct Provider<'a> {
    stats: &'a Stats,
    text: Field,
}

impl Bm25StatisticsProvider for Provider<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        Ok(if field == self.text {
            self.stats.tokens
        } else {
            0
        })
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.stats.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let value = term.value();
        let text = value.as_str().unwrap_or_default();
        // Never more than all: BM25's idf takes the one from the other.
        Ok(self
            .stats
            .df
            .get(text)
            .copied()
            .unwrap_or(0)
            .min(self.stats.docs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(texts: &[&str]) -> FullText {
        FullText::build(texts.iter().map(|t| {
            t.split_whitespace()
                .map(String::from)
                .collect::<Vec<String>>()
        }))
        .unwrap()
    }

    #[test]
    fn two_indexes_with_their_statistics_together_score_as_one_index_of_both() {
        let a = ["apple pie recipe", "apple tree", "river boat trip"];
        let b = ["boat engine repair", "apple cider", "mountain trip boat"];
        let (ia, ib) = (index(&a), index(&b));
        let both = index(&[a.as_slice(), b.as_slice()].concat());
        let query = vec![("apple".to_string(), 1.0), ("boat".to_string(), 1.0)];
        let mut stats = Stats::default();
        for ix in [&ia, &ib] {
            stats.add(ix, query.iter().map(|q| q.0.as_str()));
        }
        assert_eq!(stats.docs(), 6);
        assert_eq!(stats.df("apple"), 3);
        assert_eq!(stats.df("boat"), both.df("boat"));
        let whole = both.top(&query, 6, None).unwrap();
        let mut parts: Vec<(u32, f64)> = ia.top_with(&query, 6, None, Some(&stats)).unwrap();
        let of_b = ib.top_with(&query, 6, None, Some(&stats)).unwrap();
        parts.extend(of_b.into_iter().map(|(n, s)| (n + 3, s)));
        parts.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        assert_eq!(whole.len(), parts.len());
        for ((n, s), (m, t)) in whole.iter().zip(&parts) {
            assert_eq!(n, m, "{whole:?} / {parts:?}");
            assert!((s - t).abs() < 1e-5, "{s} / {t}");
        }
        // By its own statistics alone, a file ranks otherwise.
        let alone = ia.top(&query, 6, None).unwrap();
        assert!(alone
            .iter()
            .zip(&parts)
            .any(|(x, y)| (x.1 - y.1).abs() > 1e-3));
        // Every match scored and scaled (how node texts rank) takes them as well.
        let scaled = |ix: &FullText, stats| ix.top_scaled(&query, 6, None, stats, |_, s| s);
        let whole_scaled = scaled(&both, None).unwrap();
        let of_a = scaled(&ia, Some(&stats)).unwrap();
        for (n, s) in of_a {
            let (_, t) = whole_scaled.iter().find(|(m, _)| *m == n).unwrap();
            assert!((s - t).abs() < 1e-5, "{s} / {t}");
        }
    }
}
