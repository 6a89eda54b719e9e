//! What ingest and use compute rather than someone writes (spec §17.3, "Derived and
//! authored"): such fields never conflict. Whole derived nodes and working memory are
//! built again from the merged archive; counters and scores of authored nodes merge by
//! a rule; turn numbers in references follow the merged archive's numbering.

use serde_json::Value;

use super::archive::Renumbering;

/// Fields ingest writes from the whole archive: the merge takes ours and the merged
/// archive gives them again.
pub(super) const DERIVED: [&str; 5] = [
    "/workingMemory/summary",
    "/workingMemory/currentGoals",
    "/workingMemory/activeArtifacts",
    "/workingMemory/recentContext",
    "/metadata/totalExchanges",
];

/// A counter or score of an authored node changed differently on both sides, merged
/// by its rule: `importance` and `lastMentioned` the greater, `firstMentioned` the
/// smaller, `lastAccessed` the later, `accessCount` the base plus both sides' counts
/// since. `None` when `ptr` is not one.
pub(super) fn score(
    ptr: &str,
    b: Option<&Value>,
    o: Option<&Value>,
    t: Option<&Value>,
) -> Option<Option<Value>> {
    let (node, field) = ptr.rsplit_once('/')?;
    if !node.rsplit_once('/')?.0.ends_with("/nodes") {
        return None;
    }
    let num = |v: Option<&Value>| v.and_then(Value::as_f64);
    let pick = |greater: bool| {
        let (x, y) = (num(o), num(t));
        match (x, y) {
            (Some(x), Some(y)) if (y > x) == greater && y != x => t.cloned(),
            (Some(_), _) => o.cloned(),
            _ => t.cloned(),
        }
    };
    Some(match field {
        "importance" | "lastMentioned" => pick(true),
        "firstMentioned" => pick(false),
        "lastAccessed" => match (o.and_then(Value::as_str), t.and_then(Value::as_str)) {
            (Some(x), Some(y)) => Some(Value::String(later(x, y).to_string())),
            _ => o.or(t).cloned(),
        },
        "accessCount" => {
            let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
            let base = n(b);
            let sum = base + n(o).saturating_sub(base) + n(t).saturating_sub(base);
            Some(Value::from(sum))
        }
        _ => return None,
    })
}

/// Rewrite every turn number `doc` (as JSON) refers to by `map`: nodes' first and last
/// mentions, provenance turns of nodes and edges, recent context, embeddings.
pub(super) fn renumber(doc: &mut Value, map: &Renumbering) {
    if map.is_empty() {
        return;
    }
    let turn = |v: &mut Value| {
        if let Some(to) = v.as_u64().and_then(|n| map.get(&n)) {
            *v = Value::from(*to);
        }
    };
    let provenance = |item: &mut Value| {
        let all = item.get_mut("provenance").and_then(Value::as_array_mut);
        for p in all.into_iter().flatten() {
            let turns = p.get_mut("turns").and_then(Value::as_array_mut);
            turns.into_iter().flatten().for_each(turn);
        }
    };
    for graph in graphs_mut(doc) {
        let nodes = graph.get_mut("nodes").and_then(Value::as_array_mut);
        for node in nodes.into_iter().flatten() {
            for field in ["firstMentioned", "lastMentioned"] {
                node.get_mut(field).into_iter().for_each(turn);
            }
            provenance(node);
        }
        let edges = graph.get_mut("edges").and_then(Value::as_array_mut);
        edges.into_iter().flatten().for_each(provenance);
    }
    for list in [
        "/workingMemory/recentContext",
        "/deepArchive/vectorIndex/embeddings",
    ] {
        let items = doc.pointer_mut(list).and_then(Value::as_array_mut);
        for item in items.into_iter().flatten() {
            item.get_mut("turn").into_iter().for_each(turn);
        }
    }
}

fn graphs_mut(doc: &mut Value) -> Vec<&mut Value> {
    let Some(obj) = doc.as_object_mut() else {
        return Vec::new();
    };
    let mut all = Vec::new();
    for (k, v) in obj.iter_mut() {
        match k.as_str() {
            "semanticGraph" | "sharedGraph" => all.push(v),
            "privateContexts" => {
                let contexts = v.as_object_mut().into_iter().flat_map(|m| m.values_mut());
                all.extend(contexts.filter_map(|c| c.get_mut("graph")));
            }
            _ => {}
        }
    }
    all
}

/// The later of two RFC 3339 times (the greater string when either does not parse).
pub(super) fn later<'a>(x: &'a str, y: &'a str) -> &'a str {
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (parse(x), parse(y)) {
        (Some(a), Some(b)) if a != b => {
            if a > b {
                x
            } else {
                y
            }
        }
        _ => x.max(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_of_authored_nodes_merge_by_rule() {
        let s = |f: &str, b: Value, o: Value, t: Value| {
            score(
                &format!("/semanticGraph/nodes/n/{f}"),
                Some(&b),
                Some(&o),
                Some(&t),
            )
            .unwrap()
        };
        assert_eq!(
            s("importance", json!(0.5), json!(0.4), json!(0.7)),
            Some(json!(0.7))
        );
        assert_eq!(
            s("firstMentioned", json!(5), json!(3), json!(4)),
            Some(json!(3))
        );
        assert_eq!(
            s("accessCount", json!(2), json!(5), json!(3)),
            Some(json!(6))
        );
        assert_eq!(
            s(
                "lastAccessed",
                json!("2025-01-01T00:00:00Z"),
                json!("2025-03-01T00:00:00Z"),
                json!("2025-02-01T00:00:00Z")
            ),
            Some(json!("2025-03-01T00:00:00Z"))
        );
        assert_eq!(
            score("/semanticGraph/nodes/n/label", None, None, None),
            None
        );
        assert_eq!(score("/metadata/importance", None, None, None), None);
    }

    #[test]
    fn references_follow_the_numbering() {
        let mut doc = json!({
            "semanticGraph": {
                "nodes": [{"id": "a", "firstMentioned": 4, "lastMentioned": 9,
                           "provenance": [{"turns": [4, 5, 9]}]}],
                "edges": [{"from": "a", "to": "a", "provenance": [{"turns": [5]}]}]
            },
            "privateContexts": {"p": {"graph": {"nodes": [{"id": "b", "lastMentioned": 4}]}}},
            "workingMemory": {"recentContext": [{"turn": 9}]}
        });
        renumber(&mut doc, &[(4, 14), (9, 19)].into_iter().collect());
        assert_eq!(
            doc["semanticGraph"]["nodes"][0]["provenance"][0]["turns"],
            json!([14, 5, 19])
        );
        assert_eq!(
            doc["semanticGraph"]["nodes"][0]["firstMentioned"],
            json!(14)
        );
        assert_eq!(
            doc["semanticGraph"]["edges"][0]["provenance"][0]["turns"],
            json!([5])
        );
        assert_eq!(
            doc["privateContexts"]["p"]["graph"]["nodes"][0]["lastMentioned"],
            json!(14)
        );
        assert_eq!(doc["workingMemory"]["recentContext"][0]["turn"], json!(19));
    }
}
