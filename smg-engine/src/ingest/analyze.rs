//! What one turn says, found by rules (no model): its M3S segment type, decisions,
//! typed memories, goals, names and technical terms.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::hash::Hash;

use thin_vec::ThinVec;

use super::classify::{classify, Kind};
use super::names::{names, NameKind};
use super::statements;
use crate::fast::{FastMap, FastSet};
use crate::ingest::lexicon::{cues, Cue, Found};
use crate::ingest::MemoryType;
use crate::text::{self, clip};

/// A decision stated in a sentence.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub(crate) sentence: String,
    pub(crate) outcome: String,
    pub(crate) rationale: Option<String>,
    pub(crate) options: Option<String>,
    /// Says it replaces an earlier choice ("instead", "switch to").
    pub(crate) changes: bool,
}

/// Everything the rules found in one turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Facts {
    pub(crate) kind: Kind,
    /// "thanks", "ok": archived, but no memory comes of it.
    pub(crate) filler: bool,
    pub(crate) words: usize,
    /// Decision cues (SMG §9.1 decision density).
    pub(crate) decision_cues: usize,
    /// Content words of the prose, sorted, each once.
    pub(crate) terms: Terms,
    pub(crate) decisions: ThinVec<Decision>,
    pub(crate) memories: ThinVec<(MemoryType, String)>,
    pub(crate) goals: ThinVec<String>,
    /// Capitalised names in the prose (display form) with what they seem to be.
    pub(crate) names: ThinVec<(String, NameKind)>,
    /// Technical terms: `inline code`, snake_case, CamelCase, dotted.names, ACRONYMS.
    pub(crate) technical: ThinVec<String>,
    /// (needer, needed) technical terms: "A requires B".
    pub(crate) requires: ThinVec<(String, String)>,
}

const FILLER: &[&str] = &[
    "ok", "okay", "k", "kk", "thanks", "thank", "you", "thx", "ty", "cool", "great", "nice", "got",
    "it", "sure", "yes", "no", "yep", "yup", "nope", "lol", "haha", "sounds", "good", "perfect",
    "awesome", "alright", "right", "fine", "wow", "hmm", "hi", "hello", "hey", "bye", "cheers",
    "much", "so", "very", "a", "lot", "agreed", "exactly", "true", "indeed", "np",
];

/// A turn's distinct content words (in the order they first come) in one string: a
/// large archive holds millions of them, and one allocation per turn instead of one
/// per word keeps that to the size of the words.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Terms {
    joined: String,
    count: usize,
}

impl Terms {
    /// From distinct words that hold no space.
    #[cfg(test)]
    pub(crate) fn new<S: AsRef<str>>(words: &[S]) -> Self {
        let mut terms = Terms::default();
        for w in words {
            terms.push(w.as_ref());
        }
        terms
    }

    /// The distinct content words among `words` (of [`text::word_slices`]).
    fn of<'a>(words: impl Iterator<Item = &'a str>) -> Self {
        // A turn has tens to hundreds of distinct words: no rehash for most.
        let mut seen: FastMap<Cow<'a, str>, ()> =
            FastMap::with_capacity_and_hasher(128, Default::default());
        let mut terms = Terms::default();
        for w in words.filter_map(text::normal_word) {
            // A word that comes again is looked up once; whether it is a stopword is
            // asked the first time only.
            if let Entry::Vacant(new) = seen.entry(w) {
                if !text::is_stopword(new.key()) {
                    terms.push(new.key());
                }
                new.insert(());
            }
        }
        // Held for every turn until the graph is made: without the room its growth
        // left (a million turns' terms are a few hundred MB).
        terms.joined.shrink_to_fit();
        terms
    }

    fn push(&mut self, word: &str) {
        if self.count > 0 {
            self.joined.push(' ');
        }
        self.joined.push_str(word);
        self.count += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.count
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        // Words are short: a byte loop beats a search for each space.
        text::runs(&self.joined, |c| c != ' ')
    }
}

/// Analyse one turn's text; `ai` says the speaker is an assistant (its first-person
/// sentences are not memories about the user).
pub(crate) fn analyze(content: &str, ai: bool) -> Facts {
    let prose = text::prose(content);
    let mut words = 0;
    let terms = Terms::of(text::word_slices(&prose).inspect(|_| words += 1));
    let filler =
        words > 0 && words <= 6 && text::words(&prose).all(|w| FILLER.contains(&w.as_str()));
    let mut facts = Facts {
        kind: classify(content, words),
        filler,
        words,
        decision_cues: 0,
        terms,
        decisions: ThinVec::new(),
        memories: ThinVec::new(),
        goals: ThinVec::new(),
        names: ThinVec::new(),
        technical: technical_terms(&prose).into(),
        requires: ThinVec::new(),
    };
    if filler {
        return facts;
    }
    let sentences = text::sentences(&prose);
    for (i, s) in sentences.iter().enumerate() {
        let found = cues(s);
        let mut end = 0;
        for f in found
            .iter()
            .filter(|f| matches!(f.cue, Cue::Decision | Cue::Comparison | Cue::Justification))
        {
            // "we decided to" is one cue, not "we decided" and "decided to".
            if f.start >= end {
                facts.decision_cues += 1;
                end = f.end;
            }
        }
        if let Some(d) = decision(s, &found, sentences.get(i + 1).copied()) {
            facts.decisions.push(d);
        }
        let named = names(s);
        // An assistant's sentences are not the user's memories: not even looked at.
        let memory = if ai {
            None
        } else {
            statements::memory(s, &found, !named.is_empty())
        };
        if let Some(t) = memory {
            facts.memories.push((t, clip(s, 400)));
        }
        if !ai && found.iter().any(|f| f.cue == Cue::Goal && aims(s, f)) {
            facts.goals.push(clip(s, 200));
        }
        if found.iter().any(|f| f.cue == Cue::Requires) {
            facts.requires.extend(requirement(s, &found));
        }
        facts.names.extend(named);
    }
    facts
}

/// What follows a goal cue when the aim is only the talk itself ("There's something
/// I want to tell you", "I'd like to thank you"): no goal of the speaker's to keep.
/// A verb that can also name an aim ("tell stories", "share my art") counts only
/// when it is addressed to the listener.
const TALK: &[&str] = &[
    "say",
    "ask",
    "thank",
    "mention",
    "chat",
    "apologize",
    "apologise",
    "tell you",
    "tell u",
    "talk to you",
    "talk with you",
    "let you know",
    "let u know",
    "share with you",
    "share something",
    "share some",
];

/// Words before "help me" that make it a request ("can you help me…"): elsewhere
/// ("their support will help me") it tells of help, not of an aim.
const ASKING: &[&str] = &[
    "can you",
    "could you",
    "would you",
    "will you",
    "please",
    "pls",
];

/// Whether goal cue `f` of `sentence` states an aim of the speaker's.
fn aims(sentence: &str, f: &Found) -> bool {
    if only_talk(&sentence[f.end..]) {
        return false;
    }
    if !sentence[f.start..f.end].eq_ignore_ascii_case("help me") {
        return true;
    }
    let before = sentence[..f.start].trim_end_matches(|c: char| !c.is_alphanumeric());
    before.is_empty()
        || ASKING.iter().any(|a| {
            before.len() >= a.len()
                && before.is_char_boundary(before.len() - a.len())
                && before[before.len() - a.len()..].eq_ignore_ascii_case(a)
        })
}

/// Whether `after` (the words after a goal cue) starts with one of [`TALK`].
fn only_talk(after: &str) -> bool {
    let after = after.trim_start();
    TALK.iter().any(|t| {
        after
            .get(..t.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(t))
            && after[t.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    })
}

/// The distinct items, in the order they first come.
fn distinct<T: Hash + Eq + Clone>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    // A turn has tens to hundreds of distinct words: no rehash for most.
    let mut seen: FastSet<T> = FastSet::with_capacity_and_hasher(128, Default::default());
    let mut out = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.insert(item.clone());
            out.push(item);
        }
    }
    out
}

/// Words that point at something said elsewhere: an outcome that starts with one
/// does not name its choice.
const POINTERS: &[&str] = &[
    "it", "them", "this", "that", "these", "those", "him", "her", "one", "ones",
];

/// SMG §4: "let's use", "we'll go with", "decided to", or options compared with a
/// reason. The outcome is what follows the cue up to the reason; the rationale is the
/// reason, or the next sentence when it gives one.
fn decision(sentence: &str, found: &[Found], next: Option<&str>) -> Option<Decision> {
    let trigger = found.iter().find(|f| f.cue == Cue::Decision);
    let compared = found.iter().find(|f| f.cue == Cue::Comparison);
    let reason = found.iter().find(|f| f.cue == Cue::Justification);
    if trigger.is_none() && !(compared.is_some() && reason.is_some()) {
        return None;
    }
    // "we decided to use X": the outcome starts after the longest cue run.
    let from = trigger.map_or(0, |t| {
        found
            .iter()
            .filter(|f| f.cue == Cue::Decision && f.start < t.end)
            .map(|f| f.end)
            .max()
            .unwrap_or(t.end)
    });
    let to = reason
        .filter(|r| r.start >= from)
        .map_or(sentence.len(), |r| r.start);
    let outcome = sentence
        .get(from..to)
        .unwrap_or(sentence)
        .split([';', ','])
        .next()
        .unwrap_or_default()
        .trim()
        .trim_end_matches(['.', '!', '?', ':'])
        .trim();
    let outcome = ["to use ", "use ", "to go with ", "go with ", "to "]
        .iter()
        .find_map(|p| outcome.strip_prefix(p))
        .unwrap_or(outcome);
    let outcome = if outcome.is_empty() {
        sentence
    } else {
        outcome
    };
    // A choice of nothing named ("it", "someone else") or of what a pronoun stands
    // for ("them 'cause they help…", "it and make an impact") says nothing by itself.
    text::terms(outcome).next()?;
    let first = outcome.split_whitespace().next().unwrap_or_default();
    if POINTERS.iter().any(|p| p.eq_ignore_ascii_case(first)) {
        return None;
    }
    let rationale = reason
        .and_then(|r| sentence.get(r.end..))
        .map(|r| r.trim().trim_end_matches(['.', '!']).to_string())
        .filter(|r| !r.is_empty())
        .or_else(|| {
            let n = next?;
            let l = n.to_lowercase();
            ["because", "since", "it's", "it is", "this", "that's"]
                .iter()
                .any(|p| l.starts_with(p))
                .then(|| clip(n, 300))
        });
    Some(Decision {
        sentence: clip(sentence, 400),
        outcome: clip(outcome, 160),
        rationale: rationale.map(|r| clip(&r, 300)),
        options: compared.map(|_| clip(sentence, 200)),
        changes: found.iter().any(|f| f.cue == Cue::Change),
    })
}

/// "A requires B": the last technical term before the cue needs the first after it.
fn requirement(sentence: &str, found: &[Found]) -> Vec<(String, String)> {
    let Some(cue) = found.iter().find(|f| f.cue == Cue::Requires) else {
        return Vec::new();
    };
    let before = technical_terms(sentence.get(..cue.start).unwrap_or_default());
    let after = technical_terms(sentence.get(cue.end..).unwrap_or_default());
    match (before.last(), after.first()) {
        (Some(a), Some(b)) if a != b => vec![(a.clone(), b.clone())],
        _ => Vec::new(),
    }
}

/// Technical-looking tokens of prose, deduplicated in order.
pub(crate) fn technical_terms(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inline = prose.split('`');
    inline.next();
    while let (Some(code), Some(_)) = (inline.next(), inline.next()) {
        let code = code.trim();
        if (2..=40).contains(&code.len()) && !code.contains(char::is_whitespace) {
            out.push(code.trim_end_matches("()").to_string());
        }
    }
    for raw in text::runs(prose, |c| !apart(c)) {
        // Plain lower-case words, the great majority, are none of the shapes below
        // (trimmed, they are still plain lower case).
        if raw.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let t = raw
            .trim_end_matches(['.', '\''])
            .trim_start_matches(['.', '\'']);
        let t = t.strip_suffix("'s").unwrap_or(t);
        if t.len() < 2 || t.len() > 40 || !t.starts_with(|c: char| c.is_alphabetic()) {
            continue;
        }
        if t.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let len = t.chars().count();
        let camel = t
            .chars()
            .zip(t.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
        let joined = t.contains('_') || t.contains("::") || inner_dot(t);
        let letters = t.chars().filter(|c| c.is_alphabetic()).count();
        let acronym = (2..=6).contains(&len)
            && t.chars().all(|c| c.is_uppercase() || c.is_ascii_digit())
            && letters >= 2;
        let digits = t.chars().any(|c| c.is_ascii_digit()) && letters >= 2 && len <= 12;
        if camel || joined || acronym || digits {
            out.push(t.to_string());
        }
    }
    distinct(out)
}

/// Where terms are cut apart: white space and `` `,;:!?()[]{}"<>* ``.
fn apart(c: char) -> bool {
    // One look-up for ASCII: every char of every turn is asked.
    const APART: [bool; 128] = {
        // ASCII's white space, as `char::is_whitespace` has it, then the marks.
        let marks = b" \t\n\x0b\x0c\r`,;:!?()[]{}\"<>*";
        let mut table = [false; 128];
        let mut i = 0;
        while i < marks.len() {
            table[marks[i] as usize] = true;
            i += 1;
        }
        table
    };
    match APART.get(c as usize) {
        Some(apart) => *apart,
        None => c.is_whitespace(),
    }
}

fn inner_dot(t: &str) -> bool {
    t.split('.').count() > 1
        && t.split('.')
            .all(|p| p.chars().next().is_some_and(char::is_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_have_outcome_rationale_and_options() {
        let f = analyze(
            "After a long talk we'll go with PostgreSQL because it has JSONB. MySQL vs PostgreSQL was close.",
            false,
        );
        assert_eq!(f.decisions.len(), 1);
        let d = &f.decisions[0];
        assert_eq!(d.outcome, "PostgreSQL");
        assert_eq!(d.rationale.as_deref(), Some("it has JSONB"));
        assert!(f.decision_cues >= 3);
        let f = analyze(
            "Let's use Redis instead of Memcached, since we need persistence.",
            true,
        );
        let d = &f.decisions[0];
        assert_eq!(d.outcome, "Redis instead of Memcached");
        assert!(d.changes && d.options.is_some());
        for pointed in [
            "I chose them because they help families with adoption.",
            "Let's go for it and make an impact.",
        ] {
            assert!(analyze(pointed, false).decisions.is_empty(), "{pointed}");
        }
    }

    #[test]
    fn memories_goals_and_names() {
        let f = analyze(
            "I love hiking with my sister Anna in the Rocky Mountains. I want to run a marathon next year.",
            false,
        );
        let types: Vec<_> = f.memories.iter().map(|m| m.0).collect();
        assert_eq!(types, [MemoryType::Preference, MemoryType::Event]);
        assert_eq!(f.goals.len(), 1);
        let names: Vec<_> = f.names.iter().map(|n| (n.0.as_str(), n.1)).collect();
        assert_eq!(
            names,
            [
                ("Anna", NameKind::Person),
                ("Rocky Mountains", NameKind::Other)
            ]
        );
        assert!(analyze("I love hiking and camping a lot.", true)
            .memories
            .is_empty());
    }

    #[test]
    fn a_goal_of_only_talking_is_no_goal() {
        for talk in [
            "There's something I want to tell you.",
            "I'd like to thank you for the support.",
            "I want to  share some news with you!",
            "I need to let you know about the meeting.",
            "I just want to say, you are amazing.",
            "Your support will help me make it happen.",
            "They help me take a step back.",
        ] {
            assert!(analyze(talk, false).goals.is_empty(), "{talk}");
        }
        for aim in [
            "I want to tell stories through my paintings.",
            "I want to share my art with the world.",
            "I want to chatter less and listen more.",
            "I want to let the kids choose the trip.",
        ] {
            assert_eq!(analyze(aim, false).goals.len(), 1, "{aim}");
        }
    }

    #[test]
    fn filler_and_classification() {
        assert!(analyze("Thanks!", false).filler);
        assert!(analyze("ok, got it", false).filler);
        assert!(!analyze("ok, use Rust", false).filler);
        assert_eq!(analyze("```rust\nfn main() {}\n```", true).kind, Kind::Code);
        assert_eq!(analyze("short one", true).kind, Kind::ShortExchange);
        let design = "The architecture has one component per system boundary and a data flow that is easy to follow for everyone involved here";
        assert_eq!(analyze(design, true).kind, Kind::Design);
    }

    #[test]
    fn terms_are_cut_apart_at_white_space_and_punctuation() {
        for c in (0..=0x2030).filter_map(char::from_u32) {
            let want = c.is_whitespace() || "`,;:!?()[]{}\"<>*".contains(c);
            assert_eq!(apart(c), want, "{c:?}");
        }
    }

    #[test]
    fn technical_terms_and_requirements() {
        let t = technical_terms(
            "Use `tokio::spawn` with serde_json, JSON and Neo4j in JavaScript or node.js. End.",
        );
        assert_eq!(
            t,
            [
                "tokio::spawn",
                "serde_json",
                "JSON",
                "Neo4j",
                "JavaScript",
                "node.js"
            ]
        );
        let f = analyze("The WebSocket layer requires OAuth2 tokens.", true);
        assert_eq!(
            f.requires,
            [("WebSocket".to_string(), "OAuth2".to_string())]
        );
    }
}
