//! Packing the best turns for a query into a token budget, with reference cards for
//! what does not fit. The turns are shown by session and day, in time order, each
//! group under a line that dates it, so that a model can tell when each was said.

use std::collections::HashMap;

use super::time::NONE;
use super::{display, Column64, Hit, Period, QueryVector, Retriever};
use crate::error::Result;

/// What a context holds, in the order it shows them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ContextPack {
    /// The turns put in whole, best first.
    pub items: Vec<Hit>,
    /// One-line reference cards for relevant segments that did not fit (M3S §2.3).
    pub cards: Vec<String>,
    /// The prompt-ready text.
    pub text: String,
    /// Its size in tokens (as [`Retriever::set_tokens`] counts them).
    pub tokens: usize,
}

/// A day in milliseconds: turns of one session on one day share a date line.
const DAY: i64 = 86_400_000;

/// The line that dates a group of turns: `[Mon 2023-05-08 13:56]` (UTC), or
/// `[no date]` for turns without a time.
fn date_line(when: i64) -> String {
    match chrono::DateTime::from_timestamp_millis(when).filter(|_| when != NONE) {
        Some(t) => t.format("[%a %Y-%m-%d %H:%M]").to_string(),
        None => "[no date]".into(),
    }
}

/// Most reference cards in one context.
const MAX_CARDS: usize = 5;
/// Turns passed over for want of room before packing stops looking.
const LEFT_OUT: usize = 200;

impl Retriever {
    /// Fill `budget` tokens with the best turns for `query`, taken in rank order, each
    /// one whole; a turn that does not fit is passed over for the next. The text shows
    /// them by session and day in time order, each group under its date line
    /// (`[Mon 2023-05-08 13:56]`, UTC; `[no date]` for turns without a time); `items`
    /// keeps rank order. The rest of the relevant segments are named by reference
    /// cards while room is left. `vector`, the query's embedding, ranks as in
    /// [`Retriever::rank`]; only turns whose time falls in `period` are taken.
    pub fn context(
        &self,
        query: &str,
        vector: Option<&QueryVector>,
        budget: usize,
        period: &Period,
    ) -> Result<ContextPack> {
        // Every turn costs at least one character, so no more than 4 × budget turns
        // fit, and packing gives up after LEFT_OUT more: only those need ranking.
        let needed = budget.saturating_mul(4).saturating_add(LEFT_OUT + 1);
        let ranked = self
            .scored(query, vector, period)?
            .map_or_else(Vec::new, |s| s.top(needed));
        self.pack(&ranked, budget)
    }

    /// Fill `budget` tokens from a ranking [`Retriever::rank`] gave, as
    /// [`Retriever::context`] does: one ranking serves several budgets.
    pub fn pack(&self, ranked: &[(usize, f64)], budget: usize) -> Result<ContextPack> {
        let mut pack = ContextPack {
            items: Vec::new(),
            cards: Vec::new(),
            text: String::new(),
            tokens: 0,
        };
        // Kept in the counter's units (characters for characters / 4, so that the
        // whole text is rounded once), newlines included.
        let tokens = &self.tokens;
        let room = tokens.room(budget);
        let mut used = 0;
        let fits = |used: usize, more: usize| used + more <= room;
        let when = |i: usize| self.when(i);
        let group = |i: usize| {
            let day = match when(i) {
                NONE => NONE,
                t => t.div_euclid(DAY),
            };
            (self.session(i), day)
        };
        // Each group's earliest chosen instant: what its date line shows.
        let mut groups: HashMap<(Option<u64>, i64), i64> = HashMap::new();
        let mut left_out: Vec<usize> = Vec::new();
        // What a turn costs (its line, and its group's date line if it opens one) is
        // known without reading it when tokens are characters / 4, so the turns that
        // fit are known before any is read: they are read together. A tokenizer
        // reads each candidate's text to count it.
        let mut chosen: Vec<(usize, f64)> = Vec::new();
        for &(i, score) in ranked {
            let g = group(i);
            let opens = if groups.contains_key(&g) {
                0
            } else {
                tokens.line(&date_line(when(i)))
            };
            let chars = self
                .value(Column64::Chars, i)
                .and_then(|c| usize::try_from(c).ok());
            let line = match chars.and_then(|c| tokens.chars_line(c)) {
                Some(units) => units,
                None => tokens.line(&display(&*self.turns.get(i)?)),
            };
            let cost = line + opens;
            if !fits(used, cost) {
                left_out.push(i);
                if left_out.len() > LEFT_OUT {
                    break;
                }
                continue;
            }
            used += cost;
            let first = groups.entry(g).or_insert(when(i));
            *first = (*first).min(when(i));
            chosen.push((i, score));
        }
        let positions: Vec<usize> = chosen.iter().map(|c| c.0).collect();
        let turns = self.turns.get_many(&positions)?;
        let mut shown: Vec<(usize, String)> = Vec::with_capacity(turns.len());
        // Segment ids by node number: many turns share one, read once.
        let mut ids: HashMap<u32, String> = HashMap::new();
        let mut id_of = |s: u32| -> Result<String> {
            if let Some(id) = ids.get(&s) {
                return Ok(id.clone());
            }
            let id = self.node_id(s)?;
            ids.insert(s, id.clone());
            Ok(id)
        };
        let mut named: Vec<u32> = Vec::new();
        for ((i, score), turn) in chosen.into_iter().zip(turns) {
            let turn = turn.into_owned();
            shown.push((i, display(&turn)));
            let segment = self.segment_number(i);
            named.extend(segment);
            pack.items.push(Hit {
                turn,
                score,
                segment: segment.map(&mut id_of).transpose()?,
            });
        }
        // Groups in time order, each turn in its group in the order it was said.
        shown.sort_by_key(|(i, _)| {
            let g = group(*i);
            (groups[&g], g, *i)
        });
        let mut open = None;
        for (i, line) in shown {
            let g = group(i);
            if open != Some(g) {
                pack.text.push_str(&date_line(groups[&g]));
                pack.text.push('\n');
                open = Some(g);
            }
            pack.text.push_str(&line);
            pack.text.push('\n');
        }
        for i in left_out {
            let Some(s) = self.segment_number(i) else {
                continue;
            };
            if named.contains(&s) || pack.cards.len() >= MAX_CARDS {
                continue;
            }
            let seg = id_of(s)?;
            let t = self.turns.get(i)?;
            let when = t
                .timestamp
                .as_deref()
                .map(|s| &s[..s.len().min(10)])
                .unwrap_or("");
            let card = format!(
                "[{seg} {when}] {} (expand {seg})",
                crate::text::clip(&display(&t), 60)
            );
            let cost = tokens.line(&card);
            if !fits(used, cost) {
                break;
            }
            used += cost;
            pack.text.push_str(&card);
            pack.text.push('\n');
            pack.cards.push(card);
            named.push(s);
        }
        pack.tokens = tokens.count(&pack.text);
        Ok(pack)
    }
}

#[cfg(test)]
mod tests {
    use smg_format::Limits;

    use super::*;
    use crate::search::Tokens;

    /// Two sessions a week apart (the later one first in the file) and a turn
    /// without a time.
    fn memory() -> Retriever {
        let lines = [
            (
                "s2",
                "2023-05-15T09:30:00Z",
                "Bob",
                "The hiking boots from the Rocky Mountains trip broke.",
            ),
            (
                "s2",
                "2023-05-15T09:31:00Z",
                "Ann",
                "Buy new hiking boots before the next trip.",
            ),
            (
                "s1",
                "2023-05-08T13:56:00Z",
                "Ann",
                "I went hiking in the Rocky Mountains yesterday.",
            ),
            (
                "s1",
                "2023-05-08T13:57:00Z",
                "Bob",
                "Hiking in the mountains sounds great.",
            ),
            ("s3", "", "Ann", "Hiking notes without a date."),
        ];
        let jsonl: String = lines
            .iter()
            .enumerate()
            .map(|(i, (session, time, who, text))| {
                let mut v = serde_json::json!({"conversation_id": "c", "message_id": i.to_string(),
                    "speaker": who, "content": text, "session_id": session});
                if !time.is_empty() {
                    v["timestamp"] = serde_json::json!(time);
                }
                format!("{v}\n")
            })
            .collect();
        Retriever::new(&super::super::tests::ingested(jsonl), &Limits::default()).unwrap()
    }

    #[test]
    fn turns_show_by_session_and_day_under_their_date_lines() {
        let r = memory();
        let pack = r.context("hiking", None, 1000, &Period::ALL).unwrap();
        assert_eq!(pack.items.len(), 5, "{}", pack.text);
        let lines: Vec<&str> = pack.text.lines().collect();
        assert_eq!(
            lines,
            [
                "[no date]",
                "Ann: Hiking notes without a date.",
                "[Mon 2023-05-08 13:56]",
                "Ann: I went hiking in the Rocky Mountains yesterday.",
                "Bob: Hiking in the mountains sounds great.",
                "[Mon 2023-05-15 09:30]",
                "Bob: The hiking boots from the Rocky Mountains trip broke.",
                "Ann: Buy new hiking boots before the next trip.",
            ]
        );
        assert_eq!(pack.tokens, pack.text.chars().count().div_ceil(4));
    }

    #[test]
    fn a_date_line_is_paid_for_within_the_budget() {
        let r = memory();
        for budget in 1..60 {
            let pack = r.context("hiking", None, budget, &Period::ALL).unwrap();
            assert!(pack.tokens <= budget, "{budget}: {}", pack.text);
            assert_eq!(pack.tokens, pack.text.chars().count().div_ceil(4));
            let dated = pack.text.lines().filter(|l| l.starts_with('[')).count();
            let groups: std::collections::HashSet<_> = pack
                .items
                .iter()
                .map(|h| {
                    (
                        h.turn.session_id.clone(),
                        h.turn.timestamp.as_ref().map(|t| t[..10].to_string()),
                    )
                })
                .collect();
            assert_eq!(
                dated,
                groups.len() + pack.cards.len(),
                "{budget}: {}",
                pack.text
            );
        }
    }

    #[test]
    fn a_tokenizer_counts_the_budget_its_own_way() {
        let mut r = memory();
        // Words and line breaks as tokens.
        let words = |t: &str| t.split_whitespace().count() + t.matches('\n').count();
        r.set_tokens(Tokens::counted("words", words));
        for budget in 1..50 {
            let pack = r.context("hiking", None, budget, &Period::ALL).unwrap();
            assert!(words(&pack.text) <= budget, "{budget}: {}", pack.text);
            assert_eq!(pack.tokens, words(&pack.text));
        }
        let all = r.context("hiking", None, 1000, &Period::ALL).unwrap();
        assert_eq!(all.items.len(), 5);
        // "[no date]" (2) and its turn (6) with their line breaks: 10.
        let first = r
            .context("notes without a date", None, 10, &Period::ALL)
            .unwrap();
        assert_eq!(first.text, "[no date]\nAnn: Hiking notes without a date.\n");
    }
}
