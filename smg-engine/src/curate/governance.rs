//! Governance (M3S Part 4, spec §18.9): who may put knowledge into the departmental
//! and global tiers, from the policy stored in the file.

use smg_format::model::{Document, Node, NonEmpty, Policy, Scope, Timestamp, Unit};

use crate::{Error, Result};

/// Knowledge to add to a curated tier (`smg knowledge add`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Knowledge {
    /// The node's id; derived from the label and time when empty.
    pub id: String,
    /// Short name.
    pub label: String,
    /// The knowledge itself.
    pub content: String,
    /// `departmental` or `global` (or `personal`/`restricted`, which need no approval).
    pub scope: Option<Scope>,
    /// For departmental knowledge: the department.
    pub department: Option<String>,
    /// How sure the author is, in [0, 1].
    pub confidence: f64,
    /// Who approved it.
    pub approved_by: Option<String>,
    /// Who wrote it.
    pub created_by: Option<String>,
    /// `how_to`, `policy`, `milestone`…
    pub knowledge_type: Option<String>,
    /// When.
    pub now: Timestamp,
}

impl Knowledge {
    /// Knowledge `label`: `content`, held with `confidence`, added at `now`.
    pub fn new(label: &str, content: &str, confidence: f64, now: Timestamp) -> Self {
        Knowledge {
            id: String::new(),
            label: label.into(),
            content: content.into(),
            scope: None,
            department: None,
            confidence,
            approved_by: None,
            created_by: None,
            knowledge_type: None,
            now,
        }
    }
}

fn refused(code: &'static str, detail: String) -> Error {
    Error::Curation { code, detail }
}

/// Whether the policy lets `approver` approve knowledge of `scope` (and `department`)
/// held with `confidence`: departmental needs 0.85 and one of the department's
/// approvers, global 0.90 and an executive (M3S). `Err` says which rule refuses.
pub fn check_approval(
    policy: Option<&Policy>,
    scope: Scope,
    department: Option<&str>,
    confidence: f64,
    approver: Option<&str>,
) -> Result<()> {
    let Some(min) = scope.min_confidence() else {
        return Ok(());
    };
    // NaN is refused too.
    if confidence.partial_cmp(&min).is_none_or(|o| o.is_lt()) {
        let detail = format!(
            "{} knowledge needs confidence >= {min}; got {confidence}",
            scope.name()
        );
        return Err(refused("SMG-E120", detail));
    }
    let Some(approver) = approver.filter(|a| !a.is_empty()) else {
        let detail = format!(
            "{} knowledge needs an approver (--approved-by)",
            scope.name()
        );
        return Err(refused("SMG-E121", detail));
    };
    let allowed = match scope {
        Scope::Departmental => {
            let Some(dept) = department.filter(|d| !d.is_empty()) else {
                let detail = "departmental knowledge needs its department (--department)".into();
                return Err(refused("SMG-E240", detail));
            };
            let heads = policy
                .and_then(|p| p.approvers.as_ref())
                .and_then(|a| a.get(dept));
            if heads.is_some_and(|h| h.iter().any(|x| x == approver)) {
                return Ok(());
            }
            format!("the policy's approvers of department `{dept}`")
        }
        _ => {
            let execs = policy.and_then(|p| p.executives.as_ref());
            if execs.is_some_and(|h| h.iter().any(|x| x == approver)) {
                return Ok(());
            }
            "the policy's executives".to_string()
        }
    };
    Err(refused(
        "SMG-E240",
        format!("`{approver}` is not among {allowed} (see `smg policy show`)"),
    ))
}

/// Add knowledge to the semantic graph after the policy's checks. Returns its id.
pub fn add_knowledge(doc: &mut Document, k: Knowledge) -> Result<String> {
    let scope = k.scope.unwrap_or(Scope::Personal);
    let policy = doc.curation.as_ref().and_then(|c| c.policy.as_ref());
    check_approval(
        policy,
        scope,
        k.department.as_deref(),
        k.confidence,
        k.approved_by.as_deref(),
    )?;
    if !(0.0..=1.0).contains(&k.confidence) {
        return Err(refused(
            "SMG-E103",
            format!("confidence {} is outside [0, 1]", k.confidence),
        ));
    }
    if k.label.is_empty() && k.content.is_empty() {
        return Err(Error::Format(smg_format::Error::InvalidArgument(
            "knowledge needs a label or content".into(),
        )));
    }
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    let nodes = graph.nodes.get_or_insert_with(Vec::new);
    let id = NonEmpty::new(k.id).unwrap_or_else(|_| {
        let digest =
            smg_format::vault::content_hash(&format!("{}\0{}\0{}", k.label, k.content, k.now));
        let hex = &digest.trim_start_matches("sha256:")[..16];
        NonEmpty::joined(&NonEmpty::from_static("know-"), hex)
    });
    if nodes.iter().any(|n| n.id == id) {
        return Err(Error::DuplicateNode(id.into_string()));
    }
    nodes.push(Node {
        label: (!k.label.is_empty()).then_some(k.label),
        content: (!k.content.is_empty()).then_some(k.content),
        confidence: Some(Unit::clamped(k.confidence)),
        scope: Some(scope),
        department: k.department,
        approved_by: k.approved_by,
        created_by: k.created_by.map(Into::into),
        knowledge_type: k.knowledge_type,
        created: Some(k.now.clone()),
        updated: Some(k.now),
        ..Node::new(id.clone(), NonEmpty::from_static("concept"))
    });
    Ok(id.into_string())
}
