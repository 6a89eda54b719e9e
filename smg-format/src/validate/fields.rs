//! The JSON Schema's constraints checked on the typed document, without building its
//! JSON: what a writer runs before it replaces a file (a few milliseconds where the
//! schema over JSON takes a second). Serde already gives the schema's types and
//! required members, and the model's values hold every constraint of the fields it
//! types (see [`crate::model`]). What is left is the JSON the model keeps as it is —
//! unknown members, `source`, a node's `metadata`, the curation section — checked by
//! the schema itself, each against its own definition. `tests` holds the types and
//! this check against the schema.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use super::schema::{self, EMBEDDING, TIME_RANGE};
use super::Finding;
use crate::model::{
    escape_pointer, Access, Artifact, Block, DeepArchive, Document, Edge, Graph, Node, Provenance,
    Turn, VectorIndex,
};

/// Every constraint of the schema the typed `doc` can break, as the schema reports it.
pub(crate) fn check(doc: &Document) -> Vec<Finding> {
    let mut c = Fields::default();
    c.leading(doc);
    c.rest(doc);
    c.findings
}

#[derive(Default)]
struct Fields {
    findings: Vec<Finding>,
}

impl Fields {
    /// The members the model keeps as JSON, checked against definition `def`, with the
    /// definition's required members given placeholder values.
    fn json(
        &mut self,
        at: &str,
        def: &'static str,
        members: impl IntoIterator<Item = (&'static str, Option<Value>)>,
        extra: &Map<String, Value>,
    ) {
        let mut stub = placeholder(def);
        let mut any = false;
        for (k, v) in members.into_iter().filter_map(|(k, v)| Some((k, v?))) {
            stub.insert(k.to_string(), v);
            any = true;
        }
        if extra.is_empty() && !any {
            return;
        }
        stub.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        let value = Value::Object(stub);
        for mut f in schema::check_against(def, &value) {
            f.pointer = format!("{at}{}", f.pointer);
            self.findings.push(f);
        }
    }

    fn leading(&mut self, doc: &Document) {
        if let Some(v) = &doc.artifact_vault {
            for (id, a) in v.artifacts.iter().flatten() {
                self.artifact(
                    &format!("/artifactVault/artifacts/{}", escape_pointer(id)),
                    a,
                );
            }
            self.json("/artifactVault", "artifactVault", [], &v.extra);
        }
        for (i, c) in doc.collaborators.iter().flatten().enumerate() {
            self.json(&format!("/collaborators/{i}"), "collaborator", [], &c.extra);
        }
        if let Some(a) = &doc.deep_archive {
            self.archive(a);
        }
    }

    fn rest(&mut self, doc: &Document) {
        self.json("/metadata", "metadata", [], &doc.metadata.extra);
        if let Some(w) = &doc.working_memory {
            for (i, t) in w.recent_context.iter().flatten().enumerate() {
                self.turn(&format!("/workingMemory/recentContext/{i}"), t);
            }
            self.json("/workingMemory", "workingMemory", [], &w.extra);
        }
        for (at, g) in doc.graphs() {
            self.graph(&at, g);
        }
        for (id, p) in doc.private_contexts.iter().flatten() {
            let at = format!("/privateContexts/{}", escape_pointer(id));
            self.json(&at, "privateContext", [], &p.extra);
        }
        self.sealed(doc);
        self.curation(doc);
    }

    /// A turn's role and importance are held by their types ([`crate::model::NonEmpty`],
    /// [`crate::model::Unit`]).
    fn turn(&mut self, at: &str, t: &Turn) {
        self.json(at, "turn", [], &t.extra);
    }

    fn graph(&mut self, at: &str, g: &Graph) {
        for (i, n) in g.nodes().iter().enumerate() {
            self.node(&format!("{at}/nodes/{i}"), n);
        }
        for (i, e) in g.edges.iter().flatten().enumerate() {
            self.edge(&format!("{at}/edges/{i}"), e);
        }
        self.json(at, "graph", [], &g.extra);
    }

    /// A node's id, type and status ([`crate::model::NonEmpty`]), its confidence and
    /// importance ([`crate::model::Unit`]) are held by their types.
    fn node(&mut self, at: &str, n: &Node) {
        self.accesses(at, n.recent_accesses.as_deref());
        self.provenance(at, n.provenance.as_deref());
        self.json(at, "node", [("metadata", n.metadata.clone())], &n.extra);
    }

    /// An edge's ends, relation and strength are held by their types.
    fn edge(&mut self, at: &str, e: &Edge) {
        self.provenance(at, e.provenance.as_deref());
        self.json(at, "edge", [], &e.extra);
    }

    fn accesses(&mut self, at: &str, accesses: Option<&[Access]>) {
        for (i, a) in accesses.into_iter().flatten().enumerate() {
            self.json(&format!("{at}/recentAccesses/{i}"), "access", [], &a.extra);
        }
    }

    /// The curation section is small and mostly snapshots: the schema checks its JSON.
    fn curation(&mut self, doc: &Document) {
        let Some(c) = &doc.curation else { return };
        let value = serde_json::to_value(c).unwrap_or(Value::Null);
        for mut f in schema::check_against("curation", &value) {
            f.pointer = format!("/curation{}", f.pointer);
            self.findings.push(f);
        }
    }

    fn provenance(&mut self, at: &str, provenance: Option<&[Provenance]>) {
        for (i, p) in provenance.into_iter().flatten().enumerate() {
            self.json(&format!("{at}/provenance/{i}"), "provenance", [], &p.extra);
        }
    }

    /// An artifact's type and hashes are held by their types ([`crate::model::Sha256Ref`]).
    fn artifact(&mut self, at: &str, a: &Artifact) {
        for (i, v) in a.versions.iter().enumerate() {
            let at = format!("{at}/versions/{i}");
            self.json(&at, "artifactVersion", [], &v.extra);
        }
        self.json(at, "artifact", [], &a.extra);
    }

    fn archive(&mut self, a: &DeepArchive) {
        for (i, b) in a.blocks.iter().flatten().enumerate() {
            self.block(&format!("/deepArchive/blocks/{i}"), b);
        }
        if let Some(v) = &a.vector_index {
            self.vectors(v);
        }
        self.json("/deepArchive", "deepArchive", [], &a.extra);
    }

    fn block(&mut self, at: &str, b: &Block) {
        if let Some(t) = &b.time_range {
            self.json(&format!("{at}/timeRange"), TIME_RANGE, [], &t.extra);
        }
        self.json(at, "block", [], &b.extra);
    }

    fn vectors(&mut self, v: &VectorIndex) {
        let at = "/deepArchive/vectorIndex";
        for (i, e) in v.embeddings.iter().flatten().enumerate() {
            self.json(&format!("{at}/embeddings/{i}"), EMBEDDING, [], &e.extra);
        }
        self.json(at, "vectorIndex", [], &v.extra);
    }

    fn sealed(&mut self, doc: &Document) {
        for (i, s) in doc.sealed_sections.iter().flatten().enumerate() {
            let at = format!("/sealedSections/{i}");
            self.json(&at, "sealedSection", [], &s.extra);
        }
    }
}

/// An object holding valid values for the required members of definition `def`, so
/// that a check of other members reports only on them.
fn placeholder(def: &str) -> Map<String, Value> {
    static STUBS: OnceLock<HashMap<&'static str, Value>> = OnceLock::new();
    let stubs = STUBS.get_or_init(|| {
        let hash = format!("sha256:{}", "0".repeat(64));
        HashMap::from([
            ("metadata", json!({"created": "1970-01-01T00:00:00Z"})),
            ("turn", json!({"turn": 1, "role": "user", "content": ""})),
            ("node", json!({"id": "n", "type": "concept"})),
            ("edge", json!({"from": "a", "to": "b", "relation": "r"})),
            ("artifact", json!({"type": "code", "hash": hash, "versions": [{"v": 1}]})),
            ("artifactVersion", json!({"v": 1})),
            ("block", json!({"id": 0, "turnRange": "1", "compressedData": ""})),
            ("vectorIndex", json!({"enabled": true})),
            (EMBEDDING, json!({"vector": []})),
            (TIME_RANGE, json!({"start": "1970-01-01T00:00:00Z", "end": "1970-01-01T00:00:00Z"})),
            ("collaborator", json!({"id": "c"})),
            ("sealedSection", json!({"id": "tier:x", "kind": "tier", "size": 0, "ciphertext": "",
                "encryption": {"kdf": "k", "iterations": 1, "salt": "", "nonce": "", "keyCheck": ""}})),
        ])
    });
    match stubs.get(def) {
        Some(Value::Object(o)) => o.clone(),
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests;
