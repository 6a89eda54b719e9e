//! `SMG-E126`: provenance that names archived turns names the right ones. A memory
//! cites the words it came from by conversation and message id, and by archive turn
//! number; after a merge renumbers turns both must still name the same message.

use std::collections::{HashMap, HashSet};

use super::Finding;
use crate::model::{Ordinal, Provenance, Turn};

/// The conversation and message ids of every archived turn, by number.
#[derive(Default)]
pub(super) struct Archived {
    by_number: HashMap<u64, (Option<String>, Option<String>)>,
    messages: HashSet<(Option<String>, String)>,
    /// Message ids, whatever the conversation (for provenance that names none).
    message_ids: HashSet<String>,
    /// False when a block did not decode: its turns are unknown, nothing is checked.
    pub(super) complete: bool,
    /// Turn ranges of sealed archive blocks: provenance into them cannot be checked.
    pub(super) sealed: Vec<(u64, u64)>,
}

impl Archived {
    pub(super) fn add(&mut self, t: &Turn) {
        let (c, m) = (t.conversation_id.clone(), t.message_id.clone());
        if let Some(m) = &m {
            self.messages.insert((c.clone(), m.clone()));
            self.message_ids.insert(m.clone());
        }
        self.by_number.insert(t.turn.get(), (c, m));
    }

    /// The findings of provenance `p` at `ptr`; none when the archive is empty.
    pub(super) fn check(&self, ptr: &str, p: &Provenance, out: &mut Vec<Finding>) {
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
        for (j, m) in ids.iter().enumerate() {
            let found = match conversation {
                Some(c) => self.messages.contains(&(Some(c.clone()), m.clone())),
                None => self.message_ids.contains(m),
            };
            if !found {
                out.push(Finding::error(
                    "SMG-E126",
                    format!("{ptr}/messageIds/{j}"),
                    format!("no archived turn is message `{m}`{}", where_()),
                ));
            }
        }
        for (j, n) in p.turns.iter().flatten().enumerate() {
            let at = format!("{ptr}/turns/{j}");
            let Some((c, m)) = self.by_number.get(&(*n).get()) else {
                out.push(Finding::error(
                    "SMG-E126",
                    at,
                    format!("turn {n} is not in the archive"),
                ));
                continue;
            };
            let other_conversation = conversation.is_some_and(|pc| c.as_ref() != Some(pc));
            let other_message = !ids.is_empty() && m.as_ref().is_some_and(|m| !ids.contains(m));
            if other_conversation || other_message {
                let said = m.as_deref().unwrap_or("(no id)");
                let of = c.as_deref().unwrap_or("(none)");
                out.push(Finding::error(
                    "SMG-E126",
                    at,
                    format!(
                        "turn {n} is message `{said}` of conversation `{of}`, not one this provenance names{}",
                        where_()
                    ),
                ));
            }
        }
    }
}
