//! Checks a schema cannot express: references, uniqueness, time, governance, and
//! that every artifact version and archive block actually decodes.

use std::collections::HashSet;

use rayon::prelude::*;

use super::provenance::Archived;
use super::Finding;
use crate::archive::{decode_block, parse_turn_range};
use crate::limits::Limits;
use crate::model::{
    escape_pointer, Block, DateOrTime, DeepArchive, Document, Edge, Node, Ordinal, Provenance,
    Scope, Turn,
};
use crate::vault::{content_hash, rebuild_versions};

const NODE_TYPES: &[&str] = &[
    "concept", "decision", "artifact", "problem", "solution", "entity", "memory", "segment",
];
const RELATIONS: &[&str] = &[
    "requires",
    "requires_decision",
    "causes",
    "implements",
    "related_to",
    "resulted_in",
    "mentions",
    "references",
    "supersedes",
    "replaces",
    "clarifies",
    "next",
    "part_of",
];
const ROLES: &[&str] = &["user", "assistant", "system", "tool"];
const ARTIFACT_TYPES: &[&str] = &["code", "document", "canvas", "data"];

struct Checker<'a> {
    doc: &'a Document,
    limits: &'a Limits,
    out: Vec<Finding>,
    node_ids: HashSet<&'a str, foldhash::fast::FixedState>,
    /// Every provenance of a node or edge, with its pointer: checked against the
    /// archive once it is read.
    provenances: Vec<(String, &'a Provenance)>,
    archived: Archived,
}

type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// The block each archived turn was first seen in, by turn number.
type Seen = Map<u64, u64>;

/// How many archive blocks are decoded side by side.
const DECODED_TOGETHER: usize = 32;

pub(crate) fn check(doc: &Document, limits: &Limits) -> Vec<Finding> {
    let mut c = Checker {
        doc,
        limits,
        out: Vec::new(),
        node_ids: HashSet::default(),
        provenances: Vec::new(),
        archived: Archived::default(),
    };
    c.version();
    c.graphs();
    c.working_memory();
    c.vault();
    c.archive();
    for (ptr, p) in &c.provenances {
        c.archived.check(ptr, p, &mut c.out);
    }
    c.collaborators();
    c.curation();
    c.out
}

impl<'a> Checker<'a> {
    fn err(&mut self, code: &'static str, ptr: String, msg: String) {
        self.out.push(Finding::error(code, ptr, msg));
    }

    fn warn(&mut self, code: &'static str, ptr: String, msg: String) {
        self.out.push(Finding::warning(code, ptr, msg));
    }

    fn version(&mut self) {
        if self.doc.version.minor() > 0 {
            let v = &self.doc.version;
            self.warn("SMG-W005", "/version".into(), format!(
                "written for format {v}, newer than this reader's 1.0: unknown fields are kept but not checked"
            ));
        }
    }

    /// Audit and cycle ids used once each.
    fn curation(&mut self) {
        let Some(c) = &self.doc.curation else { return };
        let mut ids = HashSet::new();
        for (i, e) in c.audit.iter().flatten().enumerate() {
            if !ids.insert(e.id.as_str()) {
                let msg = format!("audit entry id `{}` is used twice", e.id);
                self.err("SMG-E127", format!("/curation/audit/{i}/id"), msg);
            }
        }
        let mut ids = HashSet::new();
        for (i, s) in c.cycles.iter().flatten().enumerate() {
            if !ids.insert(s.id.as_str()) {
                let msg = format!("cycle id `{}` is used twice", s.id);
                self.err("SMG-E127", format!("/curation/cycles/{i}/id"), msg);
            }
        }
    }

    fn graphs(&mut self) {
        let graphs = self.doc.graphs();
        // Where each node id was first seen: which graph, which node.
        let mut first_seen: Map<&str, (usize, usize)> = Map::default();
        for (k, (base, g)) in graphs.iter().enumerate() {
            for (i, n) in g.nodes().iter().enumerate() {
                if let Some(&(pk, pi)) = first_seen.get(n.id.as_str()) {
                    let prev = format!("{}/nodes/{pi}", graphs[pk].0);
                    let msg = format!("node id `{}` is already used at {prev}", n.id);
                    self.err("SMG-E110", format!("{base}/nodes/{i}/id"), msg);
                } else {
                    first_seen.insert(&n.id, (k, i));
                }
                self.node_ids.insert(&n.id);
            }
        }
        // Sealed nodes are not visible, but references to them are not dangling.
        for s in self.doc.sealed_sections.iter().flatten() {
            self.node_ids
                .extend(s.node_ids.iter().flatten().map(String::as_str));
        }
        for (base, g) in &graphs {
            for (i, n) in g.nodes().iter().enumerate() {
                self.node(&format!("{base}/nodes/{i}"), n);
            }
            for (i, e) in g.edges().iter().enumerate() {
                self.edge(&format!("{base}/edges/{i}"), e);
            }
        }
    }

    fn node(&mut self, ptr: &str, n: &'a Node) {
        if !NODE_TYPES.contains(&n.kind.as_str()) {
            self.warn(
                "SMG-W001",
                format!("{ptr}/type"),
                format!("node type `{}` is not defined in v1; kept as is", n.kind),
            );
        }
        if let (Some(a), Some(b)) = (n.first_mentioned, n.last_mentioned) {
            if a > b {
                self.err(
                    "SMG-E114",
                    format!("{ptr}/lastMentioned"),
                    format!("lastMentioned {b} is before firstMentioned {a}"),
                );
            }
        }
        for (j, r) in n.related_nodes.iter().flatten().enumerate() {
            if !self.node_ids.contains(r.as_str()) {
                self.err(
                    "SMG-E111",
                    format!("{ptr}/relatedNodes/{j}"),
                    format!("no node has id `{r}`"),
                );
            }
        }
        if let Some(a) = &n.artifact_ref {
            self.artifact_ref(format!("{ptr}/artifactRef"), a);
        }
        self.provenance(ptr, n.provenance.as_deref());
        self.governance(ptr, n);
    }

    fn governance(&mut self, ptr: &str, n: &Node) {
        if let Some(scope) = n.scope {
            if let Some(min) = scope.min_confidence() {
                let name = scope.name();
                match n.confidence.map(f64::from) {
                    Some(c) if c >= min => {}
                    Some(c) => self.err(
                        "SMG-E120",
                        format!("{ptr}/confidence"),
                        format!("{name} knowledge needs confidence >= {min}, this node has {c}"),
                    ),
                    None => self.err(
                        "SMG-E120",
                        ptr.to_string(),
                        format!("{name} knowledge needs a confidence >= {min}"),
                    ),
                }
                if n.approved_by.as_deref().is_none_or(str::is_empty) {
                    self.err(
                        "SMG-E121",
                        ptr.to_string(),
                        format!("{name} knowledge needs `approvedBy`"),
                    );
                }
            }
        }
        let day = |d: &Option<DateOrTime>| d.as_ref().map(DateOrTime::day);
        if let (Some(a), Some(b)) = (day(&n.effective_date), day(&n.expiry_date)) {
            if a > b {
                self.err(
                    "SMG-E122",
                    format!("{ptr}/expiryDate"),
                    format!("expiryDate {b} is before effectiveDate {a}"),
                );
            }
        }
    }

    fn provenance(&mut self, ptr: &str, prov: Option<&'a [Provenance]>) {
        for (i, p) in prov.unwrap_or_default().iter().enumerate() {
            self.provenances.push((format!("{ptr}/provenance/{i}"), p));
        }
    }

    fn edge(&mut self, ptr: &str, e: &'a Edge) {
        for (field, id) in [("from", &e.from), ("to", &e.to)] {
            if !self.node_ids.contains(id.as_str()) {
                self.err(
                    "SMG-E111",
                    format!("{ptr}/{field}"),
                    format!("edge endpoint `{id}` is not a node id"),
                );
            }
        }
        if !RELATIONS.contains(&e.relation.as_str()) {
            self.warn(
                "SMG-W002",
                format!("{ptr}/relation"),
                format!("relation `{}` is not defined in v1; kept as is", e.relation),
            );
        }
        self.provenance(ptr, e.provenance.as_deref());
    }

    fn artifact_ref(&mut self, ptr: String, id: &str) {
        let known = self
            .doc
            .artifact_vault
            .as_ref()
            .and_then(|v| v.artifacts.as_ref());
        if !known.is_some_and(|a| a.contains_key(id)) {
            self.err("SMG-E123", ptr, format!("no artifact `{id}` in the vault"));
        }
    }

    /// `field` builds the pointer of one of the turn's fields; archived turns live
    /// inside `compressedData`, so theirs all point there.
    fn turn(&mut self, field: impl Fn(&str) -> String, t: &Turn) {
        if !ROLES.contains(&t.role.as_str()) {
            let msg = format!("turn {}: role `{}` is not defined in v1", t.turn, t.role);
            self.warn("SMG-W004", field("role"), msg);
        }
    }

    fn working_memory(&mut self) {
        let Some(wm) = &self.doc.working_memory else {
            return;
        };
        for (i, a) in wm.active_artifacts.iter().flatten().enumerate() {
            self.artifact_ref(format!("/workingMemory/activeArtifacts/{i}"), a);
        }
        for (i, t) in wm.recent_context.iter().flatten().enumerate() {
            self.turn(|f| format!("/workingMemory/recentContext/{i}/{f}"), t);
        }
    }

    fn vault(&mut self) {
        let Some(vault) = &self.doc.artifact_vault else {
            return;
        };
        if vault.extra.contains_key("deduplicationIndex") {
            self.warn("SMG-W006", "/artifactVault/deduplicationIndex".into(),
                "`deduplicationIndex` is the draft name of `artifacts`; its content is kept but not checked".into());
        }
        // Every version is rebuilt, on every core; only the newest's hash is kept.
        let artifacts: Vec<_> = vault.artifacts.iter().flatten().collect();
        let newest: Vec<_> = artifacts
            .par_iter()
            .map(|(id, art)| {
                let contents = rebuild_versions(id, art)?;
                Ok::<_, crate::Error>(contents.last().map(|c| content_hash(c)))
            })
            .collect();
        for ((id, art), newest) in artifacts.into_iter().zip(newest) {
            let ptr = format!("/artifactVault/artifacts/{}", escape_pointer(id));
            if !ARTIFACT_TYPES.contains(&art.kind.as_str()) {
                self.warn(
                    "SMG-W003",
                    format!("{ptr}/type"),
                    format!("artifact type `{}` is not defined in v1", art.kind),
                );
            }
            match newest {
                Err(e) => {
                    let idx = art.versions.iter().position(
                        |v| matches!(&e, crate::Error::Artifact { version, .. } if v.v == *version),
                    );
                    let at = idx
                        .map(|i| format!("{ptr}/versions/{i}"))
                        .unwrap_or(ptr.clone());
                    self.err(e.code(), at, e.to_string());
                }
                Ok(newest) => {
                    let newest = newest.unwrap_or_default();
                    if art.versions.is_empty() {
                        self.err(
                            "SMG-E100",
                            format!("{ptr}/versions"),
                            format!("artifact {id} has no versions"),
                        );
                    } else if art.hash != newest {
                        self.err("SMG-E115", format!("{ptr}/hash"), format!(
                            "artifact {id}: hash is {} but the newest version hashes to {newest}", art.hash
                        ));
                    }
                }
            }
        }
    }

    fn archive(&mut self) {
        let Some(archive) = &self.doc.deep_archive else {
            return;
        };
        let method = archive.compression_method.unwrap_or_default();
        let mut block_ids = HashSet::new();
        let mut turns_seen = Seen::default();
        self.archived.complete = true;
        self.archived.sealed = self
            .doc
            .sealed_sections
            .iter()
            .flatten()
            .flat_map(|s| s.turn_ranges.iter().flatten())
            .filter_map(|r| parse_turn_range(r))
            .collect();
        let vault = self.doc.artifact_vault.as_ref();
        let limits = self.limits;
        // Blocks are decoded on every core, a few at a time: memory holds the turns
        // of one chunk, not of the archive.
        let blocks = archive.blocks();
        for (c, chunk) in blocks.chunks(DECODED_TOGETHER).enumerate() {
            let decoded: Vec<_> = chunk
                .par_iter()
                .map(|b| decode_block(b, method, vault, limits))
                .collect();
            for (j, (b, turns)) in chunk.iter().zip(decoded).enumerate() {
                let i = c * DECODED_TOGETHER + j;
                self.block(i, b, turns, &mut block_ids, &mut turns_seen);
            }
        }
        self.vectors(archive);
    }

    fn block(
        &mut self,
        i: usize,
        b: &'a Block,
        decoded: crate::Result<Vec<Turn>>,
        block_ids: &mut HashSet<u64>,
        turns_seen: &mut Seen,
    ) {
        let ptr = format!("/deepArchive/blocks/{i}");
        if !block_ids.insert(b.id) {
            self.err(
                "SMG-E118",
                format!("{ptr}/id"),
                format!("block id {} is used twice", b.id),
            );
        }
        let range = parse_turn_range(&b.turn_range);
        if range.is_none() {
            self.err(
                "SMG-E114",
                format!("{ptr}/turnRange"),
                format!(
                    "`{}` is not a turn range \"first-last\" with first <= last",
                    b.turn_range
                ),
            );
        }
        let turns = match decoded {
            Ok(t) => t,
            Err(e) => {
                self.err(e.code(), format!("{ptr}/compressedData"), e.to_string());
                self.archived.complete = false;
                return;
            }
        };
        let at = || format!("{ptr}/compressedData");
        for t in turns {
            if let Some((lo, hi)) = range {
                if t.turn < lo || t.turn > hi {
                    self.err(
                        "SMG-E119",
                        at(),
                        format!(
                            "block {}: turn {} lies outside its turnRange {}",
                            b.id, t.turn, b.turn_range
                        ),
                    );
                }
            }
            let scope = |s: Option<Scope>| s.unwrap_or(Scope::Personal);
            if scope(t.scope) != scope(b.scope) {
                self.err(
                    "SMG-E128",
                    at(),
                    format!(
                        "block {}: turn {} has scope {}, its block {}",
                        b.id,
                        t.turn,
                        scope(t.scope).name(),
                        scope(b.scope).name()
                    ),
                );
            }
            if let Some(other) = turns_seen.insert(t.turn.get(), b.id) {
                self.err(
                    "SMG-E118",
                    at(),
                    format!(
                        "turn {} is archived twice (blocks {other} and {})",
                        t.turn, b.id
                    ),
                );
            }
            self.turn(|_| at(), &t);
            self.archived.add(t);
        }
    }

    fn vectors(&mut self, archive: &DeepArchive) {
        if let Some(vi) = &archive.vector_index {
            for (i, e) in vi.embeddings.iter().flatten().enumerate() {
                if vi.dimensions.is_some_and(|d| d != e.vector.len() as u64) {
                    self.err(
                        "SMG-E125",
                        format!("/deepArchive/vectorIndex/embeddings/{i}/vector"),
                        format!(
                            "vector has {} dimensions, the index declares {}",
                            e.vector.len(),
                            vi.dimensions.map_or(0, Ordinal::get)
                        ),
                    );
                }
            }
        }
    }

    fn collaborators(&mut self) {
        let ids: HashSet<&str> = self
            .doc
            .collaborators
            .iter()
            .flatten()
            .map(|c| c.id.as_str())
            .collect();
        for key in self.doc.private_contexts.iter().flat_map(|m| m.keys()) {
            if !ids.contains(key.as_str()) {
                self.warn(
                    "SMG-W008",
                    format!("/privateContexts/{}", escape_pointer(key)),
                    format!("private context `{key}` belongs to no listed collaborator"),
                );
            }
        }
    }
}
