//! The query language of SMG §12.3: `FIND decisions WHERE topic = "database schema"
//! AND timestamp > "2025-12-01" ORDER BY importance DESC LIMIT 10`.
//!
//! Fields are node fields (`label`, `importance`, `timestamp`, `memoryType`, `scope`,
//! `tier`…); `topic` and `text` match words against all of a node's text (label,
//! description, content, outcome, rationale, keywords, tags): every word of the value
//! must occur, stemmed. Times compare as instants (a date means its midnight, UTC);
//! numbers as numbers; other text case-insensitively. Values of different kinds
//! order as: missing, booleans, numbers, instants, text, lists and objects. `scope`
//! of a node without one is `personal`.
//!
//! ```
//! use smg_format::{model::{Graph, Node, NonEmpty, Unit}, Document};
//! let mut doc = Document::new(smg_format::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
//! let node = |id: &'static str, kind: &'static str, label: &str, importance: f64| Node {
//!     label: Some(label.into()), importance: Some(Unit::new(importance).unwrap()),
//!     ..Node::new(NonEmpty::from_static(id), NonEmpty::from_static(kind))
//! };
//! doc.semantic_graph = Some(Graph {
//!     nodes: Some(vec![
//!         node("d1", "decision", "Use Postgres for the database schema", 0.4),
//!         node("d2", "decision", "Database schema in one migration", 0.9),
//!         node("c1", "concept", "database schema", 1.0),
//!     ]),
//!     ..Graph::default()
//! });
//! let q = smg_engine::query::parse(r#"find decisions where topic = "database schema" order by importance desc"#).unwrap();
//! let ids: Vec<String> = smg_engine::query::run(&doc, &q).into_iter().map(|n| n.id.into_string()).collect();
//! assert_eq!(ids, ["d2", "d1"]);
//! ```

mod eval;
mod parse;

use smg_format::{model::Node, Document};

use crate::error::{Error, Result};

/// A parsed `FIND` query.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Query {
    /// Node type asked for (`decisions`, `memory`, `nodes`, `*`…).
    pub kind: String,
    /// The `WHERE` condition.
    pub filter: Option<Expr>,
    /// `ORDER BY`.
    pub order: Option<Order>,
    /// `LIMIT`.
    pub limit: Option<usize>,
}

/// A condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `field op value`.
    Compare(Comparison),
    /// Both.
    And(Box<Expr>, Box<Expr>),
    /// Either.
    Or(Box<Expr>, Box<Expr>),
    /// Not.
    Not(Box<Expr>),
}

/// `field op value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The node field (camelCase, as in the file), or `topic` / `text`.
    pub field: String,
    /// The operator.
    pub op: Op,
    /// The value compared with.
    pub value: Value,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=` (for `topic` and `text`: every word occurs).
    Eq,
    /// `!=`.
    Ne,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `CONTAINS`: a case-insensitive substring.
    Contains,
}

/// A literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A quoted string.
    Text(String),
    /// A number.
    Number(f64),
}

/// `ORDER BY field [ASC|DESC]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The field.
    pub field: String,
    /// `DESC`.
    pub descending: bool,
}

/// Parse a query; a malformed one is `SMG-E220` naming the column.
pub fn parse(text: &str) -> Result<Query> {
    if text.len() > 64 << 10 {
        return Err(Error::Query {
            column: 1,
            detail: "a query is at most 64 KiB".into(),
        });
    }
    parse::parse(text).map_err(|(column, detail)| Error::Query { column, detail })
}

/// The nodes of every graph of `doc` that satisfy `query`, ordered and limited.
/// Nodes are tested side by side; with `ORDER BY`, equal values keep the nodes'
/// order in the file.
pub fn run(doc: &Document, query: &Query) -> Vec<Node> {
    run_all(&[doc], query).into_iter().map(|(_, n)| n).collect()
}

/// [`run`] over several documents as one (a network of linked memories): the nodes
/// of all of them that satisfy `query`, ordered and limited together, each with the
/// position in `docs` of the document that holds it. With `ORDER BY`, equal values
/// keep the documents' order, then the nodes'.
pub fn run_all(docs: &[&Document], query: &Query) -> Vec<(usize, Node)> {
    let kind = query.kind.to_lowercase();
    let all = matches!(kind.as_str(), "*" | "nodes" | "node" | "all");
    let wanted = match kind.strip_suffix("ies") {
        Some(stem) => format!("{stem}y"),
        None => kind.strip_suffix('s').unwrap_or(&kind).to_string(),
    };
    let nodes: Vec<Held<'_>> = docs
        .iter()
        .enumerate()
        .flat_map(|(doc, d)| {
            let graphs = d.graphs().into_iter();
            graphs
                .flat_map(|(_, g)| g.nodes.iter().flatten())
                .filter(|n| all || n.kind == kind || n.kind == wanted)
                .map(move |node| Held { doc, node })
        })
        .collect();
    let found = eval::matching(nodes, query.filter.as_ref());
    let limit = query.limit.unwrap_or(usize::MAX);
    let mut found = match &query.order {
        Some(order) => eval::ordered(found, order, limit),
        None => found,
    };
    found.truncate(limit);
    found.into_iter().map(|h| (h.doc, h.node.clone())).collect()
}

/// A node and the position of the document that holds it.
#[derive(Clone, Copy)]
struct Held<'a> {
    doc: usize,
    node: &'a Node,
}

impl std::ops::Deref for Held<'_> {
    type Target = Node;

    fn deref(&self) -> &Node {
        self.node
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smg_format::model::Graph;

    fn doc() -> Document {
        let node = |id: &str, kind: &str, label: &str, ts: &str, imp: f64| Node {
            label: Some(label.into()),
            timestamp: Some(smg_format::model::Timestamp::new(ts).unwrap()),
            importance: Some(smg_format::model::Unit::clamped(imp)),
            ..Node::new(
                smg_format::model::NonEmpty::new(id).unwrap(),
                smg_format::model::NonEmpty::new(kind).unwrap(),
            )
        };
        let mut d = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let mut restricted = node(
            "m1",
            "memory",
            "Salary bands for 2026",
            "2025-12-03T09:00:00Z",
            0.5,
        );
        restricted.scope = Some(smg_format::model::Scope::Restricted);
        d.semantic_graph = Some(Graph {
            nodes: Some(vec![
                node(
                    "d1",
                    "decision",
                    "Split the database schema per tenant",
                    "2025-11-20T10:00:00Z",
                    0.7,
                ),
                node(
                    "d2",
                    "decision",
                    "Database schemas get one migration each",
                    "2025-12-02T10:00:00Z",
                    0.9,
                ),
                node(
                    "d3",
                    "decision",
                    "Use Redis for sessions",
                    "2025-12-05T10:00:00Z",
                    0.8,
                ),
                restricted,
            ]),
            ..Graph::default()
        });
        d
    }

    fn ids(q: &str) -> Vec<String> {
        run(&doc(), &parse(q).unwrap())
            .into_iter()
            .map(|n| n.id.into_string())
            .collect()
    }

    #[test]
    fn the_seed_example_runs() {
        let q = r#"FIND decisions WHERE topic = "database schema" AND timestamp > "2025-12-01" ORDER BY importance DESC LIMIT 10"#;
        assert_eq!(ids(q), ["d2"]);
        assert_eq!(
            ids(r#"find decision where topic = "database schema" order by timestamp"#),
            ["d1", "d2"]
        );
        assert_eq!(
            ids("FIND decisions ORDER BY importance DESC LIMIT 2"),
            ["d2", "d3"]
        );
        assert_eq!(ids(r#"FIND * WHERE NOT (scope = "personal") "#), ["m1"]);
        assert_eq!(
            ids(r#"FIND nodes WHERE label CONTAINS "redis" OR importance >= 0.9"#),
            ["d2", "d3"]
        );
        assert_eq!(ids(r#"FIND memories WHERE scope = 'restricted'"#), ["m1"]);
        assert!(ids(r#"FIND decisions WHERE outcome = "x""#).is_empty());
    }

    #[test]
    fn several_documents_are_ordered_and_limited_as_one() {
        let (a, mut b) = (doc(), doc());
        // The second file's d2 is the most important of all; its others tie with the
        // first file's and come after them.
        let graph = b.semantic_graph.as_mut().unwrap();
        graph.nodes.as_mut().unwrap()[1].importance = Some(smg_format::model::Unit::clamped(0.95));
        let q = parse("FIND decisions ORDER BY importance DESC LIMIT 4").unwrap();
        let found: Vec<(usize, String)> = run_all(&[&a, &b], &q)
            .into_iter()
            .map(|(i, n)| (i, n.id.into_string()))
            .collect();
        let want = [(1, "d2"), (0, "d2"), (0, "d3"), (1, "d3")];
        assert_eq!(found, want.map(|(i, id)| (i, id.to_string())));
        let unordered = parse("FIND decisions LIMIT 4").unwrap();
        let docs: Vec<usize> = run_all(&[&a, &b], &unordered)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(docs, [0, 0, 0, 1], "file order, then node order");
        assert_eq!(run_all(&[&a], &q).len(), run(&a, &q).len());
    }

    #[test]
    fn malformed_queries_name_the_column() {
        for (q, column) in [
            ("FIND decisions WHERE", 21),
            ("FIND decisions WHERE topic ~ \"x\"", 28),
            ("FIND decisions WHERE topic = \"open", 35),
            ("SELECT * FROM nodes", 1),
            ("FIND decisions LIMIT ten", 22),
            ("FIND decisions WHERE (a = 1", 28),
        ] {
            let err = parse(q).unwrap_err();
            assert_eq!(err.code(), "SMG-E220");
            let Error::Query { column: got, .. } = &err else {
                panic!()
            };
            assert_eq!(*got, column, "{q}: {err}");
        }
        assert!(parse(&"x".repeat(100_000)).is_err());
    }
}
