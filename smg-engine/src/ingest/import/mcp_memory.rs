//! The official MCP memory server's JSON Lines (`memory.jsonl`): entities with their
//! type and observations, and relations between them. Real files repeat an entity
//! (its observations are merged, in order, exact repeats dropped), repeat relations
//! (taken once) and name entities that have no line (made, flagged `implicit`).
//!
//! An entity becomes an `entity` node (spec §11's id from its name; `tags: [type]`,
//! `content` its observations one per line, `metadata.mcp` the exact type and
//! observations so that export gives them back); a relation an edge whose relation is
//! the relation type.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use smg_format::model::{Document, Edge, Graph, Node, NonEmpty, Scope};

use super::Records;
use crate::error::Result;
use crate::fast::{FastMap, FastSet};
use crate::ingest::named::entity_id;

/// `createdBy` of the nodes this import makes: authored, never derived again.
pub(crate) const CREATED_BY: &str = "mcp-memory";

/// One entity as the file gives it, repeats merged.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Entity {
    pub(crate) name: String,
    pub(crate) entity_type: String,
    pub(crate) observations: Vec<String>,
}

/// What a file holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct McpGraph {
    pub(crate) entities: Vec<Entity>,
    /// (from, to, relation type), repeats taken once, in file order.
    pub(crate) relations: Vec<(String, String, NonEmpty)>,
}

/// Whether a parsed first line is an MCP memory record.
pub(crate) fn looks_like(v: &Value) -> bool {
    match v.get("type").and_then(Value::as_str) {
        Some("entity") => v.get("name").is_some() && v.get("entityType").is_some(),
        Some("relation") => v.get("relationType").is_some(),
        _ => false,
    }
}

fn text<'v>(v: &'v Value, key: &str) -> std::result::Result<&'v str, String> {
    match v.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) => Err(format!("`{key}` is empty")),
        Some(_) => Err(format!("`{key}` is not a string")),
        None => Err(format!("no `{key}`")),
    }
}

/// Read the file's lines; a malformed line is skipped (or fails under `--strict`).
pub(crate) fn read(text_in: &str, records: &mut Records<'_>) -> Result<McpGraph> {
    let mut graph = McpGraph::default();
    let mut at: FastMap<String, usize> = FastMap::default();
    let mut seen_relations: FastSet<(String, String, NonEmpty)> = FastSet::default();
    let body = text_in.trim_start_matches('\u{feff}');
    for (n, line) in body.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let position = format!("line {}", n + 1);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                records.skip(position, format!("not JSON: {e}"))?;
                continue;
            }
        };
        let parsed = match v.get("type").and_then(Value::as_str) {
            Some("entity") => entity(&v).map(|e| {
                let i = *at.entry(e.name.clone()).or_insert_with(|| {
                    graph.entities.push(Entity {
                        name: e.name.clone(),
                        entity_type: e.entity_type.clone(),
                        observations: Vec::new(),
                    });
                    graph.entities.len() - 1
                });
                let list = &mut graph.entities[i].observations;
                for o in e.observations {
                    if !list.contains(&o) {
                        list.push(o);
                    }
                }
            }),
            Some("relation") => relation(&v).map(|r| {
                if seen_relations.insert(r.clone()) {
                    graph.relations.push(r);
                }
            }),
            Some(other) => Err(format!("type `{other}` is neither entity nor relation")),
            None => Err("no `type`".into()),
        };
        if let Err(why) = parsed {
            records.skip(position, why)?;
        }
    }
    Ok(graph)
}

fn entity(v: &Value) -> std::result::Result<Entity, String> {
    let observations = match v.get("observations") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|o| o.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("an observation is not a string")?,
        Some(_) => return Err("`observations` is not a list".into()),
    };
    Ok(Entity {
        name: text(v, "name")?.to_string(),
        entity_type: text(v, "entityType")?.to_string(),
        observations,
    })
}

fn relation(v: &Value) -> std::result::Result<(String, String, NonEmpty), String> {
    let kind = text(v, "relationType")?;
    Ok((
        text(v, "from")?.to_string(),
        text(v, "to")?.to_string(),
        NonEmpty::new(kind).map_err(|e| format!("`relationType`: {e}"))?,
    ))
}

/// The id of the entity `name`: spec §11's (SHA-256 of the trimmed, lower-cased
/// name), unless another name already has it in `taken` (the MCP server tells
/// `Ada` from `ada`): then that id and the first 16 hex of the exact name's digest.
fn id_for(name: &str, taken: &FastMap<String, String>) -> NonEmpty {
    let id = entity_id(name);
    match taken.get(id.as_str()) {
        Some(other) if other != name => exact_id(&id, name),
        _ => id,
    }
}

/// `id` told apart by the first 16 hex of the exact name's digest.
pub(crate) fn exact_id(id: &NonEmpty, name: &str) -> NonEmpty {
    let exact = hex::encode(Sha256::digest(name.as_bytes()));
    NonEmpty::joined(id, format_args!("-{}", &exact[..16]))
}

/// The MCP facts a node holds, if an MCP import made it.
pub(crate) fn mcp_of(node: &Node) -> Option<&Value> {
    node.metadata.as_ref()?.get("mcp")
}

pub(crate) fn entity_node(id: NonEmpty, e: &Entity, implicit: bool) -> Node {
    let mut mcp = json!({"entityType": e.entity_type, "observations": e.observations});
    if implicit {
        mcp["implicit"] = json!(true);
    }
    Node {
        label: Some(e.name.clone()),
        tags: Some(vec![e.entity_type.as_str().into()]),
        content: (!e.observations.is_empty()).then(|| e.observations.join("\n")),
        created_by: Some(CREATED_BY.into()),
        metadata: Some(json!({ "mcp": mcp })),
        ..Node::new(id, NonEmpty::from_static("entity"))
    }
}

/// Where the MCP nodes of a graph are, by id and by name.
struct Placer {
    /// MCP node id → entity name.
    names: FastMap<String, String>,
    /// Node id → position, for every node.
    index: FastMap<String, usize>,
    /// Entity name → MCP node id.
    by_name: FastMap<String, NonEmpty>,
}

impl Placer {
    fn new(nodes: &[Node]) -> Self {
        let mcp = nodes.iter().filter(|n| mcp_of(n).is_some());
        let named: Vec<(&NonEmpty, &String)> = mcp
            .filter_map(|n| Some((&n.id, n.label.as_ref()?)))
            .collect();
        let names = named
            .iter()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect();
        let by_name = named
            .into_iter()
            .map(|(id, name)| (name.clone(), id.clone()))
            .collect();
        let index = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.to_string(), i))
            .collect();
        Placer {
            names,
            index,
            by_name,
        }
    }

    /// The node of entity `e`, merged into the one of its name or made.
    fn put(&mut self, nodes: &mut Vec<Node>, e: &Entity, implicit: bool) -> NonEmpty {
        if let Some(id) = self.by_name.get(&e.name) {
            merge_observations(&mut nodes[self.index[id.as_str()]], e, implicit);
            return id.clone();
        }
        let id = id_for(&e.name, &self.names);
        let node = entity_node(id.clone(), e, implicit);
        match self.index.get(id.as_str()) {
            // A node ingest derived for the same name gives way to the authored one.
            Some(&i) => nodes[i] = node,
            None => {
                self.index.insert(id.to_string(), nodes.len());
                nodes.push(node);
            }
        }
        self.names.insert(id.to_string(), e.name.clone());
        self.by_name.insert(e.name.clone(), id.clone());
        id
    }
}

/// Put `graph` into `doc`'s semantic graph: entities merge into the MCP nodes already
/// there (observations added in order), relations are added once. Returns the
/// entities made for relation ends that had no line.
///
/// Given a `scope`, every node the graph puts takes it; restricted observations are
/// never merged into a node of another scope (refused, naming the entity), since
/// sealing takes whole nodes.
pub(crate) fn apply(
    doc: &mut Document,
    graph: McpGraph,
    scope: Option<Scope>,
) -> Result<Vec<String>> {
    let g = doc.semantic_graph.get_or_insert_with(Graph::default);
    let nodes = g.nodes.get_or_insert_with(Vec::new);
    let mut placer = Placer::new(nodes);
    if let Some(s) = scope {
        let names = graph.entities.iter().map(|e| e.name.as_str());
        let ends = graph
            .relations
            .iter()
            .flat_map(|(a, b, _)| [a.as_str(), b.as_str()]);
        for name in names.chain(ends) {
            let at = placer.by_name.get(name).map(|id| placer.index[id.as_str()]);
            if at.is_some_and(|i| nodes[i].scope != Some(s)) {
                return Err(smg_format::Error::InvalidArgument(format!(
                    "entity `{name}` is in the memory with another scope: its {} observations cannot be kept apart from it",
                    s.name()
                ))
                .into());
            }
        }
    }
    let mut placed = Vec::new();
    for e in &graph.entities {
        placed.push(placer.put(nodes, e, false));
    }
    let mut implicit = Vec::new();
    let mut ends = Vec::with_capacity(graph.relations.len());
    for (from, to, _) in &graph.relations {
        let mut end = |name: &str| match placer.by_name.get(name) {
            Some(id) => id.clone(),
            None => {
                implicit.push(name.to_string());
                let e = Entity {
                    name: name.to_string(),
                    entity_type: "unknown".into(),
                    observations: Vec::new(),
                };
                placer.put(nodes, &e, true)
            }
        };
        let pair = (end(from), end(to));
        ends.push(pair);
    }
    if scope.is_some() {
        let ids = placed.iter().chain(ends.iter().flat_map(|(a, b)| [a, b]));
        for id in ids {
            nodes[placer.index[id.as_str()]].scope = scope;
        }
    }
    let edges = g.edges.get_or_insert_with(Vec::new);
    let mut have: FastSet<(NonEmpty, NonEmpty, NonEmpty)> = edges
        .iter()
        .map(|e| (e.from.clone(), e.relation.clone(), e.to.clone()))
        .collect();
    for ((from, to), (_, _, kind)) in ends.into_iter().zip(graph.relations) {
        if have.insert((from.clone(), kind.clone(), to.clone())) {
            edges.push(Edge::new(from, kind, to));
        }
    }
    Ok(implicit)
}

/// Add `e`'s observations to the MCP node `n` (an implicit node that gets its own
/// line becomes explicit, with the line's type).
fn merge_observations(n: &mut Node, e: &Entity, implicit: bool) {
    let Some(Value::Object(meta)) = n.metadata.as_mut() else {
        return;
    };
    let Some(Value::Object(mcp)) = meta.get_mut("mcp") else {
        return;
    };
    if !implicit && mcp.remove("implicit").is_some() {
        mcp.insert("entityType".into(), json!(e.entity_type));
        n.tags = Some(vec![e.entity_type.as_str().into()]);
    }
    let list = mcp
        .entry("observations")
        .or_insert_with(|| json!([]))
        .as_array_mut();
    let Some(list) = list else { return };
    for o in &e.observations {
        if !list.iter().any(|x| x.as_str() == Some(o)) {
            list.push(json!(o));
        }
    }
    let all: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    n.content = (!all.is_empty()).then(|| all.join("\n"));
}

#[cfg(test)]
mod tests {
    use smg_format::Document;

    use crate::export::mcp_memory;
    use crate::ingest::{ingest, Format, IngestOptions, Input, Silent};

    fn run(
        doc: &mut Document,
        text: &str,
        strict: bool,
    ) -> crate::Result<crate::ingest::IngestReport> {
        let options = IngestOptions {
            format: Format::Auto,
            strict,
            ..IngestOptions::default()
        };
        let input = Input {
            name: "memory.jsonl".into(),
            bytes: text.as_bytes().to_vec(),
        };
        ingest(doc, vec![input], &options, &Silent)
    }

    const SERVER: &str = concat!(
        r#"{"type":"entity","name":"Ada","entityType":"person","observations":["likes tea","lives in Lisbon"]}"#,
        "\n",
        r#"{"type":"entity","name":"ada","entityType":"project","observations":[]}"#,
        "\n",
        r#"{"type":"entity","name":"Ñandú ☕","entityType":"place","observations":["line\nbreak inside"]}"#,
        "\n",
        r#"{"type":"relation","from":"Ada","to":"ada","relationType":"works on"}"#,
        "\n",
        r#"{"type":"relation","from":"ada","to":"Ñandú ☕","relationType":"located_in"}"#,
        "\n",
    );

    #[test]
    fn a_server_file_comes_back_line_for_line() {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let r = run(&mut doc, SERVER, true).unwrap();
        assert_eq!((r.entities, r.relations, r.implicit.len()), (3, 2, 0));
        let ids: Vec<&str> = doc
            .semantic_graph
            .as_ref()
            .unwrap()
            .nodes()
            .iter()
            .map(|n| n.id.as_str())
            .collect();
        assert_ne!(ids[0], ids[1], "Ada and ada are two entities");
        let out = mcp_memory(&doc);
        let parse = |t: &str| {
            t.lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(parse(&out.text), parse(SERVER));
        assert!(out.left_out.is_empty());
        assert!(smg_format::validate::ensure_valid(&doc, &smg_format::Limits::default()).is_ok());
    }

    #[test]
    fn repeats_merge_dangling_ends_are_made_and_bad_lines_are_named() {
        let text = concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["a","b"]}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"Stripe","relationType":"uses"}"#,
            "\n",
            "not json\n",
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["b","c"]}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"Stripe","relationType":"uses"}"#,
            "\n",
            r#"{"type":"entity","name":"","entityType":"person"}"#,
            "\n",
        );
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let r = run(&mut doc, text, false).unwrap();
        assert_eq!((r.entities, r.relations), (1, 1));
        assert_eq!(r.implicit, ["Stripe"]);
        let lines: Vec<&str> = r.skipped.iter().map(|s| s.position.as_str()).collect();
        assert_eq!(lines, ["line 3", "line 6"]);
        let out = mcp_memory(&doc);
        let first: serde_json::Value =
            serde_json::from_str(out.text.lines().next().unwrap()).unwrap();
        assert_eq!(first["observations"], serde_json::json!(["a", "b", "c"]));
        assert_eq!(
            (out.entities, out.relations),
            (1, 1),
            "Stripe had no line: it gets none"
        );
        // Stripe's own line later makes it an entity like the others.
        let more = r#"{"type":"entity","name":"Stripe","entityType":"organization","observations":["payments"]}"#;
        run(&mut doc, more, true).unwrap();
        assert_eq!(mcp_memory(&doc).entities, 2);
        let err = run(
            &mut Document::new(smg_format::model::Timestamp::from_static(
                "2025-01-01T00:00:00Z",
            )),
            text,
            true,
        )
        .unwrap_err();
        assert_eq!(err.code(), "SMG-E210");
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn other_knowledge_exports_as_entities_and_says_what_it_leaves_out() {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let chat = concat!(
            r#"{"conversation_id":"c1","message_id":"m1","role":"user","content":"We decided to use Postgres for billing because of transactions.","timestamp":"2025-02-28T10:10:00Z"}"#,
            "\n",
            r#"{"conversation_id":"c1","message_id":"m2","role":"assistant","content":"Good: Postgres for billing.","timestamp":"2025-02-28T10:11:00Z"}"#,
            "\n",
        );
        run(&mut doc, chat, true).unwrap();
        let out = mcp_memory(&doc);
        assert!(out.entities > 0);
        assert!(out.left_out.iter().any(|(_, why)| why.contains("segment")));
        for l in out.text.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["type"] == "entity" || v["type"] == "relation", "{l}");
        }
    }
}
