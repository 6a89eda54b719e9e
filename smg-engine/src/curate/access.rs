//! What changes a node outside a cycle: a retrieval recorded, a tier moved by hand.

use smg_format::model::{Access, Action, Document, NonEmpty, Timestamp};

use super::audit::{Applier, Change};
use super::facts::{keep_recent, later};
use super::{tidy, ActionReport, Direction};
use crate::{Error, Result};

fn invalid(detail: String) -> Error {
    Error::Format(smg_format::Error::InvalidArgument(detail))
}

/// Record that the nodes `ids` were retrieved at `at` by `by`: their
/// `accessCount`, `lastAccessed` and `recentAccesses` (the last 90 days, at most 64).
/// A retrieval is what reactivates a node (SMG §9.2). Returns how many were found;
/// ids of no node are left alone.
pub fn record_access(
    doc: &mut Document,
    ids: &[&str],
    at: &Timestamp,
    by: Option<&str>,
) -> Result<usize> {
    let now = super::facts::time(at);
    if by == Some("") {
        return Err(invalid("the accessing agent's id is empty".into()));
    }
    let Some(graph) = doc.semantic_graph.as_mut() else {
        return Ok(0);
    };
    let wanted: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    let mut found = 0;
    for n in graph.nodes.iter_mut().flatten() {
        if !wanted.contains(n.id.as_str()) {
            continue;
        }
        found += 1;
        n.access_count = Some(n.access_count.unwrap_or(0) + 1);
        n.last_accessed = later(n.last_accessed.take(), Some(at.clone()));
        let access = Access {
            by: by.and_then(|b| NonEmpty::new(b).ok()),
            ..Access::new(at.clone())
        };
        let list = keep_recent(n.recent_accesses.take(), [access], Some(now));
        n.recent_accesses = Some(list);
    }
    Ok(found)
}

/// Move node `id` one tier warmer or colder by hand (`smg tier promote|demote`), as
/// an audit entry that [`super::restore`] undoes.
pub fn move_tier(
    doc: &mut Document,
    id: &str,
    direction: Direction,
    now: &Timestamp,
    reason: &str,
) -> Result<ActionReport> {
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    let nodes = graph.nodes.get_or_insert_with(Vec::new);
    let i = nodes
        .iter()
        .position(|n| n.id == id)
        .ok_or_else(|| Error::UnknownNode(id.to_string()))?;
    let from = super::rules::tier(&nodes[i]);
    let (to, action) = match direction {
        Direction::Warmer => (from.warmer(), Action::Promote),
        Direction::Colder => (from.colder(), Action::Demote),
    };
    let to =
        to.ok_or_else(|| invalid(format!("node `{id}` is in tier {} already", from.name())))?;
    let mut change = Change::default();
    let mut applier = Applier::new(nodes, Vec::new());
    applier.edit(i, &mut change).tier = Some(to);
    let recorded = applier.record(change);
    applier.finish();
    let reason = format!("{} -> {} by hand: {reason}", from.name(), to.name());
    let mut entry = recorded.entry(action, now, id.to_string(), reason, None, None);
    let mut curation = doc.curation.take().unwrap_or_default();
    let audit = curation.audit.get_or_insert_with(Vec::new);
    let prefix = format!("tier-{now}/");
    let k = audit.iter().filter(|e| e.id.starts_with(&prefix)).count() + 1;
    entry.id = format!("{prefix}{k}");
    let report = ActionReport::from(&entry);
    audit.push(entry);
    doc.curation = tidy(curation);
    Ok(report)
}
