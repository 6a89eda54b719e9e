//! `SMG-E126`: provenance that names archived turns names the right ones. A memory
//! cites the words it came from by conversation and message id, and by archive turn
//! number; after a merge renumbers turns both must still name the same message.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use hashbrown::HashTable;

use super::Finding;
use crate::model::{Ordinal, Provenance, Turn};

type Map<K, V> = std::collections::HashMap<K, V, FixedState>;

/// No conversation, or no message id.
const NONE: u32 = u32::MAX;

/// Strings kept once each in one text, numbered in the order first seen: a
/// million-turn archive's message ids take their bytes and 14 more each, where a
/// set of shared strings took about 100.
#[derive(Default)]
struct Interned {
    text: String,
    /// Where each string ends in `text`, by number.
    ends: Vec<usize>,
    /// The strings' numbers, by their text.
    table: HashTable<u32>,
    hasher: FixedState,
}

impl Interned {
    fn name(&self, n: u32) -> &str {
        nth(&self.text, &self.ends, n)
    }

    fn get(&self, s: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(s);
        self.table.find(hash, |&n| self.name(n) == s).copied()
    }

    /// `s`'s number, given it when first seen.
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(n) = self.get(s) {
            return n;
        }
        let n = self.ends.len() as u32;
        self.text.push_str(s);
        self.ends.push(self.text.len());
        let Interned {
            text,
            ends,
            table,
            hasher,
        } = self;
        let rehash = |&n: &u32| hasher.hash_one(nth(text, ends, n));
        table.insert_unique(hasher.hash_one(s), n, rehash);
        n
    }
}

/// String number `n` of the strings laid end to end in `text`, which end at `ends`.
fn nth<'a>(text: &'a str, ends: &[usize], n: u32) -> &'a str {
    let n = n as usize;
    let start = if n == 0 { 0 } else { ends[n - 1] };
    &text[start..ends[n]]
}

/// An archived turn's conversation and message id, by number ([`NONE`]: none), and
/// the block it was read from (by place).
#[derive(Clone, Copy)]
struct Entry {
    conversation: u32,
    message: u32,
    block: u32,
}

/// The conversation and message ids of every archived turn, by number.
///
/// Turns come in ascending order in any file smg writes: those are kept in a list
/// searched by halves, the others (out of order, or twice) in a map.
#[derive(Default)]
pub(super) struct Archived {
    conversations: Interned,
    messages: Interned,
    ascending: Vec<(u64, Entry)>,
    others: Map<u64, Entry>,
    /// Each message id with the conversation holding it, as `conversation << 32 |
    /// message`, sorted once every turn is in ([`Archived::finish`]).
    held: Vec<u64>,
    /// False when a block did not decode: its turns are unknown, nothing is checked.
    pub(super) complete: bool,
    /// Turn ranges of sealed archive blocks: provenance into them cannot be checked.
    pub(super) sealed: Vec<(u64, u64)>,
}

impl Archived {
    /// Turn `t` of the archive, read from the block at place `block`; the place of
    /// the block it was read from before when it was (the later one counts).
    pub(super) fn add(&mut self, t: &Turn, block: usize) -> Option<usize> {
        let entry = Entry {
            conversation: t
                .conversation_id
                .as_deref()
                .map_or(NONE, |c| self.conversations.intern(c)),
            message: t
                .message_id
                .as_deref()
                .map_or(NONE, |m| self.messages.intern(m)),
            block: block as u32,
        };
        if entry.message != NONE {
            let c = u64::from(entry.conversation);
            self.held.push(c << 32 | u64::from(entry.message));
        }
        let n = t.turn.get();
        if self.ascending.last().is_none_or(|&(last, _)| n > last) {
            self.ascending.push((n, entry));
            return None;
        }
        let before = match self.ascending.binary_search_by_key(&n, |&(k, _)| k) {
            Ok(i) => Some(std::mem::replace(&mut self.ascending[i].1, entry)),
            Err(_) => self.others.insert(n, entry),
        };
        before.map(|e| e.block as usize)
    }

    /// Every turn is in: the pairs made searchable.
    pub(super) fn finish(&mut self) {
        self.held.sort_unstable();
        self.held.dedup();
        self.held.shrink_to_fit();
    }

    fn turn(&self, n: u64) -> Option<Entry> {
        match self.ascending.binary_search_by_key(&n, |&(k, _)| k) {
            Ok(i) => Some(self.ascending[i].1),
            Err(_) => self.others.get(&n).copied(),
        }
    }

    /// Whether conversation number `c` holds a message by id `m`.
    fn holds(&self, c: u32, m: &str) -> bool {
        self.messages.get(m).is_some_and(|m| {
            let pair = u64::from(c) << 32 | u64::from(m);
            self.held.binary_search(&pair).is_ok()
        })
    }

    fn is_empty(&self) -> bool {
        self.ascending.is_empty() && self.others.is_empty()
    }

    /// The findings of provenance `p`, whose pointer `ptr` gives; none when the archive
    /// is empty.
    pub(super) fn check(&self, ptr: &dyn Fn() -> String, p: &Provenance, out: &mut Vec<Finding>) {
        let sealed = |n: &Ordinal| self.sealed.iter().any(|&(a, z)| *n >= a && *n <= z);
        if !self.complete
            || self.is_empty()
            || p.turns.as_ref().is_some_and(|t| t.iter().any(sealed))
        {
            return;
        }
        let conversation = p.conversation_id.as_ref();
        let where_ = || conversation.map_or(String::new(), |c| format!(" of conversation `{c}`"));
        let ids = p.message_ids.as_deref().unwrap_or_default();
        let numbered = conversation.map(|c| self.conversations.get(c));
        for (j, m) in ids.iter().enumerate() {
            let found = match numbered {
                Some(None) => false,
                Some(Some(c)) => self.holds(c, m),
                None => self.messages.get(m).is_some(),
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
            let Some(Entry {
                conversation: c,
                message: m,
                ..
            }) = self.turn(n.get())
            else {
                out.push(Finding::error(
                    "SMG-E126",
                    at(),
                    format!("turn {n} is not in the archive"),
                ));
                continue;
            };
            let c = (c != NONE).then_some(c);
            let m = (m != NONE).then(|| self.messages.name(m));
            let other_conversation = numbered.is_some_and(|pc| pc.is_none() || c != pc);
            let other_message =
                !ids.is_empty() && m.is_some_and(|m| !ids.iter().any(|i| **i == *m));
            if other_conversation || other_message {
                let said = m.unwrap_or("(no id)");
                let of = c.map_or("(none)", |c| self.conversations.name(c));
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
        a.add(&turn(1, Some("c1"), "m"), 0);
        a.add(&turn(2, Some("c2"), "m"), 0);
        a.add(&turn(3, None, "m"), 1);
        a.add(&turn(4, Some("c1"), "k"), 1);
        a.finish();
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

    #[test]
    fn turns_out_of_order_or_twice_are_found_and_the_later_one_counts() {
        let mut a = Archived {
            complete: true,
            ..Archived::default()
        };
        assert_eq!(a.add(&turn(5, Some("c"), "m5"), 0), None);
        assert_eq!(a.add(&turn(3, Some("c"), "m3"), 0), None);
        assert_eq!(a.add(&turn(7, Some("c"), "m7"), 1), None);
        assert_eq!(a.add(&turn(5, Some("d"), "n5"), 2), Some(0));
        assert_eq!(a.add(&turn(3, Some("c"), "m3"), 3), Some(0));
        assert_eq!(a.add(&turn(3, Some("c"), "m3"), 4), Some(3));
        a.finish();
        assert!(found(&a, Some("d"), &["n5"], &[5]).is_empty());
        // `m5` of `c` was archived, but turn 5 is now `d`'s.
        assert_eq!(found(&a, Some("c"), &["m5"], &[5]), ["/p/turns/0"]);
        assert!(found(&a, Some("c"), &["m3", "m7"], &[3, 7]).is_empty());
        assert_eq!(found(&a, None, &[], &[4]), ["/p/turns/0"]);
    }
}
