//! Which sentences are memories (memgraph's types, found by rules): statements that
//! say something about the speaker or someone named — a memory cue of the lexicon
//! ("I love", "my sister", "last week"), or what grammar alone tells ("we went",
//! "I'm training") — never a question, and never a guess about the listener ("you
//! must be thrilled").

use std::borrow::Cow;

use crate::ingest::lexicon::{cues, Cue, Found};
use crate::ingest::MemoryType;
use crate::text;

/// Words that stand between a subject and its verb without changing what is said
/// ("I really love", "we even went"): memory cues are looked for without them.
const HEDGES: &[&str] = &[
    "really",
    "just",
    "also",
    "even",
    "still",
    "always",
    "actually",
    "finally",
    "usually",
    "totally",
    "definitely",
    "absolutely",
    "honestly",
    "truly",
    "sometimes",
    "often",
    "mostly",
    "already",
    "all",
];
/// Words by which a speaker speaks of themselves.
const FIRST_PERSON: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "we're",
    "we've",
    "we'd",
    "we'll",
    "us",
    "our",
    "ours",
    "ourselves",
];

/// The memory type sentence `s` states, if it is a memory: a statement (no
/// question) of four words or more with a memory cue and something besides it
/// (the cue's object), about the speaker or someone named (`names`) — a constraint
/// or project may be about the work alone.
///
/// `found` are the cues of `s`, which are looked for again only when hedges were
/// skipped.
pub(crate) fn memory(s: &str, found: &[Found], names: bool) -> Option<MemoryType> {
    if s.trim_end().ends_with('?') || s.split_whitespace().count() < 4 {
        return None;
    }
    let plain = without_hedges(s);
    let again;
    let found = match plain {
        Cow::Borrowed(_) => found,
        Cow::Owned(ref p) => {
            again = cues(p);
            &again
        }
    };
    let cue = found
        .iter()
        .filter_map(|f| match f.cue {
            Cue::Memory(t) => Some((t, f.start..f.end)),
            _ => None,
        })
        .min_by_key(|(t, at)| (*t, at.start));
    // What grammar tells is told by the speaker of themselves; its cue is a verb.
    let (t, of_speaker, something) = match cue {
        Some((t, at)) => {
            let rest = [plain.get(..at.start), plain.get(at.end..)];
            (
                t,
                false,
                rest.into_iter()
                    .flatten()
                    .any(|r| text::terms(r).next().is_some()),
            )
        }
        None => (told(&plain)?, true, text::terms(&plain).nth(1).is_some()),
    };
    // "Yeah, I love it" names nothing.
    if !something {
        return None;
    }
    let personal = || text::word_slices(s).any(|w| FIRST_PERSON.contains(&&*lower(w)));
    (of_speaker || matches!(t, MemoryType::Constraint | MemoryType::Project) || names || personal())
        .then_some(t)
}

/// Verbs whose past is not made with -ed, in the past.
const IRREGULAR_PAST: &[&str] = &[
    "went", "took", "made", "got", "saw", "ran", "met", "bought", "ate", "drew", "wrote", "found",
    "began", "built", "gave", "had", "did", "learnt", "left", "lost", "won", "sang", "swam",
    "taught", "told", "became", "brought", "caught", "chose", "flew", "grew", "heard", "kept",
    "knew", "led", "paid", "rode", "sold", "sent", "spent", "spoke", "stood", "threw", "wore",
    "held", "fell", "forgot", "hung", "drove", "sat", "slept",
];

/// What a speaker tells of themselves in grammar alone: "I/we <verb in the past>",
/// or a sentence that starts with one (an event), "I'm/we're <verb>-ing"
/// (something under way: a project).
fn told(plain: &str) -> Option<MemoryType> {
    let mut words = text::word_slices(plain).map(lower);
    let first = words.next()?;
    // Chat drops the subject: "Had a wild week", "Been reading a lot" (but "Got
    // it", "Got your back" are said to the listener).
    if first == "been" || (first != "got" && IRREGULAR_PAST.contains(&&*first)) {
        return Some(MemoryType::Event);
    }
    let mut subject = first;
    for verb in words {
        // Most words are no subject: the verb after one is looked at only then.
        let told = match &*subject {
            "i" | "we" | "i've" | "we've" => {
                let past =
                    (verb.len() > 4 && verb.ends_with("ed")) || IRREGULAR_PAST.contains(&&*verb);
                past.then_some(MemoryType::Event)
            }
            "i'm" | "we're" => {
                let under_way = verb.len() > 5 && verb.ends_with("ing") && verb != "going";
                under_way.then_some(MemoryType::Project)
            }
            _ => None,
        };
        if told.is_some() {
            return told;
        }
        subject = verb;
    }
    None
}

/// A word in lower case with a typographic apostrophe made plain, copied only when
/// that changes it: every sentence's words pass here.
fn lower(w: &str) -> Cow<'_, str> {
    if w.bytes().any(|b| b.is_ascii_uppercase() || b == 0xE2) {
        Cow::Owned(w.replace('’', "'").to_ascii_lowercase())
    } else {
        Cow::Borrowed(w)
    }
}

/// `s` without the [`HEDGES`] (words joined by single spaces when any is dropped).
fn without_hedges(s: &str) -> Cow<'_, str> {
    let hedge = |w: &str| HEDGES.iter().any(|h| h.eq_ignore_ascii_case(w));
    if !s.split_whitespace().any(hedge) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.split_whitespace()
            .filter(|w| !hedge(w))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_is_a_statement_about_someone() {
        let kind = |s: &str| memory(s, &cues(s), false);
        assert_eq!(
            kind("I love hiking in the mountains."),
            Some(MemoryType::Preference)
        );
        assert_eq!(
            kind("I really love hiking in the mountains."),
            Some(MemoryType::Preference)
        );
        assert_eq!(
            kind("Do you love hiking in the mountains?"),
            None,
            "a question"
        );
        assert_eq!(
            kind("Wow, you must be so excited!"),
            None,
            "said of the listener"
        );
        assert_eq!(kind("Can't wait to see your art!"), None);
        assert_eq!(
            kind("I have to finish the report first."),
            Some(MemoryType::Constraint)
        );
        assert_eq!(
            kind("The deadline is Friday for the launch."),
            Some(MemoryType::Constraint)
        );
        assert_eq!(
            kind("Enjoy the show tomorrow, it will be fun."),
            None,
            "no one it is about"
        );
        assert_eq!(
            memory(
                "Anna visited the museum yesterday.",
                &cues("Anna visited the museum yesterday."),
                true
            ),
            Some(MemoryType::Event)
        );
        assert_eq!(kind("Yes."), None, "too short");
        assert_eq!(kind("Yeah, I love it."), None, "names nothing it loves");
        assert_eq!(
            kind("And so we explored, and so on."),
            None,
            "nothing but the verb"
        );
    }

    #[test]
    fn grammar_tells_what_the_lexicon_does_not() {
        let kind = |s: &str| memory(s, &cues(s), false);
        assert_eq!(
            kind("We even explored the coast last summer."),
            Some(MemoryType::Event)
        );
        assert_eq!(
            kind("We explored the coast and hit some parks."),
            Some(MemoryType::Event)
        );
        assert_eq!(
            kind("Last year I drew a portrait of my aunt."),
            Some(MemoryType::Relationship),
            "a cue wins"
        );
        assert_eq!(
            kind("I'm prepping for the dance studio opening."),
            Some(MemoryType::Project)
        );
        assert_eq!(
            kind("I'm going to the store later today."),
            None,
            "a plan, not a project"
        );
        assert_eq!(kind("That was red and bed and shed."), None);
        assert_eq!(
            told("i've finished the first draft"),
            Some(MemoryType::Event)
        );
        assert_eq!(told("they explored the coast"), None, "not the speaker");
        assert_eq!(
            kind("Had a wild week at work."),
            Some(MemoryType::Event),
            "no subject"
        );
        assert_eq!(
            kind("Been reading that book you recommended."),
            Some(MemoryType::Event)
        );
        assert_eq!(
            kind("We love going for hikes together."),
            Some(MemoryType::Preference)
        );
        assert_eq!(
            kind("Family is so important to me."),
            Some(MemoryType::Preference)
        );
        assert_eq!(kind("Thanks, that sounds like a plan."), None);
        assert_eq!(
            kind("Got your back, dance is awesome."),
            None,
            "said to the listener"
        );
    }

    #[test]
    fn hedges_are_skipped_only_where_there_are_some() {
        assert!(matches!(without_hedges("I love it"), Cow::Borrowed(_)));
        assert_eq!(without_hedges("I really   just love it"), "I love it");
    }
}
