//! Plain-text helpers shared by ingest and retrieval: words, stopwords, sentences,
//! and prose with fenced code taken out.

use std::borrow::Cow;

/// English function words that carry no topic.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "cannot",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "get",
    "got",
    "had",
    "hadn't",
    "has",
    "hasn't",
    "have",
    "haven't",
    "having",
    "he",
    "he'd",
    "he'll",
    "he's",
    "her",
    "here",
    "here's",
    "hers",
    "herself",
    "hey",
    "him",
    "himself",
    "his",
    "how",
    "how's",
    "i",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "just",
    "let's",
    "like",
    "me",
    "more",
    "most",
    "much",
    "mustn't",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "oh",
    "ok",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "really",
    "same",
    "she",
    "she'd",
    "she'll",
    "she's",
    "should",
    "shouldn't",
    "so",
    "some",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "there's",
    "these",
    "they",
    "they'd",
    "they'll",
    "they're",
    "they've",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "wasn't",
    "we",
    "we'd",
    "we'll",
    "we're",
    "we've",
    "were",
    "weren't",
    "what",
    "what's",
    "when",
    "when's",
    "where",
    "where's",
    "which",
    "while",
    "who",
    "who's",
    "whom",
    "why",
    "why's",
    "will",
    "with",
    "won't",
    "would",
    "wouldn't",
    "yeah",
    "yes",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "wow",
    "thanks",
    "thank",
    "lot",
    "well",
    "way",
    "gonna",
    "definitely",
    "totally",
    "sure",
    "great",
    "awesome",
    "cool",
    "nice",
    "amazing",
];

/// Month names, lower case, January first.
pub(crate) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Weekday names, lower case, Monday first.
pub(crate) const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Whether `word` (lower case) names a month or a weekday, in full or by its usual
/// abbreviation ("sep", "sept", "tues", "fri"); not "may", which is mostly the verb.
pub(crate) fn is_calendar_word(word: &str) -> bool {
    let full = MONTHS.iter().chain(WEEKDAYS.iter());
    word != "may"
        && (full.clone().any(|m| *m == word)
            || (word.len() == 3 && full.clone().any(|m| m.starts_with(word)))
            || matches!(word, "sept" | "tues" | "thur" | "thurs"))
}

/// Whether `word` (lower case) is a stopword.
pub(crate) fn is_stopword(word: &str) -> bool {
    // Asked for every word of every turn: a fast hash with fixed keys.
    type Set = crate::fast::FastSet<&'static str>;
    static SET: std::sync::LazyLock<Set> =
        std::sync::LazyLock::new(|| STOPWORDS.iter().copied().collect());
    SET.contains(word)
}

/// Words as they are written: runs of letters, digits and inner apostrophes.
pub(crate) fn word_slices(text: &str) -> impl Iterator<Item = &str> + '_ {
    runs(text, |c| c.is_alphanumeric() || c == '\'' || c == '’')
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
}

/// The runs of characters that `keep` holds for, as `text.split(|c| !keep(c))` gives
/// them less the empty ones, but reading ASCII a byte at a time: every word of every
/// turn passes here, and decoding each char cost more than the rest of the word's
/// work.
pub(crate) fn runs<F: Fn(char) -> bool>(text: &str, keep: F) -> Runs<'_, F> {
    Runs { text, at: 0, keep }
}

/// The iterator of [`runs`].
pub(crate) struct Runs<'a, F> {
    text: &'a str,
    at: usize,
    keep: F,
}

impl<'a, F: Fn(char) -> bool> Iterator for Runs<'a, F> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let mut start = self.at;
        let mut at = self.at;
        while at < bytes.len() {
            let b = bytes[at];
            let (kept, len) = if b.is_ascii() {
                ((self.keep)(char::from(b)), 1)
            } else {
                // A char starts here: `at` only ever moves by whole chars.
                let c = self.text[at..].chars().next().unwrap_or('\0');
                ((self.keep)(c), c.len_utf8())
            };
            if !kept {
                if at > start {
                    self.at = at + len;
                    return Some(&self.text[start..at]);
                }
                start = at + len;
            }
            at += len;
        }
        self.at = at;
        (at > start).then(|| &self.text[start..at])
    }
}

/// Lower-case words: runs of letters, digits and inner apostrophes.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    word_slices(text).map(|w| normalize(w).into_owned())
}

/// A word in lower case, with `’` as `'`; borrowed when it is so already, as most
/// words are.
fn normalize(w: &str) -> Cow<'_, str> {
    if w.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'\'')
    {
        Cow::Borrowed(w)
    } else {
        Cow::Owned(w.replace('’', "'").to_lowercase())
    }
}

/// Content words: words that are not stopwords, of two characters or more.
pub(crate) fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    term_slices(text).map(Cow::into_owned)
}

/// [`terms`], borrowed from `text` where they can be.
pub(crate) fn term_slices(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    word_slices(text).filter_map(term)
}

/// A word (of [`word_slices`]) as a content word, if it is one.
fn term(word: &str) -> Option<Cow<'_, str>> {
    normal_word(word).filter(|w| !is_stopword(w))
}

/// A word (of [`word_slices`]) of two characters or more, normalised: what a content
/// word is before stopwords are left out.
pub(crate) fn normal_word(word: &str) -> Option<Cow<'_, str>> {
    if word.len() < 2 {
        return None;
    }
    let w = normalize(word);
    // Five bytes hold two characters at least: only shorter words are counted.
    (w.len() >= 5 || w.chars().count() >= 2).then_some(w)
}

/// The prose of a message: fenced code blocks removed (their lines would read as
/// sentences and names).
pub(crate) fn prose(text: &str) -> Cow<'_, str> {
    if !text.contains("```") && !text.contains("~~~") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => out.push_str(line),
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// Sentences of prose: split after `.`, `!` or `?` followed by a space, and at line
/// breaks; trimmed, empty ones left out.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            let end = matches!(b, b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_none_or(|n| *n == b' ')
                && !abbreviation(&line[start..=i]);
            if end {
                push_sentence(&mut out, &line[start..=i]);
                start = i + 1;
            }
        }
        push_sentence(&mut out, &line[start..]);
    }
    out
}

fn push_sentence<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim().trim_start_matches(['-', '*', '>', '#']).trim();
    if s.chars().any(char::is_alphanumeric) {
        out.push(s);
    }
}

/// "e.g." and "Mr." do not end a sentence.
fn abbreviation(s: &str) -> bool {
    // Asked at every sentence end: compared in place, not lower-cased into a copy.
    let last = s.rsplit(' ').next().unwrap_or(s);
    last.len() <= 4
        && [
            "e.g.", "i.e.", "mr.", "mrs.", "ms.", "dr.", "vs.", "etc.", "st.", "jr.", "sr.",
        ]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(last))
}

/// Tokens estimated as characters / 4 (rounded up), the budget unit of the specs.
pub(crate) fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// At most `max` characters of `text` on one line, with an ellipsis when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count() + usize::from(chars > 0);
        if chars + n > max {
            // Cut inside the first word that does not fit, keeping room for "…".
            let room = max.saturating_sub(1).saturating_sub(chars);
            if chars > 0 && room > 0 {
                out.push(' ');
            }
            out.extend(
                word.chars()
                    .take(room.saturating_sub(usize::from(chars > 0))),
            );
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
            out.push('…');
            return out;
        }
        if chars > 0 {
            out.push(' ');
        }
        out.push_str(word);
        chars += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn runs_are_those_of_split(text in "[a-zA-Z0-9 ’'.,:\\-é日\u{301}\u{a0}\t]{0,40}|\\PC{0,40}") {
            let word = |c: char| c.is_alphanumeric() || c == '\'' || c == '’';
            let not_space = |c: char| !c.is_whitespace() && c != ',';
            for keep in [&word as &dyn Fn(char) -> bool, &not_space] {
                let split: Vec<&str> = text.split(|c| !keep(c)).filter(|w| !w.is_empty()).collect();
                proptest::prop_assert_eq!(runs(&text, keep).collect::<Vec<_>>(), split);
            }
        }
    }

    #[test]
    fn words_terms_and_sentences() {
        let w: Vec<_> = words("I’m using Rust's serde_json (v1.0)!").collect();
        assert_eq!(w, ["i'm", "using", "rust's", "serde", "json", "v1", "0"]);
        let t: Vec<_> = terms("The cat and I went to Paris").collect();
        assert_eq!(t, ["cat", "went", "paris"]);
        let s =
            sentences("Hi there. We use Postgres, e.g. for logs! Why?\n- a list item\nv1.2 is out");
        assert_eq!(
            s,
            [
                "Hi there.",
                "We use Postgres, e.g. for logs!",
                "Why?",
                "a list item",
                "v1.2 is out"
            ]
        );
    }

    #[test]
    fn calendar_words() {
        for w in ["monday", "fri", "sept", "tues", "december", "jun"] {
            assert!(is_calendar_word(w), "{w}");
        }
        for w in ["may", "marc", "sunny", "august1"] {
            assert!(!is_calendar_word(w), "{w}");
        }
    }

    #[test]
    fn prose_drops_fenced_code() {
        let t = "Look:\n```rust\nfn main() {}\n```\nDone.\n~~~\nx\n~~~\n";
        assert_eq!(prose(t), "Look:\nDone.\n");
    }

    #[test]
    fn clip_and_tokens() {
        assert_eq!(clip("a  b\nc", 10), "a b c");
        assert_eq!(clip("abcdefghijkl", 5), "abcd…");
        assert_eq!(clip("ab cd ef", 7), "ab cd…");
        assert_eq!(clip("ab cd ef", 8), "ab cd ef");
        assert_eq!(clip("ab cdefgh", 6), "ab cd…");
        assert_eq!(tokens("abcde"), 2);
    }
}
