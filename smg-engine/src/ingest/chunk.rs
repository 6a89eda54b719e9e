//! Semantic chunks (M3S §5.2): turns of one conversation grouped so that a question
//! stays with its answer, a topic shift or a new session starts a new chunk, and no
//! chunk passes 500 tokens unless one turn alone does.

use std::ops::Range;

use crate::fast::FastMap;

use super::analyze::Terms;

/// Most tokens in a chunk (characters / 4).
pub(crate) const MAX_TOKENS: usize = 500;

/// What the chunker needs to know of a turn.
pub(crate) struct ChunkTurn<'a> {
    pub(crate) session: Option<&'a str>,
    /// A chunk holds one scope: a segment of restricted talk is sealed whole.
    pub(crate) scope: Option<smg_format::model::Scope>,
    pub(crate) tokens: usize,
    pub(crate) terms: &'a Terms,
    pub(crate) question: bool,
}

/// A chunk: its turns and how many of them have each content word.
pub(crate) struct Chunk<'a> {
    /// Indexes into the turns chunked.
    pub(crate) turns: Range<usize>,
    pub(crate) words: FastMap<&'a str, usize>,
}

/// Chunks of `turns`, in order, each handed to `made` as soon as it ends: a chunk's
/// word counts are freed one at a time (a long conversation has tens of thousands).
pub(crate) fn chunk<'a, T>(
    turns: &[ChunkTurn<'a>],
    mut made: impl FnMut(Chunk<'a>) -> T,
) -> Vec<T> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut tokens = 0;
    // The chunk's words so far, counted: the chunk's keywords when it ends.
    let mut topic: FastMap<&str, usize> = FastMap::default();
    for (i, t) in turns.iter().enumerate() {
        if i > start {
            let prev = &turns[i - 1];
            let answer = prev.question;
            let new_session = t.session != prev.session || t.scope != prev.scope;
            let full = tokens + t.tokens > MAX_TOKENS;
            let shift = !answer && i - start >= 2 && shifted(&topic, t.terms);
            if new_session || (full && !(answer && tokens + t.tokens <= 2 * MAX_TOKENS)) || shift {
                // The next chunk's words are about as many: room for them is made
                // once, not by growing the map again and again.
                let room = FastMap::with_capacity_and_hasher(topic.len(), Default::default());
                out.push(made(Chunk {
                    turns: start..i,
                    words: std::mem::replace(&mut topic, room),
                }));
                start = i;
                tokens = 0;
            }
        }
        tokens += t.tokens;
        for w in t.terms.iter() {
            *topic.entry(w).or_default() += 1;
        }
    }
    if start < turns.len() {
        out.push(made(Chunk {
            turns: start..turns.len(),
            words: topic,
        }));
    }
    out
}

/// A turn of five or more content words that shares almost none with the chunk so far.
fn shifted(topic: &FastMap<&str, usize>, terms: &Terms) -> bool {
    if terms.len() < 5 || topic.len() < 5 {
        return false;
    }
    let shared = terms.iter().filter(|t| topic.contains_key(t)).count();
    (shared as f64) / (terms.len() as f64) < 0.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<'a>(session: &'a str, tokens: usize, terms: &'a Terms, question: bool) -> ChunkTurn<'a> {
        ChunkTurn {
            session: Some(session),
            scope: None,
            tokens,
            terms,
            question,
        }
    }

    fn ranges(turns: &[ChunkTurn<'_>]) -> Vec<Range<usize>> {
        chunk(turns, |c| c.turns)
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
        assert_eq!(ranges(&turns), vec![0..2, 2..4, 4..5]);
        let shift = [
            t("s", 10, &a, false),
            t("s", 10, &a, false),
            t("s", 10, &b, false),
        ];
        assert_eq!(ranges(&shift), vec![0..2, 2..3]);
        let answer = [
            t("s", 10, &a, false),
            t("s", 10, &a, true),
            t("s", 10, &b, false),
        ];
        assert_eq!(ranges(&answer), vec![0..3]);
        let mut scoped = answer;
        scoped[2].scope = Some(smg_format::model::Scope::Restricted);
        assert_eq!(
            ranges(&scoped),
            vec![0..2, 2..3],
            "an answer of another scope"
        );
        let words = &chunk(&shift, |c| c)[0].words;
        assert_eq!((words.len(), words.get("rust")), (5, Some(&2)));
    }
}
