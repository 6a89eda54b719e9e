//! What a merge reports it took from each side.

use serde::Serialize;

use super::archive::{Plan, Renumbering, Taken};
use super::Side;

/// What a merge took from each side.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MergeReport {
    /// Archived turns each side added since the base.
    pub turns: Taken,
    /// Artifact versions (by content) each side added since the base.
    pub versions: Taken,
    /// Authored nodes one side added.
    pub nodes_added: usize,
    /// Authored nodes both sides changed, merged field by field.
    pub nodes_merged: usize,
    /// Turns given another number than one side gave them, so that both sides'
    /// references (provenance, mentions, recent context) were rewritten.
    pub renumbered: Vec<Renumbered>,
    /// The sides' derived content (§17.3: derived nodes, working memory, counts)
    /// differs from what the merged archive gives: it must be derived again
    /// (`smg_engine::merge` does).
    pub rederive: bool,
}

/// A turn of one side archived under another number in the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Renumbered {
    /// The side whose number it was.
    pub side: Side,
    /// Its number there.
    pub from: u64,
    /// Its number in the merge.
    pub to: u64,
}

/// Every turn the plan renumbers, ours first.
pub(super) fn renumbered(plan: &Plan<'_>) -> Vec<Renumbered> {
    let side = |side, map: &Renumbering| {
        map.iter()
            .map(|(&from, &to)| Renumbered { side, from, to })
            .collect::<Vec<_>>()
    };
    let mut all = side(Side::Ours, &plan.ours);
    all.extend(side(Side::Theirs, &plan.theirs));
    all
}
