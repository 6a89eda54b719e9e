//! JSON-LD: expand the document with the bundled context (never the network) and
//! report every key that expansion would drop.

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::atomic::{AtomicUsize, Ordering};

use json_ld::syntax::Value as LdValue;
use json_ld::{IriBuf, JsonLdProcessor, RemoteDocument};
use rayon::prelude::*;
use serde_json::Value;

use super::shapes;
use super::split::Split;
use super::windows::{windows, without_large_arrays, Items};
use super::Finding;
use crate::model::{escape_pointer, CONTEXT_IRI};

/// The published v1 context, bundled so that no context is ever fetched.
pub(crate) const CONTEXT_JSONLD: &str = include_str!("../../../spec/context.jsonld");

/// The context IRI the seed draft used; it resolves to the same bundled context.
const LEGACY_CONTEXT_IRI: &str = "https://schema.org/smg/v1";

#[derive(Default)]
pub(super) struct Warnings(pub(super) Vec<String>);

impl<N, W: Display> json_ld::warning::Handler<N, W> for Warnings {
    fn handle(&mut self, _vocabulary: &N, warning: W) {
        self.0.push(warning.to_string());
    }
}

pub(crate) fn loader() -> HashMap<IriBuf, RemoteDocument> {
    let (context, _) = <LdValue as json_ld::syntax::Parse>::parse_str(CONTEXT_JSONLD)
        .expect("bundled context is JSON (tested)");
    [CONTEXT_IRI, LEGACY_CONTEXT_IRI]
        .into_iter()
        .map(|iri| {
            let iri = IriBuf::new(iri.to_string()).expect("constant IRI");
            let doc = RemoteDocument::new(Some(iri.clone()), None, context.clone());
            (iri, doc)
        })
        .collect()
}

/// [`loader`], made once: every window of a large document expands with it.
fn bundled_loader() -> &'static HashMap<IriBuf, RemoteDocument> {
    static LOADER: std::sync::OnceLock<HashMap<IriBuf, RemoteDocument>> =
        std::sync::OnceLock::new();
    LOADER.get_or_init(loader)
}

/// Expand the document `split` holds as JSON-LD; every key it would drop is an
/// `SMG-E130` finding.
pub(crate) fn check(split: &Split<'_>) -> Vec<Finding> {
    let value = &split.rest;
    let mut findings = Vec::new();
    if let Some(iri) = unbundled_context(value.get("@context")) {
        findings.push(Finding::warning("SMG-W020", "/@context", format!(
            "remote context <{iri}> is not bundled and smg never fetches contexts; JSON-LD was not checked"
        )));
        return findings;
    }
    let bundled = value.get("@context").and_then(Value::as_str) == Some(CONTEXT_IRI);
    let mut undecoded = unexpandable_keys(value, String::new(), bundled, &mut findings);
    for list in &split.lists {
        let found = list.each_window(|at, item| {
            let mut out = Vec::new();
            let bad = unexpandable_keys(item, at.to_string(), bundled, &mut out);
            out.into_iter().map(|f| (f, bad)).collect()
        });
        for (f, bad) in found.unwrap_or_default() {
            undecoded |= bad;
            findings.push(f);
        }
    }
    if undecoded {
        return findings;
    }
    let mut warnings = Warnings::default();
    if let Err(failed) = expand_in_windows(split, bundled, &mut warnings) {
        // The error names the key after vocabulary expansion (`<vocab>bad key`).
        let text = &failed.text;
        let key = key_of(text).map(|k| {
            let local = k.rsplit(['#', '/']).next().unwrap_or(k);
            if failed.locate(value, k).is_some() {
                k
            } else {
                local
            }
        });
        let pointer = key
            .and_then(|k| failed.locate(value, k))
            .unwrap_or_default();
        findings.push(match key {
            Some(k) => Finding::error("SMG-E130", pointer, format!(
                "JSON-LD expansion would drop key `{k}`: it does not expand to an IRI with the document's context"
            )),
            None => Finding::error("SMG-E131", pointer, format!("JSON-LD expansion failed: {text}")),
        });
    }
    // Malformed-IRI warnings are raised for every plain term before @vocab applies
    // them; the keys that really fail are rejected above, so these are noise.
    let mut said = std::collections::HashSet::new();
    for w in warnings
        .0
        .into_iter()
        .filter(|w| !w.starts_with("malformed IRI"))
    {
        // The part of the document outside its large arrays is expanded with each
        // window of them: its warnings come once.
        if said.insert(w.clone()) {
            findings.push(Finding::warning("SMG-W021", "", format!("JSON-LD: {w}")));
        }
    }
    findings
}

/// Why expansion failed, and the items it failed in, with their pointer and indices
/// (none: the rest).
struct Failed {
    text: String,
    window: Option<(String, Vec<(usize, Value)>)>,
}

impl Failed {
    /// The pointer of the first key `key`: in the items that failed, else in `rest`.
    fn locate(&self, rest: &Value, key: &str) -> Option<String> {
        let in_window = self.window.as_ref().and_then(|(pointer, items)| {
            items
                .iter()
                .find_map(|(i, item)| find_key(item, key, format!("{pointer}/{i}")))
        });
        in_window.or_else(|| find_key(rest, key, String::new()))
    }
}

/// Expand the document `split` holds with the bundled context, its arrays of more
/// than [`WINDOW`](super::split::WINDOW) items a window at a time, apart from the
/// rest, and of their items only the first of each shape ([`shapes`]); the first
/// expansion error, as text.
///
/// The windows expand on every core; their warnings come in the windows' order, and
/// the error is the first window's that fails, as when they expand one by one.
fn expand_in_windows(
    split: &Split<'_>,
    bundled: bool,
    warnings: &mut Warnings,
) -> Result<(), Failed> {
    let mut large = Vec::new();
    let rest = without_large_arrays(&split.rest, String::new(), &mut large);
    let arrays = large
        .iter()
        .map(|(pointer, items)| (pointer.as_str(), Items::Tree(items)))
        .chain(
            split
                .lists
                .iter()
                .map(|l| (l.pointer.as_str(), Items::Listed(l.items()))),
        );
    let windows = windows(&rest, arrays);
    let rest_failed = |text| Failed { text, window: None };
    expand(rest, warnings).map_err(rest_failed)?;
    let (groups, unparsed) = shapes::representatives(&windows, bundled);
    // Groups after one that failed are not expanded: their warnings would not come.
    let failed = AtomicUsize::new(usize::MAX);
    let expanded: Vec<(Warnings, Result<(), String>)> = groups
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            let mut said = Warnings::default();
            if i > failed.load(Ordering::Relaxed) {
                return (said, Ok(()));
            }
            let mut path = g.window.path.clone();
            if let Some(slot) = path.pointer_mut(&g.window.at) {
                *slot = Value::Array(g.items.iter().map(|(_, item)| item.clone()).collect());
            }
            let done = expand(path, &mut said);
            if done.is_err() {
                failed.fetch_min(i, Ordering::Relaxed);
            }
            (said, done)
        })
        .collect();
    for ((said, done), g) in expanded.into_iter().zip(groups) {
        warnings.0.extend(said.0);
        done.map_err(|text| Failed {
            text,
            window: Some((g.window.pointer.to_string(), g.items)),
        })?;
    }
    match unparsed {
        Some(text) => Err(Failed { text, window: None }),
        None => Ok(()),
    }
}

/// One JSON-LD expansion of `value`; its error as text.
pub(super) fn expand(value: Value, warnings: &mut Warnings) -> Result<(), String> {
    let input = RemoteDocument::new(None, None, LdValue::from_serde_json(value));
    let options = json_ld::Options {
        expansion_policy: json_ld::expansion::Policy {
            invalid: json_ld::expansion::Action::Reject,
            vocab: json_ld::expansion::Action::Keep,
            allow_undefined: false,
        },
        ..json_ld::Options::default()
    };
    let loader = bundled_loader();
    futures::executor::block_on(input.expand_full(&mut (), loader, options, warnings))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// JSON-LD 1.1 keywords; any other key of the form `@name` is ignored by expansion.
const KEYWORDS: &[&str] = &[
    "@base",
    "@container",
    "@context",
    "@direction",
    "@graph",
    "@id",
    "@import",
    "@included",
    "@index",
    "@json",
    "@language",
    "@list",
    "@nest",
    "@none",
    "@prefix",
    "@propagate",
    "@protected",
    "@reverse",
    "@set",
    "@type",
    "@value",
    "@version",
    "@vocab",
];

/// Keys that expansion drops without an error, and IRIs it cannot take, as `SMG-E130`
/// findings; says whether there was one of the latter (expansion must not run then).
///
/// A key that looks like a keyword but is none is dropped silently (JSON-LD 1.1
/// §4.1.2), so the processor's error path never sees it. A key, `@id` or `@type`
/// whose percent-encoding is not UTF-8 makes the processor panic. Under the bundled
/// context, a node's `metadata`, a `vector`, a turn's `source`, the archive's
/// `conversations` and a block's `turns` are JSON literals, not expanded at all.
fn unexpandable_keys(value: &Value, at: String, bundled: bool, out: &mut Vec<Finding>) -> bool {
    let mut undecoded = false;
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{at}/{}", escape_pointer(k));
                if k.starts_with('@') && !KEYWORDS.contains(&k.as_str()) {
                    out.push(Finding::error("SMG-E130", here.clone(), format!(
                        "JSON-LD expansion would drop key `{k}`: it has the form of a keyword but is none"
                    )));
                }
                let iris = matches!(k.as_str(), "@id" | "@type").then_some(v);
                let bad = std::iter::once(k.as_str())
                    .chain(iris.into_iter().flat_map(strings))
                    .find(|s| undecodable(s));
                if let Some(s) = bad {
                    undecoded = true;
                    out.push(Finding::error(
                        "SMG-E130",
                        here.clone(),
                        format!("JSON-LD cannot expand `{s}`: its percent-encoding is not UTF-8"),
                    ));
                }
                let literal = bundled
                    && (JSON_LITERALS.contains(&k.as_str())
                        || (k == "metadata" && at.contains("/nodes/"))
                        || super::shapes::block_turns(k, v));
                if k != "@context" && !literal {
                    undecoded |= unexpandable_keys(v, here, bundled, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                undecoded |= unexpandable_keys(v, format!("{at}/{i}"), bundled, out);
            }
        }
        _ => {}
    }
    undecoded
}

/// Terms the bundled context makes JSON literals (`@json`) wherever they are: their
/// values are kept as they are, never expanded (a node's `metadata` is one too, in
/// the `nodes` list's scoped context).
const JSON_LITERALS: &[&str] = &["vector", "source", "conversations", "curation"];

/// A string, or the strings of an array.
fn strings(v: &Value) -> impl Iterator<Item = &str> {
    let list = match v {
        Value::Array(items) => items.as_slice(),
        one => std::slice::from_ref(one),
    };
    list.iter().filter_map(Value::as_str)
}

/// Whether `s` has `%XX` escapes that decode to bytes that are not UTF-8.
fn undecodable(s: &str) -> bool {
    s.contains('%')
        && percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .is_err()
}

/// The first context IRI the document refers to that is not bundled.
fn unbundled_context(ctx: Option<&Value>) -> Option<String> {
    match ctx? {
        Value::String(s) if s != CONTEXT_IRI && s != LEGACY_CONTEXT_IRI => Some(s.clone()),
        Value::Array(items) => items.iter().find_map(|i| unbundled_context(Some(i))),
        _ => None,
    }
}

/// The key named in an expansion error such as "Key `foo bar` expansion failed".
pub(super) fn key_of(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// JSON Pointer of the first occurrence of `key`, depth first in document order.
fn find_key(value: &Value, key: &str, at: String) -> Option<String> {
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let here = format!("{at}/{}", escape_pointer(k));
            if k == key {
                Some(here)
            } else {
                find_key(v, key, here)
            }
        }),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_key(v, key, format!("{at}/{i}"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::validate::split::WINDOW;

    /// The check as validation runs it: on the document's text, split.
    fn check(value: &Value) -> Vec<Finding> {
        let text = value.to_string();
        super::check(&Split::parse(&text).unwrap())
    }

    fn doc(extra: Value) -> Value {
        let mut d = json!({
            "@context": CONTEXT_IRI,
            "@type": "SemanticMemoryGraph",
            "version": "1.0",
            "metadata": {"created": "2025-12-04T10:30:00Z"},
            "semanticGraph": {"nodes": [{"id": "n1", "type": "concept", "metadata": {"any thing": 1}}]}
        });
        d.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        d
    }

    #[test]
    fn a_plain_document_expands_without_loss() {
        assert_eq!(check(&doc(json!({}))), vec![]);
    }

    #[test]
    fn a_key_that_is_not_an_iri_is_reported_with_its_pointer() {
        let f = check(&doc(json!({"bad key": 1})));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, "SMG-E130");
        assert_eq!(f[0].pointer, "/bad key");
    }

    #[test]
    fn keyword_like_keys_are_reported_except_inside_json_literals() {
        let mut d = doc(json!({"x": {"@bar": 2}}));
        d["semanticGraph"]["nodes"][0]["metadata"]["@kept"] = json!(true);
        let f = check(&d);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].code, f[0].pointer.as_str()), ("SMG-E130", "/x/@bar"));
    }

    #[test]
    fn keys_of_any_form_are_data_inside_every_json_literal() {
        // Found by fuzzing the Claude importer: a conversation's own field `@contname`
        // kept in `deepArchive.conversations` was reported, though the context makes
        // that object a JSON literal.
        let mut d = doc(json!({
            "deepArchive": {"conversations": {"c1": {"format": "claude", "header": {"@contname": "T"}}}},
            "workingMemory": {"recentContext": [{"turn": 1, "role": "user", "content": "hi",
                "source": {"format": "jsonl", "record": {"@odd": 1, "x%ff": 2}}, "vector": [{"@v": 1}]}]}
        }));
        assert_eq!(check(&d), vec![]);
        // Outside a literal the same key is still reported.
        d["deepArchive"]["@contname"] = json!("T");
        let f = check(&d);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].pointer, "/deepArchive/@contname");
    }

    #[test]
    fn an_iri_whose_percent_encoding_is_not_utf8_is_reported_not_expanded() {
        // The JSON-LD processor panics on these (found by the mutation proptest).
        let f = check(&doc(json!({"x%aa": 1, "ok%C3%A9": 2})));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].code, f[0].pointer.as_str()), ("SMG-E130", "/x%aa"));
        let f = check(&doc(json!({"x": {"@type": ["a", "b%ff"]}})));
        assert_eq!((f[0].code, f[0].pointer.as_str()), ("SMG-E130", "/x/@type"));
        assert!(!undecodable("100%"));
        assert!(!undecodable("a%zz%C3%A9"));
        assert!(undecodable("%C3"));
    }

    #[test]
    fn a_large_array_is_checked_a_window_at_a_time_to_its_last_item() {
        let node = |i: usize| json!({"id": format!("n{i}"), "type": "concept"});
        let mut d = doc(json!({}));
        let nodes: Vec<Value> = (0..2 * WINDOW + 5).map(node).collect();
        d["semanticGraph"]["nodes"] = Value::Array(nodes);
        assert_eq!(check(&d), vec![]);
        // A bad key in the last window, and one in the middle of a window.
        for at in [2 * WINDOW + 4, WINDOW + 7] {
            let mut bad = d.clone();
            bad["semanticGraph"]["nodes"][at]["bad key"] = json!(1);
            let f = check(&bad);
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(f[0].code, "SMG-E130");
            assert_eq!(f[0].pointer, format!("/semanticGraph/nodes/{at}/bad key"));
        }
        // Windows expand side by side; the first that fails is the one reported.
        let mut bad = d.clone();
        for at in [2 * WINDOW + 4, WINDOW + 7] {
            bad["semanticGraph"]["nodes"][at][format!("bad {at}")] = json!(1);
        }
        let f = check(&bad);
        let at = WINDOW + 7;
        assert_eq!(f[0].pointer, format!("/semanticGraph/nodes/{at}/bad {at}"));
        // A bad key outside the large lists is found in the rest.
        let mut bad = d.clone();
        bad["metadata"]["bad key"] = json!(1);
        let f = check(&bad);
        assert_eq!(f[0].pointer, "/metadata/bad key");
    }

    #[test]
    fn a_large_array_the_split_keeps_in_the_tree_is_checked_a_window_at_a_time() {
        let node = |i: usize| json!({"id": format!("n{i}"), "type": "concept"});
        let nodes: Vec<Value> = (0..WINDOW + 5).map(node).collect();
        let mut d = doc(json!({"privateContexts": {"p": {"graph": {"nodes": nodes}}}}));
        assert_eq!(check(&d), vec![]);
        let list = &mut d["privateContexts"]["p"]["graph"]["nodes"];
        list[WINDOW + 3]["bad key"] = json!(1);
        let f = check(&d);
        assert_eq!(f.len(), 1, "{f:?}");
        let at = format!("/privateContexts/p/graph/nodes/{}/bad key", WINDOW + 3);
        assert_eq!(
            (f[0].code, f[0].pointer.as_str()),
            ("SMG-E130", at.as_str())
        );
    }

    #[test]
    fn an_unbundled_remote_context_is_a_warning_not_a_fetch() {
        let mut d = doc(json!({}));
        d["@context"] = json!("https://example.org/other");
        let f = check(&d);
        assert_eq!(f[0].code, "SMG-W020");
    }
}
