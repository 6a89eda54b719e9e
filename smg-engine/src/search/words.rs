//! The terms of a text as search indexes and queries take them: content words
//! (stopwords out), stemmed by Snowball's English stemmer (rust-stemmers).

use std::cell::RefCell;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::fast::FastMap;
use crate::text;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

thread_local! {
    /// The stems [`with_stem`] remembers, by word.
    static STEMS: RefCell<FastMap<String, String>> = RefCell::default();
}

/// `with` the stem of `word` (a content word as the index holds it), remembered by
/// this thread: a query that tests the words of every node (FIND's `topic` and
/// `text`) meets the same few thousand words millions of times, and a lookup costs a
/// fraction of Snowball's work. `with` must not stem through this function again.
pub(crate) fn with_stem<R>(word: &str, with: impl FnOnce(&str) -> R) -> R {
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

/// Most words a [`with_stem`] cache holds before it starts over.
const STEM_CACHE: usize = 1 << 16;

/// [`tokens`], the stems remembered by [`with_stem`]: stemming is most of the cost
/// of indexing, and a text repeats its words.
pub(crate) fn tokens_cached(text: &str) -> Vec<String> {
    text::terms(text)
        .map(|w| with_stem(&w, str::to_owned))
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
        for text in [
            "Running runners ran",
            "the running of the runners",
            "Ünïcode Wörds",
        ] {
            assert_eq!(tokens_cached(text), tokens(text));
        }
        assert!(STEMS.with_borrow(|stems| stems.contains_key("running")));
        assert_eq!(tokens("The painters were painting"), ["painter", "paint"]);
    }
}
