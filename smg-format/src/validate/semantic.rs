//! Checks a schema cannot express: references, uniqueness, time, governance, and
//! that every artifact version and archive block actually decodes.

use std::collections::HashSet;

use super::frame::{role, Frame};
use super::Finding;
use crate::limits::Limits;
use crate::model::{escape_pointer, DateOrTime, Document, Edge, Node, Provenance};

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

struct Checker<'a> {
    doc: &'a Document,
    /// Ids of the vault's artifacts.
    artifacts: &'a HashSet<String, foldhash::fast::FixedState>,
    out: Vec<Finding>,
    node_ids: HashSet<&'a str, foldhash::fast::FixedState>,
    /// Every provenance of a node or edge, with where it is: checked against the
    /// archive once it is read.
    provenances: Vec<(Cited, &'a Provenance)>,
}

type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// Where a provenance is: its graph (by place in [`Document::graphs`]), list, item
/// and place in the item's list. Its pointer is made only for a finding: a large
/// graph holds a million of them.
#[derive(Clone, Copy)]
struct Cited {
    graph: usize,
    list: &'static str,
    item: usize,
    index: usize,
}

impl Cited {
    fn new(graph: usize, list: &'static str, item: usize) -> Cited {
        Cited {
            graph,
            list,
            item,
            index: 0,
        }
    }

    /// The provenance's pointer, given the graphs' pointers.
    fn pointer(&self, graphs: &[String]) -> String {
        let Cited {
            graph,
            list,
            item,
            index,
        } = self;
        format!("{}/{list}/{item}/provenance/{index}", graphs[*graph])
    }
}

/// Every semantic check of `doc`, its archive's blocks decoded.
pub(crate) fn check(doc: &Document, limits: &Limits) -> Vec<Finding> {
    check_with(doc, Frame::read(doc, limits, None))
}

/// [`check`] of a document no longer needed: once its frame is checked, its archive
/// and vault (the compressed turns, every artifact version), which nothing after
/// reads, are freed before the graphs are.
pub(crate) fn check_owned(mut doc: Document, limits: &Limits) -> Vec<Finding> {
    let frame = Frame::read(&doc, limits, None);
    doc.deep_archive = None;
    doc.artifact_vault = None;
    check_with(&doc, frame)
}

/// The semantic checks of `doc` given its frame's, which were made of the document
/// before a writer took its frame out (the findings in the order `check` gives).
pub(crate) fn check_with(doc: &Document, frame: Frame) -> Vec<Finding> {
    let Frame {
        out: framed,
        artifacts,
        collaborators,
        archived,
    } = frame;
    let mut c = Checker {
        doc,
        artifacts: &artifacts,
        out: Vec::new(),
        node_ids: HashSet::default(),
        provenances: Vec::new(),
    };
    c.version();
    c.graphs();
    c.working_memory();
    c.out.extend(framed);
    let bases: Vec<String> = doc.graphs().into_iter().map(|(base, _)| base).collect();
    for (cited, p) in &c.provenances {
        archived.check(&|| cited.pointer(&bases), p, &mut c.out);
    }
    c.private_contexts(&collaborators);
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
                "written for format {v}, newer than this reader's {}.0: unknown fields are kept but not checked",
                v.major()
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
        for (graph, (base, g)) in graphs.iter().enumerate() {
            for (item, n) in g.nodes().iter().enumerate() {
                self.node(&format!("{base}/nodes/{item}"), n);
                let at = Cited::new(graph, "nodes", item);
                self.provenance(at, n.provenance.as_deref());
            }
            for (item, e) in g.edges().iter().enumerate() {
                self.edge(&format!("{base}/edges/{item}"), e);
                let at = Cited::new(graph, "edges", item);
                self.provenance(at, e.provenance.as_deref());
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

    fn provenance(&mut self, at: Cited, prov: Option<&'a [Provenance]>) {
        for (i, p) in prov.unwrap_or_default().iter().enumerate() {
            self.provenances.push((Cited { index: i, ..at }, p));
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
    }

    fn artifact_ref(&mut self, ptr: String, id: &str) {
        if !self.artifacts.contains(id) {
            self.err("SMG-E123", ptr, format!("no artifact `{id}` in the vault"));
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
            let at = || format!("/workingMemory/recentContext/{i}/role");
            role(&mut self.out, at, t);
        }
    }

    /// Each private context belongs to a listed collaborator.
    fn private_contexts(&mut self, collaborators: &HashSet<String>) {
        for key in self.doc.private_contexts.iter().flat_map(|m| m.keys()) {
            if !collaborators.contains(key.as_str()) {
                self.warn(
                    "SMG-W008",
                    format!("/privateContexts/{}", escape_pointer(key)),
                    format!("private context `{key}` belongs to no listed collaborator"),
                );
            }
        }
    }
}
