//! The phrases that the rule-based analysis looks for (SMG §4 classification rules,
//! the memgraph memory types, M3S segment indicators), matched in one pass with
//! Aho-Corasick at word boundaries.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use crate::ingest::MemoryType;

/// What a phrase signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cue {
    /// "let's use", "we'll go with", "decided to"…
    Decision,
    /// "vs", "instead of", "rather than": options compared.
    Comparison,
    /// "because", "since", "so that": a reason given.
    Justification,
    /// "instead", "switch to": a later decision that replaces an earlier one.
    Change,
    /// A memory of this type.
    Memory(MemoryType),
    /// "I want to", "next step": a goal.
    Goal,
    /// "requires", "depends on": one thing needs another.
    Requires,
}

const DECISION: &[&str] = &[
    "let's use",
    "let us use",
    "let's go with",
    "we'll go with",
    "we will go with",
    "i'll go with",
    "going with",
    "decided to",
    "decided on",
    "we decided",
    "i decided",
    "i've decided",
    "we'll use",
    "we will use",
    "i'll use",
    "settled on",
    "opted for",
    "we chose",
    "i chose",
    "we should use",
    "the decision is",
    "final decision",
    "let's go for",
    "we're going with",
    "i'm going with",
    // Written records: minutes, incident reports, ADRs (MADR's "Chosen option").
    "we agreed to",
    "we agreed on",
    "decision:",
    "chosen option",
];
const COMPARISON: &[&str] = &[
    "vs",
    "vs.",
    "versus",
    "instead of",
    "rather than",
    "compared to",
];
const JUSTIFICATION: &[&str] = &[
    "because",
    "since",
    "so that",
    "due to",
    "given that",
    "which means",
];
const CHANGE: &[&str] = &[
    "instead",
    "switch to",
    "switching to",
    "change to",
    "no longer",
    "replace",
    "replacing",
    "actually",
];
const GOAL: &[&str] = &[
    "i want to",
    "i need to",
    "we need to",
    "my goal",
    "our goal",
    "the goal is",
    "trying to",
    "i plan to",
    "we plan to",
    "planning to",
    "next step",
    "todo",
    "i'm going to",
    "we're going to",
    "i hope to",
    "i'd like to",
    "help me",
];
const REQUIRES: &[&str] = &["requires", "depends on", "needs", "require", "depend on"];

const PREFERENCE: &[&str] = &[
    "i prefer",
    "i like",
    "i love",
    "i enjoy",
    "my favorite",
    "my favourite",
    "i hate",
    "i don't like",
    "i'd rather",
    "i'm a fan of",
    "i'm into",
    "i adore",
    "i'm passionate about",
    "i really like",
    "i really love",
    "my go-to",
    "i can't stand",
    "we love",
    "we like",
    "we enjoy",
    "we prefer",
    "important to me",
    "means a lot to me",
    "mean a lot to me",
    "means the world to me",
    "mean the world to me",
    "special to me",
    "close to my heart",
];
const RELATIONSHIP: &[&str] = &[
    "my wife",
    "my husband",
    "my partner",
    "my friend",
    "my friends",
    "my mom",
    "my mother",
    "my dad",
    "my father",
    "my sister",
    "my brother",
    "my son",
    "my daughter",
    "my kids",
    "my children",
    "my boyfriend",
    "my girlfriend",
    "my family",
    "my colleague",
    "my boss",
    "my mentor",
    "my grandma",
    "my grandmother",
    "my grandpa",
    "my grandfather",
    "my parents",
    "my cousin",
    "my aunt",
    "my uncle",
    "my neighbor",
    "my neighbour",
    "my team",
    "married",
    "my dog",
    "my cat",
    "my pet",
    "my pets",
    "our kids",
    "our children",
    "our family",
    "our son",
    "our daughter",
    "our dog",
    "our cat",
];
// Said of oneself: "you must be thrilled" and "can't wait" bind no one.
const CONSTRAINT: &[&str] = &[
    "i must",
    "we must",
    "i have to",
    "we have to",
    "i had to",
    "we had to",
    "i need to",
    "we need to",
    "i'm not allowed",
    "we're not allowed",
    "i'm allergic",
    "i am allergic",
    "deadline",
    "budget",
    "not allowed",
    "only if",
    "requirement",
    "must not",
    "no more than",
    "at most",
    "allergic",
    "limit",
];
const EVENT: &[&str] = &[
    "went to",
    "visited",
    "attended",
    "yesterday",
    "last week",
    "last month",
    "last year",
    "last weekend",
    "last night",
    "this week",
    "this month",
    "just got back",
    "i joined",
    "i started",
    "i finished",
    "signed up",
    "took part",
    "tomorrow",
    "next week",
    "next month",
    "next year",
    "i moved",
    "adopted",
    "i ran",
    "i went",
    "we went",
    "i met",
    "i got",
    "i bought",
    "i painted",
    "i won",
    "i lost",
    "i graduated",
    "i traveled",
    "i travelled",
    "this weekend",
    "recently",
    "a few days ago",
    "ago",
    "i took",
    "i made",
    "i had a",
    "we had a",
    "i gave",
    "i received",
];
const PROJECT: &[&str] = &[
    "working on",
    "i'm building",
    "we're building",
    "my project",
    "our project",
    "the project",
    "i started a",
    "launching",
    "i'm writing",
    "i'm creating",
    "side project",
    "i'm developing",
    "i'm organizing",
    "i'm preparing",
];
const FACT: &[&str] = &[
    "i am",
    "i'm a",
    "i'm an",
    "i have",
    "i've been",
    "i work",
    "my name is",
    "i live",
    "my job",
    "years old",
    "i was born",
    "i study",
    "i'm from",
    "i've got",
    "i own",
    "i identify",
    "i'm currently",
    "my career",
    "my birthday",
    "his name is",
    "her name is",
    "their names are",
];

struct Lexicon {
    matcher: AhoCorasick,
    cues: Vec<Cue>,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    let groups: [(&[&str], Cue); 12] = [
        (DECISION, Cue::Decision),
        (COMPARISON, Cue::Comparison),
        (JUSTIFICATION, Cue::Justification),
        (CHANGE, Cue::Change),
        (GOAL, Cue::Goal),
        (REQUIRES, Cue::Requires),
        (PREFERENCE, Cue::Memory(MemoryType::Preference)),
        (RELATIONSHIP, Cue::Memory(MemoryType::Relationship)),
        (CONSTRAINT, Cue::Memory(MemoryType::Constraint)),
        (EVENT, Cue::Memory(MemoryType::Event)),
        (PROJECT, Cue::Memory(MemoryType::Project)),
        (FACT, Cue::Memory(MemoryType::Fact)),
    ];
    let mut patterns = Vec::new();
    let mut cues = Vec::new();
    for (phrases, cue) in groups {
        for p in phrases {
            patterns.push(*p);
            cues.push(cue);
        }
    }
    Lexicon {
        // Every sentence of every turn is searched: a DFA, the fastest kind, is small
        // for a few hundred phrases.
        matcher: AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(patterns)
            .expect("the phrase lists are valid patterns"),
        cues,
    }
});

/// One cue found in a text: what it signals and where (byte range of the lower-cased text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) cue: Cue,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Every cue in `text` (ASCII case ignored) that stands at word boundaries; ranges
/// are byte ranges of `text`.
pub(crate) fn cues(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'\'')
    };
    LEXICON
        .matcher
        .find_overlapping_iter(text)
        .filter(|m| (m.start() == 0 || !word(m.start() - 1)) && !word(m.end()))
        .map(|m| Found {
            cue: LEXICON.cues[m.pattern().as_usize()],
            start: m.start(),
            end: m.end(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_match_whole_words_only() {
        let found = cues("let's use postgres because it's solid; mustard says we must");
        let kinds: Vec<Cue> = found.iter().map(|f| f.cue).collect();
        assert_eq!(
            kinds,
            [
                Cue::Decision,
                Cue::Justification,
                Cue::Memory(MemoryType::Constraint)
            ]
        );
        assert_eq!(
            &"let's use postgres because it's solid; mustard says we must"
                [found[2].start..found[2].end],
            "we must"
        );
        assert!(cues("i'm a fan of jazz")
            .iter()
            .any(|f| f.cue == Cue::Memory(MemoryType::Preference)));
    }
}
