//! A query evaluated over many nodes: compiled once (each value made a [`Key`], each
//! `topic` value stemmed), a node's field read without serializing the node, nodes
//! tested side by side, and with `LIMIT` only the first ones put in order. At a
//! million turns (167 K nodes) serializing each node for each comparison made one
//! `ORDER BY` take seconds.

use std::cmp::Ordering;

use rayon::prelude::*;
use serde_json::Value as Json;
use smg_format::model::{Node, ShortText};

use super::{Comparison, Expr, Op, Order, Value};
use crate::text;

/// A field's value as it is compared: a total order (missing first, then booleans,
/// numbers, instants, text, other JSON), so that sorting never sees two values that
/// are each less than the other.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Key {
    Null,
    Bool(bool),
    Number(f64),
    /// Milliseconds since the epoch.
    Instant(i64),
    /// Lowercase.
    Text(String),
    /// Arrays and objects, as their JSON.
    Other(String),
}

impl Key {
    pub(super) fn of(v: &Json) -> Key {
        match v {
            Json::Null => Key::Null,
            Json::Bool(b) => Key::Bool(*b),
            Json::Number(x) => Key::Number(x.as_f64().unwrap_or(0.0)),
            Json::String(s) => crate::search::instant(s)
                .map_or_else(|| Key::Text(s.to_lowercase()), |(ms, _)| Key::Instant(ms)),
            other => Key::Other(other.to_string()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Key::Null => 0,
            Key::Bool(_) => 1,
            Key::Number(_) => 2,
            Key::Instant(_) => 3,
            Key::Text(_) => 4,
            Key::Other(_) => 5,
        }
    }

    pub(super) fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Bool(a), Key::Bool(b)) => a.cmp(b),
            (Key::Number(a), Key::Number(b)) => a.total_cmp(b),
            (Key::Instant(a), Key::Instant(b)) => a.cmp(b),
            (Key::Text(a), Key::Text(b)) | (Key::Other(a), Key::Other(b)) => a.cmp(b),
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }
}

/// A condition with its values prepared.
pub(super) enum Compiled {
    /// Every one of these stemmed words occurs in the node's text (`topic`, `text`);
    /// `negated` for `!=`. No word at all: never holds.
    Words {
        words: Vec<String>,
        negated: bool,
    },
    /// A case-insensitive substring of the field (lowercase).
    Contains {
        field: String,
        lower: String,
    },
    /// The field compared with a value.
    Compare {
        field: String,
        op: Op,
        value: Key,
    },
    /// Never holds (`topic` with a number, `topic > …`).
    Never,
    And(Box<Compiled>, Box<Compiled>),
    Or(Box<Compiled>, Box<Compiled>),
    Not(Box<Compiled>),
}

impl Compiled {
    pub(super) fn new(e: &Expr) -> Compiled {
        match e {
            Expr::And(a, b) => Compiled::And(Box::new(Self::new(a)), Box::new(Self::new(b))),
            Expr::Or(a, b) => Compiled::Or(Box::new(Self::new(a)), Box::new(Self::new(b))),
            Expr::Not(a) => Compiled::Not(Box::new(Self::new(a))),
            Expr::Compare(c) => Self::comparison(c),
        }
    }

    fn comparison(c: &Comparison) -> Compiled {
        let field = c.field.clone();
        match (c.field.as_str(), c.op, &c.value) {
            ("topic" | "text", Op::Eq | Op::Contains | Op::Ne, Value::Text(want)) => {
                let mut words = crate::search::index_terms(want);
                words.sort_unstable();
                words.dedup();
                Compiled::Words {
                    words,
                    negated: c.op == Op::Ne,
                }
            }
            ("topic" | "text", ..) => Compiled::Never,
            (_, Op::Contains, Value::Text(s)) => Compiled::Contains {
                field,
                lower: s.to_lowercase(),
            },
            (_, Op::Contains, Value::Number(_)) => Compiled::Never,
            (_, op, value) => Compiled::Compare {
                field,
                op,
                value: Key::of(&match value {
                    Value::Text(s) => Json::String(s.clone()),
                    Value::Number(x) => serde_json::json!(x),
                }),
            },
        }
    }

    pub(super) fn holds(&self, n: &Node) -> bool {
        match self {
            Compiled::And(a, b) => a.holds(n) && b.holds(n),
            Compiled::Or(a, b) => a.holds(n) || b.holds(n),
            Compiled::Not(a) => !a.holds(n),
            Compiled::Never => false,
            Compiled::Words { words, negated } => {
                (!words.is_empty() && has_words(n, words)) != *negated
            }
            Compiled::Contains { field, lower } => match field_of(n, field) {
                Json::Null => false,
                Json::String(s) => s.to_lowercase().contains(lower.as_str()),
                other => other.to_string().to_lowercase().contains(lower.as_str()),
            },
            Compiled::Compare { field, op, value } => {
                let have = field_of(n, field);
                if have.is_null() {
                    return *op == Op::Ne;
                }
                let o = Key::of(&have).cmp(value);
                match op {
                    Op::Eq => o == Ordering::Equal,
                    Op::Ne => o != Ordering::Equal,
                    Op::Gt => o == Ordering::Greater,
                    Op::Ge => o != Ordering::Less,
                    Op::Lt => o == Ordering::Less,
                    Op::Le => o != Ordering::Greater,
                    Op::Contains => false,
                }
            }
        }
    }
}

/// Whether every one of `words` (stemmed) is among the terms of the node's text:
/// label, description, content, outcome, rationale, keywords and tags. Stops at
/// the last one found.
fn has_words(n: &Node, words: &[String]) -> bool {
    let mut missing: Vec<&str> = words.iter().map(String::as_str).collect();
    let lists = n
        .keywords
        .iter()
        .chain(&n.tags)
        .flatten()
        .map(ShortText::as_str);
    for part in crate::graph::node_texts(n).chain(lists) {
        for term in text::term_slices(part) {
            let found =
                crate::search::with_stem(&term, |stem| missing.iter().position(|m| *m == stem));
            if let Some(i) = found {
                missing.swap_remove(i);
                if missing.is_empty() {
                    return true;
                }
            }
        }
    }
    false
}

/// The nodes that satisfy `filter`, in their order.
pub(super) fn matching<T>(nodes: Vec<T>, filter: Option<&Expr>) -> Vec<T>
where
    T: std::ops::Deref<Target = Node> + Send,
{
    let Some(filter) = filter else {
        return nodes;
    };
    let filter = Compiled::new(filter);
    nodes.into_par_iter().filter(|n| filter.holds(n)).collect()
}

/// `nodes` as `order` sorts them (stable: equal keys keep their order), the first
/// `limit`.
pub(super) fn ordered<T>(nodes: Vec<T>, order: &Order, limit: usize) -> Vec<T>
where
    T: std::ops::Deref<Target = Node> + Copy + Sync,
{
    if limit == 0 {
        return Vec::new();
    }
    let mut keyed: Vec<(Key, usize)> = nodes
        .par_iter()
        .enumerate()
        .map(|(i, n)| (Key::of(&field_of(n, &order.field)), i))
        .collect();
    let by = |a: &(Key, usize), b: &(Key, usize)| {
        let o = a.0.cmp(&b.0);
        let o = if order.descending { o.reverse() } else { o };
        o.then(a.1.cmp(&b.1))
    };
    if limit < keyed.len() {
        keyed.select_nth_unstable_by(limit - 1, by);
        keyed.truncate(limit);
    }
    keyed.sort_unstable_by(by);
    keyed.into_iter().map(|(_, i)| nodes[i]).collect()
}

/// A node field as in the file's JSON (`null` when absent; `type` is the node type;
/// `scope` of a node without one is `personal`), read without serializing the node.
pub(super) fn field_of(n: &Node, name: &str) -> Json {
    if name == "scope" && n.scope.is_none() {
        return Json::String("personal".into());
    }
    known(n, name).unwrap_or_else(|| n.extra.get(name).cloned().unwrap_or(Json::Null))
}

/// A field of [`Node`] by its JSON name; `None` for a name it does not have.
fn known(n: &Node, name: &str) -> Option<Json> {
    fn json<T: serde::Serialize>(v: &T) -> Json {
        serde_json::to_value(v).unwrap_or(Json::Null)
    }
    Some(match name {
        "accessCount" => json(&n.access_count),
        "approvedBy" => json(&n.approved_by),
        "artifactRef" => json(&n.artifact_ref),
        "confidence" => json(&n.confidence),
        "content" => json(&n.content),
        "created" => json(&n.created),
        "createdBy" => json(&n.created_by),
        "deletedAt" => json(&n.deleted_at),
        "department" => json(&n.department),
        "description" => json(&n.description),
        "effectiveDate" => json(&n.effective_date),
        "expiryDate" => json(&n.expiry_date),
        "firstMentioned" => json(&n.first_mentioned),
        "id" => json(&n.id),
        "importance" => json(&n.importance),
        "keywords" => json(&n.keywords),
        "knowledgeType" => json(&n.knowledge_type),
        "label" => json(&n.label),
        "lastAccessed" => json(&n.last_accessed),
        "lastMentioned" => json(&n.last_mentioned),
        "memoryType" => json(&n.memory_type),
        "metadata" => json(&n.metadata),
        "outcome" => json(&n.outcome),
        "owner" => json(&n.owner),
        "provenance" => json(&n.provenance),
        "rationale" => json(&n.rationale),
        "recentAccesses" => json(&n.recent_accesses),
        "relatedNodes" => json(&n.related_nodes),
        "scope" => json(&n.scope),
        "severity" => json(&n.severity),
        "status" => json(&n.status),
        "tags" => json(&n.tags),
        "tier" => json(&n.tier),
        "timestamp" => json(&n.timestamp),
        "tombstone" => json(&n.tombstone),
        "type" => json(&n.kind),
        "updated" => json(&n.updated),
        "version" => json(&n.version),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A node with every field of the type set, and one this version does not know.
    fn full() -> Node {
        serde_json::from_value(serde_json::json!({
            "accessCount": 3, "approvedBy": "ana", "artifactRef": "a1", "confidence": 0.5,
            "content": "Postgres holds the sessions", "created": "2025-01-02T03:04:05Z",
            "createdBy": "ingest", "deletedAt": "2025-02-02T00:00:00Z", "department": "ops",
            "description": "where sessions live", "effectiveDate": "2025-01-01",
            "expiryDate": "2026-01-01T00:00:00Z", "firstMentioned": 4, "id": "n1",
            "importance": 0.75, "keywords": ["db"], "knowledgeType": "policy",
            "label": "Sessions", "lastAccessed": "2025-03-01T00:00:00Z",
            "lastMentioned": 9, "memoryType": "fact", "metadata": {"k": [1, 2]},
            "outcome": "Use Postgres", "owner": "bo",
            "provenance": [{"conversationId": "c", "messageIds": ["m"], "turns": [4]}],
            "rationale": "one store", "recentAccesses": [{"at": "2025-03-01T00:00:00Z"}],
            "relatedNodes": ["n2"], "scope": "departmental", "severity": "high",
            "status": "active", "tags": ["infra"], "tier": "WARM",
            "timestamp": "2025-01-02T03:04:05Z", "tombstone": false, "type": "decision",
            "updated": "2025-01-03T00:00:00Z", "version": 2, "futureField": {"x": 1}
        }))
        .unwrap()
    }

    #[test]
    fn every_field_reads_as_the_nodes_json_has_it() {
        let n = full();
        let whole = serde_json::to_value(&n).unwrap();
        let whole = whole.as_object().unwrap();
        assert!(
            whole.len() > 38,
            "the node sets every field: {}",
            whole.len()
        );
        for (name, value) in whole {
            if name != "futureField" {
                assert_eq!(known(&n, name).as_ref(), Some(value), "{name}");
            }
            assert_eq!(&field_of(&n, name), value, "{name}");
        }
        assert_eq!(field_of(&n, "nothing"), Json::Null);
        let bare = Node::new(
            smg_format::model::NonEmpty::from_static("b"),
            smg_format::model::NonEmpty::from_static("memory"),
        );
        assert_eq!(field_of(&bare, "scope"), "personal");
        assert_eq!(field_of(&bare, "label"), Json::Null);
    }

    #[test]
    fn words_are_found_stemmed_in_any_text_of_the_node() {
        let n = full();
        let words = |q: &str| {
            let c = Compiled::comparison(&Comparison {
                field: "topic".into(),
                op: Op::Eq,
                value: Value::Text(q.into()),
            });
            c.holds(&n)
        };
        assert!(words("postgres sessions"));
        assert!(words("Session DB infra"));
        assert!(words("stores"));
        assert!(!words("postgres redis"));
        assert!(!words("the"));
    }

    fn key() -> impl Strategy<Value = Json> {
        prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            (-5i32..5).prop_map(|x| serde_json::json!(f64::from(x) / 2.0)),
            (1i64..28).prop_map(|d| Json::String(format!("2025-01-{d:02}"))),
            "[a-cA-C]{0,3}".prop_map(Json::String),
            (0u8..3).prop_map(|x| serde_json::json!([x])),
        ]
    }

    proptest! {
        /// Keys are a total order, so that a sort never sees a value both before and
        /// after another; the first LIMIT are those of a full stable sort.
        #[test]
        fn keys_order_totally_and_limits_take_a_sorts_first(
            values in proptest::collection::vec(key(), 0..40),
            limit in 0usize..45,
            descending in any::<bool>(),
        ) {
            let keys: Vec<Key> = values.iter().map(Key::of).collect();
            for a in &keys {
                for b in &keys {
                    prop_assert_eq!(a.cmp(b), b.cmp(a).reverse());
                    for c in &keys {
                        if a.cmp(b).is_le() && b.cmp(c).is_le() {
                            prop_assert!(a.cmp(c).is_le());
                        }
                    }
                }
            }
            let nodes: Vec<Node> = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut n = Node::new(
                        smg_format::model::NonEmpty::new(format!("n{i}")).unwrap(),
                        smg_format::model::NonEmpty::from_static("memory"),
                    );
                    n.extra.insert("k".into(), v.clone());
                    n
                })
                .collect();
            let refs: Vec<&Node> = nodes.iter().collect();
            let order = Order { field: "k".into(), descending };
            let got: Vec<&str> = ordered(refs.clone(), &order, limit)
                .iter()
                .map(|n| n.id.as_str())
                .collect();
            let mut all = refs;
            all.sort_by(|a, b| {
                let o = Key::of(&field_of(a, "k")).cmp(&Key::of(&field_of(b, "k")));
                if descending { o.reverse() } else { o }
            });
            let want: Vec<&str> = all.iter().take(limit).map(|n| n.id.as_str()).collect();
            prop_assert_eq!(got, want);
        }
    }
}
