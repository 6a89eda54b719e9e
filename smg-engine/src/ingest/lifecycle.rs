//! What curation set on derived nodes outlives their derivation (spec §18.10): a
//! graph built again keeps each node's tier, retrievals and tombstone.

use smg_format::model::Node;

use crate::fast::FastMap;

/// Copy the lifecycle fields of the `old` derived nodes onto the `new` nodes of the
/// same id.
pub(super) fn carry(old: &[Node], new: &mut [Node]) {
    let set: FastMap<&str, &Node> = old
        .iter()
        .filter(|n| has_lifecycle(n))
        .map(|n| (n.id.as_str(), n))
        .collect();
    if set.is_empty() {
        return;
    }
    for n in new.iter_mut() {
        if let Some(o) = set.get(n.id.as_str()) {
            n.access_count = o.access_count;
            n.last_accessed.clone_from(&o.last_accessed);
            n.recent_accesses.clone_from(&o.recent_accesses);
            n.tier = o.tier;
            n.tombstone = o.tombstone;
            n.deleted_at.clone_from(&o.deleted_at);
        }
    }
}

fn has_lifecycle(n: &Node) -> bool {
    n.access_count.is_some()
        || n.last_accessed.is_some()
        || n.recent_accesses.is_some()
        || n.tier.is_some()
        || n.tombstone.is_some()
        || n.deleted_at.is_some()
}

#[cfg(test)]
mod tests {
    use smg_format::model::{Document, LifecycleTier};

    use crate::curate::{curate, record_access, CurateOptions};
    use crate::ingest::{ingest, IngestOptions, Input, Silent};

    fn jsonl(prefix: &str, lines: &[(&str, &str)]) -> Input {
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (role, content))| {
                format!(
                    "{{\"conversation_id\":\"c1\",\"message_id\":\"{prefix}{i}\",\"role\":\"{role}\",\"content\":\"{content}\",\"timestamp\":\"2025-01-01T10:{i:02}:00Z\"}}\n"
                )
            })
            .collect();
        Input {
            name: "t.jsonl".into(),
            bytes: text.into_bytes(),
        }
    }

    #[test]
    fn an_append_keeps_what_curation_did_to_derived_nodes() {
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "2025-01-01T00:00:00Z",
        ));
        let first = [
            (
                "user",
                "We decided to use Postgres for billing because of transactions.",
            ),
            ("assistant", "Good, Postgres it is for the billing service."),
        ];
        ingest(
            &mut doc,
            vec![jsonl("m", &first)],
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let nodes = doc.semantic_graph.as_ref().unwrap().nodes();
        let seg = nodes
            .iter()
            .find(|n| n.kind == "segment")
            .unwrap()
            .id
            .clone();
        let other = nodes
            .iter()
            .find(|n| n.kind != "segment")
            .unwrap()
            .id
            .clone();
        record_access(
            &mut doc,
            &[&other],
            &smg_format::model::Timestamp::from_static("2025-06-01T00:00:00Z"),
            None,
        )
        .unwrap();
        let report = curate(
            &mut doc,
            &CurateOptions::at(smg_format::model::Timestamp::from_static(
                "2025-06-01T01:00:00Z",
            )),
        )
        .unwrap();
        assert!(
            report.actions.iter().any(|a| a.node == seg),
            "{:?}",
            report.actions
        );
        let before: Vec<_> = doc.semantic_graph.as_ref().unwrap().nodes().to_vec();
        let more = [
            ("user", "Also the reports run nightly at two."),
            ("assistant", "Noted."),
        ];
        ingest(
            &mut doc,
            vec![jsonl("n", &more)],
            &IngestOptions::default(),
            &Silent,
        )
        .unwrap();
        let after = doc.semantic_graph.as_ref().unwrap().nodes();
        for b in before
            .iter()
            .filter(|b| b.tier.is_some() || b.tombstone.is_some())
        {
            let a = after.iter().find(|a| a.id == b.id).unwrap();
            assert_eq!(
                (a.tier, a.tombstone, &a.access_count),
                (b.tier, b.tombstone, &b.access_count)
            );
        }
        let touched = after.iter().find(|n| n.id == other).unwrap();
        assert_eq!(touched.tier, Some(LifecycleTier::Cold));
    }
}
