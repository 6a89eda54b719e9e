//! A copy of a memory that is safe to hand out (`smg share`, spec §10.4), and the same
//! rules applied at ingest (`smg ingest --redact`) and in CI (`smg share --check`).
//!
//! Credentials and personal data ([`Kind`]) are found wherever a reader can look —
//! the archive's turns and source records, working memory, every graph, the vault's
//! versions, metadata, collaborators — and replaced by typed placeholders that are
//! the same for the same value throughout the file (`[EMAIL-1]`). Restricted tiers,
//! private contexts, sealed sections, access records, curation's audit and the
//! signature are left out; the lineage records the copy's parent by hash.
//!
//! ```
//! use smg_engine::share::{redact, Rules};
//! use smg_format::model::{Timestamp, WorkingMemory};
//! let mut doc = smg_format::Document::new(Timestamp::from_static("2025-12-04T10:30:00Z"));
//! doc.working_memory = Some(WorkingMemory {
//!     summary: Some("Ada (ada@example.org) rotated AKIAIOSFODNN7EXAMPLE".into()),
//!     ..WorkingMemory::default()
//! });
//! let report = redact(&mut doc, &Rules::new(&[]), &smg_format::Limits::default()).unwrap();
//! assert_eq!(report.findings.len(), 2);
//! let summary = doc.working_memory.unwrap().summary.unwrap();
//! assert_eq!(summary, "Ada ([EMAIL-1]) rotated [AWS-KEY-1]");
//! ```

mod archive;
mod graph;
mod rules;
mod strip;
mod table;
mod vault;
mod walk;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Value};
use smg_format::model::{Document, Timestamp};
use smg_format::validate::{Fed, Gate};
use smg_format::Limits;

use crate::error::Result;
pub use rules::{Kind, Rules};
use table::Table;

/// One value found: its kind and where (never the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: Kind,
    /// The document's top-level member it was in (`deepArchive`, `artifactVault`,
    /// `semanticGraph`, `workingMemory`…).
    pub section: String,
    /// Where in it: `turn 12 /content`, `ARTIFACT v3`, or a JSON Pointer.
    pub place: String,
}

/// What a share or a redaction found, replaced and left out.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Every value found, in the order met.
    pub findings: Vec<Finding>,
    /// How many distinct values of each kind were replaced.
    pub distinct: BTreeMap<Kind, usize>,
    /// What was left out whole (sealed sections, private contexts, restricted
    /// tiers, access records, audit entries).
    pub left_out: Vec<String>,
    /// Whether the input's signature was removed (the copy may be signed anew).
    pub signature_removed: bool,
}

impl Report {
    /// Findings counted by kind, then by section.
    pub fn counts(&self) -> BTreeMap<Kind, BTreeMap<String, usize>> {
        let mut out: BTreeMap<Kind, BTreeMap<String, usize>> = BTreeMap::new();
        for f in &self.findings {
            *out.entry(f.kind)
                .or_default()
                .entry(f.section.clone())
                .or_insert(0) += 1;
        }
        out
    }

    /// The report as JSON: `findings` (kind, section, place), `counts`, `distinct`,
    /// `leftOut`.
    pub fn to_json(&self) -> Value {
        let counts: serde_json::Map<String, Value> = self
            .counts()
            .into_iter()
            .map(|(k, by)| (k.name().to_string(), json!(by)))
            .collect();
        let distinct: serde_json::Map<String, Value> = self
            .distinct
            .iter()
            .map(|(k, n)| (k.name().to_string(), json!(n)))
            .collect();
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| json!({"kind": f.kind.name(), "section": f.section, "place": f.place}))
            .collect();
        json!({
            "findings": findings,
            "counts": counts,
            "distinct": distinct,
            "leftOut": self.left_out,
            "signatureRemoved": self.signature_removed,
        })
    }
}

/// How to share.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ShareOptions {
    /// Kinds left as they are (`--keep`).
    pub keep: Vec<Kind>,
    /// The copy's branch (spec §17.2); `shared` by default.
    pub branch: String,
    /// The copy's time, recorded in its lineage; fixed, it makes the copy reproducible.
    pub at: Timestamp,
    /// Bounds when decoding the archive's blocks.
    pub limits: Limits,
}

impl ShareOptions {
    /// Every rule, branch `shared`, made at `at`, default limits.
    pub fn new(at: Timestamp) -> Self {
        ShareOptions {
            keep: Vec::new(),
            branch: "shared".into(),
            at,
            limits: Limits::default(),
        }
    }
}

/// The copy of `doc` (read from `parent_bytes`, whose SHA-256 its lineage records)
/// that is safe to give away, and what was found and left out.
///
/// The copy holds no sealed section, private context or restricted tier, no access
/// record, audit entry or signature; every value the rules find is replaced
/// everywhere; embeddings of changed text are dropped. A stored search index is the
/// caller's to make again (or drop): the document has none. The copy has passed the
/// writers' gate (every block's turns checked as they were scanned or encoded again):
/// it is written as it is.
pub fn share(
    mut doc: Document,
    parent_bytes: &[u8],
    options: &ShareOptions,
) -> Result<(Document, Report)> {
    let (left_out, signed) = strip::strip(&mut doc)?;
    let mut fed = Gate::fed(&doc);
    let rules = Rules::new(&options.keep);
    let mut report = redact_fed(&mut doc, &rules, &options.limits, Some(&mut fed))?;
    report.left_out = left_out;
    report.signature_removed = signed;
    let mut copy = smg_format::lineage::fork(doc, parent_bytes, &options.branch, &options.at)?;
    if let Some(entry) = copy.metadata.lineage.as_mut().and_then(|l| l.last_mut()) {
        entry.extra.insert("shared".into(), Value::Bool(true));
    }
    fed.gate(&copy, &options.limits).finish(&copy)?;
    Ok((copy, report))
}

/// Replace, in place, every value `rules` find anywhere in `doc` (nothing is left
/// out: that is [`share`]'s). Placeholders already in the document keep their
/// numbers; new ones are numbered after them.
pub fn redact(doc: &mut Document, rules: &Rules, limits: &Limits) -> Result<Report> {
    redact_fed(doc, rules, limits, None)
}

/// [`redact`], each archive block's turns given to `fed` as they are scanned (the
/// blocks kept as they were) or encoded again.
fn redact_fed(
    doc: &mut Document,
    rules: &Rules,
    limits: &Limits,
    mut fed: Option<&mut Fed>,
) -> Result<Report> {
    let mut seen = BTreeMap::new();
    let scanned = archive::scan(doc, rules, limits, fed.as_deref_mut())?;
    for (k, n) in scanned.iter().flat_map(|s| &s.seen) {
        table::raise(&mut seen, *k, *n);
    }
    let old_vault = doc.artifact_vault.take();
    let contents = vault::contents(old_vault.as_ref())?;
    for text in contents.iter().flat_map(|(_, versions)| versions) {
        table::note_placeholders(text, &mut seen);
    }
    let mut rest = Rest::take(doc)?;
    let looked = graph::look(&rest.graphs, rules, &mut seen)?;
    let mut all = String::new();
    walk::joined(&rest.value, &mut all);
    table::note_placeholders(&all, &mut seen);
    drop(all);
    let mut table = Table::after(&seen);
    for s in &scanned {
        for (kind, value, place) in &s.hits {
            table.register_value(*kind, value, "deepArchive", place.clone());
        }
    }
    let new_vault = vault::redact(old_vault.clone(), contents, rules, &mut table)?;
    let (changed_nodes, renamed) = graph::redact(&mut rest.graphs, &looked, rules, &mut table)?;
    rest.redact(rules, &mut table, &renamed);
    rest.put_back(doc, rules, &table)?;
    doc.artifact_vault = new_vault;
    archive::blocks_metadata(doc, rules, &mut table);
    let changed_turns: HashSet<u64> = scanned
        .iter()
        .flat_map(|s| s.turns.iter().copied())
        .collect();
    archive::rewrite(
        doc,
        &scanned,
        old_vault.as_ref(),
        rules,
        &table,
        limits,
        fed,
    )?;
    strip::drop_embeddings(doc, &changed_turns, &changed_nodes);
    Ok(Report {
        distinct: table.distinct(),
        findings: std::mem::take(&mut table.findings),
        ..Report::default()
    })
}

/// The document less its archive blocks, vectors, sealed sections and graphs' nodes
/// and edges (and the vault, taken before), as JSON to walk: a sealed section's
/// ciphertext is no text (a rule that matched some of its base64 would break it), and
/// the graphs are redacted typed, item by item.
struct Rest {
    value: Value,
    blocks: Option<Vec<smg_format::model::Block>>,
    embeddings: Option<Vec<smg_format::model::Embedding>>,
    sealed: Option<Vec<smg_format::model::SealedSection>>,
    graphs: Vec<graph::Slot>,
}

impl Rest {
    fn take(doc: &mut Document) -> Result<Rest> {
        let (blocks, embeddings) = match doc.deep_archive.as_mut() {
            Some(a) => (
                a.blocks.take(),
                a.vector_index.as_mut().and_then(|v| v.embeddings.take()),
            ),
            None => (None, None),
        };
        let sealed = doc.sealed_sections.take();
        let graphs = graph::take(doc);
        let value = serde_json::to_value(&*doc).map_err(invalid)?;
        Ok(Rest {
            value,
            blocks,
            embeddings,
            sealed,
            graphs,
        })
    }

    /// Every string and key of the JSON redacted, its list of removed nodes given the
    /// ids of the nodes `renamed`.
    fn redact(&mut self, rules: &Rules, table: &mut Table, renamed: &HashMap<String, String>) {
        let removed = self
            .value
            .pointer_mut("/curation/removed")
            .and_then(Value::as_array_mut);
        for id in removed.into_iter().flatten() {
            if let Some(new) = id.as_str().and_then(|s| renamed.get(s)) {
                *id = Value::String(new.clone());
            }
        }
        let may_hold = |v: &Value| {
            let mut text = String::new();
            walk::joined(v, &mut text);
            rules.may_hold(&text)
        };
        walk::strings_where(&mut self.value, &may_hold, &mut |s, place| {
            let hits = rules.hits(s);
            (!hits.is_empty()).then(|| {
                let at = place();
                let section = at.split('/').nth(1).unwrap_or_default().to_string();
                table.apply(s, &hits, &section, &|| at.clone())
            })
        });
    }

    /// Everything back into `doc`, from the walked JSON; a private context's graph
    /// under its id as redacted (`rules` and `table` say how).
    fn put_back(self, doc: &mut Document, rules: &Rules, table: &Table) -> Result<()> {
        let bytes = serde_json::to_vec(&self.value).map_err(invalid)?;
        *doc = smg_format::codec::from_json_slice(&bytes)?;
        doc.sealed_sections = self.sealed;
        let key = |id: &str| table.replace(id, &rules.hits(id));
        graph::put_back(doc, self.graphs, &key);
        if let Some(a) = doc.deep_archive.as_mut() {
            a.blocks = self.blocks;
            if let Some(v) = a.vector_index.as_mut() {
                v.embeddings = self.embeddings;
            }
        }
        Ok(())
    }
}

fn invalid(e: serde_json::Error) -> crate::Error {
    smg_format::Error::InvalidArgument(format!("share: {e}")).into()
}
