//! Packing the best turns for a query into a token budget, with reference cards for
//! what does not fit. The turns are shown by session and day, in time order, each
//! group under a line that dates it, so that a model can tell when each was said.

use std::collections::HashMap;

use smg_format::model::Turn;

use super::file_ref::FileRef;
use super::time::NONE;
use super::{display, Column64, Hit, Period, QueryVector, Retriever, Tokens};
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

/// The best turns a context of `budget` tokens can use: every turn costs at least one
/// character, so no more than 4 × budget turns fit, and packing gives up after
/// `LEFT_OUT` more.
pub(super) fn needed(budget: usize) -> usize {
    budget.saturating_mul(4).saturating_add(LEFT_OUT + 1)
}

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
        let ranked = self
            .scored(query, vector, period)?
            .map_or_else(Vec::new, |s| s.top(needed(budget)));
        self.pack(&ranked, budget)
    }

    /// Fill `budget` tokens from a ranking [`Retriever::rank`] gave, as
    /// [`Retriever::context`] does: one ranking serves several budgets.
    pub fn pack(&self, ranked: &[(usize, f64)], budget: usize) -> Result<ContextPack> {
        let ranked: Vec<(usize, usize, f64)> = ranked.iter().map(|&(i, s)| (0, i, s)).collect();
        pack(&[(self, None)], &ranked, budget, &self.tokens)
    }
}

/// Fill `budget` tokens (counted by `tokens`) with turns of `members` ranked by
/// `ranked` (member, position, score), best first, each one whole; a turn that does
/// not fit is passed over for the next. Each member's turns are grouped by its
/// sessions and days; with more than one member each date line names the group's
/// file, and each hit carries it.
pub(crate) fn pack(
    members: &[(&Retriever, Option<&FileRef>)],
    ranked: &[(usize, usize, f64)],
    budget: usize,
    tokens: &Tokens,
) -> Result<ContextPack> {
    let mut pack = ContextPack {
        items: Vec::new(),
        cards: Vec::new(),
        text: String::new(),
        tokens: 0,
    };
    // Kept in the counter's units (characters for characters / 4, so that the
    // whole text is rounded once), newlines included.
    let room = tokens.room(budget);
    let mut used = 0;
    let fits = |used: usize, more: usize| used + more <= room;
    let named_file = members.len() > 1;
    let when = |m: usize, i: usize| members[m].0.when(i);
    let group = |m: usize, i: usize| {
        let day = match when(m, i) {
            NONE => NONE,
            t => t.div_euclid(DAY),
        };
        (m, members[m].0.session(i), day)
    };
    let date = |m: usize, at: i64| {
        let file = members[m].1.filter(|_| named_file);
        match file {
            Some(f) => format!("{} · {}", date_line(at), f.label()),
            None => date_line(at),
        }
    };
    // Each group's earliest chosen instant: what its date line shows.
    let mut groups: HashMap<(usize, Option<u64>, i64), i64> = HashMap::new();
    let mut left_out: Vec<(usize, usize)> = Vec::new();
    // What a turn costs (its line, and its group's date line if it opens one) is
    // known without reading it when tokens are characters / 4, so the turns that
    // fit are known before any is read: they are read together. A tokenizer
    // reads each candidate's text to count it.
    let mut chosen: Vec<(usize, usize, f64)> = Vec::new();
    for &(m, i, score) in ranked {
        let r = members[m].0;
        let g = group(m, i);
        let opens = if groups.contains_key(&g) {
            0
        } else {
            tokens.line(&date(m, when(m, i)))
        };
        let chars = r
            .value(Column64::Chars, i)
            .and_then(|c| usize::try_from(c).ok());
        let line = match chars.and_then(|c| tokens.chars_line(c)) {
            Some(units) => units,
            None => tokens.line(&display(&*r.turns.get(i)?)),
        };
        let cost = line + opens;
        if !fits(used, cost) {
            left_out.push((m, i));
            if left_out.len() > LEFT_OUT {
                break;
            }
            continue;
        }
        used += cost;
        let first = groups.entry(g).or_insert(when(m, i));
        *first = (*first).min(when(m, i));
        chosen.push((m, i, score));
    }
    let read = read_chosen(members, &chosen)?;
    let mut shown: Vec<(usize, usize, String)> = Vec::with_capacity(read.len());
    let mut named: Vec<(usize, u32)> = Vec::new();
    for ((m, i, score), turn) in chosen.into_iter().zip(read) {
        let r = members[m].0;
        shown.push((m, i, display(&turn)));
        let segment = r.segment_number(i);
        named.extend(segment.map(|s| (m, s)));
        let mut hit = Hit::new(turn, score, segment.map(|s| r.node_id(s)).transpose()?);
        hit.file = members[m].1.filter(|_| named_file).cloned();
        pack.items.push(hit);
    }
    // Groups in time order, each turn in its group in the order it was said.
    shown.sort_by_key(|&(m, i, _)| {
        let g = group(m, i);
        (groups[&g], g, i)
    });
    let mut open = None;
    for (m, i, line) in shown {
        let g = group(m, i);
        if open != Some(g) {
            pack.text.push_str(&date(m, groups[&g]));
            pack.text.push('\n');
            open = Some(g);
        }
        pack.text.push_str(&line);
        pack.text.push('\n');
    }
    for (m, i) in left_out {
        let r = members[m].0;
        let Some(s) = r.segment_number(i) else {
            continue;
        };
        if named.contains(&(m, s)) || pack.cards.len() >= MAX_CARDS {
            continue;
        }
        let card = card(r, i, s, members[m].1.filter(|_| named_file))?;
        let cost = tokens.line(&card);
        if !fits(used, cost) {
            break;
        }
        used += cost;
        pack.text.push_str(&card);
        pack.text.push('\n');
        pack.cards.push(card);
        named.push((m, s));
    }
    pack.tokens = tokens.count(&pack.text);
    Ok(pack)
}

/// The turns `chosen` names, read a member at a time (each member's together), in
/// the order of `chosen`.
fn read_chosen(
    members: &[(&Retriever, Option<&FileRef>)],
    chosen: &[(usize, usize, f64)],
) -> Result<Vec<Turn>> {
    let mut out: Vec<Option<Turn>> = vec![None; chosen.len()];
    for (m, (r, _)) in members.iter().enumerate() {
        let at: Vec<usize> = (0..chosen.len()).filter(|&k| chosen[k].0 == m).collect();
        let positions: Vec<usize> = at.iter().map(|&k| chosen[k].1).collect();
        for (k, turn) in at.into_iter().zip(r.turns.get_many(&positions)?) {
            out[k] = Some(turn.into_owned());
        }
    }
    out.into_iter()
        .zip(chosen)
        .map(|(t, c)| t.ok_or_else(|| super::frames::damaged(format!("turn {} was not read", c.1))))
        .collect()
}

/// The reference card of segment `s`, by its turn `i` (of `file`, when named).
fn card(r: &Retriever, i: usize, s: u32, file: Option<&FileRef>) -> Result<String> {
    let seg = r.node_id(s)?;
    let t = r.turns.get(i)?;
    let when = t
        .timestamp
        .as_deref()
        .map(|s| &s[..s.len().min(10)])
        .unwrap_or("");
    let of = file
        .map(|f| format!(" · {}", f.label()))
        .unwrap_or_default();
    let link = file
        .and_then(|f| f.name.as_deref())
        .map(|n| format!(" --link {n}"))
        .unwrap_or_default();
    Ok(format!(
        "[{seg} {when}{of}] {} (expand {seg}{link})",
        crate::text::clip(&display(&t), 60)
    ))
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
