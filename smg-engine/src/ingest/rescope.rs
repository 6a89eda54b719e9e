//! Giving a conversation already in the memory another scope (`smg scope set`): its
//! turns are archived again (blocks never mix scopes; restricted code stays in its
//! turn), and the graph and working memory are made again as one ingest of the whole
//! archive would make them (spec §10.3).

use std::collections::BTreeSet;

use serde_json::Value;
use smg_format::archive::{append_turns, read_archive, ArchivedTurn};
use smg_format::model::{Document, Scope};

use super::{ingest, scope, IngestOptions, Silent};
use crate::error::Result;

/// What [`set_scope`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rescoped {
    /// Turns of the conversation, now of the scope.
    pub turns: usize,
    /// Archive blocks written.
    pub blocks: usize,
    /// Vault artifacts that only the conversation's code made, taken out of the vault
    /// (the code is in its turns now).
    pub artifacts_removed: Vec<String>,
    /// Nodes of the graph made again.
    pub nodes: usize,
}

/// Give every turn of `conversation` `scope` (`Personal` or `Restricted`), then make
/// the graph and working memory again.
///
/// Refused while the restricted tier is sealed (`SMG-E146`), for a conversation the
/// archive does not hold, and when code of the conversation shares a vault artifact
/// with other talk (the artifact's versions cannot be kept apart).
pub fn set_scope(
    doc: &mut Document,
    conversation: &str,
    scope: Scope,
    options: &IngestOptions,
) -> Result<Rescoped> {
    let wanted = scope::of_run(Some(scope))?;
    scope::refuse_if_sealed(doc, wanted.is_some())?;
    let mut turns = read_archive(doc, &options.limits)?;
    let (ours, others): (Vec<&ArchivedTurn>, Vec<&ArchivedTurn>) = turns
        .iter()
        .partition(|t| t.turn.conversation_id.as_deref() == Some(conversation));
    if ours.is_empty() {
        return Err(invalid(format!(
            "no archived turn belongs to conversation `{conversation}`"
        )));
    }
    if ours.iter().all(|t| t.turn.scope == wanted) {
        // Nothing changes: the archive and graph stay as they are, byte for byte.
        let graph = doc.semantic_graph.as_ref();
        return Ok(Rescoped {
            turns: ours.len(),
            blocks: doc.deep_archive.as_ref().map_or(0, |a| a.blocks().len()),
            nodes: graph.map_or(0, |g| g.nodes().len()),
            ..Rescoped::default()
        });
    }
    let removed = if wanted.is_some() {
        code_of_only(&ours, &others)?
    } else {
        Vec::new()
    };
    let mut report = Rescoped {
        turns: ours.len(),
        artifacts_removed: removed,
        ..Rescoped::default()
    };
    for t in &mut turns {
        if t.turn.conversation_id.as_deref() == Some(conversation) {
            t.turn.scope = wanted;
        }
    }
    let turns: Vec<_> = turns.into_iter().map(|t| t.turn).collect();
    rearchive(doc, &turns, &report.artifacts_removed, options)?;
    report.blocks = doc.deep_archive.as_ref().map_or(0, |a| a.blocks().len());
    mark_entry(doc, conversation, wanted);
    report.nodes = ingest(doc, Vec::new(), options, &Silent)?.nodes;
    Ok(report)
}

fn invalid(detail: String) -> crate::Error {
    smg_format::Error::InvalidArgument(detail).into()
}

/// The vault artifacts that only `ours` hold code of; refused when one is shared with
/// `others`.
fn code_of_only(ours: &[&ArchivedTurn], others: &[&ArchivedTurn]) -> Result<Vec<String>> {
    let of = |turns: &[&ArchivedTurn]| -> BTreeSet<String> {
        turns
            .iter()
            .flat_map(|t| t.artifacts.iter().map(|a| a.0.clone()))
            .collect()
    };
    let (mine, theirs) = (of(ours), of(others));
    if let Some(shared) = mine.intersection(&theirs).next() {
        return Err(invalid(format!(
            "artifact `{shared}` holds code of this conversation and of other talk: its versions cannot be kept apart (ingest the conversation again with --scope instead)"
        )));
    }
    Ok(mine.into_iter().collect())
}

/// Archive `turns` again from the first block, without the artifacts `removed`.
fn rearchive(
    doc: &mut Document,
    turns: &[smg_format::model::Turn],
    removed: &[String],
    options: &IngestOptions,
) -> Result<()> {
    if let Some(vault) = doc.artifact_vault.as_mut() {
        if let Some(artifacts) = vault.artifacts.as_mut() {
            for id in removed {
                artifacts.remove(id);
            }
            if artifacts.is_empty() {
                vault.artifacts = None;
            }
        }
    }
    if let Some(archive) = doc.deep_archive.as_mut() {
        archive.blocks = None;
    }
    append_turns(doc, turns, &options.archive)?;
    Ok(())
}

/// The conversation's entry in the archive's `conversations`: `scope` set or removed.
fn mark_entry(doc: &mut Document, conversation: &str, scope: Option<Scope>) {
    let entry = doc
        .deep_archive
        .as_mut()
        .and_then(|a| a.extra.get_mut("conversations"))
        .and_then(|c| c.get_mut(conversation))
        .and_then(Value::as_object_mut);
    if let Some(entry) = entry {
        match scope {
            Some(s) => entry.insert("scope".into(), Value::String(s.name().into())),
            None => entry.remove("scope"),
        };
    }
}
