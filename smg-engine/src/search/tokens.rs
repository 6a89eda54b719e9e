//! How a context's budget is counted: characters / 4 of the text, line breaks
//! included (the default, close to BPE tokenizers on English prose), or a real
//! tokenizer's count (`smg context --tokenizer cl100k`).

use std::sync::Arc;

/// A text's token count, from a real tokenizer.
pub type Count = dyn Fn(&str) -> usize + Send + Sync;

/// How tokens are counted.
///
/// ```
/// use smg_engine::search::Tokens;
/// let words = Tokens::counted("words", |t: &str| t.split_whitespace().count());
/// assert_eq!(words.count("three small words"), 3);
/// assert_eq!(Tokens::Chars.count("eight ch"), 2);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Tokens {
    /// Characters / 4, rounded up.
    #[default]
    Chars,
    /// A tokenizer's count, under its name.
    Counted(String, Arc<Count>),
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Tokens {
    /// Count with `count`, a tokenizer called `name`.
    pub fn counted(name: &str, count: impl Fn(&str) -> usize + Send + Sync + 'static) -> Self {
        Tokens::Counted(name.to_string(), Arc::new(count))
    }

    /// `chars`, or the tokenizer's name.
    pub fn name(&self) -> &str {
        match self {
            Tokens::Chars => "chars",
            Tokens::Counted(name, _) => name,
        }
    }

    /// The tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        match self {
            Tokens::Chars => text.chars().count().div_ceil(4),
            Tokens::Counted(_, count) => count(text),
        }
    }

    /// What `line` and its line break cost, in the units a budget is kept in:
    /// characters for [`Tokens::Chars`] (so that rounding happens once, on the whole
    /// text), tokens otherwise. A BPE's pieces end at a line break, so lines add up,
    /// but the break is counted with its line: after punctuation it is often part of
    /// the same token (`.\n`).
    pub(crate) fn line(&self, line: &str) -> usize {
        match self {
            Tokens::Chars => line.chars().count() + 1,
            Tokens::Counted(_, count) => count(&format!("{line}\n")),
        }
    }

    /// A line of `chars` characters, in units, when only its length is known.
    pub(crate) fn chars_line(&self, chars: usize) -> Option<usize> {
        matches!(self, Tokens::Chars).then_some(chars + 1)
    }

    /// The whole tokens `units` hold.
    pub(crate) fn whole_tokens(&self, units: usize) -> usize {
        match self {
            Tokens::Chars => units / 4,
            Tokens::Counted(..) => units,
        }
    }

    /// `budget` tokens in units.
    pub(crate) fn room(&self, budget: usize) -> usize {
        match self {
            Tokens::Chars => budget.saturating_mul(4),
            Tokens::Counted(..) => budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_add_up_to_the_budget_in_either_unit() {
        let chars = Tokens::Chars;
        assert_eq!(chars.line("abc"), 4);
        assert_eq!(chars.chars_line(3), Some(4));
        assert_eq!(chars.room(10), 40);
        assert_eq!(chars.whole_tokens(39), 9);
        // Words and line breaks as tokens.
        let words = Tokens::counted("words", |t: &str| {
            t.split_whitespace().count() + t.matches('\n').count()
        });
        assert_eq!(words.line("two words"), 3);
        assert_eq!(words.chars_line(9), None);
        assert_eq!(words.room(10), 10);
        assert_eq!(words.whole_tokens(10), 10);
        assert_eq!(format!("{words:?}"), "words");
    }
}
