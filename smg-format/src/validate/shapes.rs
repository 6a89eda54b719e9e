//! The items of a large array that JSON-LD expansion must see: one of each shape.
//!
//! Under the bundled context, what expansion reports of an item (a key it drops, a
//! keyword's value it refuses, a warning) depends on the item's keys, on the values
//! of its keywords (`@id`, `@type`, `@language`…) and on the kind of every other
//! value, never on a literal's text or number: the context maps no term to `@id` or
//! `@vocab`, so no plain value is read as an IRI. Items alike in all that expand
//! alike, and a million-turn file's half a million nodes and edges have a few
//! hundred shapes. An item that sets its own `@context`, or any item under another
//! context (the document's, or one on the way to its array), is its own shape (its
//! text): only identical items are seen once then.

use std::collections::HashSet;

use rayon::prelude::*;
use serde_json::{Map, Value};

use super::windows::Window;

/// A window's items that expansion must see, with their indices in their array.
pub(super) struct Group<'w, 'p, 'a> {
    pub(super) window: &'w Window<'p, 'a>,
    pub(super) items: Vec<(usize, Value)>,
}

/// An item with its shape and its index in its array.
type Shaped = (String, usize, Value);

/// The first item of each shape (see the module), window by window in document
/// order; windows left with none are left out. Stops at the first window whose items
/// do not parse: the groups before it, and why they did not.
pub(super) fn representatives<'w, 'p, 'a>(
    windows: &'w [Window<'p, 'a>],
    bundled: bool,
) -> (Vec<Group<'w, 'p, 'a>>, Option<String>) {
    // Each window keeps the first of each shape it holds, side by side; then the
    // windows in order keep the shapes no window before them had.
    let local: Vec<Result<Vec<Shaped>, String>> = windows
        .par_iter()
        .map(|w| {
            let mut seen = HashSet::new();
            let bundled = bundled && !context_on_the_way(&w.path);
            let items = w.items.trees()?;
            Ok(items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    let key = shape(&item, bundled);
                    seen.insert(key.clone()).then_some((key, w.first + i, item))
                })
                .collect())
        })
        .collect();
    let mut seen: HashSet<(&str, String)> = HashSet::new();
    let mut groups = Vec::new();
    for (window, found) in windows.iter().zip(local) {
        let found = match found {
            Ok(found) => found,
            Err(text) => return (groups, Some(text)),
        };
        let items: Vec<(usize, Value)> = found
            .into_iter()
            .filter(|(key, _, _)| seen.insert((window.pointer, key.clone())))
            .map(|(_, at, item)| (at, item))
            .collect();
        if !items.is_empty() {
            groups.push(Group { window, items });
        }
    }
    (groups, None)
}

/// Whether the way to a window's array (its `path`) sets a context of its own, below
/// the document's.
fn context_on_the_way(path: &Value) -> bool {
    let top = path.as_object().into_iter().flatten();
    top.filter(|(k, _)| *k != "@context")
        .any(|(_, v)| sets_context(v))
}

/// Whether an object in `v` has a `@context`.
fn sets_context(v: &Value) -> bool {
    match v {
        Value::Object(map) => map.iter().any(|(k, v)| k == "@context" || sets_context(v)),
        Value::Array(items) => items.iter().any(sets_context),
        _ => false,
    }
}

/// The item's shape, as text: its JSON with every literal made alike (under the
/// bundled context), or as it is.
fn shape(item: &Value, bundled: bool) -> String {
    let abstracted = bundled.then(|| abstracted(item)).flatten();
    abstracted.as_ref().unwrap_or(item).to_string()
}

/// Whether `k: v` is an archive block's turns in the clear (format 2): a JSON literal
/// under the bundled context, an array of objects where a provenance's `turns` is
/// an array of numbers.
pub(super) fn block_turns(k: &str, v: &Value) -> bool {
    k == "turns" && matches!(v, Value::Array(items) if items.first().is_some_and(Value::is_object))
}

/// `v` with each string, number and boolean outside a keyword's value made one of
/// its kind, and each array's items of the same shape kept once; `None` when `v`
/// sets a `@context` (which can give any term any meaning).
fn abstracted(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, child) in map {
                if k == "@context" {
                    return None;
                }
                let child = if k.starts_with('@') {
                    child.clone()
                } else if block_turns(k, child) {
                    // A JSON literal: nothing in it is expanded, so no text of it
                    // changes what expansion says (and a block holds hundreds of turns).
                    Value::Null
                } else {
                    abstracted(child)?
                };
                out.insert(k.clone(), child);
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            // Few shapes remain of an array's items: compared as they are, not as text.
            let mut out: Vec<Value> = Vec::new();
            for item in items {
                let item = abstracted(item)?;
                if !out.contains(&item) {
                    out.push(item);
                }
            }
            Value::Array(out)
        }
        // A string that reads as a keyword is kept: a processor may treat it so.
        Value::String(s) if s.starts_with('@') => v.clone(),
        Value::String(_) => Value::String(String::new()),
        Value::Number(n) if n.is_f64() => Value::from(0.5),
        Value::Number(_) => Value::from(0),
        Value::Bool(_) => Value::Bool(false),
        Value::Null => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn literals_are_made_alike_keys_and_keywords_are_kept() {
        let a = json!({"id": "n1", "importance": 0.3, "count": 2, "ok": true,
            "tags": ["x", "y", "x"], "@type": "concept", "x": {"@id": "a:b"}});
        let b = json!({"id": "other", "importance": 0.9, "count": 7, "ok": false,
            "tags": ["z"], "@type": "concept", "x": {"@id": "a:b"}});
        assert_eq!(shape(&a, true), shape(&b, true));
        // Keys, keywords' values and kinds all count.
        for c in [
            json!({"id": "n1", "importance": 0.3, "count": 2, "ok": true, "tags": ["x"],
                "@type": "decision", "x": {"@id": "a:b"}}),
            json!({"id": "n1", "importance": 1, "count": 2, "ok": true, "tags": ["x"],
                "@type": "concept", "x": {"@id": "a:b"}}),
            json!({"id": "n1", "importance": 0.3, "count": 2, "ok": true, "tags": [],
                "@type": "concept", "x": {"@id": "a:c"}}),
            json!({"id": "n1", "bad key": 0.3, "count": 2, "ok": true, "tags": ["x"],
                "@type": "concept", "x": {"@id": "a:b"}}),
            json!({"id": "@n1", "importance": 0.3, "count": 2, "ok": true, "tags": ["x"],
                "@type": "concept", "x": {"@id": "a:b"}}),
        ] {
            assert_ne!(shape(&a, true), shape(&c, true), "{c}");
        }
        // Under another context, or one the item sets, only the same item is alike.
        assert_ne!(shape(&a, false), shape(&b, false));
        let own = json!({"@context": {"id": "@id"}, "id": "n1"});
        assert_eq!(shape(&own, true), own.to_string());
    }

    #[test]
    fn a_context_on_the_way_to_an_array_is_seen_below_the_documents_only() {
        let plain =
            json!({"@context": "https://w3id.org/smg/v1", "semanticGraph": {"nodes": null}});
        assert!(!context_on_the_way(&plain));
        let private = json!({"@context": "https://w3id.org/smg/v1", "privateContexts": {
            "p": {"@context": {"id": "@id"}, "graph": {"nodes": null}}}});
        assert!(context_on_the_way(&private));
    }
}

/// The check that expands one item of each shape finds what expanding the whole
/// document at once finds: the same key dropped, at the same place, the same warnings.
#[cfg(test)]
mod alike {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use crate::model::CONTEXT_IRI;
    use crate::validate::jsonld::{self, expand, key_of, Warnings};
    use crate::validate::split::{Split, WINDOW};

    fn literal() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[a-z:@ _]{0,6}".prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            (0.0..1.0f64).prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ]
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => prop::sample::select(vec!["id", "type", "label", "tags", "importance", "x:y"]),
            1 => prop::sample::select(vec!["bad key", "_:b", "", "@type", "@id"]),
        ]
        .prop_map(String::from)
    }

    fn item() -> impl Strategy<Value = Value> {
        let leaf = literal();
        let value = leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map(key(), inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop::collection::btree_map(key(), value, 1..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    }

    /// What a check reports: each finding's code, pointer and message.
    fn found(d: &Value) -> Vec<(String, String, String)> {
        let text = d.to_string();
        let split = Split::parse(&text).unwrap();
        let f = jsonld::check(&split);
        f.into_iter()
            .map(|f| (f.code.to_string(), f.pointer, f.message))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn one_item_of_each_shape_finds_what_the_whole_does(
            pool in prop::collection::vec(item(), 1..6),
            picks in prop::collection::vec(any::<prop::sample::Index>(), WINDOW + 1..WINDOW + 40),
        ) {
            let nodes: Vec<Value> = picks.iter().map(|i| i.get(&pool).clone()).collect();
            let d = json!({"@context": CONTEXT_IRI, "@type": "SemanticMemoryGraph",
                "version": "1.0", "semanticGraph": {"nodes": nodes}});
            let by_shape = found(&d);
            let mut warnings = Warnings::default();
            let whole = expand(d.clone(), &mut warnings);
            let errors: Vec<_> = by_shape.iter().filter(|f| f.0.starts_with("SMG-E")).collect();
            match whole {
                // The first error of the whole names the key the check names.
                Err(text) => {
                    prop_assert!(!errors.is_empty(), "{text}");
                    if let Some(k) = key_of(&text) {
                        let local = k.rsplit(['#', '/']).next().unwrap_or(k);
                        prop_assert!(errors[0].2.contains(local), "{text} / {:?}", errors[0]);
                    }
                }
                Ok(()) => {
                    let dropped: Vec<_> = errors.iter().filter(|f| f.0 != "SMG-E130"
                        || !f.2.contains("form of a keyword")).collect();
                    prop_assert!(dropped.is_empty(), "{dropped:?}");
                }
            }
            let said: std::collections::BTreeSet<String> = warnings.0.into_iter()
                .filter(|w| !w.starts_with("malformed IRI"))
                .map(|w| format!("JSON-LD: {w}"))
                .collect();
            let warned: std::collections::BTreeSet<String> = by_shape.iter()
                .filter(|f| f.0 == "SMG-W021").map(|f| f.2.clone()).collect();
            if errors.is_empty() {
                prop_assert_eq!(said, warned);
            }
        }
    }
}
