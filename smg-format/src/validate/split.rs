//! A document's JSON read for validation without a tree of the whole of it: the
//! lists that make a large document large (graph nodes and edges, archive blocks)
//! stay text, an item at a time parsed, checked against its schema definition and
//! expanded as JSON-LD in its window; the rest becomes a tree.

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{schema, Finding};

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
/// text.
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
    pub(crate) items: Vec<&'a RawValue>,
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
    /// `check` of every item (parsed, with its pointer), side by side a window at a
    /// time, the results in the items' order.
    pub(crate) fn each_window<T: Send>(
        &self,
        check: impl Fn(&str, &Value) -> Vec<T> + Sync,
    ) -> Result<Vec<T>, serde_json::Error> {
        let found: Vec<Vec<T>> = self
            .items
            .par_chunks(WINDOW)
            .enumerate()
            .map(|(w, window)| {
                let mut out = Vec::new();
                for (i, raw) in window.iter().enumerate() {
                    let at = format!("{}/{}", self.pointer, w * WINDOW + i);
                    out.extend(check(&at, &parse(raw)?));
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
pub(crate) fn parse(raw: &RawValue) -> Result<Value, serde_json::Error> {
    serde_json::from_str(raw.get())
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
                items,
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
mod tests {
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
        assert_eq!(split.lists[1].items.len(), WINDOW + 2);
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
