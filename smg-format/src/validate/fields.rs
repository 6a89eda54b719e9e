//! The JSON Schema's constraints checked on the typed document, without building its
//! JSON: what a writer runs before it replaces a file (a few milliseconds where the
//! schema over JSON takes a second). Serde already gives the schema's types and
//! required members, and the model's values hold their own constraints (roles, ids,
//! types, relations, branches; scores; numbers from 1; hashes and digests; times;
//! turn ranges). What is left is held here, field by field: the document's type and
//! version, a compression ratio, sealed sections' ids and kinds, list lengths and
//! finite vectors. Members
//! the model keeps as JSON (unknown members, `source`, a node's `metadata`) are
//! checked by the schema itself, each against its own definition. `tests` holds this
//! against the schema.

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

/// The most retrievals a node keeps (spec §18.2).
const MAX_ACCESSES: usize = 64;

#[derive(Default)]
struct Fields {
    findings: Vec<Finding>,
}

impl Fields {
    fn push(&mut self, code: &'static str, at: impl FnOnce() -> String, message: String) {
        self.findings.push(Finding::error(code, at(), message));
    }

    fn number(
        &mut self,
        at: impl FnOnce() -> String,
        value: Option<f64>,
        min: f64,
        max: Option<f64>,
    ) {
        let Some(v) = value else { return };
        if !v.is_finite() {
            // JSON has no NaN or infinity: serde_json writes `null`.
            self.push("SMG-E101", at, format!("{v} is not a JSON number"));
        } else if v < min {
            self.push(
                "SMG-E103",
                at,
                format!("{v} is less than the minimum of {min}"),
            );
        } else if let Some(max) = max.filter(|m| v > *m) {
            self.push(
                "SMG-E103",
                at,
                format!("{v} is greater than the maximum of {max}"),
            );
        }
    }

    fn pattern(&mut self, at: impl FnOnce() -> String, value: &str, ok: bool, pattern: &str) {
        if !ok {
            self.push(
                "SMG-E104",
                at,
                format!("{value:?} does not match \"{pattern}\""),
            );
        }
    }

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
        if doc.kind != "SemanticMemoryGraph" {
            let kind = &doc.kind;
            let message = format!("{kind:?} is not \"SemanticMemoryGraph\"");
            self.push("SMG-E102", || "/@type".into(), message);
        }
        if !matches!(
            doc.context,
            Value::String(_) | Value::Object(_) | Value::Array(_)
        ) {
            let message = "the context is not a string, an object or an array".into();
            self.push("SMG-E109", || "/@context".into(), message);
        }
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
        let version = &doc.version;
        let ok = version_pattern(version);
        self.pattern(|| "/version".into(), version, ok, "^1(\\.[0-9]+){0,2}$");
        self.metadata(doc);
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

    fn metadata(&mut self, doc: &Document) {
        let m = &doc.metadata;
        self.number(
            || "/metadata/compressionRatio".into(),
            m.compression_ratio,
            0.0,
            None,
        );
        self.json("/metadata", "metadata", [], &m.extra);
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
        let Some(list) = accesses else { return };
        if list.len() > MAX_ACCESSES {
            self.push(
                "SMG-E109",
                || format!("{at}/recentAccesses"),
                format!("{} items is more than {MAX_ACCESSES}", list.len()),
            );
        }
        for (i, a) in list.iter().enumerate() {
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
        if a.versions.is_empty() {
            self.push(
                "SMG-E109",
                || format!("{at}/versions"),
                "[] has less than 1 item".into(),
            );
        }
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
            if let Some(k) = e.vector.iter().position(|x| !x.is_finite()) {
                self.push(
                    "SMG-E101",
                    || format!("{at}/embeddings/{i}/vector/{k}"),
                    format!("{} is not a JSON number", e.vector[k]),
                );
            }
            self.json(&format!("{at}/embeddings/{i}"), EMBEDDING, [], &e.extra);
        }
        self.json(at, "vectorIndex", [], &v.extra);
    }

    fn sealed(&mut self, doc: &Document) {
        for (i, s) in doc.sealed_sections.iter().flatten().enumerate() {
            let at = format!("/sealedSections/{i}");
            let id_ok = ["private:", "tier:"]
                .iter()
                .any(|p| s.id.strip_prefix(p).is_some_and(|r| !r.is_empty()));
            self.pattern(|| format!("{at}/id"), &s.id, id_ok, "^(private|tier):.+$");
            if !matches!(s.kind.as_str(), "privateContext" | "tier") {
                self.push(
                    "SMG-E102",
                    || format!("{at}/kind"),
                    format!("{:?} is not one of \"privateContext\" or \"tier\"", s.kind),
                );
            }
            self.json(&at, "sealedSection", [], &s.extra);
        }
    }
}

fn version_pattern(v: &str) -> bool {
    let mut parts = v.split('.');
    parts.next() == Some("1")
        && parts.clone().count() <= 2
        && parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
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
