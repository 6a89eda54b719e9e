//! The M3S segment type of a turn (§2.2), from markers found in one pass.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// The M3S segment types (§2.2), in the order they are tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    Code,
    ShortExchange,
    Docs,
    Design,
    LlmOutput,
    Explanation,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Code => "code",
            Kind::ShortExchange => "short_exchange",
            Kind::Docs => "docs",
            Kind::Design => "design",
            Kind::LlmOutput => "llm_output",
            Kind::Explanation => "explanation",
        }
    }
}

/// M3S §2.2: code, short exchange, docs, design, LLM output, explanation, tested in
/// that order. `words` counts the words of the prose (the text less fenced code).
pub(crate) fn classify(content: &str, words: usize) -> Kind {
    let found = Markers::of(content);
    let code_cues = found.count(CODE);
    if found.any(FENCES) || (code_cues >= 2 && content.lines().count() >= 3) {
        return Kind::Code;
    }
    // No fence from here on: the prose is the whole content, and what was found in
    // the content was found in the prose.
    if words < 20 {
        return Kind::ShortExchange;
    }
    if words > 100 && found.count(DOCS) >= 1 {
        return Kind::Docs;
    }
    if found.count(DESIGN) >= 2 {
        return Kind::Design;
    }
    if words > 100 && found.any(STRUCTURE) {
        return Kind::LlmOutput;
    }
    Kind::Explanation
}

/// Everything a turn is classified by. The documentation and design words are found
/// in any case, the rest as written.
const PATTERNS: [&str; 20] = [
    // Documentation words.
    "documentation",
    "spec",
    " api",
    "requirements",
    "reference",
    // Design words.
    "architecture",
    "component",
    "system",
    "flow",
    "design",
    "module",
    // Code cues.
    "def ",
    "class ",
    "function",
    "import ",
    // Fences.
    "```",
    "~~~",
    // Structure of generated text.
    "\n1. ",
    "**",
    "###",
];

type Group = std::ops::Range<usize>;
const DOCS: Group = 0..5;
const DESIGN: Group = 5..11;
const CODE: Group = 11..15;
const FENCES: Group = 15..17;
const STRUCTURE: Group = 17..20;

/// The first pattern matched as written, not in any case.
const EXACT: usize = CODE.start;

/// Which of [`PATTERNS`] a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Markers(u32);

impl Markers {
    /// One scan of `text` where a search per pattern took ten.
    fn of(text: &str) -> Markers {
        static MATCHER: LazyLock<AhoCorasick> = LazyLock::new(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::DFA))
                .build(PATTERNS)
                .expect("the markers are valid patterns")
        });
        let mut found = 0u32;
        for m in MATCHER.find_overlapping_iter(text) {
            let i = m.pattern().as_usize();
            if i < EXACT || &text.as_bytes()[m.range()] == PATTERNS[i].as_bytes() {
                found |= 1 << i;
            }
        }
        Markers(found)
    }

    fn count(self, group: Group) -> usize {
        group.filter(|i| self.0 & (1 << i) != 0).count()
    }

    fn any(self, group: Group) -> bool {
        self.count(group) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one search per pattern finds.
    fn searched(text: &str) -> Markers {
        let lower = text.to_ascii_lowercase();
        let found = PATTERNS.iter().enumerate().filter(|(i, p)| {
            if *i < EXACT {
                lower.contains(**p)
            } else {
                text.contains(**p)
            }
        });
        Markers(found.map(|(i, _)| 1 << i).sum())
    }

    #[test]
    fn words_are_found_in_any_case_and_overlapping_code_as_written() {
        let m = Markers::of("The Systems DESIGN spec, see the API");
        assert_eq!((m.count(DOCS), m.count(DESIGN)), (2, 2));
        // "specification" holds "spec"; "modules" holds "module"; "rapid" is no " api".
        let m = Markers::of("specification of modules, rapid flow");
        assert_eq!((m.count(DOCS), m.count(DESIGN)), (1, 2));
        assert_eq!(Markers::of("nothing here"), Markers(0));
        assert_eq!(Markers::of("DEF x CLASS y ``"), Markers(0));
        assert_eq!(Markers::of("def x class y").count(CODE), 2);
    }

    #[test]
    fn segment_types() {
        let code = "import os\nimport sys\ndef main():\n    pass";
        assert_eq!(classify(code, 6), Kind::Code);
        assert_eq!(classify("see\n```\nx\n```", 1), Kind::Code);
        assert_eq!(classify("short one", 2), Kind::ShortExchange);
        let design = "The architecture has one component per system";
        assert_eq!(classify(design, 30), Kind::Design);
        assert_eq!(classify("the spec says", 101), Kind::Docs);
        assert_eq!(classify("the spec says", 30), Kind::Explanation);
        assert_eq!(classify("Steps:\n1. go\n**bold**", 101), Kind::LlmOutput);
        assert_eq!(classify("Steps:\n1. go\n**bold**", 99), Kind::Explanation);
    }

    proptest::proptest! {
        #[test]
        fn one_scan_finds_what_a_search_per_pattern_finds(
            text in "((DEF |def |Class |class |func|tion|import |```|~~|~|\n1\\. |\\*|###|Spec|API| api|flow|Design|module|system|é|x| |\n)){0,30}"
        ) {
            proptest::prop_assert_eq!(Markers::of(&text), searched(&text));
        }
    }
}
