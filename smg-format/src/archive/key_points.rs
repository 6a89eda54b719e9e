//! A block's key points: its most frequent words.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::model::Turn;

/// Counted for every word of every archived turn: a fast hash with fixed keys.
type Counts<K> = HashMap<K, usize, foldhash::fast::FixedState>;

/// Key points a block names.
const KEY_POINTS: usize = 5;

/// Up to five most frequent words of four letters or more that are not stopwords, in
/// lower case (ties alphabetical).
pub(super) fn key_points<'a>(turns: impl Iterator<Item = &'a Turn>) -> Vec<String> {
    // Words of ASCII letters, nearly all of them, are counted without a copy: up to
    // 16 letters as one number, longer ones where they stand. Only other words are
    // lower-cased into strings of their own.
    let mut short: Counts<u128> = Counts::default();
    let mut long: Counts<Folded<'a>> = Counts::default();
    let mut other: Counts<String> = Counts::default();
    for t in turns {
        alphanumeric_runs(&t.content, &mut |w: &'a str, run: Run| {
            // Under four bytes, no word lowercases to four letters.
            if w.len() < 4 {
                return;
            }
            match run {
                Run::Letters => match pack(w.as_bytes()) {
                    Some(packed) => *short.entry(packed).or_default() += 1,
                    None => *long.entry(Folded(w.as_bytes())).or_default() += 1,
                },
                Run::Ascii => {}
                Run::Other => {
                    let lower = w.to_lowercase();
                    if lower.chars().count() >= 4 && lower.chars().all(char::is_alphabetic) {
                        *other.entry(lower).or_default() += 1;
                    }
                }
            }
        });
    }
    // Long words are no stopwords: the longest has seven letters.
    let long = long.into_iter().map(|(w, n)| (w.lower(), n));
    if other.is_empty() {
        // The five of all are among the five of the short words and the five of the
        // long ones.
        let short = short.into_iter().filter(|(w, _)| !packed_stopword(*w));
        let short = most_frequent(short.collect()).into_iter();
        let both = short.map(|(w, n)| (unpack(w), n)).chain(long);
        return words(most_frequent(both.collect()));
    }
    // A word such as "\u{212A}ing" (Kelvin sign) lowercases to one of ASCII letters.
    for (w, n) in short.into_iter().map(|(w, n)| (unpack(w), n)).chain(long) {
        *other.entry(w).or_default() += n;
    }
    other.retain(|w, _| !Folded(w.as_bytes()).is_stopword());
    words(most_frequent(other.into_iter().collect()))
}

/// The [`KEY_POINTS`] words of highest count, with their counts (ties in order of the
/// words).
fn most_frequent<W: Ord>(mut counted: Vec<(W, usize)>) -> Vec<(W, usize)> {
    let order = |a: &(W, usize), b: &(W, usize)| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0));
    if counted.len() > KEY_POINTS {
        counted.select_nth_unstable_by(KEY_POINTS, order);
        counted.truncate(KEY_POINTS);
    }
    counted.sort_unstable_by(order);
    counted
}

fn words(counted: Vec<(String, usize)>) -> Vec<String> {
    counted.into_iter().map(|(w, _)| w).collect()
}

/// A word of at most 16 ASCII letters in lower case, as one number: its bytes from
/// the top, zeros after, so that numbers order as their words do.
fn pack(word: &[u8]) -> Option<u128> {
    let mut bytes = [0u8; 16];
    bytes.get_mut(..word.len())?.copy_from_slice(word);
    let letters = u128::MAX << (8 * (16 - word.len()));
    Some(u128::from_be_bytes(bytes) | (letters & u128::from_ne_bytes([LOWER; 16])))
}

/// The word [`pack`] made the number of.
fn unpack(packed: u128) -> String {
    let bytes = packed.to_be_bytes();
    bytes
        .iter()
        .take_while(|b| **b != 0)
        .map(|b| char::from(*b))
        .collect()
}

fn packed_stopword(packed: u128) -> bool {
    let bytes = packed.to_be_bytes();
    let len = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    Folded(&bytes[..len]).is_stopword()
}

/// A word of ASCII letters, equal, hashed and ordered as its lower case is, without
/// a copy: for letters, lower case is the byte with bit 5 set.
#[derive(Clone, Copy, Debug)]
struct Folded<'a>(&'a [u8]);

const LOWER: u8 = 0x20;

impl Folded<'_> {
    fn lower(self) -> String {
        self.0.iter().map(|b| char::from(b | LOWER)).collect()
    }

    fn is_stopword(&self) -> bool {
        self.0.len() <= LONGEST_STOPWORD
            && STOPWORDS
                .binary_search_by(|s| Folded(s.as_bytes()).cmp(self))
                .is_ok()
    }
}

impl PartialEq for Folded<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0)
                .all(|(a, b)| a | LOWER == b | LOWER)
    }
}

impl Eq for Folded<'_> {}

impl Hash for Folded<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for chunk in self.0.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            state.write_u64(u64::from_le_bytes(word) | u64::from_ne_bytes([LOWER; 8]));
        }
    }
}

impl Ord for Folded<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        let lower = |w: &Self| w.0.iter().map(|b| b | LOWER);
        lower(self).cmp(lower(other))
    }
}

impl PartialOrd for Folded<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Sorted, for binary search.
const STOPWORDS: &[&str] = &[
    "about", "after", "again", "also", "because", "been", "before", "being", "could", "does",
    "doing", "from", "have", "here", "into", "just", "like", "make", "more", "most", "much",
    "need", "only", "other", "over", "really", "same", "should", "some", "such", "than", "thanks",
    "that", "their", "them", "then", "there", "these", "they", "this", "those", "very", "want",
    "were", "what", "when", "where", "which", "while", "will", "with", "would", "yeah", "your",
    "yours",
];

/// Longest word in [`STOPWORDS`].
const LONGEST_STOPWORD: usize = 7;

/// What a run of alphanumeric characters holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// ASCII letters only.
    Letters,
    /// ASCII letters and digits, a digit at least.
    Ascii,
    /// A character beyond ASCII.
    Other,
}

/// What each byte is to [`alphanumeric_runs`]: 0 apart, 1 a letter, 2 a digit, 3 the
/// start or rest of a character beyond ASCII.
const BYTE_CLASS: [u8; 256] = {
    let mut class = [3u8; 256];
    let mut b = 0;
    while b < 128 {
        class[b] = if (b as u8).is_ascii_alphabetic() {
            1
        } else if (b as u8).is_ascii_digit() {
            2
        } else {
            0
        };
        b += 1;
    }
    class
};

/// Each non-empty run of alphanumeric characters of `text`, as
/// `text.split(|c: char| !c.is_alphanumeric())` gives them, with what it holds, but
/// reading ASCII a byte at a time.
fn alphanumeric_runs<'a>(text: &'a str, each: &mut impl FnMut(&'a str, Run)) {
    let bytes = text.as_bytes();
    let (mut start, mut at) = (0, 0);
    // Which classes of byte the run holds, as bits.
    let mut held = 0u8;
    while at < bytes.len() {
        let class = BYTE_CLASS[usize::from(bytes[at])];
        let (alphanumeric, len) = if class < 3 {
            (class != 0, 1)
        } else {
            // A char starts here: `at` only ever moves by whole chars.
            let c = text[at..].chars().next().unwrap_or('\0');
            (c.is_alphanumeric(), c.len_utf8())
        };
        if alphanumeric {
            held |= 1 << class;
        } else {
            if at > start {
                each(&text[start..at], run(held));
            }
            start = at + len;
            held = 0;
        }
        at += len;
    }
    if at > start {
        each(&text[start..at], run(held));
    }
}

fn run(held: u8) -> Run {
    match held {
        0b10 => Run::Letters,
        _ if held & 0b1000 == 0 => Run::Ascii,
        _ => Run::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::tests::turn;

    /// `alphanumeric_runs` of `text`, and what `split` gives.
    fn runs_and_split(text: &str) -> (Vec<String>, Vec<String>) {
        let mut got = Vec::new();
        alphanumeric_runs(text, &mut |w, run| {
            let letters = w.bytes().all(|b| b.is_ascii_alphabetic());
            let want = match (letters, w.is_ascii()) {
                (true, _) => Run::Letters,
                (false, true) => Run::Ascii,
                (false, false) => Run::Other,
            };
            assert_eq!(run, want, "{w:?}");
            got.push(w.to_string());
        });
        let want = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        (got, want)
    }

    #[test]
    fn alphanumeric_runs_are_those_of_split() {
        for text in [
            "",
            "a",
            "--a--b",
            "Ärger, ärger—x’y 12ab  ",
            "日本語 text\u{301}é!",
            "end.",
        ] {
            let (got, want) = runs_and_split(text);
            assert_eq!(got, want, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn alphanumeric_runs_of_any_text_are_those_of_split(text in "\\PC{0,40}") {
            let (got, want) = runs_and_split(&text);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn packed_words_order_as_words_and_unpack_to_lower_case() {
        let words = ["ABCD", "abcde", "abd", "Zebra", "abcdefghijklmnop"];
        let mut packed: Vec<u128> = words.iter().map(|w| pack(w.as_bytes()).unwrap()).collect();
        packed.sort_unstable();
        let unpacked: Vec<String> = packed.into_iter().map(unpack).collect();
        assert_eq!(
            unpacked,
            ["abcd", "abcde", "abcdefghijklmnop", "abd", "zebra"]
        );
        assert_eq!(pack(b"abcdefghijklmnopq"), None);
        assert!(packed_stopword(pack(b"Yours").unwrap()));
        assert!(!packed_stopword(pack(b"youth").unwrap()));
    }

    #[test]
    fn stopwords_are_sorted_and_key_points_skip_them() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            STOPWORDS.iter().map(|w| w.len()).max(),
            Some(LONGEST_STOPWORD)
        );
        let turns = [
            turn(
                1,
                "Thanks! Postgres, postgres and POSTGRES; thanks than that 2024x Ärger ärger",
            ),
            turn(2, "Redis redis İİİİ with what"),
        ];
        // "İİİİ" lowercases to i + U+0307 (a combining mark, not a letter): no word.
        assert_eq!(key_points(turns.iter()), ["postgres", "redis", "ärger"]);
    }

    /// Key points the plain way: every word lower-cased into a string of its own.
    fn plain_key_points(turns: &[Turn]) -> Vec<String> {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for t in turns {
            for w in t.content.split(|c: char| !c.is_alphanumeric()) {
                let lower = w.to_lowercase();
                if lower.chars().count() >= 4
                    && lower.chars().all(char::is_alphabetic)
                    && STOPWORDS.binary_search(&lower.as_str()).is_err()
                {
                    *counts.entry(lower).or_default() += 1;
                }
            }
        }
        let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(KEY_POINTS)
            .map(|(w, _)| w)
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn key_points_are_those_counted_the_plain_way(
            texts in proptest::collection::vec(
                "((This|this|THAT|Redis|redis|rEdIs|Postgres|ärger|Ärger|\u{212A}ing|king|KING|İİİİ|abcdefghijk|ABCDEFGHIJK|abcdefghijklmnop|abcdefghijklmnopq|ABCDEFGHIJKLMNOPQR|[a-cA-C]{15,18}|zyx|2024x|[a-zA-Z]{4,9}|[a-e]{4})[ ,.;!\n—]{1,2}){0,30}",
                0..4,
            )
        ) {
            let turns: Vec<Turn> = texts.iter().enumerate().map(|(i, t)| turn(i as u64 + 1, t)).collect();
            proptest::prop_assert_eq!(key_points(turns.iter()), plain_key_points(&turns));
        }
    }
}
