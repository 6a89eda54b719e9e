//! Semantic chunks (M3S §5.2): turns of one conversation grouped so that a question
//! stays with its answer, a topic shift or a new session starts a new chunk, and no
//! chunk passes 500 tokens unless one turn alone does.

use crate::fast::FastSet;

use super::analyze::Terms;

/// Most tokens in a chunk (characters / 4).
pub(crate) const MAX_TOKENS: usize = 500;

/// What the chunker needs to know of a turn.
pub(crate) struct ChunkTurn<'a> {
    pub(crate) session: Option<&'a str>,
    pub(crate) tokens: usize,
    pub(crate) terms: &'a Terms,
    pub(crate) question: bool,
}

/// Chunks of `turns` (indexes into it, in order).
pub(crate) fn chunk(turns: &[ChunkTurn<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut tokens = 0;
    let mut topic: FastSet<&str> = FastSet::default();
    for (i, t) in turns.iter().enumerate() {
        if i > start {
            let prev = &turns[i - 1];
            let answer = prev.question;
            let new_session = t.session != prev.session;
            let full = tokens + t.tokens > MAX_TOKENS;
            let shift = !answer && i - start >= 2 && shifted(&topic, t.terms);
            if new_session || (full && !(answer && tokens + t.tokens <= 2 * MAX_TOKENS)) || shift {
                out.push(start..i);
                start = i;
                tokens = 0;
                topic.clear();
            }
        }
        tokens += t.tokens;
        topic.extend(t.terms.iter());
    }
    if start < turns.len() {
        out.push(start..turns.len());
    }
    out
}

/// A turn of five or more content words that shares almost none with the chunk so far.
fn shifted(topic: &FastSet<&str>, terms: &Terms) -> bool {
    if terms.len() < 5 || topic.len() < 5 {
        return false;
    }
    let shared = terms.iter().filter(|t| topic.contains(t)).count();
    (shared as f64) / (terms.len() as f64) < 0.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<'a>(session: &'a str, tokens: usize, terms: &'a Terms, question: bool) -> ChunkTurn<'a> {
        ChunkTurn {
            session: Some(session),
            tokens,
            terms,
            question,
        }
    }

    #[test]
    fn sessions_budgets_and_topic_shifts_break_chunks() {
        let a = Terms::new(&["borrow", "checker", "lifetimes", "rust", "traits"]);
        let b = Terms::new(&["compost", "garden", "soil", "tomatoes", "watering"]);
        let turns = [
            t("s1", 100, &a, true),
            t("s1", 450, &a, false),
            t("s1", 100, &a, false),
            t("s1", 50, &b, false),
            t("s2", 10, &b, false),
        ];
        assert_eq!(chunk(&turns), vec![0..2, 2..4, 4..5]);
        let shift = [
            t("s", 10, &a, false),
            t("s", 10, &a, false),
            t("s", 10, &b, false),
        ];
        assert_eq!(chunk(&shift), vec![0..2, 2..3]);
        let answer = [
            t("s", 10, &a, false),
            t("s", 10, &a, true),
            t("s", 10, &b, false),
        ];
        assert_eq!(chunk(&answer), vec![0..3]);
    }
}
