//! The terms of a text as search indexes and queries take them: content words
//! (stopwords out), stemmed by Snowball's English stemmer (rust-stemmers).

use std::collections::HashMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::text;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// A content word stemmed, as the index holds it.
pub(crate) fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    STEMMER.stem(word)
}

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
        assert_eq!(tokens("The painters were painting"), ["painter", "paint"]);
    }
}
