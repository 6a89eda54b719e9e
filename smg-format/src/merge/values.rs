//! The merge of the documents' JSON values, member by member: one side's change
//! taken, the same change once, two changes of an authored field a conflict.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::derived::{self, DERIVED};
use super::{vault, Conflict, Ids, MergeReport, Side};
use crate::error::Result;
use crate::model::escape_pointer;

pub(super) struct Merger<'a> {
    pub(super) prefer: Option<Side>,
    pub(super) conflicts: Vec<Conflict>,
    /// Ids of the derived nodes of any of the three documents.
    pub(super) derived: Ids<'a>,
    pub(super) report: MergeReport,
}

impl Merger<'_> {
    pub(super) fn value(
        &mut self,
        ptr: &str,
        b: Option<&Value>,
        o: Option<&Value>,
        t: Option<&Value>,
    ) -> Result<Option<Value>> {
        if o == t || t == b {
            return Ok(o.cloned());
        }
        if o == b {
            return Ok(t.cloned());
        }
        if ptr == "/deepArchive/blocks" {
            // Rebuilt from the union of turns once the vault is merged (archive::write).
            return Ok(o.cloned());
        }
        if DERIVED.contains(&ptr) {
            // Computed from the archive: the merged archive gives them again.
            self.report.rederive = true;
            return Ok(o.cloned());
        }
        if let Some(v) = derived::score(ptr, b, o, t) {
            return Ok(v);
        }
        match (b, o, t) {
            (_, Some(Value::Object(oo)), Some(Value::Object(to))) => {
                let bo = b.and_then(Value::as_object);
                if is_artifact(ptr) {
                    return artifact(self, ptr, bo, oo, to).map(Some);
                }
                return Ok(Some(Value::Object(self.object(ptr, bo, oo, to)?)));
            }
            (_, Some(Value::Array(oa)), Some(Value::Array(ta))) => {
                let ba = b.and_then(Value::as_array).map(Vec::as_slice);
                // Items without their key (malformed) leave the whole list a conflict.
                let keyed = array_key(ptr).filter(|k| oa.iter().chain(ta).all(|v| k(v).is_some()));
                if let Some(key) = keyed {
                    return Ok(Some(Value::Array(self.keyed(ptr, key, ba, oa, ta)?)));
                }
                if let Some(set) = string_set(ba, oa, ta) {
                    return Ok(Some(set));
                }
            }
            (_, Some(Value::String(x)), Some(Value::String(y))) if ptr == "/metadata/modified" => {
                return Ok(Some(Value::String(derived::later(x, y).to_string())));
            }
            _ => {}
        }
        if IDENTITY.contains(&ptr) {
            // Two branches merged: the result stays on one of them, ours unless preferred.
            let side = self.prefer.unwrap_or(Side::Ours);
            return Ok(self.settle(ptr, b, o, t, Some(side)));
        }
        Ok(self.conflict(ptr, b, o, t))
    }

    pub(super) fn object(
        &mut self,
        ptr: &str,
        b: Option<&Map<String, Value>>,
        o: &Map<String, Value>,
        t: &Map<String, Value>,
    ) -> Result<Map<String, Value>> {
        let keys: BTreeSet<&String> = o
            .keys()
            .chain(t.keys())
            .chain(b.into_iter().flat_map(|m| m.keys()))
            .collect();
        let mut out = Map::new();
        for k in keys {
            let here = format!("{ptr}/{}", escape_pointer(k));
            let v = self.value(&here, b.and_then(|m| m.get(k)), o.get(k), t.get(k))?;
            if let Some(v) = v {
                out.insert(k.clone(), v);
            }
        }
        Ok(out)
    }

    /// An array of objects identified by `key`: the base's order for what it had, then
    /// what either side added, by key (the same whichever side is called ours).
    fn keyed(
        &mut self,
        ptr: &str,
        key: fn(&Value) -> Option<String>,
        b: Option<&[Value]>,
        o: &[Value],
        t: &[Value],
    ) -> Result<Vec<Value>> {
        let index = |items: &[Value]| -> BTreeMap<String, Value> {
            items
                .iter()
                .filter_map(|v| Some((key(v)?, v.clone())))
                .collect()
        };
        let (bi, oi, ti) = (index(b.unwrap_or_default()), index(o), index(t));
        let base_order = b.unwrap_or_default().iter().filter_map(key);
        let added: BTreeSet<&String> = oi
            .keys()
            .chain(ti.keys())
            .filter(|k| !bi.contains_key(*k))
            .collect();
        let order: Vec<String> = base_order.chain(added.into_iter().cloned()).collect();
        let mut out = Vec::with_capacity(order.len());
        let mut seen = BTreeSet::new();
        let nodes = ptr.ends_with("/nodes");
        for k in order {
            if !seen.insert(k.clone()) {
                continue;
            }
            let here = format!("{ptr}/{}", escape_pointer(&k));
            let (b, o, t) = (bi.get(&k), oi.get(&k), ti.get(&k));
            let derived = [b, o, t]
                .into_iter()
                .flatten()
                .any(|v| self.is_derived(v, nodes));
            let v = if derived {
                self.derived_item(b, o, t)
            } else {
                if nodes {
                    self.count_node(b, o, t);
                }
                self.value(&here, b, o, t)?
            };
            out.extend(v);
        }
        Ok(out)
    }

    /// Whether a node, or an edge between two nodes, is derived from the archive.
    fn is_derived(&self, v: &Value, node: bool) -> bool {
        let id = |k: &str| v.get(k).and_then(Value::as_str);
        if node {
            id("createdBy") == Some(crate::model::Node::DERIVED_BY)
        } else {
            [id("from"), id("to")]
                .iter()
                .all(|e| e.is_some_and(|e| self.derived.contains(e)))
        }
    }

    /// A derived item is built again from the merged archive: never a conflict.
    fn derived_item(
        &mut self,
        b: Option<&Value>,
        o: Option<&Value>,
        t: Option<&Value>,
    ) -> Option<Value> {
        if o == t || t == b {
            return o.cloned();
        }
        if o == b {
            return t.cloned();
        }
        self.report.rederive = true;
        o.or(t).cloned()
    }

    fn count_node(&mut self, b: Option<&Value>, o: Option<&Value>, t: Option<&Value>) {
        let changed = |x: Option<&Value>| x.is_some() && x != b;
        if b.is_some() && changed(o) && changed(t) && o != t {
            self.report.nodes_merged += 1;
        }
    }

    fn conflict(
        &mut self,
        ptr: &str,
        b: Option<&Value>,
        o: Option<&Value>,
        t: Option<&Value>,
    ) -> Option<Value> {
        self.settle(ptr, b, o, t, self.prefer)
    }

    /// Record a conflict and take `side`'s value (ours when unresolved).
    fn settle(
        &mut self,
        ptr: &str,
        b: Option<&Value>,
        o: Option<&Value>,
        t: Option<&Value>,
        side: Option<Side>,
    ) -> Option<Value> {
        self.conflicts.push(Conflict {
            pointer: ptr.to_string(),
            base: b.cloned(),
            ours: o.cloned(),
            theirs: t.cloned(),
            resolved: side,
        });
        match side {
            Some(Side::Theirs) => t.cloned(),
            _ => o.cloned(),
        }
    }
}

/// The fields that say which memory and branch a file is: when both sides changed them
/// (two forks), the merge keeps one side's (a settled conflict), never an unresolved one.
const IDENTITY: [&str; 3] = ["/metadata/id", "/metadata/branch", "/metadata/lineage"];

/// Whether `ptr` is one artifact of the vault: `/artifactVault/artifacts/ID`.
fn is_artifact(ptr: &str) -> bool {
    ptr.strip_prefix("/artifactVault/artifacts/")
        .is_some_and(|rest| !rest.contains('/'))
}

/// The identity of the items of a keyed array at `ptr`: nodes by id, edges by
/// from, relation and to, curation's audit entries and cycles by time and id, links
/// by name.
fn array_key(ptr: &str) -> Option<fn(&Value) -> Option<String>> {
    if ptr == "/curation/audit" || ptr == "/curation/cycles" {
        return Some(curation_key);
    }
    if ptr == "/metadata/links" {
        return Some(|v| Some(v.get("name")?.as_str()?.to_string()));
    }
    let graph = ptr.rsplit_once('/').map(|(parent, _)| parent)?;
    let is_graph = graph == "/semanticGraph"
        || graph == "/sharedGraph"
        || (graph.starts_with("/privateContexts/") && graph.ends_with("/graph"));
    if !is_graph {
        return None;
    }
    if ptr.ends_with("/nodes") {
        return Some(|v| Some(v.get("id")?.as_str()?.to_string()));
    }
    if ptr.ends_with("/edges") {
        return Some(|v| {
            let f = |k: &str| v.get(k).and_then(Value::as_str);
            Some(format!("{}|{}|{}", f("from")?, f("relation")?, f("to")?))
        });
    }
    None
}

/// Curation's audit entries and cycles (spec §18.8) by id, in an order that sorts the
/// ones either side added by time, then by their number within their cycle, so that
/// a cycle's entries stay in the sequence restore undoes them in.
fn curation_key(v: &Value) -> Option<String> {
    let id = v.get("id")?.as_str()?;
    let at = v.get("at")?.as_str()?;
    let (prefix, n) = id
        .rsplit_once('/')
        .and_then(|(p, n)| Some((p, n.parse::<u64>().ok()?)))
        .unwrap_or((id, 0));
    Some(format!("{at}|{prefix}|{n:020}"))
}

/// Lists of distinct strings merge as sets: the base's order for what both kept, then
/// what either side added, sorted. `None` when the lists are not such lists.
fn string_set(b: Option<&[Value]>, o: &[Value], t: &[Value]) -> Option<Value> {
    let set = |items: &[Value]| -> Option<BTreeSet<String>> {
        let s: BTreeSet<String> = items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()?;
        (s.len() == items.len()).then_some(s)
    };
    let (bs, os, ts) = (set(b.unwrap_or_default())?, set(o)?, set(t)?);
    let kept = |s: &String| os.contains(s) && ts.contains(s);
    let base_part = b
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .filter(|s| kept(&s.to_string()));
    let added: BTreeSet<&String> = os
        .iter()
        .chain(ts.iter())
        .filter(|s| !bs.contains(*s))
        .collect();
    Some(Value::Array(
        base_part
            .map(str::to_string)
            .chain(added.into_iter().cloned())
            .map(Value::String)
            .collect(),
    ))
}

/// Merge one artifact. The versions both sides share (a common prefix) stay as they
/// are; when only one side added versions they are taken verbatim; when both did, the
/// new versions of both (once per content) follow in time order, numbered on.
fn artifact(
    m: &mut Merger,
    ptr: &str,
    b: Option<&Map<String, Value>>,
    o: &Map<String, Value>,
    t: &Map<String, Value>,
) -> Result<Value> {
    let fields = |x: &Map<String, Value>| {
        let mut c = x.clone();
        c.remove("versions");
        c.remove("hash");
        c
    };
    let bf = b.map(fields);
    let mut out = m.object(ptr, bf.as_ref(), &fields(o), &fields(t))?;
    let (ov, tv) = (vault::versions(o), vault::versions(t));
    let prefix = ov.iter().zip(tv).take_while(|(x, y)| x == y).count();
    let (list, hash) = if prefix == ov.len() || prefix == tv.len() {
        let side = if prefix == ov.len() { t } else { o };
        let hash = if ov == tv {
            let bh = b.and_then(|b| b.get("hash"));
            m.value(&format!("{ptr}/hash"), bh, o.get("hash"), t.get("hash"))?
        } else {
            side.get("hash").cloned()
        };
        (Value::Array(vault::versions(side).to_vec()), hash)
    } else {
        let id = ptr
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        let name = out
            .get("filename")
            .and_then(Value::as_str)
            .map(str::to_string);
        let (list, hash) = vault::union(&id, name, o, t, prefix)?;
        (list, Some(Value::String(hash)))
    };
    out.insert("versions".into(), list);
    if let Some(hash) = hash {
        out.insert("hash".into(), hash);
    }
    Ok(Value::Object(out))
}
