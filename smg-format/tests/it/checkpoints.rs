//! Property tests of checkpoints: deltas rebuild their target byte for byte, and
//! three-way merges behave as merges must (identity, symmetry, nothing lost).

use crate::support::{document, text, unit};
use proptest::prelude::*;
use smg_format::{
    archive::{append_turns, read_archive, ArchiveOptions},
    codec::to_canonical_json,
    delta::{apply_delta, make_delta, DeltaOptions},
    merge::{merge, MergeOptions, Side},
    model::{Node, Turn},
    to_bytes, Document, Encoding, Limits, WriteOptions,
};

/// One edit of a memory, as a session would make it.
#[derive(Debug, Clone)]
enum Edit {
    Label(prop::sample::Index, String),
    Importance(prop::sample::Index, f64),
    AddNode(String, String),
    RemoveNode(prop::sample::Index),
    Project(String),
    Tag(String),
    Append(Vec<String>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<prop::sample::Index>(), text()).prop_map(|(i, t)| Edit::Label(i, t)),
        (any::<prop::sample::Index>(), unit()).prop_map(|(i, u)| Edit::Importance(i, u)),
        ("[a-z]{1,3}", text()).prop_map(|(id, t)| Edit::AddNode(id, t)),
        any::<prop::sample::Index>().prop_map(Edit::RemoveNode),
        text().prop_map(Edit::Project),
        "[a-c]{1,2}".prop_map(Edit::Tag),
        prop::collection::vec(text(), 1..4).prop_map(Edit::Append),
    ]
}

fn archive_options() -> ArchiveOptions {
    let mut options = ArchiveOptions::default();
    options.max_turns = 3;
    options.quality = 1;
    options
}

fn append(doc: &mut Document, contents: &[String]) {
    let last = read_archive(doc, &Limits::default())
        .unwrap()
        .last()
        .map_or(0, |a| a.turn.turn.get());
    let turns: Vec<Turn> = contents
        .iter()
        .zip(last + 1..)
        .map(|(content, n)| Turn {
            timestamp: Some(said_at(content)),
            ..Turn::new(
                smg_format::model::Ordinal::new(n).unwrap(),
                smg_format::model::role::USER,
                content.clone(),
            )
        })
        .collect();
    append_turns(doc, &turns, &archive_options()).unwrap();
}

/// A time of its own for each text: turns added on two sides are merged in time
/// order, and only turns said at the same time keep ours first (spec §17.3).
fn said_at(content: &str) -> smg_format::model::Timestamp {
    let h = content.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let t = chrono::DateTime::from_timestamp_millis((h % 1_000_000_000_000) as i64).unwrap();
    smg_format::model::Timestamp::from_utc(&t, chrono::SecondsFormat::Millis).unwrap()
}

fn apply(doc: &Document, edits: &[Edit]) -> Document {
    let mut doc = doc.clone();
    for e in edits {
        let nodes = doc
            .semantic_graph
            .get_or_insert_with(Default::default)
            .nodes
            .get_or_insert_with(Vec::new);
        let len = nodes.len();
        match e {
            Edit::Label(i, t) if len > 0 => nodes[i.index(len)].label = Some(t.clone()),
            Edit::Importance(i, u) if len > 0 => {
                nodes[i.index(len)].importance = Some(smg_format::model::Unit::clamped(*u))
            }
            Edit::RemoveNode(i) if len > 0 => {
                let gone = nodes.remove(i.index(len)).id;
                let graph = doc.semantic_graph.as_mut().unwrap();
                graph
                    .edges
                    .get_or_insert_with(Vec::new)
                    .retain(|e| e.from != gone && e.to != gone);
            }
            Edit::AddNode(id, label) if nodes.iter().all(|n| &n.id != id) => nodes.push(Node {
                label: Some(label.clone()),
                ..Node::new(
                    smg_format::model::NonEmpty::new(id.clone()).unwrap(),
                    smg_format::model::NonEmpty::from_static("concept"),
                )
            }),
            Edit::Project(p) => doc.metadata.project_name = Some(p.clone()),
            Edit::Tag(t) => {
                let tags = doc.metadata.tags.get_or_insert_with(Vec::new);
                if !tags.contains(t) {
                    tags.push(t.clone());
                }
            }
            Edit::Append(contents) => append(&mut doc, contents),
            _ => {}
        }
    }
    doc
}

/// A generated document whose archive holds `turns` numbered from 1, and whose node
/// ids are distinct.
fn base() -> impl Strategy<Value = Document> {
    (document(), prop::collection::vec(text(), 0..5)).prop_map(|(mut doc, turns)| {
        doc.deep_archive = None;
        if let Some(nodes) = doc.semantic_graph.as_mut().and_then(|g| g.nodes.as_mut()) {
            let mut seen = std::collections::BTreeSet::new();
            nodes.retain(|n| seen.insert(n.id.to_string()));
        }
        if let Some(g) = doc.semantic_graph.as_mut() {
            let ids: Vec<String> = g.nodes().iter().map(|n| n.id.to_string()).collect();
            g.edges
                .get_or_insert_with(Vec::new)
                .retain(|e| ids.iter().any(|i| *i == e.from) && ids.iter().any(|i| *i == e.to));
        }
        append(&mut doc, &turns);
        doc
    })
}

fn canonical(doc: &Document) -> Vec<u8> {
    to_canonical_json(doc).unwrap()
}

fn archived(doc: &Document) -> Vec<String> {
    read_archive(doc, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|a| a.turn.content)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_delta_rebuilds_its_target_byte_for_byte(a in base(), edits in prop::collection::vec(edit(), 0..6), other in base()) {
        let options = DeltaOptions::default().with_level(3);
        let b = apply(&a, &edits);
        for enc in [Encoding::Json, Encoding::Brotli, Encoding::Zstd] {
            let write = WriteOptions::new(enc);
            let (x, y, z) = (to_bytes(&a, &write).unwrap(), to_bytes(&b, &write).unwrap(), to_bytes(&other, &write).unwrap());
            let delta = make_delta(&x, &y, &options).unwrap().bytes;
            prop_assert_eq!(&apply_delta(&x, &delta, &options).unwrap(), &y);
            let unrelated = make_delta(&x, &z, &options).unwrap().bytes;
            prop_assert_eq!(&apply_delta(&x, &unrelated, &options).unwrap(), &z);
            if x != y {
                prop_assert_eq!(apply_delta(&y, &delta, &options).unwrap_err().code(), "SMG-E160");
            }
        }
    }

    #[test]
    fn merging_with_an_unchanged_side_gives_the_other_side(base in base(), edits in prop::collection::vec(edit(), 0..6)) {
        let x = apply(&base, &edits);
        let options = MergeOptions::default();
        let m = merge(&base, &x, &base, &options).unwrap();
        prop_assert!(m.conflicts.is_empty());
        prop_assert_eq!(canonical(&m.document), canonical(&x));
        let m = merge(&base, &base, &x, &options).unwrap();
        prop_assert_eq!(canonical(&m.document), canonical(&x));
        prop_assert!(smg_format::diff::diff(&x, &x).is_empty());
    }

    #[test]
    fn merges_are_symmetric_and_lose_no_turn(
        base in base(),
        ours in prop::collection::vec(edit(), 0..6),
        theirs in prop::collection::vec(edit(), 0..6),
    ) {
        let (x, y) = (apply(&base, &ours), apply(&base, &theirs));
        let xy = merge(&base, &x, &y, &MergeOptions::default()).unwrap();
        let yx = merge(&base, &y, &x, &MergeOptions::default()).unwrap();
        prop_assert_eq!(xy.conflicts.len(), yx.conflicts.len());
        if xy.conflicts.is_empty() {
            prop_assert_eq!(canonical(&xy.document), canonical(&yx.document));
        }
        let preferred = merge(&base, &x, &y, &MergeOptions::default().prefer(Side::Ours)).unwrap();
        let mirrored = merge(&base, &y, &x, &MergeOptions::default().prefer(Side::Theirs)).unwrap();
        prop_assert_eq!(canonical(&preferred.document), canonical(&mirrored.document));
        let merged = archived(&preferred.document);
        for turn in archived(&x).into_iter().chain(archived(&y)) {
            prop_assert!(merged.contains(&turn), "lost turn {:?}", turn);
        }
    }
}
