//! JSON-LD: expand the document with the bundled context (never the network) and
//! report every key that expansion would drop.

use std::collections::HashMap;
use std::fmt::Display;

use json_ld::syntax::Value as LdValue;
use json_ld::{IriBuf, JsonLdProcessor, RemoteDocument};
use serde_json::Value;

use super::Finding;
use crate::model::{escape_pointer, CONTEXT_IRI};

/// The published v1 context, bundled so that no context is ever fetched.
pub(crate) const CONTEXT_JSONLD: &str = include_str!("../../../spec/context.jsonld");

/// The context IRI the seed draft used; it resolves to the same bundled context.
const LEGACY_CONTEXT_IRI: &str = "https://schema.org/smg/v1";

#[derive(Default)]
struct Warnings(Vec<String>);

impl<N, W: Display> json_ld::warning::Handler<N, W> for Warnings {
    fn handle(&mut self, _vocabulary: &N, warning: W) {
        self.0.push(warning.to_string());
    }
}

fn loader() -> HashMap<IriBuf, RemoteDocument> {
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

/// Expand `value` as JSON-LD; every key it would drop is an `SMG-E130` finding.
pub(crate) fn check(value: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(iri) = unbundled_context(value.get("@context")) {
        findings.push(Finding::warning("SMG-W020", "/@context", format!(
            "remote context <{iri}> is not bundled and smg never fetches contexts; JSON-LD was not checked"
        )));
        return findings;
    }
    let bundled = value.get("@context").and_then(Value::as_str) == Some(CONTEXT_IRI);
    if unexpandable_keys(value, String::new(), bundled, &mut findings) {
        return findings;
    }
    let input = RemoteDocument::new(None, None, LdValue::from_serde_json(value.clone()));
    let options = json_ld::Options {
        expansion_policy: json_ld::expansion::Policy {
            invalid: json_ld::expansion::Action::Reject,
            vocab: json_ld::expansion::Action::Keep,
            allow_undefined: false,
        },
        ..json_ld::Options::default()
    };
    let mut warnings = Warnings::default();
    let loader = loader();
    let result =
        futures::executor::block_on(input.expand_full(&mut (), &loader, options, &mut warnings));
    if let Err(e) = result {
        let text = e.to_string();
        // The error names the key after vocabulary expansion (`<vocab>bad key`).
        let key = key_of(&text).map(|k| {
            let local = k.rsplit(['#', '/']).next().unwrap_or(k);
            if find_key(value, k, String::new()).is_some() {
                k
            } else {
                local
            }
        });
        let pointer = key
            .and_then(|k| find_key(value, k, String::new()))
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
    for w in warnings
        .0
        .into_iter()
        .filter(|w| !w.starts_with("malformed IRI"))
    {
        findings.push(Finding::warning("SMG-W021", "", format!("JSON-LD: {w}")));
    }
    findings
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
/// context, a node's `metadata` and a `vector` are JSON literals, not expanded at all.
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
                let literal =
                    bundled && (k == "vector" || (k == "metadata" && at.contains("/nodes/")));
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
fn key_of(message: &str) -> Option<&str> {
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
    fn an_unbundled_remote_context_is_a_warning_not_a_fetch() {
        let mut d = doc(json!({}));
        d["@context"] = json!("https://example.org/other");
        let f = check(&d);
        assert_eq!(f[0].code, "SMG-W020");
    }
}
