//! Three-way merge of two memories forked from a common base (spec §17.3).
//!
//! The deep archive merges first, as the union of both sides' turns by identity
//! (conversation and message id), a message both sides added taken once, new turns
//! numbered as one ingest of both would number them; every reference to a turn a side
//! numbered otherwise is rewritten on that side. Then the rest: a change made on one
//! side only is taken; the same change on both sides is taken once; two different
//! changes of the same authored field are a [`Conflict`], settled by
//! [`MergeOptions::prefer`] when given. Derived content (nodes `smg ingest` made,
//! working memory, scores and counters) never conflicts: when the archive is a new
//! union, [`MergeReport::rederive`] says it must be derived again, which
//! `smg_engine::merge` does. Nodes are matched by id and edges by (from, relation, to)
//! in every graph; lists of strings merge as sets. The artifact vault merges as a
//! union: no artifact version and no archived turn of either side is ever lost.
//!
//! ```
//! use smg_format::{merge::{merge, MergeOptions}, Document};
//! let base = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let mut ours = base.clone();
//! ours.metadata.project_name = Some("atlas".into());
//! let mut theirs = base.clone();
//! theirs.metadata.tags = Some(vec!["q3".into()]);
//! let merged = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
//! assert!(merged.conflicts.is_empty());
//! assert_eq!(merged.document.metadata.project_name.as_deref(), Some("atlas"));
//! assert_eq!(merged.document.metadata.tags, Some(vec!["q3".to_string()]));
//! ```

mod archive;
mod blocks;
mod derived;
mod lean;
mod report;
mod values;
mod vault;
mod view;

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::archive::{ArchiveOptions, ArchivedTurn};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::model::{Document, Turn};
pub use archive::Taken;
use derived::renumber;
pub use lean::Lean;
pub(crate) use lean::LeanLists;
use report::renumbered;
pub use report::{MergeReport, Renumbered};
use values::Merger;

/// Ids of the documents' nodes or artifacts: hundreds of thousands in a large memory,
/// borrowed and hashed quickly.
type Ids<'a> = HashSet<&'a str, foldhash::fast::FixedState>;

/// Which side wins a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first changed document.
    Ours,
    /// The second changed document.
    Theirs,
}

/// How to merge.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct MergeOptions {
    /// The side that wins conflicts; without it conflicts take ours and are reported
    /// as unresolved.
    pub prefer: Option<Side>,
    /// Bounds on decoding archive blocks.
    pub limits: Limits,
    /// How rebuilt archive blocks are written.
    pub archive: ArchiveOptions,
    /// Whether the caller derives the derived nodes again from the merged archive
    /// (`smg_engine::merge` does). Then, of ours' derived nodes, only those curation
    /// marked stand in (their tier, retrievals and tombstone outlive the derivation,
    /// spec §18.10), without the edges between derived nodes.
    pub derive_again: bool,
}

impl MergeOptions {
    /// These options with a side that wins conflicts.
    pub fn prefer(mut self, side: Side) -> Self {
        self.prefer = Some(side);
        self
    }

    /// These options for a caller that derives the derived nodes again
    /// ([`MergeOptions::derive_again`]).
    pub fn deriving_again(mut self) -> Self {
        self.derive_again = true;
        self
    }
}

/// One field both sides changed differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Conflict {
    /// Where: a JSON Pointer, with node ids, edge keys (`from|relation|to`) and artifact
    /// ids in place of array positions.
    pub pointer: String,
    /// The base's value (`None` when absent).
    pub base: Option<Value>,
    /// Ours.
    pub ours: Option<Value>,
    /// Theirs.
    pub theirs: Option<Value>,
    /// The side whose value was taken, when [`MergeOptions::prefer`] settled it.
    pub resolved: Option<Side>,
}

/// The result of a merge.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Merged {
    /// The merged document.
    pub document: Document,
    /// Every conflict of authored content, settled or not.
    pub conflicts: Vec<Conflict>,
    /// What was taken from each side.
    pub report: MergeReport,
    /// With [`MergeOptions::derive_again`], the merged archive's turns in order, when
    /// the merge decoded them all (the base's blocks kept, both sides' new turns
    /// appended): the derivation that follows need not decode the archive again. The
    /// turns of base blocks both sides kept byte for byte come without their source
    /// records (`source`), which the merge never needed: the archive holds them.
    pub turns: Option<Vec<ArchivedTurn>>,
}

impl Merged {
    /// Conflicts no preference settled: the document must not be used as is.
    pub fn unresolved(&self) -> impl Iterator<Item = &Conflict> {
        self.conflicts.iter().filter(|c| c.resolved.is_none())
    }
}

/// Merge `ours` and `theirs`, both changed from `base`. When the archive is a new
/// union, ours' derived nodes stand in (renumbered) until derived again.
pub fn merge(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
) -> Result<Merged> {
    Ok(merge_beside(base, ours, theirs, options, |_| ())?.0)
}

/// [`merge`], with `beside` run on the base's turns while the rest of the merge goes
/// on, when the merge decodes them for a caller that derives again
/// ([`MergeOptions::derive_again`]): what that caller will read of those turns (an
/// analysis of their text) is made on a core the merge leaves idle. Its result comes
/// back exactly when [`Merged::turns`] does, whose first turns are the ones `beside`
/// was given, in their order.
///
/// ```
/// use smg_format::{merge::{merge_beside, MergeOptions}, Document};
/// let doc = Document::new(smg_format::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
/// let count = |turns: &[&smg_format::model::Turn]| turns.len();
/// let (merged, counted) = merge_beside(&doc, &doc, &doc, &MergeOptions::default(), count).unwrap();
/// assert!(merged.conflicts.is_empty() && counted.is_none());
/// ```
pub fn merge_beside<T: Send>(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    options: &MergeOptions,
    beside: impl FnOnce(&[&Turn]) -> T + Send,
) -> Result<(Merged, Option<T>)> {
    let docs = [base, ours, theirs];
    let merged = merge_inputs(docs, &Ids::default(), options, beside)?;
    // Nothing was left out, so nothing is missing.
    merged.ok_or_else(|| Error::InvalidArgument("no document was read lean".into()))
}

/// [`merge_beside`] of documents read lean ([`Lean`]), for a caller that derives
/// again ([`MergeOptions::derive_again`]). `None` when the merge needs what was left
/// out: when a side changed nothing, or when the merged archive is not a new union of
/// both (the derived graph is then merged, not derived again). Read the documents
/// whole and merge them with [`merge_beside`] then: the result is the same as that
/// merge gives whenever this one gives one.
pub fn merge_lean<T: Send>(
    docs: [&Lean; 3],
    options: &MergeOptions,
    beside: impl FnOnce(&[&Turn]) -> T + Send,
) -> Result<Option<(Merged, Option<T>)>> {
    let left_out: Ids<'_> = docs
        .iter()
        .flat_map(|l| l.left_out.iter().map(String::as_str))
        .collect();
    let docs = docs.map(|l| &l.document);
    if !left_out.is_empty() && !options.derive_again {
        return Ok(None);
    }
    merge_inputs(docs, &left_out, options, beside)
}

/// The merge of `docs` (base, ours, theirs), read without the derived nodes in
/// `left_out`; `None` when it needs them.
fn merge_inputs<T: Send>(
    docs: [&Document; 3],
    left_out: &Ids<'_>,
    options: &MergeOptions,
    beside: impl FnOnce(&[&Turn]) -> T + Send,
) -> Result<Option<(Merged, Option<T>)>> {
    let [base, ours, theirs] = docs;
    let lean = !left_out.is_empty();
    // A side that changed nothing (or two sides that changed alike) leaves the other
    // as the merge, taken whole: three large documents are never turned into values.
    let whole = if ours == theirs || theirs == base {
        Some(ours)
    } else {
        (ours == base).then_some(theirs)
    };
    if let Some(whole) = whole {
        return Ok((!lean).then(|| (taken_whole(docs, whole), None)));
    }
    let decoded = archive::BaseTurns::default();
    let plan = archive::plan(base, ours, theirs, &decoded, options)?;
    if lean && !plan.is_union() {
        return Ok(None);
    }
    let held = decoded
        .turns()
        .filter(|_| options.derive_again && plan.is_union());
    let (merged, beside) = match held {
        Some(turns) => {
            let (merged, beside) =
                rayon::join(|| planned(plan, docs, left_out, options), || beside(&turns));
            (merged, Some(beside))
        }
        None => (planned(plan, docs, left_out, options), None),
    };
    let (mut merged, appended) = merged?;
    merged.turns = appended
        .filter(|_| options.derive_again)
        .and_then(|added| decoded.then(added));
    let beside = beside.filter(|_| merged.turns.is_some());
    Ok(Some((merged, beside)))
}

/// The merge of `docs` (base, ours, theirs) as `plan` makes their archive, and the
/// turns appended to the base's when that is how it was made ([`Merged::turns`] is
/// left for the caller to fill).
fn planned<'a>(
    mut plan: archive::Plan<'_>,
    [base, ours, theirs]: [&'a Document; 3],
    left_out: &Ids<'a>,
    options: &MergeOptions,
) -> Result<(Merged, Option<archive::Appended>)> {
    // Derived content built again from the merged archive is not merged: ours' stands
    // in for it until then.
    let union = plan.is_union();
    let mut derived: Ids<'_> = [base, ours, theirs]
        .into_iter()
        .flat_map(|d| node_ids(d, true))
        .collect();
    derived.extend(left_out);
    let settled = if union {
        vault::settled([base, ours, theirs])
    } else {
        Ids::default()
    };
    let value = |doc: &Document| -> Result<Value> {
        if union {
            view::authored(doc, &derived, &settled).map_err(|e| {
                Error::InvalidArgument(format!("the document does not serialise: {e}"))
            })
        } else {
            to_value(doc)
        }
    };
    let b = value(base)?;
    let mut o = value(ours)?;
    let mut t = value(theirs)?;
    renumber(&mut o, &plan.ours);
    renumber(&mut t, &plan.theirs);
    let mut m = Merger {
        prefer: options.prefer,
        conflicts: std::mem::take(&mut plan.conflicts),
        derived,
        report: MergeReport {
            turns: plan.taken,
            rederive: plan.is_union(),
            renumbered: renumbered(&plan),
            ..MergeReport::default()
        },
    };
    let merged = m.value("", Some(&b), Some(&o), Some(&t))?;
    drop((b, o, t));
    let mut document: Document = serde_json::from_value(merged.unwrap_or(Value::Null))
        .map_err(|e| Error::InvalidArgument(format!("the merged document is not valid: {e}")))?;
    vault::restore(&mut document, base, &settled);
    m.report.nodes_added = nodes_added(base, &document);
    if union {
        view::stand_in(
            &mut document,
            ours,
            &m.derived,
            &plan.ours,
            options.derive_again,
        );
    }
    let appended = archive::write(plan, [base, ours, theirs], &mut document, options)?;
    m.report.versions = vault::added_versions([base, ours, theirs], &document);
    let merged = Merged {
        document,
        conflicts: m.conflicts,
        report: m.report,
        turns: None,
    };
    Ok((merged, appended))
}

/// The merge when it is one of the documents, `whole`, as it is.
fn taken_whole(docs: [&Document; 3], whole: &Document) -> Merged {
    let report = MergeReport {
        nodes_added: nodes_added(docs[0], whole),
        versions: vault::added_versions(docs, whole),
        ..MergeReport::default()
    };
    Merged {
        document: whole.clone(),
        conflicts: Vec::new(),
        report,
        turns: None,
    }
}

/// How many authored nodes `merged` holds that `base` does not.
fn nodes_added(base: &Document, merged: &Document) -> usize {
    let known: Ids<'_> = node_ids(base, false).collect();
    node_ids(merged, false)
        .filter(|id| !known.contains(id))
        .count()
}

/// The ids of `doc`'s derived nodes (`derived`) or authored ones, in every graph.
fn node_ids(doc: &Document, derived: bool) -> impl Iterator<Item = &str> {
    let graphs = doc.graphs().into_iter().map(|(_, g)| g);
    let nodes = graphs.flat_map(|g| g.nodes());
    nodes
        .filter(move |n| n.is_derived() == derived)
        .map(|n| n.id.as_str())
}

fn to_value(doc: &Document) -> Result<Value> {
    serde_json::to_value(doc)
        .map_err(|e| Error::InvalidArgument(format!("the document does not serialise: {e}")))
}

#[cfg(test)]
mod tests;
