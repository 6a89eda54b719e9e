//! The semantic difference of two documents: nodes and edges added, removed and
//! changed field by field (in every graph), artifact versions added, archive turns
//! added, working-memory and metadata fields changed, and any other section changed.
//!
//! ```
//! use smg_format::{diff::diff, model::{Graph, Node, NonEmpty}, Document};
//! let a = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let mut b = a.clone();
//! b.semantic_graph = Some(Graph {
//!     nodes: Some(vec![Node::new(NonEmpty::from_static("n1"), NonEmpty::from_static("concept"))]),
//!     ..Graph::default()
//! });
//! let d = diff(&a, &b);
//! assert_eq!(d.nodes_added, ["n1"]);
//! assert!(diff(&a, &a).is_empty());
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::archive::parse_turn_range;
use crate::model::{BlockData, DeepArchive, Document, Edge, Node, Sha256Ref, TurnRange};

/// One field that differs: its value before and after (`None` when absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FieldChange {
    /// The field's name as in the file.
    pub field: String,
    /// Before.
    pub before: Option<Value>,
    /// After.
    pub after: Option<Value>,
}

/// An edge's identity: from, relation, to.
pub type EdgeKey = (String, String, String);

/// What changed from one document to another.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DocDiff {
    /// Metadata fields changed.
    pub metadata: Vec<FieldChange>,
    /// Working-memory fields changed.
    pub working_memory: Vec<FieldChange>,
    /// Node ids only in the second document.
    pub nodes_added: Vec<String>,
    /// Node ids only in the first.
    pub nodes_removed: Vec<String>,
    /// Nodes in both whose fields differ.
    pub nodes_changed: Vec<(String, Vec<FieldChange>)>,
    /// Edges only in the second document.
    pub edges_added: Vec<EdgeKey>,
    /// Edges only in the first.
    pub edges_removed: Vec<EdgeKey>,
    /// Edges in both whose fields differ.
    pub edges_changed: Vec<(EdgeKey, Vec<FieldChange>)>,
    /// Artifacts only in the second document.
    pub artifacts_added: Vec<String>,
    /// Artifacts only in the first.
    pub artifacts_removed: Vec<String>,
    /// (artifact, version) pairs only in the second document.
    pub versions_added: Vec<(String, u64)>,
    /// Archive turn numbers only in the second document, as inclusive ranges.
    pub turns_added: Vec<(u64, u64)>,
    /// Archive turn numbers only in the first, as inclusive ranges.
    pub turns_removed: Vec<(u64, u64)>,
    /// Other top-level sections that differ (e.g. `collaborators`, `sealedSections`).
    pub sections_changed: Vec<String>,
}

impl DocDiff {
    /// Whether the documents are the same.
    pub fn is_empty(&self) -> bool {
        *self == DocDiff::default()
    }
}

/// The semantic difference from `a` to `b`.
pub fn diff(a: &Document, b: &Document) -> DocDiff {
    let mut d = DocDiff {
        metadata: fields(&json(&a.metadata), &json(&b.metadata)),
        working_memory: fields(&json(&a.working_memory), &json(&b.working_memory)),
        ..DocDiff::default()
    };
    graphs(a, b, &mut d);
    vault(a, b, &mut d);
    let (ta, tb) = (turns(a), turns(b));
    d.turns_added = ranges(tb.difference(&ta).copied());
    d.turns_removed = ranges(ta.difference(&tb).copied());
    let (oa, ob) = (other_sections(a), other_sections(b));
    for key in oa.keys().chain(ob.keys()).collect::<BTreeSet<_>>() {
        let (x, y) = (oa.get(key), ob.get(key));
        // Turns added or removed are listed above; a block whose turn range stayed
        // while its data changed is a change of the archive.
        let same = x == y && (key != "deepArchive" || !rewritten_block(a, b));
        if !same {
            d.sections_changed.push(key.clone());
        }
    }
    d
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn keys(a: &Value, b: &Value) -> BTreeSet<String> {
    let of = |v: &Value| {
        v.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    of(a).into_iter().chain(of(b)).collect()
}

/// The document's top-level members but those compared item by item (metadata,
/// working memory, the graphs, the vault) and the archive's blocks (compared by their
/// turns), as JSON: each member alone, so that the whole document is never turned into
/// one `Value` (a million-turn memory's took gigabytes).
fn other_sections(doc: &Document) -> BTreeMap<String, Value> {
    // Taken apart whole, so that a member added to `Document` is not left out unseen.
    let Document {
        context,
        kind,
        version,
        deep_archive,
        collaborators,
        sealed_sections,
        curation,
        extra,
        metadata: _,
        working_memory: _,
        semantic_graph: _,
        artifact_vault: _,
        shared_graph: _,
        private_contexts: _,
    } = doc;
    let archive = deep_archive.as_ref().map(|a| DeepArchive {
        blocks: None,
        compression_method: a.compression_method,
        vector_index: a.vector_index.clone(),
        extra: a.extra.clone(),
    });
    let members = [
        ("@context", json(context)),
        ("@type", json(kind)),
        ("version", json(version)),
        ("deepArchive", json(&archive)),
        ("collaborators", json(collaborators)),
        ("sealedSections", json(sealed_sections)),
        ("curation", json(curation)),
    ];
    let extra = extra.iter().map(|(k, v)| (k.clone(), v.clone()));
    members
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.to_string(), v))
        .chain(extra)
        .collect()
}

/// Field-by-field changes of two JSON objects (a whole value when not objects).
fn fields(a: &Value, b: &Value) -> Vec<FieldChange> {
    if a == b {
        return Vec::new();
    }
    if !(a.is_object() || a.is_null()) || !(b.is_object() || b.is_null()) {
        return vec![FieldChange {
            field: String::new(),
            before: Some(a.clone()),
            after: Some(b.clone()),
        }];
    }
    keys(a, b)
        .into_iter()
        .filter_map(|k| {
            let (x, y) = (a.get(&k), b.get(&k));
            (x != y).then(|| FieldChange {
                field: k,
                before: x.cloned(),
                after: y.cloned(),
            })
        })
        .collect()
}

fn graphs(a: &Document, b: &Document, d: &mut DocDiff) {
    // Borrowed: two large graphs are compared without a copy of either.
    fn nodes(doc: &Document) -> BTreeMap<&str, &Node> {
        doc.graphs()
            .into_iter()
            .flat_map(|(_, g)| g.nodes.iter().flatten())
            .map(|n| (n.id.as_str(), n))
            .collect()
    }
    fn edges(doc: &Document) -> BTreeMap<(&str, &str, &str), &Edge> {
        doc.graphs()
            .into_iter()
            .flat_map(|(_, g)| g.edges.iter().flatten())
            .map(|e| ((e.from.as_str(), e.relation.as_str(), e.to.as_str()), e))
            .collect()
    }
    let node_id = |k: &&str| k.to_string();
    (d.nodes_added, d.nodes_removed, d.nodes_changed) = keyed(&nodes(a), &nodes(b), node_id);
    let edge_key = |(f, r, t): &(&str, &str, &str)| -> EdgeKey {
        (f.to_string(), r.to_string(), t.to_string())
    };
    (d.edges_added, d.edges_removed, d.edges_changed) = keyed(&edges(a), &edges(b), edge_key);
}

/// Keys only in `b`, keys only in `a`, and the field changes of values in both.
type Keyed<K> = (Vec<K>, Vec<K>, Vec<(K, Vec<FieldChange>)>);

/// [`Keyed`] of two maps, their keys made owned by `own`.
fn keyed<K: Ord, V: PartialEq + Serialize, O>(
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
    own: impl Fn(&K) -> O,
) -> Keyed<O> {
    let mut out: Keyed<O> = (Vec::new(), Vec::new(), Vec::new());
    for (k, v) in b {
        match a.get(k) {
            None => out.0.push(own(k)),
            Some(old) if old != v => out.2.push((own(k), fields(&json(old), &json(v)))),
            Some(_) => {}
        }
    }
    out.1 = a.keys().filter(|k| !b.contains_key(*k)).map(own).collect();
    out
}

fn vault<'a>(a: &'a Document, b: &'a Document, d: &mut DocDiff) {
    let none = BTreeMap::new();
    let arts = |doc: &'a Document| {
        doc.artifact_vault
            .as_ref()
            .and_then(|v| v.artifacts.as_ref())
            .unwrap_or(&none)
    };
    let (aa, ab) = (arts(a), arts(b));
    for (id, art) in ab {
        let old: BTreeSet<(u64, Option<&Sha256Ref>)> = aa
            .get(id)
            .map(|o| {
                o.versions
                    .iter()
                    .map(|v| (v.v.get(), v.hash.as_ref()))
                    .collect()
            })
            .unwrap_or_default();
        if !aa.contains_key(id) {
            d.artifacts_added.push(id.clone());
        }
        for v in &art.versions {
            if !old.contains(&(v.v.get(), v.hash.as_ref())) {
                d.versions_added.push((id.clone(), v.v.get()));
            }
        }
    }
    d.artifacts_removed = aa
        .keys()
        .filter(|id| !ab.contains_key(*id))
        .cloned()
        .collect();
}

/// The turn numbers the archive's blocks hold (from their ranges).
fn turns(doc: &Document) -> BTreeSet<u64> {
    doc.deep_archive
        .iter()
        .flat_map(|a| a.blocks())
        .filter_map(|b| parse_turn_range(&b.turn_range))
        .flat_map(|(first, last)| first..=last)
        .collect()
}

fn ranges(numbers: impl Iterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for n in numbers {
        match out.last_mut() {
            Some(r) if r.1 + 1 == n => r.1 = n,
            _ => out.push((n, n)),
        }
    }
    out
}

/// Whether a block of the same id and turn range holds other data in `b`.
fn rewritten_block(a: &Document, b: &Document) -> bool {
    fn blocks(d: &Document) -> BTreeMap<u64, (&TurnRange, &BlockData)> {
        d.deep_archive
            .iter()
            .flat_map(|x| x.blocks())
            .map(|k| (k.id, (&k.turn_range, &k.compressed_data)))
            .collect()
    }
    let (ba, bb) = (blocks(a), blocks(b));
    ba.iter()
        .any(|(id, (range, data))| bb.get(id).is_some_and(|(r, d)| r == range && d != data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{append_turns, tests::turn, ArchiveOptions};
    use crate::model::{Graph, WorkingMemory};
    use crate::test_support::node;

    #[test]
    fn nodes_edges_turns_and_fields() {
        let mut a = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        a.semantic_graph = Some(Graph {
            nodes: Some(vec![node("x", "X"), node("y", "Y")]),
            edges: Some(vec![Edge::new(
                crate::model::NonEmpty::from_static("x"),
                crate::model::NonEmpty::from_static("requires"),
                crate::model::NonEmpty::from_static("y"),
            )]),
            ..Graph::default()
        });
        append_turns(
            &mut a,
            &[turn(1, "one"), turn(2, "two")],
            &ArchiveOptions::default(),
        )
        .unwrap();
        let mut b = a.clone();
        assert!(diff(&a, &b).is_empty());
        let g = b.semantic_graph.as_mut().unwrap();
        g.nodes.as_mut().unwrap()[0].label = Some("X2".into());
        g.nodes.as_mut().unwrap().remove(1);
        g.nodes.as_mut().unwrap().push(node("z", "Z"));
        g.edges.as_mut().unwrap()[0].strength = Some(crate::model::Unit::clamped(0.5));
        append_turns(
            &mut b,
            &[turn(3, "three"), turn(4, "four")],
            &ArchiveOptions::default(),
        )
        .unwrap();
        b.metadata.modified = Some(crate::model::Timestamp::from_static("2025-02-01T00:00:00Z"));
        b.working_memory = Some(WorkingMemory {
            summary: Some("new".into()),
            ..WorkingMemory::default()
        });
        let d = diff(&a, &b);
        assert_eq!(d.nodes_added, ["z"]);
        assert_eq!(d.nodes_removed, ["y"]);
        assert_eq!(d.nodes_changed.len(), 1);
        assert_eq!(d.nodes_changed[0].1[0].field, "label");
        assert_eq!(d.edges_changed[0].1[0].field, "strength");
        assert_eq!(d.turns_added, [(3, 4)]);
        assert!(d.turns_removed.is_empty());
        assert_eq!(d.metadata[0].field, "modified");
        assert_eq!(d.working_memory[0].field, "summary");
        assert!(d.sections_changed.is_empty(), "{:?}", d.sections_changed);
        let mut edited = b.clone();
        let blocks = edited
            .deep_archive
            .as_mut()
            .unwrap()
            .blocks
            .as_mut()
            .unwrap();
        blocks[0].compressed_data = crate::archive::encode_turns(
            &[
                turn(1, "ONE"),
                turn(2, "TWO"),
                turn(3, "three"),
                turn(4, "four"),
            ],
            5,
        )
        .unwrap();
        assert_eq!(diff(&b, &edited).sections_changed, ["deepArchive"]);
        let back = diff(&b, &a);
        assert_eq!(back.nodes_added, ["y"]);
        assert_eq!(back.turns_removed, [(3, 4)]);
    }

    #[test]
    fn other_sections_are_compared_member_by_member() {
        let mut a = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        append_turns(&mut a, &[turn(1, "one")], &ArchiveOptions::default()).unwrap();
        a.extra
            .insert("zFuture".into(), serde_json::json!({"n": 1}));
        let mut b = a.clone();
        assert!(diff(&a, &b).is_empty());
        b.extra
            .insert("zFuture".into(), serde_json::json!({"n": 2}));
        b.extra.insert("aNew".into(), serde_json::json!([]));
        b.deep_archive
            .as_mut()
            .unwrap()
            .extra
            .insert("note".into(), serde_json::json!("x"));
        b.collaborators = Some(Vec::new());
        let d = diff(&a, &b);
        assert_eq!(
            d.sections_changed,
            ["aNew", "collaborators", "deepArchive", "zFuture"]
        );
        assert!(d.turns_added.is_empty() && d.nodes_added.is_empty());
        b.deep_archive = None;
        assert!(diff(&b, &a)
            .sections_changed
            .contains(&"deepArchive".to_string()));
    }

    #[test]
    fn artifact_versions_added() {
        let mut a = Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        let code = |v: u32| format!("```rust src/a.rs\nfn a() {{\n    {v};\n}}\n// end\n```");
        append_turns(&mut a, &[turn(1, &code(1))], &ArchiveOptions::default()).unwrap();
        let mut b = a.clone();
        append_turns(&mut b, &[turn(2, &code(2))], &ArchiveOptions::default()).unwrap();
        let d = diff(&a, &b);
        assert!(d.artifacts_added.is_empty());
        assert_eq!(d.versions_added.len(), 1);
        assert_eq!(d.versions_added[0].1, 2);
    }
}
