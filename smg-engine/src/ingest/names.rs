//! Names in a sentence: capitalised words and runs of them, not at its start, with
//! what the words around them say they are (person, place, organisation).

use crate::text;

/// The kind of thing a name refers to, from the words around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum NameKind {
    Person,
    Place,
    Organization,
    Other,
}

const NOT_NAMES: &[&str] = &[
    "english",
    "god",
    "mom",
    "dad",
    "ok",
    "okay",
    "hey",
    "thanks",
    "yes",
    "no",
    "oh",
    "wow",
    "hi",
    "hello",
    "lol",
    "omg",
    "congrats",
    "congratulations",
];
const PLACE_CUES: &[&str] = &[
    "in", "at", "from", "to", "visited", "near", "around", "across", "into",
];
const PERSON_CUES: &[&str] = &[
    "with", "met", "named", "called", "friend", "sister", "brother", "son", "daughter", "wife",
    "husband", "mom", "dad", "told",
];
const ORG_SUFFIXES: &[&str] = &[
    "inc",
    "corp",
    "ltd",
    "llc",
    "university",
    "college",
    "company",
    "foundation",
    "group",
    "labs",
    "institute",
    "school",
    "club",
    "association",
    "society",
    "center",
    "centre",
];

/// Capitalised words and runs of them, not at the start of the sentence.
pub(crate) fn names(sentence: &str) -> Vec<(String, NameKind)> {
    // Most sentences have no capital letter after their first word: no name.
    let first = sentence.trim_start();
    let rest = first.find(char::is_whitespace).map_or("", |i| &first[i..]);
    if rest.is_ascii() && !rest.bytes().any(|b| b.is_ascii_uppercase()) {
        return Vec::new();
    }
    let tokens: Vec<&str> = sentence.split_whitespace().collect();
    fn clean(t: &str) -> &str {
        let t = t.trim_matches(|c: char| !c.is_alphanumeric());
        t.strip_suffix("'s")
            .or_else(|| t.strip_suffix("’s"))
            .unwrap_or(t)
    }
    let capital = |t: &str| {
        let c = clean(t);
        // Cheap tests first: most words are not capitalised.
        if !c.chars().next().is_some_and(char::is_uppercase) || c.len() < 3 {
            return false;
        }
        let mixed_case = c.chars().skip(1).any(char::is_lowercase);
        if !mixed_case || !c.chars().all(|ch| ch.is_alphabetic() || ch == '-') {
            return false;
        }
        let lower = c.to_lowercase();
        !text::is_stopword(&lower)
            && !NOT_NAMES.contains(&lower.as_str())
            && !text::is_calendar_word(&lower)
    };
    let mut out = Vec::new();
    let mut i = 1;
    while i < tokens.len() {
        if !capital(tokens[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut parts: Vec<&str> = vec![clean(tokens[i])];
        while i + 1 < tokens.len()
            && parts.len() < 3
            && capital(tokens[i + 1])
            && !ends_clause(tokens[i])
        {
            i += 1;
            parts.push(clean(tokens[i]));
        }
        let name = parts.join(" ");
        let prev = clean(tokens[start - 1]).to_lowercase();
        let last = parts.last().map(|p| p.to_lowercase()).unwrap_or_default();
        let kind = if ORG_SUFFIXES.contains(&last.as_str()) {
            NameKind::Organization
        } else if PLACE_CUES.contains(&prev.as_str()) {
            NameKind::Place
        } else if PERSON_CUES.contains(&prev.as_str()) {
            NameKind::Person
        } else {
            NameKind::Other
        };
        out.push((name, kind));
        i += 1;
    }
    out
}

fn ends_clause(token: &str) -> bool {
    token.ends_with([',', '.', ';', ':', '!', '?'])
}
