//! The terms of a text as search indexes and queries take them: content words
//! (stopwords out), stemmed by Snowball's English stemmer (rust-stemmers).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::fast::FastMap;
use crate::text;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// `with` the stem of `word` (a content word as the index holds it), remembered by
/// this thread: a query that tests the words of every node (FIND's `topic` and
/// `text`) meets the same few thousand words millions of times, and a lookup costs a
/// fraction of Snowball's work. `with` must not stem through this function again.
pub(crate) fn with_stem<R>(word: &str, with: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static STEMS: RefCell<FastMap<String, String>> = RefCell::default();
    }
    STEMS.with_borrow_mut(|stems| {
        if let Some(s) = stems.get(word) {
            return with(s);
        }
        if stems.len() >= STEM_CACHE {
            stems.clear();
        }
        let s = STEMMER.stem(word).into_owned();
        let out = with(&s);
        stems.insert(word.to_owned(), s);
        out
    })
}

/// Index terms of a text: content words, stemmed.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    text::terms(text)
        .map(|w| STEMMER.stem(&w).into_owned())
        .collect()
}

/// Most words a [`tokens_cached`] or [`with_stem`] cache holds before it starts over.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_stems_are_the_stemmer_s_before_and_after_the_memory_fills() {
        let words: Vec<String> = (0..STEM_CACHE + 10)
            .map(|i| format!("running{i}s"))
            .chain(["running", "ponies", "generously"].map(String::from))
            .collect();
        for _ in 0..2 {
            for w in &words {
                assert_eq!(with_stem(w, str::to_owned), STEMMER.stem(w));
            }
        }
        assert_eq!(with_stem("ponies", str::to_owned), "poni");
    }

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
        assert_eq!(tokens("The painters were painting"), ["painter", "paint"]);
    }
}
