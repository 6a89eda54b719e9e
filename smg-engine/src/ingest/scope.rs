//! Scope carried from a conversation to everything derived from it (spec §10.3).
//!
//! A node drawn from restricted talk is restricted: a segment, decision or memory
//! whose provenance names a restricted turn, and an entity or concept that only
//! restricted talk mentions. An entity named in public and restricted talk alike stays
//! public; its mentions by restricted segments are edges to restricted nodes, which
//! sealing takes with them.

use smg_format::model::{Document, Edge, Node, Ordinal, Scope, ShortText};

use super::TurnView;
use crate::error::Result;
use crate::fast::{FastMap, FastSet};

/// Give the nodes drawn from restricted turns the restricted scope.
pub(crate) fn inherit(nodes: &mut [Node], edges: &[Edge], turns: &[TurnView<'_>]) {
    let restricted: FastSet<u64> = turns
        .iter()
        .filter(|t| t.turn.scope == Some(Scope::Restricted))
        .map(|t| t.turn.turn.get())
        .collect();
    if restricted.is_empty() {
        return;
    }
    let is = |n: &u64| restricted.contains(n);
    // Nodes that cite their turns: restricted if drawn first from restricted talk;
    // otherwise public, citing only public turns (a memory said in both).
    let cited: Vec<Option<bool>> = nodes
        .iter_mut()
        .map(|n| {
            let first = *n
                .provenance
                .iter()
                .flatten()
                .find_map(|p| p.turns.as_ref()?.first())?;
            if is(&first.get()) {
                return Some(true);
            }
            forget(n, &restricted);
            Some(false)
        })
        .collect();
    let at: FastMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    // The rest (entities, concepts): restricted if every node that cites its turns
    // and links to it is; without such a neighbour, if it was first and last
    // mentioned in restricted turns.
    let mut neighbours: Vec<(bool, bool)> = vec![(false, false); nodes.len()];
    for e in edges {
        let (Some(&a), Some(&b)) = (at.get(e.from.as_str()), at.get(e.to.as_str())) else {
            continue;
        };
        for (me, other) in [(a, b), (b, a)] {
            if let (None, Some(r)) = (cited[me], cited[other]) {
                let seen = &mut neighbours[me];
                seen.0 |= r;
                seen.1 |= !r;
            }
        }
    }
    drop(at);
    for (i, n) in nodes.iter_mut().enumerate() {
        let restricted_node = match (cited[i], neighbours[i]) {
            (Some(r), _) => r,
            (None, (any_restricted, any_public)) if any_restricted || any_public => !any_public,
            (None, _) => {
                n.first_mentioned.as_ref().is_some_and(is)
                    && n.last_mentioned.as_ref().is_some_and(is)
            }
        };
        if restricted_node {
            n.scope = Some(Scope::Restricted);
        }
    }
}

/// Take the restricted turns out of a public node's provenance (with their message
/// ids), and out of when it was last mentioned.
fn forget(n: &mut Node, restricted: &FastSet<u64>) {
    let Some(provenance) = n.provenance.as_mut() else {
        return;
    };
    let mut last = None;
    provenance.retain_mut(|p| {
        let Some(turns) = p.turns.as_mut() else {
            return true;
        };
        if !turns.iter().any(|t| restricted.contains(&(*t).get())) {
            last = last.max(turns.iter().max().copied());
            return true;
        }
        let ids = p.message_ids.take();
        let paired = ids.as_ref().is_some_and(|m| m.len() == turns.len());
        let kept: Vec<(Ordinal, Option<ShortText>)> = turns
            .iter()
            .enumerate()
            .filter(|(_, t)| !restricted.contains(&t.get()))
            .map(|(i, t)| (*t, ids.as_ref().filter(|_| paired).map(|m| m[i].clone())))
            .collect();
        if kept.is_empty() || !paired && ids.is_some() {
            return false;
        }
        last = last.max(kept.iter().map(|k| k.0).max());
        *turns = kept.iter().map(|k| k.0).collect();
        p.message_ids = paired.then(|| kept.into_iter().filter_map(|k| k.1).collect());
        true
    });
    if let Some(l) = last {
        n.last_mentioned = Some(l.get());
    }
}

/// The scope every turn of a run takes (`--scope`): `Restricted`, or none (the
/// default, personal). Departmental and global knowledge is curated, with an approver
/// (§18.9), never a conversation's scope.
pub(crate) fn of_run(scope: Option<Scope>) -> Result<Option<Scope>> {
    match scope {
        None | Some(Scope::Personal) => Ok(None),
        Some(Scope::Restricted) => Ok(Some(Scope::Restricted)),
        Some(s @ (Scope::Departmental | Scope::Global)) => {
            Err(smg_format::Error::InvalidArgument(format!(
                "conversations are personal or restricted; {} knowledge is added with an approver (smg knowledge add)",
                s.name()
            ))
            .into())
        }
    }
}

/// New restricted talk is refused while the file's restricted tier is sealed: it
/// would sit beside it unsealed, and the sealed messages it might repeat cannot be
/// seen to skip them.
pub(crate) fn refuse_if_sealed(doc: &Document, restricted: bool) -> Result<()> {
    let sealed = doc.sealed_sections.iter().flatten();
    match sealed.into_iter().find(|s| s.tier == Some(Scope::Restricted)) {
        Some(s) if restricted => Err(smg_format::Error::Sealed(format!(
            "the restricted tier is sealed (`{}`): restricted talk is added with its passphrase (`--seal-passphrase-file`), which opens it in memory and seals it again",
            s.id
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Whether a turn (or node) of `scope` may show in what every reader of the file
/// sees unsealed: working memory.
/// Give every message of the conversations named in `ids` the restricted scope. An
/// id that no input holds is refused, listing those they hold: a mistyped id would
/// leave talk meant to be restricted readable.
pub(crate) fn restrict_conversations(
    imported: &mut [super::Imported],
    ids: &[String],
) -> Result<()> {
    let mut found = FastSet::default();
    let all = imported.iter_mut().flat_map(|i| &mut i.conversations);
    for c in all.filter(|c| ids.contains(&c.id)) {
        found.insert(c.id.clone());
        for m in &mut c.messages {
            m.scope = Some(Scope::Restricted);
        }
    }
    let Some(missing) = ids.iter().find(|id| !found.contains(*id)) else {
        return Ok(());
    };
    let held: Vec<&str> = imported
        .iter()
        .flat_map(|i| &i.conversations)
        .map(|c| c.id.as_str())
        .take(10)
        .collect();
    Err(smg_format::Error::InvalidArgument(format!(
        "no conversation `{missing}` in the inputs to restrict (they hold: {}{})",
        held.join(", "),
        if held.len() == 10 { ", …" } else { "" }
    ))
    .into())
}

pub(crate) fn shared(scope: Option<Scope>) -> bool {
    matches!(scope, None | Some(Scope::Personal))
}

#[cfg(test)]
mod tests {
    use smg_format::model::{Provenance, Turn};

    use super::*;

    fn node(id: &str, turns: Option<Vec<u64>>, first: u64, last: u64) -> Node {
        Node {
            provenance: turns.map(|t| {
                vec![Provenance {
                    turns: Some(t.into_iter().map(|n| Ordinal::new(n).unwrap()).collect()),
                    ..Provenance::default()
                }]
            }),
            first_mentioned: Some(first),
            last_mentioned: Some(last),
            ..Node::new(
                smg_format::model::NonEmpty::new(id).unwrap(),
                smg_format::model::NonEmpty::from_static("x"),
            )
        }
    }

    fn edge(from: &str, to: &str) -> Edge {
        Edge::new(
            smg_format::model::NonEmpty::new(from).unwrap(),
            smg_format::model::NonEmpty::from_static("mentions"),
            smg_format::model::NonEmpty::new(to).unwrap(),
        )
    }

    #[test]
    fn derived_nodes_take_the_scope_of_their_sources() {
        let turns: Vec<Turn> = (1..=6)
            .map(|n| Turn {
                scope: (n > 3).then_some(Scope::Restricted),
                ..Turn::new(
                    smg_format::model::Ordinal::new(n).unwrap(),
                    smg_format::model::role::USER,
                    "",
                )
            })
            .collect();
        let views: Vec<TurnView<'_>> = turns
            .iter()
            .map(|turn| TurnView {
                turn,
                artifacts: &[],
            })
            .collect();
        let mut nodes = vec![
            node("public-seg", Some(vec![1, 2, 3]), 1, 3),
            node("secret-seg", Some(vec![4, 5]), 4, 5),
            node("merged-memory", Some(vec![2, 6]), 2, 6),
            node("both", None, 1, 5),
            node("secret-only", None, 1, 5),
            node("unlinked-secret", None, 4, 6),
            node("unlinked-both", None, 3, 6),
        ];
        let edges = [
            edge("public-seg", "both"),
            edge("secret-seg", "both"),
            edge("secret-seg", "secret-only"),
            edge("both", "secret-only"),
        ];
        inherit(&mut nodes, &edges, &views);
        let restricted: Vec<&str> = nodes
            .iter()
            .filter(|n| n.scope == Some(Scope::Restricted))
            .map(|n| n.id.as_str())
            .collect();
        assert_eq!(restricted, ["secret-seg", "secret-only", "unlinked-secret"]);
        let merged = &nodes[2].provenance.as_ref().unwrap()[0];
        assert_eq!(merged.turns, Some(vec![Ordinal::new(2).unwrap()]));
        assert_eq!(nodes[2].last_mentioned, Some(2));
    }
}
