//! Packing the best turns for a query into a token budget, with reference cards for
//! what does not fit.

use super::{display, Hit, Retriever};
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
    /// Its size in tokens (characters / 4).
    pub tokens: usize,
}

/// Most reference cards in one context.
const MAX_CARDS: usize = 5;
/// Turns passed over for want of room before packing stops looking.
const LEFT_OUT: usize = 200;

impl Retriever {
    /// Fill `budget` tokens with the best turns for `query`, in rank order, each one
    /// whole; a turn that does not fit is passed over for the next. The rest of the
    /// relevant segments are named by reference cards while room is left.
    pub fn context(&self, query: &str, budget: usize) -> Result<ContextPack> {
        // Every turn costs at least one character, so no more than 4 × budget turns
        // fit, and packing gives up after LEFT_OUT more: only those need ranking.
        let needed = budget.saturating_mul(4).saturating_add(LEFT_OUT + 1);
        let ranked = self.scored(query)?.map_or_else(Vec::new, |s| s.top(needed));
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
        // Tokens are characters / 4 of the whole text, newlines included.
        let mut chars = 0;
        let fits = |chars: usize, more: usize| (chars + more).div_ceil(4) <= budget;
        let mut left_out: Vec<usize> = Vec::new();
        // What a turn costs is known without reading it, so the turns that fit are
        // known before any is read: they are read together.
        let mut chosen: Vec<(usize, f64)> = Vec::new();
        for &(i, score) in ranked {
            let cost = self.ix.chars[i] as usize + 1;
            if !fits(chars, cost) {
                left_out.push(i);
                if left_out.len() > LEFT_OUT {
                    break;
                }
                continue;
            }
            chars += cost;
            chosen.push((i, score));
        }
        let positions: Vec<usize> = chosen.iter().map(|c| c.0).collect();
        let turns = self.turns.get_many(&positions)?;
        for ((i, score), turn) in chosen.into_iter().zip(turns) {
            let turn = turn.into_owned();
            pack.text.push_str(&display(&turn));
            pack.text.push('\n');
            pack.items.push(Hit {
                turn,
                score,
                segment: self.segment(i).cloned(),
            });
        }
        let mut named: Vec<&str> = pack
            .items
            .iter()
            .filter_map(|h| h.segment.as_deref())
            .collect();
        for i in left_out {
            let Some(seg) = self.segment(i).map(String::as_str) else {
                continue;
            };
            if named.contains(&seg) || pack.cards.len() >= MAX_CARDS {
                continue;
            }
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
            let cost = card.chars().count() + 1;
            if !fits(chars, cost) {
                break;
            }
            chars += cost;
            pack.text.push_str(&card);
            pack.text.push('\n');
            pack.cards.push(card);
            named.push(seg);
        }
        pack.tokens = chars.div_ceil(4);
        Ok(pack)
    }
}
