//! What an importer gives ingest: conversations of messages, each keeping its
//! original record, and what else its input holds for the memory (nodes, an MCP
//! memory's entities and relations, file versions for the vault). The readers of
//! outside formats live in the `smg-import` crate; these types are the one thing
//! they and ingest share.

use serde_json::{Map, Value};
use smg_format::model::{Graph, Node, NonEmpty, Scope, Timestamp, WorkingMemory};
use smg_format::vault::{NewContent, VaultWriter};
use smg_format::Document;

use crate::error::Result;

/// One input as an importer read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    /// The format read: `source.format` of every turn it gives (`chatgpt`, `jsonl`…).
    pub format: &'static str,
    /// Bytes read, for the report.
    pub bytes: u64,
    /// The conversations, in the input's order.
    pub conversations: Vec<Conversation>,
    /// What an MCP memory file holds.
    pub graph: Option<McpGraph>,
    /// Nodes the input brings as they are (a Letta agent's core memory blocks): each
    /// replaces the graph's node of the same id.
    pub nodes: Vec<Node>,
    /// File versions for the vault, oldest first.
    pub versions: Vec<Version>,
    /// Working memory's `repository` member (spec §5), for a repository.
    pub repository: Option<Value>,
    /// Files not put into the vault (binary, too large, not UTF-8), with why.
    pub not_stored: Vec<(String, String)>,
    /// Records the importer could not read (empty under `--strict`).
    pub skipped: Vec<Skipped>,
}

impl Imported {
    /// Whether ingest needs the whole graph to take this input: it brings nodes that
    /// join the graph's by name or id, or versions for the vault.
    pub(crate) fn needs_whole_document(&self) -> bool {
        self.graph.is_some()
            || !self.nodes.is_empty()
            || !self.versions.is_empty()
            || self.repository.is_some()
    }
}

/// One conversation: its id, its own fields (without the messages) and its messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The id every turn of it takes as `conversationId`.
    pub id: String,
    /// The conversation's own fields, kept in `deepArchive.conversations`.
    pub header: Option<Value>,
    /// Its messages, in order.
    pub messages: Vec<Message>,
    /// The source's records that became no turn (empty messages, a message tree's
    /// root and other branches, records skipped as malformed), each with its place:
    /// kept beside the header, so that nothing the source held is lost.
    pub others: Vec<(Value, Value)>,
    /// For a conversation that came with others in one file (a Letta file's agents):
    /// the file's name, the conversation's place in it and, with the first, the
    /// file's own fields.
    pub file: Option<Value>,
}

/// One message of a conversation, as an importer read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Its id, unique in its conversation.
    pub message_id: String,
    /// The session it belongs to, when the source has sessions.
    pub session_id: Option<String>,
    /// One of the v1 roles (spec §4.3).
    pub role: NonEmpty,
    /// Who spoke, when the source names people.
    pub speaker: Option<String>,
    /// The message as text: what search, chunking and the archive's `content` see.
    pub content: String,
    /// When it was said.
    pub timestamp: Option<Timestamp>,
    /// The source record, as [`compact_record`] gives it.
    pub record: Box<str>,
    /// The scope the record gives (JSON Lines' `scope`): `Restricted`, or none.
    pub scope: Option<Scope>,
}

/// A record an importer could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The input file.
    pub file: String,
    /// Where in it: `line 12`, `conversation 3, message 7`…
    pub position: String,
    /// What is wrong.
    pub reason: String,
}

/// One version of a file, for the vault.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// The path in the repository or folder, `/`-separated: the artifact's file name.
    pub path: String,
    /// The text.
    pub content: String,
    /// When it was written.
    pub time: Option<Timestamp>,
    /// The language, when the source says; else told from the path.
    pub language: Option<String>,
}

/// What an MCP memory file holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpGraph {
    /// Entities, repeats merged, in file order.
    pub entities: Vec<Entity>,
    /// (from, to, relation type), repeats taken once, in file order.
    pub relations: Vec<(String, String, NonEmpty)>,
}

/// One entity as an MCP memory file gives it, repeats merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entity {
    /// Its name: unique among entities, exactly as given.
    pub name: String,
    /// Its type.
    pub entity_type: String,
    /// Its observations, in order, exact repeats dropped.
    pub observations: Vec<String>,
}

/// A message's source record as compact JSON, `{"contentAt": …, "place": …,
/// "record": …}`: a large ingest holds hundreds of thousands, and a parsed record
/// takes several times the memory of its text.
///
/// The message's `content` is its turn's content already: when the record holds it
/// as one string, the record keeps a null in its place and `contentAt` says where
/// (a JSON Pointer), instead of a second copy. `place` says where the record sat in
/// its conversation, for the formats that export back (spec §9.3).
///
/// ```
/// use smg_engine::ingest::compact_record;
/// let content = "we decided to use postgres for the whole project";
/// let record = serde_json::json!({"id": "m1", "parts": ["x", content]});
/// assert_eq!(
///     &*compact_record(&record, content, None),
///     r#"{"contentAt":"/parts/1","record":{"id":"m1","parts":["x",null]}}"#
/// );
/// ```
pub fn compact_record(record: &Value, content: &str, place: Option<Value>) -> Box<str> {
    let mut out = Map::new();
    if let Some(place) = place {
        out.insert("place".into(), place);
    }
    let at = (content.len() >= MIN_SHARED_CONTENT)
        .then(|| find_string(record, content))
        .flatten();
    match at {
        Some(at) => {
            let mut record = record.clone();
            if let Some(slot) = record.pointer_mut(&at) {
                *slot = Value::Null;
            }
            out.insert("contentAt".into(), Value::String(at));
            out.insert("record".into(), record);
        }
        None => {
            out.insert("record".into(), record.clone());
        }
    }
    Value::Object(out).to_string().into_boxed_str()
}

/// Shortest message text worth replacing by a pointer in `source.record`.
const MIN_SHARED_CONTENT: usize = 32;

/// The JSON Pointer (RFC 6901) of the first string in `v` equal to `s`.
fn find_string(v: &Value, s: &str) -> Option<String> {
    let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match v {
        Value::String(x) if x == s => Some(String::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| find_string(item, s).map(|p| format!("/{i}{p}"))),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, item)| find_string(item, s).map(|p| format!("/{}{p}", escape(k)))),
        _ => None,
    }
}

/// Put what an input brings besides its conversations into `doc`: its nodes (each
/// replacing the node of the same id), its file versions into the vault (content
/// already there referenced, not stored again) and its repository into working
/// memory. Returns the versions added.
///
/// Given a `scope`, the nodes take it; an input with files is refused then, since
/// they would go to the vault, which every scope shares.
pub(crate) fn apply(doc: &mut Document, got: &mut Imported, scope: Option<Scope>) -> Result<usize> {
    if let (Some(s), Some(v)) = (scope, got.versions.first()) {
        return Err(smg_format::Error::InvalidArgument(format!(
            "the input's files (`{}`…) would go to the vault, which is shared by every scope: a {} input with files cannot be kept apart",
            v.path,
            s.name()
        ))
        .into());
    }
    if !got.nodes.is_empty() {
        let graph = doc.semantic_graph.get_or_insert_with(Graph::default);
        let nodes = graph.nodes.get_or_insert_with(Vec::new);
        for mut node in std::mem::take(&mut got.nodes) {
            node.scope = scope.or(node.scope);
            match nodes.iter_mut().find(|n| n.id == node.id) {
                Some(old) => *old = node,
                None => nodes.push(node),
            }
        }
    }
    if let Some(repo) = got.repository.take() {
        let wm = doc
            .working_memory
            .get_or_insert_with(WorkingMemory::default);
        wm.extra.insert("repository".into(), repo);
    }
    if got.versions.is_empty() {
        return Ok(0);
    }
    let vault = doc.artifact_vault.get_or_insert_with(Default::default);
    let mut writer = VaultWriter::new(vault);
    let mut added = 0;
    for v in std::mem::take(&mut got.versions) {
        let language = v
            .language
            .as_deref()
            .or_else(|| smg_format::vault::language_of(&v.path));
        let meta = NewContent {
            name: Some(&v.path),
            language,
            kind: Some(kind(&v.path, language)),
            timestamp: v.time.as_ref(),
            ..NewContent::default()
        };
        added += usize::from(writer.add(&v.content, &meta)?.added);
    }
    Ok(added)
}

/// `document` for prose, `code` for the rest.
fn kind(path: &str, language: Option<&str>) -> &'static str {
    let prose = matches!(
        language,
        Some("markdown" | "plaintext" | "text" | "rst" | "asciidoc")
    ) || [".md", ".markdown", ".txt", ".rst", ".adoc"]
        .iter()
        .any(|e| path.to_ascii_lowercase().ends_with(e));
    if prose {
        "document"
    } else {
        "code"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_content_stays_in_its_record() {
        let short = serde_json::json!({"text": "ok"});
        let got: Value = serde_json::from_str(&compact_record(&short, "ok", None)).unwrap();
        assert_eq!(got, serde_json::json!({"record": {"text": "ok"}}));
        let keyed = serde_json::json!({"a/b": {"c~d": "x".repeat(40)}});
        let got: Value =
            serde_json::from_str(&compact_record(&keyed, &"x".repeat(40), None)).unwrap();
        assert_eq!(got["contentAt"], "/a~1b/c~0d");
    }

    fn repository() -> Imported {
        let v = |content: &str| Version {
            path: "src/app.py".into(),
            content: content.into(),
            time: Some(Timestamp::from_static("2025-03-01T10:00:00Z")),
            language: None,
        };
        Imported {
            versions: vec![v("a = 1\n"), v("a = 2\n"), v("a = 2\n")],
            repository: Some(serde_json::json!({"name": "x"})),
            ..Imported::default()
        }
    }

    fn empty() -> Document {
        Document::new(Timestamp::from_static("2025-03-01T00:00:00Z"))
    }

    #[test]
    fn versions_of_one_path_become_one_artifact_with_diffs() {
        let mut doc = empty();
        assert_eq!(apply(&mut doc, &mut repository(), None).unwrap(), 2);
        let arts = doc
            .artifact_vault
            .as_ref()
            .unwrap()
            .artifacts
            .as_ref()
            .unwrap();
        let art = arts.values().next().unwrap();
        assert_eq!((arts.len(), art.versions.len()), (1, 2));
        assert_eq!(art.language.as_deref(), Some("python"));
        assert_eq!(doc.working_memory.unwrap().extra["repository"]["name"], "x");
        // Applied again, nothing is added.
        let mut again = empty();
        apply(&mut again, &mut repository(), None).unwrap();
        assert_eq!(apply(&mut again, &mut repository(), None).unwrap(), 0);
    }

    #[test]
    fn nodes_replace_their_namesakes_and_files_refuse_a_scope() {
        let mut doc = empty();
        let node = |content: &str| Node {
            content: Some(content.into()),
            ..Node::new(
                NonEmpty::from_static("letta-1"),
                NonEmpty::from_static("memory"),
            )
        };
        for content in ["old", "new"] {
            let mut got = Imported {
                nodes: vec![node(content)],
                ..Imported::default()
            };
            apply(&mut doc, &mut got, Some(Scope::Restricted)).unwrap();
        }
        let nodes = doc.semantic_graph.as_ref().unwrap().nodes();
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].content.as_deref(), Some("new"));
        assert_eq!(nodes[0].scope, Some(Scope::Restricted));
        let err = apply(&mut doc, &mut repository(), Some(Scope::Restricted)).unwrap_err();
        assert!(err.to_string().contains("src/app.py"), "{err}");
        assert!(doc.artifact_vault.is_none(), "nothing went to the vault");
    }

    #[test]
    fn prose_is_a_document_and_the_rest_code() {
        assert_eq!(kind("docs/A.MD", None), "document");
        assert_eq!(kind("notes", Some("markdown")), "document");
        assert_eq!(kind("src/main.rs", Some("rust")), "code");
    }
}
