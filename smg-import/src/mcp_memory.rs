//! The official MCP memory server's JSON Lines (`memory.jsonl`): entities with their
//! type and observations, and relations between them, for the graph. Repeats of an
//! entity are merged here (observations in order, exact repeats dropped) and
//! repeated relations taken once; how they join the graph is the engine's.

use foldhash::fast::FixedState;
use serde_json::Value;
use smg_engine::ingest::{Entity, Imported, McpGraph};
use smg_engine::Result;
use smg_format::model::NonEmpty;

use crate::records::{file_bytes, text as utf8};
use crate::{Importer, Input, Records};

type FastMap<K, V> = std::collections::HashMap<K, V, FixedState>;
type FastSet<T> = std::collections::HashSet<T, FixedState>;

/// The MCP memory server's file.
pub(crate) struct McpMemory;

impl Importer for McpMemory {
    fn name(&self) -> &'static str {
        "mcp-memory"
    }

    fn read(&self, input: &Input, records: &mut Records<'_>) -> Result<Imported> {
        let text = utf8(file_bytes(input, records, self.name())?, records)?;
        Ok(Imported {
            format: self.name(),
            graph: Some(read(text, records)?),
            ..Imported::default()
        })
    }
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
fn read(text_in: &str, records: &mut Records<'_>) -> Result<McpGraph> {
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

#[cfg(test)]
mod tests {
    use smg_format::Document;

    use smg_engine::export::mcp_memory;
    use smg_engine::ingest::{ingest, IngestOptions, Silent};

    use crate::{read, Format, Input};

    fn run(
        doc: &mut Document,
        text: &str,
        strict: bool,
    ) -> smg_engine::Result<smg_engine::ingest::IngestReport> {
        let input = Input::bytes("memory.jsonl", text.as_bytes().to_vec());
        let got = read(input, Format::Auto, strict)?;
        ingest(doc, vec![got], &IngestOptions::default(), &Silent)
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
