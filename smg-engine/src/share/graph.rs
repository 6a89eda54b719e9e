//! The graphs' nodes and edges, typed: each one's strings checked at once (on both
//! cores), and only those that may hold a value walked as JSON and replaced. An
//! entity named by its name's hash (spec §11) whose name changed gets the new name's
//! id, with every reference to it.

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use smg_format::model::{Document, Edge, Graph, Node, NonEmpty};

use super::rules::{Kind, Rules};
use super::table::{self, Table};
use super::walk;
use crate::error::Result;
use crate::ingest::named::entity_id;

/// One graph's nodes and edges, taken out of the document while the rest of it is
/// walked as JSON.
pub(crate) struct Slot {
    /// The graph's JSON Pointer.
    at: String,
    /// The private context it belongs to (by its id as it was), if any.
    private: Option<String>,
    pub(crate) nodes: Option<Vec<Node>>,
    pub(crate) edges: Option<Vec<Edge>>,
}

/// Every graph's nodes and edges, taken out of `doc`.
pub(crate) fn take(doc: &mut Document) -> Vec<Slot> {
    let mut out = Vec::new();
    let one = |at: String, private: Option<String>, g: &mut Graph| Slot {
        at,
        private,
        nodes: g.nodes.take(),
        edges: g.edges.take(),
    };
    if let Some(g) = doc.semantic_graph.as_mut() {
        out.push(one("/semanticGraph".into(), None, g));
    }
    if let Some(g) = doc.shared_graph.as_mut() {
        out.push(one("/sharedGraph".into(), None, g));
    }
    for (id, ctx) in doc.private_contexts.iter_mut().flatten() {
        if let Some(g) = ctx.graph.as_mut() {
            let at = format!(
                "/privateContexts/{}/graph",
                id.replace('~', "~0").replace('/', "~1")
            );
            out.push(one(at, Some(id.clone()), g));
        }
    }
    out
}

/// The slots put back into `doc`, a private context's under its id as `key` gives it
/// now (redacted as every key is).
pub(crate) fn put_back(doc: &mut Document, slots: Vec<Slot>, key: &dyn Fn(&str) -> String) {
    for slot in slots {
        let graph = match &slot.private {
            None if slot.at == "/semanticGraph" => doc.semantic_graph.as_mut(),
            None => doc.shared_graph.as_mut(),
            Some(id) => doc
                .private_contexts
                .as_mut()
                .and_then(|m| m.get_mut(&key(id)))
                .and_then(|c| c.graph.as_mut()),
        };
        if let Some(g) = graph {
            g.nodes = slot.nodes;
            g.edges = slot.edges;
        }
    }
}

/// What a look at every node and edge found: whether each may hold a value (one flag
/// an item, nodes then edges of each slot in order).
pub(crate) struct Looked(Vec<(Vec<bool>, Vec<bool>)>);

/// Every node and edge of the slots looked at once, on both cores: the highest
/// placeholder numbers they hold go to `seen`.
pub(crate) fn look(
    slots: &[Slot],
    rules: &Rules,
    seen: &mut BTreeMap<Kind, u64>,
) -> Result<Looked> {
    let mut out = Vec::new();
    for slot in slots {
        let (nodes, n_seen) = look_at(slot.nodes.as_deref().unwrap_or_default(), rules)?;
        let (edges, e_seen) = look_at(slot.edges.as_deref().unwrap_or_default(), rules)?;
        for (k, n) in n_seen.into_iter().chain(e_seen) {
            table::raise(seen, k, n);
        }
        out.push((nodes, edges));
    }
    Ok(Looked(out))
}

fn look_at<T: Serialize + Sync>(
    items: &[T],
    rules: &Rules,
) -> Result<(Vec<bool>, BTreeMap<Kind, u64>)> {
    let each: Vec<(bool, BTreeMap<Kind, u64>)> = items
        .par_iter()
        .map(|item| {
            let json = serde_json::to_string(item).map_err(invalid)?;
            let mut seen = BTreeMap::new();
            table::note_placeholders(&json, &mut seen);
            let mut joined = String::with_capacity(json.len());
            walk::strings_of_json(&json, &mut joined);
            Ok((rules.may_hold(&joined), seen))
        })
        .collect::<Result<_>>()?;
    let mut seen = BTreeMap::new();
    let flags = each
        .into_iter()
        .map(|(worth, s)| {
            for (k, n) in s {
                table::raise(&mut seen, k, n);
            }
            worth
        })
        .collect();
    Ok((flags, seen))
}

/// Every node and edge of the slots redacted; the ids (before and after) of the nodes
/// that changed, and the nodes renamed (old id, new id).
pub(crate) fn redact(
    slots: &mut [Slot],
    looked: &Looked,
    rules: &Rules,
    table: &mut Table,
) -> Result<(HashSet<String>, HashMap<String, String>)> {
    let mut changed = HashSet::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut taken: HashSet<String> = slots
        .iter()
        .flat_map(|s| s.nodes.iter().flatten())
        .map(|n| n.id.as_str().to_string())
        .collect();
    for (slot, (node_flags, edge_flags)) in slots.iter_mut().zip(&looked.0) {
        let section = slot.at.split('/').nth(1).unwrap_or_default().to_string();
        let nodes = slot.nodes.as_deref_mut().unwrap_or_default();
        let at = format!("{}/nodes", slot.at);
        for i in each_changed(nodes, node_flags, rules, table, &section, &at)? {
            let node = &mut nodes[i.index];
            changed.insert(node.id.as_str().to_string());
            let old_label = i.label.as_deref();
            let named = old_label.is_some_and(|l| entity_id(l).as_str() == node.id.as_str());
            if let (true, Some(label)) = (named && node.label.as_deref() != old_label, &node.label)
            {
                let id = entity_id(label);
                if taken.insert(id.as_str().to_string()) {
                    renamed.insert(node.id.as_str().to_string(), id.as_str().to_string());
                    node.id = id;
                }
            }
            changed.insert(node.id.as_str().to_string());
        }
        let edges = slot.edges.as_deref_mut().unwrap_or_default();
        let at = format!("{}/edges", slot.at);
        each_changed(edges, edge_flags, rules, table, &section, &at)?;
    }
    if !renamed.is_empty() {
        rename(slots, &renamed);
    }
    Ok((changed, renamed))
}

/// One item changed: where, and its label before.
struct Changed {
    index: usize,
    label: Option<String>,
}

/// Each item of `items` whose strings a rule finds something in (of those `worth`
/// marks), redacted in place, in order.
fn each_changed<T>(
    items: &mut [T],
    worth: &[bool],
    rules: &Rules,
    table: &mut Table,
    section: &str,
    at: &str,
) -> Result<Vec<Changed>>
where
    T: Serialize + DeserializeOwned,
{
    let mut out = Vec::new();
    for (index, item) in items.iter_mut().enumerate().filter(|(i, _)| worth[*i]) {
        let mut value = serde_json::to_value(&*item).map_err(invalid)?;
        let label = value
            .get("label")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut tokens = vec![index.to_string()];
        let mut hit = false;
        walk::strings(&mut value, &mut tokens, &mut |s, place| {
            let new = table::redact(rules, table, s, section, &|| format!("{at}{}", place()));
            hit |= new.is_some();
            new
        });
        if hit {
            *item = serde_json::from_value(value).map_err(invalid)?;
            out.push(Changed { index, label });
        }
    }
    Ok(out)
}

/// Every reference to a renamed node in the slots (edges, related nodes) given the
/// new id.
fn rename(slots: &mut [Slot], renamed: &HashMap<String, String>) {
    let fix = |id: &mut NonEmpty| {
        if let Some(new) = renamed
            .get(id.as_str())
            .and_then(|n| NonEmpty::new(n.clone()).ok())
        {
            *id = new;
        }
    };
    for slot in slots.iter_mut() {
        for e in slot.edges.iter_mut().flatten() {
            fix(&mut e.from);
            fix(&mut e.to);
        }
        for n in slot.nodes.iter_mut().flatten() {
            for r in n.related_nodes.iter_mut().flatten() {
                if let Some(new) = renamed.get(r.as_str()) {
                    r.clone_from(new);
                }
            }
        }
    }
}

fn invalid(e: serde_json::Error) -> crate::Error {
    smg_format::Error::InvalidArgument(format!("share: a graph item: {e}")).into()
}
