//! What a shared copy leaves out whole, the references left dangling by it, and the
//! embeddings of what redaction changed.

use std::collections::HashSet;

use smg_format::archive::parse_turn_range;
use smg_format::model::{Document, Scope};
use smg_format::seal::{seal_with, SealTarget};

use crate::error::Result;

/// Leave out of `doc` what a shared copy never holds; says what went, and whether a
/// signature was removed.
pub(crate) fn strip(doc: &mut Document) -> Result<(Vec<String>, bool)> {
    let mut out = Vec::new();
    for s in doc.sealed_sections.take().into_iter().flatten() {
        out.push(format!("sealed section {}", s.id.as_str()));
    }
    for id in doc
        .private_contexts
        .take()
        .into_iter()
        .flatten()
        .map(|(id, _)| id)
    {
        out.push(format!("private context of {id}"));
    }
    out.extend(restricted(doc)?);
    drop_dangling(doc);
    if let Some(c) = doc.curation.as_mut() {
        let audit = c.audit.take().map_or(0, |a| a.len());
        let cycles = c.cycles.take().map_or(0, |c| c.len());
        if audit + cycles > 0 {
            out.push(format!(
                "curation's audit log ({audit} entries, {cycles} cycles)"
            ));
        }
        if c.policy.take().is_some() {
            out.push("curation's policy (its approvers and executives)".into());
        }
    }
    let mut accessed = 0;
    for g in doc.graphs_mut() {
        for n in g.nodes.iter_mut().flatten() {
            accessed += usize::from(n.recent_accesses.take().is_some());
        }
    }
    if accessed > 0 {
        out.push(format!("access records of {accessed} nodes"));
    }
    let signed = doc.metadata.extra.remove("signature").is_some();
    Ok((out, signed))
}

/// Restricted talk and knowledge, taken out as sealing takes a tier (spec §10.3) and
/// then dropped: nodes, their edges, blocks, embeddings, recent turns, conversation
/// entries.
fn restricted(doc: &mut Document) -> Result<Option<String>> {
    let restricted = Some(Scope::Restricted);
    let nodes = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| g.nodes())
        .filter(|n| n.scope == restricted)
        .count();
    let blocks = doc.deep_archive.as_ref().map_or(0, |a| {
        a.blocks().iter().filter(|b| b.scope == restricted).count()
    });
    if let Some(w) = doc.working_memory.as_mut() {
        if let Some(recent) = w.recent_context.as_mut() {
            recent.retain(|t| t.scope != restricted);
        }
    }
    if nodes + blocks == 0 {
        return Ok(None);
    }
    // The sealed copy is dropped at once: its key and nonce are never used again.
    seal_with(
        doc,
        SealTarget::Tier(Scope::Restricted),
        b"discarded",
        smg_format::crypto::MIN_ITERATIONS,
        &[0; 16],
        &[0; 12],
    )?;
    doc.sealed_sections = None;
    Ok(Some(format!(
        "the restricted tier ({nodes} nodes, {blocks} archive blocks)"
    )))
}

/// References to nodes and turns no longer in the document, removed: edges, related
/// nodes, provenance's turns, embeddings.
fn drop_dangling(doc: &mut Document) {
    let ids: HashSet<String> = doc
        .graphs()
        .iter()
        .flat_map(|(_, g)| g.nodes())
        .map(|n| n.id.as_str().to_string())
        .collect();
    let mut ranges: Vec<(u64, u64)> = doc.deep_archive.as_ref().map_or(Vec::new(), |a| {
        a.blocks()
            .iter()
            .filter_map(|b| parse_turn_range(b.turn_range.as_str()))
            .collect()
    });
    ranges.sort_unstable();
    let archived = |n: u64| {
        let after = ranges.partition_point(|(first, _)| *first <= n);
        after > 0 && ranges[after - 1].1 >= n
    };
    let keep_provenance = |p: &mut Option<Vec<smg_format::model::Provenance>>| {
        if let Some(list) = p.as_mut() {
            list.retain_mut(|e| match e.turns.as_mut() {
                Some(turns) => {
                    turns.retain(|t| archived(t.get()));
                    !turns.is_empty()
                }
                None => true,
            });
            if list.is_empty() {
                *p = None;
            }
        }
    };
    for g in doc.graphs_mut() {
        for n in g.nodes.iter_mut().flatten() {
            if let Some(r) = n.related_nodes.as_mut() {
                r.retain(|id| ids.contains(id));
            }
            keep_provenance(&mut n.provenance);
        }
        if let Some(edges) = g.edges.as_mut() {
            edges.retain(|e| ids.contains(e.from.as_str()) && ids.contains(e.to.as_str()));
            for e in edges.iter_mut() {
                keep_provenance(&mut e.provenance);
            }
        }
    }
    retain_embeddings(doc, |turn, node| {
        turn.is_none_or(archived) && node.is_none_or(|id| ids.contains(id))
    });
}

/// Embeddings of turns and nodes whose text changed, dropped (a model must embed
/// them again: their vectors would carry the replaced values' meaning).
pub(crate) fn drop_embeddings(doc: &mut Document, turns: &HashSet<u64>, nodes: &HashSet<String>) {
    retain_embeddings(doc, |turn, node| {
        !turn.is_some_and(|t| turns.contains(&t)) && !node.is_some_and(|id| nodes.contains(id))
    });
}

/// The embeddings `keep` says yes to (given the turn or node each is of), the others
/// dropped.
fn retain_embeddings(doc: &mut Document, keep: impl Fn(Option<u64>, Option<&str>) -> bool) {
    let vectors = doc
        .deep_archive
        .as_mut()
        .and_then(|a| a.vector_index.as_mut());
    if let Some(list) = vectors.and_then(|v| v.embeddings.as_mut()) {
        list.retain(|e| keep(e.turn.map(|t| t.get()), e.node_id.as_deref()));
    }
}
