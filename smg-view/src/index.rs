//! The page's search index: every word of the nodes and turns, with the documents
//! that hold it. Documents are the nodes in page order, then the turns in page order
//! (conversation by conversation). The page looks a query's words up in it, the last
//! one as a prefix, so that results come as one types.

use std::collections::HashMap;

use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::archive::Archive;
use crate::graph::ViewGraph;

/// Words longer than this are cut (the page cuts a query's words the same way).
pub(crate) const MAX_WORD: usize = 32;

/// Sorted words and, for each, the documents that hold it (ascending).
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub(crate) terms: Vec<String>,
    pub(crate) postings: Vec<Vec<u32>>,
}

/// Index the nodes' texts, then every turn's speaker and content.
pub(crate) fn build(graph: &ViewGraph, archive: &Archive) -> Index {
    let mut words: HashMap<String, Vec<u32>> = HashMap::new();
    let turns = archive.conversations.iter().flat_map(|c| &c.turns);
    let docs = graph
        .texts
        .iter()
        .map(|t| (t.as_str(), ""))
        .chain(turns.map(|t| (t.5.as_str(), t.2.as_deref().unwrap_or(""))));
    for (doc, (text, speaker)) in docs.enumerate() {
        let doc = doc as u32;
        for w in words_of(text).chain(words_of(speaker)) {
            let list = words.entry(w).or_default();
            if list.last() != Some(&doc) {
                list.push(doc);
            }
        }
    }
    let mut sorted: Vec<_> = words.into_iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (terms, postings) = sorted.into_iter().unzip();
    Index { terms, postings }
}

/// Lower-case runs of letters and digits, two characters or more, cut at
/// [`MAX_WORD`]: the page's `words()` does the same.
pub(crate) fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().nth(1).is_some())
        .map(|w| w.to_lowercase().chars().take(MAX_WORD).collect())
}

/// Postings go out as gaps between document numbers: smaller pages.
pub(crate) struct Gaps<'a>(pub(crate) &'a [Vec<u32>]);

impl Serialize for Gaps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut outer = s.serialize_seq(Some(self.0.len()))?;
        for list in self.0 {
            let gaps: Vec<u32> = list
                .iter()
                .scan(0, |prev, &d| {
                    let g = d - *prev;
                    *prev = d;
                    Some(g)
                })
                .collect();
            outer.serialize_element(&gaps)?;
        }
        outer.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowered_split_and_cut() {
        let w: Vec<_> = words_of("Use PostgreSQL 16, not a DB: ÉCOLE x").collect();
        assert_eq!(w, ["use", "postgresql", "16", "not", "db", "école"]);
        let long = "a".repeat(40);
        assert_eq!(words_of(&long).next().unwrap().len(), MAX_WORD);
    }

    #[test]
    fn postings_go_out_as_gaps() {
        let lists = vec![vec![0, 3, 4], vec![7]];
        assert_eq!(
            serde_json::to_string(&Gaps(&lists)).unwrap(),
            "[[0,3,1],[7]]"
        );
    }
}
