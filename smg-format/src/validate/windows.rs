//! The windows a large document is expanded in: JSON-LD expansion holds many times
//! the memory of its input (1.2 GB for a 49 MB document whole), and the items of an
//! array expand each on its own, with the same context, so a large array is expanded
//! a window at a time beside the rest of the document.

use serde_json::Value;

use super::split::{self, WINDOW};
use crate::model::escape_pointer;

/// The items of one window of a large array: in the tree, or a
/// [`Split`](super::split::Split)'s list.
#[derive(Clone, Copy)]
pub(super) enum Items<'a> {
    Tree(&'a [Value]),
    Listed(split::Items<'a>),
}

impl Items<'_> {
    /// The window's items as trees.
    pub(super) fn trees(self) -> Result<Vec<Value>, String> {
        match self {
            Items::Tree(items) => Ok(items.to_vec()),
            Items::Listed(items) => (0..items.len())
                .map(|i| items.tree(i).map_err(|e| e.to_string()))
                .collect(),
        }
    }
}

/// A window to expand.
pub(super) struct Window<'p, 'a> {
    /// The document cut down to the way to the window's array.
    pub(super) path: Value,
    /// Where in `path` the window's items go.
    pub(super) at: String,
    /// The array's pointer in the document.
    pub(super) pointer: &'p str,
    /// The index of the window's first item in its array.
    pub(super) first: usize,
    pub(super) items: Items<'a>,
}

/// The windows of `arrays` (each with its pointer in the document), each with the
/// part of `rest` that sets its context.
pub(super) fn windows<'p, 'a>(
    rest: &Value,
    arrays: impl Iterator<Item = (&'p str, Items<'a>)>,
) -> Vec<Window<'p, 'a>> {
    let mut out = Vec::new();
    for (pointer, items) in arrays {
        let tokens: Vec<String> = pointer.split('/').skip(1).map(unescape_pointer).collect();
        let (path, at) = path_to(rest, &tokens, String::new());
        let count = match items {
            Items::Tree(t) => t.len(),
            Items::Listed(t) => t.len(),
        };
        for first in (0..count).step_by(WINDOW) {
            let end = (first + WINDOW).min(count);
            let items = match items {
                Items::Tree(t) => Items::Tree(&t[first..end]),
                Items::Listed(t) => Items::Listed(t.slice(first, end)),
            };
            out.push(Window {
                path: path.clone(),
                at: at.clone(),
                pointer,
                first,
                items,
            });
        }
    }
    out
}

/// `value` cut down to what sets the context at the place `tokens` lead to, so that a
/// window of an array there expands as it would in the whole document: each object on
/// the way keeps its `@context`, its `@type` (type-scoped contexts) and the member on
/// the way, each array the item on the way. Gives the pointer of the place in the cut.
fn path_to(value: &Value, tokens: &[String], at: String) -> (Value, String) {
    let Some((first, rest)) = tokens.split_first() else {
        return (Value::Null, at);
    };
    match value {
        Value::Object(map) => {
            let mut cut = serde_json::Map::new();
            for key in ["@context", "@type"] {
                if let Some(v) = map.get(key).filter(|_| key != first) {
                    cut.insert(key.to_string(), v.clone());
                }
            }
            let here = format!("{at}/{}", escape_pointer(first));
            let (child, place) = path_to(map.get(first).unwrap_or(&Value::Null), rest, here);
            cut.insert(first.clone(), child);
            (Value::Object(cut), place)
        }
        Value::Array(items) => {
            let item = first.parse::<usize>().ok().and_then(|i| items.get(i));
            let (child, place) = path_to(item.unwrap_or(&Value::Null), rest, format!("{at}/0"));
            (Value::Array(vec![child]), place)
        }
        _ => (Value::Null, at),
    }
}

/// One JSON Pointer reference token, unescaped (RFC 6901).
fn unescape_pointer(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `value` with every array of more than [`WINDOW`] items left empty; those arrays
/// go to `out`, borrowed, with their JSON Pointers. Contexts are kept whole, and so
/// are the items of an array taken (they go to expansion whole, a window at a time).
pub(super) fn without_large_arrays<'a>(
    value: &'a Value,
    at: String,
    out: &mut Vec<(String, &'a [Value])>,
) -> Value {
    match value {
        Value::Object(map) => {
            let mut kept = serde_json::Map::new();
            for (k, child) in map {
                let here = format!("{at}/{}", escape_pointer(k));
                let child = match child {
                    _ if k == "@context" => child.clone(),
                    Value::Array(items) if items.len() > WINDOW => {
                        out.push((here, items));
                        Value::Array(Vec::new())
                    }
                    _ => without_large_arrays(child, here, out),
                };
                kept.insert(k.clone(), child);
            }
            Value::Object(kept)
        }
        Value::Array(items) => {
            let kept = items
                .iter()
                .enumerate()
                .map(|(i, item)| without_large_arrays(item, format!("{at}/{i}"), out));
            Value::Array(kept.collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::CONTEXT_IRI;

    #[test]
    fn the_large_arrays_are_borrowed_and_left_empty() {
        let node = |i: usize| json!({"id": format!("n{i}")});
        let nodes: Vec<Value> = (0..2 * WINDOW + 5).map(node).collect();
        let d = json!({"@context": CONTEXT_IRI, "semanticGraph": {"nodes": nodes}});
        let mut large = Vec::new();
        let rest = without_large_arrays(&d, String::new(), &mut large);
        assert_eq!(large.len(), 1);
        assert_eq!(large[0].0, "/semanticGraph/nodes");
        assert_eq!(large[0].1.len(), 2 * WINDOW + 5);
        assert_eq!(rest["semanticGraph"]["nodes"], json!([]));
        assert_eq!(rest["@context"], d["@context"]);
        let windows = windows(
            &rest,
            large.iter().map(|(p, i)| (p.as_str(), Items::Tree(i))),
        );
        let firsts: Vec<usize> = windows.iter().map(|w| w.first).collect();
        assert_eq!(firsts, [0, WINDOW, 2 * WINDOW]);
        assert_eq!(windows[2].items.trees().unwrap().len(), 5);
        assert_eq!(windows[0].at, "/semanticGraph/nodes");
    }

    #[test]
    fn a_window_keeps_the_contexts_and_types_on_its_way() {
        let d = json!({
            "@context": CONTEXT_IRI, "version": "1.0",
            "privateContexts": {"a/b": {"@context": {"x": "smg:x"}, "@type": "T", "graph": {
                "nodes": [], "edges": [1]
            }}, "c": {"graph": {}}},
            "list": [{"skip": 1}, {"@type": "U", "items": []}]
        });
        let tokens: Vec<String> = ["privateContexts", "a/b", "graph", "nodes"]
            .map(String::from)
            .to_vec();
        let (cut, at) = path_to(&d, &tokens, String::new());
        assert_eq!(at, "/privateContexts/a~1b/graph/nodes");
        assert_eq!(
            cut,
            json!({"@context": CONTEXT_IRI, "privateContexts": {"a/b": {
                "@context": {"x": "smg:x"}, "@type": "T", "graph": {"nodes": null}
            }}})
        );
        let tokens: Vec<String> = ["list", "1", "items"].map(String::from).to_vec();
        let (cut, at) = path_to(&d, &tokens, String::new());
        assert_eq!(at, "/list/0/items");
        assert_eq!(
            cut,
            json!({"@context": CONTEXT_IRI, "list": [{"@type": "U", "items": null}]})
        );
        assert_eq!(unescape_pointer("a~1b~0c"), "a/b~c");
    }
}
