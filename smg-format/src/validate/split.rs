//! A document's JSON read for validation without a tree of the whole of it: the
//! lists that make a large document large (graph nodes and edges, archive blocks)
//! stay text, or typed items of a document already made (a packed file's), an item
//! at a time parsed, checked against its schema definition and expanded as JSON-LD
//! in its window; the rest becomes a tree.

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{schema, Finding};
use crate::model::{Block, Document, Edge, Graph, Node};

/// Most items of a list parsed and checked at a time.
pub(crate) const WINDOW: usize = 512;

/// Where the large lists are, and the schema definition of their items: each is a
/// plain `{"type": "array", "items": {"$ref": …}}` in the schema, so checking the list
/// empty and its items one by one finds what checking it whole finds.
const LISTS: [(&str, &str, &str); 5] = [
    ("semanticGraph", "nodes", "node"),
    ("semanticGraph", "edges", "edge"),
    ("sharedGraph", "nodes", "node"),
    ("sharedGraph", "edges", "edge"),
    ("deepArchive", "blocks", "block"),
];

/// A document's JSON: the tree of all but its large lists, and those lists' items as
/// text or typed.
pub(crate) struct Split<'a> {
    /// The document with every large list left empty.
    pub(crate) rest: Value,
    /// Each large list: its JSON Pointer, its items' definition, its items' text.
    pub(crate) lists: Vec<List<'a>>,
}

/// One large list of a [`Split`].
pub(crate) struct List<'a> {
    pub(crate) pointer: String,
    definition: &'static str,
    held: Held<'a>,
}

/// A list's items: text, or the typed items of a document already made.
enum Held<'a> {
    Text(Vec<&'a RawValue>),
    Typed(Items<'a>),
}

/// Some items of a large list, each read as a tree when it is checked: the text
/// parsed, or a typed item written as canonical JSON and parsed, the tree its file's
/// text gives.
#[derive(Clone, Copy)]
pub(crate) enum Items<'a> {
    Text(&'a [&'a RawValue]),
    Nodes(&'a [Node]),
    Edges(&'a [Edge]),
    Blocks(&'a [Block]),
}

impl<'a> Items<'a> {
    pub(crate) fn len(self) -> usize {
        match self {
            Items::Text(t) => t.len(),
            Items::Nodes(t) => t.len(),
            Items::Edges(t) => t.len(),
            Items::Blocks(t) => t.len(),
        }
    }

    /// The items from `first` to before `end`.
    pub(crate) fn slice(self, first: usize, end: usize) -> Items<'a> {
        match self {
            Items::Text(t) => Items::Text(&t[first..end]),
            Items::Nodes(t) => Items::Nodes(&t[first..end]),
            Items::Edges(t) => Items::Edges(&t[first..end]),
            Items::Blocks(t) => Items::Blocks(&t[first..end]),
        }
    }

    /// Item `i` as a tree.
    pub(crate) fn tree(self, i: usize) -> Result<Value, serde_json::Error> {
        match self {
            Items::Text(t) => parse(t[i]),
            Items::Nodes(t) => typed_tree(&t[i]),
            Items::Edges(t) => typed_tree(&t[i]),
            Items::Blocks(t) => typed_tree(&t[i]),
        }
    }
}

/// The typed items of the list `name` of `doc`'s member `key` (one of [`LISTS`]).
fn typed_list<'a>(doc: &'a Document, key: &str, name: &str) -> Option<Items<'a>> {
    let graph = match key {
        "semanticGraph" => doc.semantic_graph.as_ref(),
        "sharedGraph" => doc.shared_graph.as_ref(),
        _ => None,
    };
    match (key, name) {
        ("deepArchive", "blocks") => doc
            .deep_archive
            .as_ref()?
            .blocks
            .as_deref()
            .map(Items::Blocks),
        (_, "nodes") => graph?.nodes.as_deref().map(Items::Nodes),
        (_, "edges") => graph?.edges.as_deref().map(Items::Edges),
        _ => None,
    }
}

/// A typed item as the tree its canonical JSON parses into.
fn typed_tree<T: serde::Serialize>(item: &T) -> Result<Value, serde_json::Error> {
    let text = crate::canonical::to_vec(item).map_err(serde::ser::Error::custom)?;
    serde_json::from_slice(&text)
}

impl<'a> Split<'a> {
    /// `text` split; its parser's error when it is not JSON. Text that is JSON but
    /// not an object is all rest.
    pub(crate) fn parse(text: &'a str) -> Result<Split<'a>, serde_json::Error> {
        let split = serde_json::from_str::<Members<'a>>(text)
            .ok()
            .and_then(|top| Self::of_members(top).ok());
        match split {
            Some(split) => Ok(split),
            // Not an object, or a value the text pass let through and a tree refuses
            // (a number out of range): the tree's answer, whole.
            None => Ok(Split::whole(serde_json::from_str::<Value>(text)?)),
        }
    }

    /// `value`, all rest.
    pub(crate) fn whole(value: Value) -> Split<'a> {
        Split {
            rest: value,
            lists: Vec::new(),
        }
    }

    fn of_members(top: Members<'a>) -> Result<Split<'a>, serde_json::Error> {
        let mut lists = Vec::new();
        let mut rest = Map::new();
        for (key, raw) in top {
            let member = split_member(&key, raw, &mut lists)?;
            rest.insert(key, member);
        }
        Ok(Split {
            rest: Value::Object(rest),
            lists,
        })
    }

    /// `doc` as its canonical JSON would be split: its large lists taken out while the
    /// rest is written and put back, then lent as typed items. `doc` is only borrowed
    /// once this returns, and unchanged.
    pub(crate) fn of_document(doc: &'a mut Document) -> Result<Split<'a>, serde_json::Error> {
        let taken = Taken::out(doc);
        let rest = crate::canonical::to_vec(&*doc).map_err(serde::ser::Error::custom);
        taken.back(doc);
        let rest: Value = serde_json::from_slice(&rest?)?;
        let doc: &'a Document = doc;
        let mut lists: Vec<List<'a>> = LISTS
            .iter()
            .filter_map(|&(key, name, definition)| {
                let items = typed_list(doc, key, name).filter(|i| i.len() > WINDOW)?;
                Some(List {
                    pointer: format!("/{key}/{name}"),
                    definition,
                    held: Held::Typed(items),
                })
            })
            .collect();
        // In the order a text's members come in (by name), as `parse` lists them.
        lists.sort_by(|a, b| a.pointer.cmp(&b.pointer));
        Ok(Split { rest, lists })
    }

    /// Every schema violation, the rest's first, then each list's items' in order;
    /// `Err` when an item does not parse as a tree.
    pub(crate) fn schema_findings(&self) -> Result<Vec<Finding>, serde_json::Error> {
        let mut findings = schema::check(&self.rest);
        for list in &self.lists {
            findings.extend(list.each_window(|at, item| {
                let mut found = schema::check_against(list.definition, item);
                for f in &mut found {
                    f.pointer = format!("{at}{}", f.pointer);
                }
                found
            })?);
        }
        Ok(findings)
    }
}

impl List<'_> {
    /// The list's items.
    pub(crate) fn items(&self) -> Items<'_> {
        match &self.held {
            Held::Text(t) => Items::Text(t),
            Held::Typed(items) => *items,
        }
    }

    /// `check` of every item (parsed, with its pointer), side by side a window at a
    /// time, the results in the items' order.
    pub(crate) fn each_window<T: Send>(
        &self,
        check: impl Fn(&str, &Value) -> Vec<T> + Sync,
    ) -> Result<Vec<T>, serde_json::Error> {
        let items = self.items();
        let found: Vec<Vec<T>> = (0..items.len().div_ceil(WINDOW))
            .into_par_iter()
            .map(|w| {
                let mut out = Vec::new();
                for i in w * WINDOW..((w + 1) * WINDOW).min(items.len()) {
                    let at = format!("{}/{}", self.pointer, i);
                    out.extend(check(&at, &items.tree(i)?));
                }
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        Ok(found.into_iter().flatten().collect())
    }
}

/// An object's members as text, by name (a name given twice keeps its last value,
/// as in a tree).
type Members<'a> = std::collections::BTreeMap<String, &'a RawValue>;

/// A raw item as a tree.
fn parse(raw: &RawValue) -> Result<Value, serde_json::Error> {
    serde_json::from_str(raw.get())
}

/// A document's large lists, taken out of it and left empty while the rest is
/// written.
struct Taken {
    blocks: Option<Vec<Block>>,
    graphs: [TakenGraph; 2],
}

/// A graph's large edge and node lists, taken out.
type TakenGraph = (Option<Vec<Edge>>, Option<Vec<Node>>);

impl Taken {
    fn out(doc: &mut Document) -> Taken {
        let graph = |g: &mut Option<Graph>| match g {
            Some(g) => (take_large(&mut g.edges), take_large(&mut g.nodes)),
            None => (None, None),
        };
        Taken {
            blocks: doc
                .deep_archive
                .as_mut()
                .and_then(|a| take_large(&mut a.blocks)),
            graphs: [graph(&mut doc.semantic_graph), graph(&mut doc.shared_graph)],
        }
    }

    fn back(self, doc: &mut Document) {
        if let Some(a) = doc.deep_archive.as_mut() {
            put_back(&mut a.blocks, self.blocks);
        }
        let [semantic, shared] = self.graphs;
        let graphs = [
            (&mut doc.semantic_graph, semantic),
            (&mut doc.shared_graph, shared),
        ];
        for (g, (edges, nodes)) in graphs {
            if let Some(g) = g.as_mut() {
                put_back(&mut g.edges, edges);
                put_back(&mut g.nodes, nodes);
            }
        }
    }
}

/// A list of more than [`WINDOW`] items, taken out and left empty.
fn take_large<T>(list: &mut Option<Vec<T>>) -> Option<Vec<T>> {
    match list {
        Some(items) if items.len() > WINDOW => Some(std::mem::take(items)),
        _ => None,
    }
}

fn put_back<T>(list: &mut Option<Vec<T>>, taken: Option<Vec<T>>) {
    if let Some(items) = taken {
        *list = Some(items);
    }
}

/// Top-level member `key` as a tree, its large list (if it is one of [`LISTS`]'s)
/// left empty and put in `lists`.
fn split_member<'a>(
    key: &str,
    raw: &'a RawValue,
    lists: &mut Vec<List<'a>>,
) -> Result<Value, serde_json::Error> {
    let holds = |name: &str| LISTS.iter().find(|(k, n, _)| *k == key && *n == name);
    if !LISTS.iter().any(|(k, _, _)| *k == key) {
        return parse(raw);
    }
    let Ok(members) = serde_json::from_str::<Members<'a>>(raw.get()) else {
        return parse(raw);
    };
    let mut out = Map::new();
    for (name, raw) in members {
        let list = holds(&name).and_then(|(_, _, def)| {
            let items = serde_json::from_str::<Vec<&RawValue>>(raw.get()).ok()?;
            (items.len() > WINDOW).then(|| List {
                pointer: format!("/{key}/{name}"),
                definition: def,
                held: Held::Text(items),
            })
        });
        let value = match list {
            Some(list) => {
                lists.push(list);
                Value::Array(Vec::new())
            }
            None => parse(raw)?,
        };
        out.insert(name, value);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::validate::{validate, ValidateOptions};

    /// A document with `n` nodes and `n` edges between them.
    fn large(n: usize) -> Value {
        let nodes: Vec<Value> = (0..n)
            .map(|i| json!({"id": format!("n{i}"), "type": "concept", "importance": 0.5}))
            .collect();
        let edges: Vec<Value> = (1..n)
            .map(|i| json!({"from": format!("n{}", i - 1), "to": format!("n{i}"), "relation": "next"}))
            .collect();
        json!({
            "@context": crate::model::CONTEXT_IRI, "@type": "SemanticMemoryGraph",
            "version": "1.0", "metadata": {"created": "2025-12-04T10:30:00Z"},
            "semanticGraph": {"nodes": nodes, "edges": edges, "x": [1, 2]}
        })
    }

    fn pairs(found: Vec<Finding>) -> Vec<(&'static str, String)> {
        let mut pairs: Vec<_> = found.into_iter().map(|f| (f.code, f.pointer)).collect();
        pairs.sort();
        pairs
    }

    #[test]
    fn the_large_lists_stay_text_and_the_rest_is_a_tree() {
        let d = large(WINDOW + 2);
        let text = d.to_string();
        let split = Split::parse(&text).unwrap();
        let pointers: Vec<_> = split.lists.iter().map(|l| l.pointer.as_str()).collect();
        assert_eq!(pointers, ["/semanticGraph/edges", "/semanticGraph/nodes"]);
        assert_eq!(split.lists[1].items().len(), WINDOW + 2);
        assert_eq!(split.rest["semanticGraph"]["nodes"], json!([]));
        assert_eq!(split.rest["semanticGraph"]["x"], json!([1, 2]));
        assert_eq!(split.rest["metadata"], d["metadata"]);
        // A small list stays in the tree.
        let small = large(3).to_string();
        assert!(Split::parse(&small).unwrap().lists.is_empty());
        assert_eq!(Split::parse(&small).unwrap().rest, large(3));
        // JSON that is not an object is all rest; text that is not JSON, the
        // tree's error.
        assert_eq!(Split::parse("[1]").unwrap().rest, json!([1]));
        let tree = serde_json::from_str::<Value>("{\"a\": [1,}").unwrap_err();
        let split = Split::parse("{\"a\": [1,}").err().unwrap();
        assert_eq!(split.to_string(), tree.to_string());
    }

    /// A typed document with more than a window of nodes, edges and blocks in its
    /// semantic graph, its shared graph and its archive; one node with a known field
    /// given as an unknown one of the wrong type (the schema refuses it), one node and
    /// one block with keys JSON-LD drops.
    pub(crate) fn large_document() -> Document {
        let mut doc: Document = serde_json::from_value(large(WINDOW + 9)).unwrap();
        let graph = doc.semantic_graph.as_mut().unwrap();
        let nodes = graph.nodes.as_mut().unwrap();
        nodes[WINDOW + 1]
            .extra
            .insert("confidence".into(), json!("high"));
        nodes[WINDOW + 4]
            .extra
            .insert("bad key".into(), json!("dropped"));
        doc.shared_graph = doc.semantic_graph.clone();
        let turns: Vec<crate::model::Turn> = (1..=WINDOW as u64 + 3)
            .map(|n| {
                let n = crate::model::Ordinal::new(n).unwrap();
                crate::model::Turn::new(n, crate::model::role::USER, "hello")
            })
            .collect();
        let options = crate::archive::ArchiveOptions {
            max_turns: 1,
            ..Default::default()
        };
        crate::archive::append_turns(&mut doc, &turns, &options).unwrap();
        let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
        blocks[WINDOW + 2]
            .extra
            .insert("@note".into(), json!("dropped"));
        doc
    }

    #[test]
    fn a_typed_document_splits_as_its_canonical_text_splits() {
        let mut doc = large_document();
        let before = doc.clone();
        let text = String::from_utf8(crate::canonical::to_vec(&doc).unwrap()).unwrap();
        let from_text = Split::parse(&text).unwrap();
        let typed = Split::of_document(&mut doc).unwrap();
        assert_eq!(typed.rest, from_text.rest);
        let pointers = |s: &Split<'_>| {
            s.lists
                .iter()
                .map(|l| l.pointer.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(pointers(&typed).len(), 5);
        assert_eq!(pointers(&typed), pointers(&from_text));
        for (a, b) in typed.lists.iter().zip(&from_text.lists) {
            let (a, b) = (a.items(), b.items());
            assert!(matches!(b, Items::Text(_)) && !matches!(a, Items::Text(_)));
            assert_eq!(a.len(), b.len());
            for i in 0..a.len() {
                assert_eq!(a.tree(i).unwrap(), b.tree(i).unwrap());
            }
        }
        let found = typed.schema_findings().unwrap();
        let pointers: Vec<&str> = found.iter().map(|f| f.pointer.as_str()).collect();
        let wrong = format!("/semanticGraph/nodes/{}/confidence", WINDOW + 1);
        assert!(pointers.contains(&wrong.as_str()), "{pointers:?}");
        assert_eq!(found, from_text.schema_findings().unwrap());
        let linked = crate::validate::jsonld::check(&typed);
        assert!(linked.iter().any(|f| f.code == "SMG-E130"), "{linked:?}");
        assert_eq!(linked, crate::validate::jsonld::check(&from_text));
        drop(typed);
        assert_eq!(doc, before, "the document is lent back as it was");
    }

    #[test]
    fn the_schema_finds_in_the_split_what_it_finds_in_the_whole_tree() {
        let mut d = large(2 * WINDOW + 3);
        d["semanticGraph"]["nodes"][3]["importance"] = json!(7);
        d["semanticGraph"]["nodes"][WINDOW + 9]["type"] = json!(5);
        d["semanticGraph"]["nodes"][2 * WINDOW + 2]
            .as_object_mut()
            .unwrap()
            .remove("id");
        d["semanticGraph"]["edges"][WINDOW]["relation"] = json!(null);
        d["metadata"]["created"] = json!("yesterday");
        let text = d.to_string();
        let split = Split::parse(&text).unwrap();
        let found = pairs(split.schema_findings().unwrap());
        assert_eq!(found.len(), 5, "{found:?}");
        assert_eq!(found, pairs(schema::check(&d)));
    }

    #[test]
    fn an_item_a_tree_refuses_gives_the_whole_texts_error() {
        let mut d = large(WINDOW + 1).to_string();
        d = d.replacen("0.5", "1e999", 1);
        let small = large(1).to_string().replacen("0.5", "1e999", 1);
        let report = validate(d.as_bytes(), &ValidateOptions::default());
        let codes = report.error_codes();
        assert_eq!(codes.len(), 1, "{:?}", report.findings);
        assert_eq!(
            codes,
            validate(small.as_bytes(), &ValidateOptions::default()).error_codes()
        );
        assert!(report.findings[0].message.contains("out of range"));
    }
}
