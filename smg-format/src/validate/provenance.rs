//! `SMG-E126`: provenance that names archived turns names the right ones. A memory
//! cites the words it came from by conversation and message id, and by archive turn
//! number; after a merge renumbers turns both must still name the same message.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use foldhash::fast::FixedState;

use super::Finding;
use crate::model::{Ordinal, Provenance, Turn};

type Map<K, V> = HashMap<K, V, FixedState>;
type Set<T> = HashSet<T, FixedState>;

/// The conversation and message ids of every archived turn, by number.
///
/// A million-turn archive holds a million message ids and a few thousand
/// conversations: each id is kept once, and a conversation by its number here.
#[derive(Default)]
pub(super) struct Archived {
    conversations: Map<Arc<str>, u32>,
    /// The conversations' ids by number.
    names: Vec<Arc<str>>,
    by_number: Map<u64, (Option<u32>, Option<Arc<str>>)>,
    /// Each message id with the conversation holding it (`None` for a turn that
    /// names none).
    messages: Set<(Option<u32>, Arc<str>)>,
    /// Message ids, whatever the conversation (for provenance that names none).
    message_ids: Set<Arc<str>>,
    /// False when a block did not decode: its turns are unknown, nothing is checked.
    pub(super) complete: bool,
    /// Turn ranges of sealed archive blocks: provenance into them cannot be checked.
    pub(super) sealed: Vec<(u64, u64)>,
}

impl Archived {
    /// Turn `t` of the archive, by its ids.
    pub(super) fn add(&mut self, t: &Turn) {
        let c = t
            .conversation_id
            .as_deref()
            .map(|c| match self.conversations.get(c) {
                Some(&n) => n,
                None => {
                    let c: Arc<str> = c.into();
                    let n = self.names.len() as u32;
                    self.names.push(c.clone());
                    self.conversations.insert(c, n);
                    n
                }
            });
        let m = t.message_id.as_deref().map(|m| {
            let m: Arc<str> = match self.message_ids.get(m) {
                Some(known) => known.clone(),
                None => {
                    let m: Arc<str> = m.into();
                    self.message_ids.insert(m.clone());
                    m
                }
            };
            self.messages.insert((c, m.clone()));
            m
        });
        self.by_number.insert(t.turn.get(), (c, m));
    }

    /// Whether conversation number `c` holds a message by id `m`.
    fn holds(&self, c: u32, m: &str) -> bool {
        // Keyed by a shared id: one is looked up, not made, for each query.
        self.message_ids
            .get(m)
            .is_some_and(|m| self.messages.contains(&(Some(c), m.clone())))
    }

    /// The number of conversation `c`; `None` when no archived turn names it.
    fn conversation(&self, c: &str) -> Option<u32> {
        self.conversations.get(c).copied()
    }

    /// The findings of provenance `p`, whose pointer `ptr` gives; none when the archive
    /// is empty.
    pub(super) fn check(&self, ptr: &dyn Fn() -> String, p: &Provenance, out: &mut Vec<Finding>) {
        let sealed = |n: &Ordinal| self.sealed.iter().any(|&(a, z)| *n >= a && *n <= z);
        if !self.complete
            || self.by_number.is_empty()
            || p.turns.as_ref().is_some_and(|t| t.iter().any(sealed))
        {
            return;
        }
        let conversation = p.conversation_id.as_ref();
        let where_ = || conversation.map_or(String::new(), |c| format!(" of conversation `{c}`"));
        let ids = p.message_ids.as_deref().unwrap_or_default();
        let numbered = conversation.map(|c| self.conversation(c));
        for (j, m) in ids.iter().enumerate() {
            let found = match numbered {
                Some(None) => false,
                Some(Some(c)) => self.holds(c, m),
                None => self.message_ids.contains(m.as_str()),
            };
            if !found {
                out.push(Finding::error(
                    "SMG-E126",
                    format!("{}/messageIds/{j}", ptr()),
                    format!("no archived turn is message `{m}`{}", where_()),
                ));
            }
        }
        for (j, n) in p.turns.iter().flatten().enumerate() {
            let at = || format!("{}/turns/{j}", ptr());
            let Some((c, m)) = self.by_number.get(&(*n).get()) else {
                out.push(Finding::error(
                    "SMG-E126",
                    at(),
                    format!("turn {n} is not in the archive"),
                ));
                continue;
            };
            let other_conversation = numbered.is_some_and(|pc| pc.is_none() || *c != pc);
            let other_message =
                !ids.is_empty() && m.as_ref().is_some_and(|m| !ids.iter().any(|i| **i == **m));
            if other_conversation || other_message {
                let said = m.as_deref().unwrap_or("(no id)");
                let of = c.map_or("(none)", |c| &self.names[c as usize]);
                out.push(Finding::error(
                    "SMG-E126",
                    at(),
                    format!(
                        "turn {n} is message `{said}` of conversation `{of}`, not one this provenance names{}",
                        where_()
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::role;

    fn turn(n: u64, c: Option<&str>, m: &str) -> Turn {
        let mut t = Turn::new(Ordinal::new(n).unwrap(), role::USER, "x");
        t.conversation_id = c.map(Into::into);
        t.message_id = Some(m.into());
        t
    }

    fn found(a: &Archived, conversation: Option<&str>, ids: &[&str], turns: &[u64]) -> Vec<String> {
        let p = Provenance {
            conversation_id: conversation.map(Into::into),
            message_ids: Some(ids.iter().map(|&s| s.into()).collect()),
            turns: Some(turns.iter().map(|&n| Ordinal::new(n).unwrap()).collect()),
            ..Provenance::default()
        };
        let mut out = Vec::new();
        a.check(&|| "/p".to_string(), &p, &mut out);
        out.into_iter().map(|f| f.pointer).collect()
    }

    #[test]
    fn a_message_id_held_by_several_conversations_is_found_in_each_and_no_other() {
        let mut a = Archived {
            complete: true,
            ..Archived::default()
        };
        a.add(&turn(1, Some("c1"), "m"));
        a.add(&turn(2, Some("c2"), "m"));
        a.add(&turn(3, None, "m"));
        a.add(&turn(4, Some("c1"), "k"));
        assert!(found(&a, Some("c1"), &["m"], &[1]).is_empty());
        assert!(found(&a, Some("c2"), &["m"], &[2]).is_empty());
        assert!(found(&a, None, &["m", "k"], &[3, 4]).is_empty());
        assert_eq!(
            found(&a, Some("c2"), &["k"], &[4]),
            ["/p/messageIds/0", "/p/turns/0"]
        );
        assert_eq!(
            found(&a, Some("c9"), &["m"], &[1]),
            ["/p/messageIds/0", "/p/turns/0"]
        );
        assert_eq!(
            found(&a, Some("c1"), &["m"], &[2, 7]),
            ["/p/turns/0", "/p/turns/1"]
        );
        assert_eq!(found(&a, None, &["zz"], &[]), ["/p/messageIds/0"]);
    }
}
