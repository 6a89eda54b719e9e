//! Forks that each ingested new sessions merge into the memory one ingest of all the
//! sessions makes: the same node ids, contents and edges, every provenance naming the
//! right words, a message both branches saw archived once (spec §17.3). And the
//! derivations that read a memory without its derived graph (a lean read) write what
//! they write of it read whole.

use proptest::prelude::*;
use smg_engine::ingest::{
    ingest, ingest_into_bytes, ingest_lean_into_bytes, IngestOptions, LeanIngested, Silent,
};
use smg_import::Input;

use crate::common::read;
use smg_engine::merge::{
    merge, merge_into_bytes, merge_into_indexed_bytes, merge_lean_into_bytes, LeanMerged,
};
use smg_engine::search::encode_with_search_index;
use smg_format::{
    archive::read_archive,
    codec::to_canonical_json,
    merge::{Lean, MergeOptions},
    model::{Graph, Turn},
    to_bytes,
    validate::{validate, ValidateOptions},
    Document, Encoding, Limits, WriteOptions,
};

/// One message of a JSON Lines export.
#[derive(Debug, Clone)]
struct Message {
    conversation: usize,
    id: String,
    minute: u32,
    user: bool,
    text: String,
}

impl Message {
    fn line(&self, day: u32) -> String {
        let role = if self.user { "user" } else { "assistant" };
        let (h, m) = (self.minute / 60, self.minute % 60);
        serde_json::json!({
            "conversation_id": format!("c{}", self.conversation),
            "message_id": self.id,
            "role": role,
            "timestamp": format!("2025-03-{day:02}T{h:02}:{m:02}:00Z"),
            "content": self.text,
        })
        .to_string()
    }
}

const NAMES: [&str; 5] = ["Anna", "Ravi", "Lyon", "Kyoto", "Stripe"];
const THINGS: [&str; 5] = ["Postgres", "Redis", "tea", "hiking", "the webhook_handler"];

/// Sentences the rules make memories, decisions, entities and concepts of.
fn sentence() -> impl Strategy<Value = String> {
    let name = prop::sample::select(NAMES.to_vec());
    let thing = prop::sample::select(THINGS.to_vec());
    (0..7usize, name, thing).prop_map(|(k, name, thing)| match k {
        0 => format!("I prefer {thing} over everything else."),
        1 => format!("My sister {name} lives near {thing}."),
        2 => format!("We decided to use {thing} because it is simpler."),
        3 => format!("Let's use {thing} for the cache layer with {name}."),
        4 => format!("I am working on the {thing} project with {name}."),
        5 => format!("Last week I went to {name} and tried {thing}."),
        _ => format!("The {thing} config needs a retry_policy before launch."),
    })
}

/// A code paste of four lines or more, one file per side.
fn paste(file: &str, n: u32) -> String {
    format!("Here it is:\n```python name={file}\nimport os\n\ndef run_{n}():\n    return os.getcwd()\n```")
}

fn messages(
    prefix: &'static str,
    len: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec((0..2usize, 0..600u32, sentence()), len).prop_map(move |items| {
        items
            .into_iter()
            .enumerate()
            .map(|(i, (conversation, minute, text))| Message {
                conversation,
                id: format!("{prefix}{i}"),
                minute,
                user: i % 3 != 2,
                text,
            })
            .collect()
    })
}

/// The export of `messages` said on `day`; none for no messages (an empty file is
/// not an export).
fn export(messages: &[Message], day: u32) -> Option<Input> {
    let text: String = messages.iter().map(|m| m.line(day) + "\n").collect();
    (!messages.is_empty()).then(|| Input::bytes("chat.jsonl", text.into_bytes()))
}

fn grown(doc: &Document, inputs: impl IntoIterator<Item = Option<Input>>) -> Document {
    grown_in(doc, inputs, &IngestOptions::default())
}

fn grown_in(
    doc: &Document,
    inputs: impl IntoIterator<Item = Option<Input>>,
    options: &IngestOptions,
) -> Document {
    let inputs: Vec<Input> = inputs.into_iter().flatten().collect();
    let mut doc = doc.clone();
    ingest(&mut doc, read(inputs), options, &Silent).unwrap();
    doc
}

/// Ingest and merge options whose archive blocks hold `turns` turns at most: with two,
/// the base's blocks are full, and both branches keep them byte for byte.
fn blocks_of(turns: usize) -> (IngestOptions, MergeOptions) {
    let mut ingest = IngestOptions::default();
    ingest.archive.max_turns = turns;
    let mut merge = MergeOptions::default();
    merge.archive = ingest.archive;
    (ingest, merge)
}

fn graph(doc: &Document) -> &Graph {
    doc.semantic_graph.as_ref().unwrap()
}

fn canonical(doc: &Document) -> Vec<u8> {
    to_canonical_json(doc).unwrap()
}

/// The merged graph is the one-ingest graph; every provenance names the right turn;
/// the merged file validates.
fn same_memory(merged: &Document, one: &Document) -> Result<(), TestCaseError> {
    prop_assert_eq!(&graph(merged).nodes, &graph(one).nodes);
    prop_assert_eq!(&graph(merged).edges, &graph(one).edges);
    let turns: Vec<Turn> = read_archive(merged, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|a| a.turn)
        .collect();
    let want: Vec<Turn> = read_archive(one, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|a| a.turn)
        .collect();
    prop_assert_eq!(&turns, &want);
    prop_assert_eq!(&merged.working_memory, &one.working_memory);
    for node in graph(merged).nodes() {
        for p in node.provenance.iter().flatten() {
            for n in p.turns.iter().flatten() {
                let t = turns
                    .iter()
                    .find(|t| t.turn == *n)
                    .expect("cited turn archived");
                prop_assert_eq!(&t.conversation_id, &p.conversation_id);
                let ids = p.message_ids.as_deref().unwrap_or_default();
                prop_assert!(ids.contains(t.message_id.as_ref().unwrap()));
            }
        }
        if node.kind == "memory" {
            let p = &node.provenance.as_ref().unwrap()[0];
            let first = p.turns.as_ref().unwrap()[0];
            let said = &turns.iter().find(|t| t.turn == first).unwrap().content;
            prop_assert!(
                said.contains(node.content.as_deref().unwrap()),
                "{node:?} cites {said:?}"
            );
        }
    }
    let bytes = to_bytes(merged, &WriteOptions::new(Encoding::Brotli)).unwrap();
    let report = validate(&bytes, &ValidateOptions::default());
    prop_assert!(report.is_valid(), "{:?}", report.findings);
    Ok(())
}

/// Read lean ([`Lean::new`]), `docs` merge into the bytes they merge into read whole,
/// or give themselves back to be read whole; when both sides added different turns
/// (`union`) they merge. Read lean, nothing is left out of what the merge is to need.
fn read_lean_alike(
    docs: [&Document; 3],
    union: bool,
    options: &MergeOptions,
) -> Result<(), TestCaseError> {
    let write = WriteOptions::new(Encoding::Brotli);
    let whole = merge_into_bytes(docs.map(Document::clone), options, &write).unwrap();
    let leans = docs.map(|d| Lean::new(d.clone()));
    prop_assert!(leans.iter().all(|l| !l.left_out().is_empty()));
    match merge_lean_into_bytes(leans, options, &write, false).unwrap() {
        LeanMerged::Merged(lean) => {
            prop_assert_eq!(&lean.bytes, &whole.bytes);
            prop_assert_eq!(lean.rederived, whole.rederived);
            prop_assert_eq!(&lean.conflicts, &whole.conflicts);
        }
        LeanMerged::ReadWhole(given) => {
            prop_assert!(!union, "a union of archives needs nothing left out");
            let given = given.map(|l| l.document().clone());
            let leaned = docs.map(|d| Lean::new(d.clone()).document().clone());
            prop_assert_eq!(given, leaned);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn two_branches_merge_into_one_ingest_of_both(
        base in messages("b", 1..8),
        ours in messages("o", 0..6),
        theirs in messages("t", 0..6),
        shared in messages("s", 0..3),
        code in any::<bool>(),
        small_blocks in any::<bool>(),
    ) {
        let (ingesting, merging) = blocks_of(if small_blocks { 2 } else { 250 });
        let grown = |doc: &Document, inputs: Vec<Option<Input>>| grown_in(doc, inputs, &ingesting);
        let start = grown(&Document::new(smg_format::model::Timestamp::from_static("2025-03-01T00:00:00Z")), vec![export(&base, 1)]);
        let mut a = [ours.as_slice(), &shared].concat();
        let mut b = [theirs.as_slice(), &shared].concat();
        if code {
            a.push(Message { conversation: 0, id: "code-a".into(), minute: 700, user: true, text: paste("a.py", 1) });
            b.push(Message { conversation: 1, id: "code-b".into(), minute: 710, user: true, text: paste("b.py", 2) });
        }
        let x = grown(&start, vec![export(&a, 2)]);
        let y = grown(&start, vec![export(&b, 2)]);
        let merged = merge(&start, &x, &y, &merging).unwrap();
        prop_assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        let ids = |m: &[Message]| m.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        let union = !a.is_empty() && !b.is_empty() && ids(&a) != ids(&b);
        prop_assert_eq!(merged.report.turns.both, if union { shared.len() } else { 0 });
        let one = grown(&start, vec![export(&a, 2), export(&b, 2)]);
        same_memory(&merged.document, &one)?;
        read_lean_alike([&start, &x, &y], union, &merging)?;
        // A branch merged with an unchanged one is itself.
        let same = merge(&start, &x, &start, &merging).unwrap();
        prop_assert_eq!(canonical(&same.document), canonical(&x));
        let same = merge(&start, &start, &y, &merging).unwrap();
        prop_assert_eq!(canonical(&same.document), canonical(&y));
    }

    #[test]
    fn three_branches_merged_in_sequence(
        base in messages("b", 1..6),
        sessions in prop::collection::vec(messages("n", 1..5), 3..5),
    ) {
        let start = grown(&Document::new(smg_format::model::Timestamp::from_static("2025-03-01T00:00:00Z")), [export(&base, 1)]);
        // Each branch's messages have their own ids; each session is on its own day.
        let sessions: Vec<Vec<Message>> = sessions
            .into_iter()
            .enumerate()
            .map(|(k, s)| s.into_iter().map(|m| Message { id: format!("{k}-{}", m.id), ..m }).collect())
            .collect();
        let days = |k: usize| 2 + k as u32;
        let branches: Vec<Document> = sessions
            .iter()
            .enumerate()
            .map(|(k, s)| grown(&start, [export(s, days(k))]))
            .collect();
        let mut merged = branches[0].clone();
        for branch in &branches[1..] {
            let m = merge(&start, &merged, branch, &MergeOptions::default()).unwrap();
            prop_assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
            merged = m.document;
        }
        let all: Vec<Option<Input>> = sessions.iter().enumerate().map(|(k, s)| export(s, days(k))).collect();
        let one = grown(&start, all);
        same_memory(&merged, &one)?;
    }
}

/// An append to `doc` read lean, leaving out the nodes `left_out`, writes the bytes
/// of an append to `doc` read whole.
fn appends_lean_alike(
    doc: &Document,
    left_out: &[String],
    more: &[Message],
) -> Result<(), TestCaseError> {
    let (options, write) = (
        IngestOptions::default(),
        WriteOptions::new(Encoding::Brotli),
    );
    let inputs = || vec![export(more, 3).unwrap()];
    let (whole_report, whole) =
        ingest_into_bytes(doc.clone(), read(inputs()), &options, &Silent, &write).unwrap();
    let lean = Lean::new(doc.clone());
    prop_assert_eq!(lean.left_out(), left_out);
    match ingest_lean_into_bytes(lean, read(inputs()), &options, &Silent, &write).unwrap() {
        LeanIngested::Written(report, bytes) => {
            prop_assert!(bytes == whole, "a lean append writes other bytes");
            prop_assert_eq!(report, whole_report);
        }
        other => prop_assert!(false, "{other:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn an_append_to_a_memory_read_lean_writes_what_one_read_whole_writes(
        base in messages("b", 1..8),
        more in messages("m", 1..6),
        marked in any::<bool>(),
    ) {
        let mut doc = grown(&Document::new(smg_format::model::Timestamp::from_static("2025-03-01T00:00:00Z")), [export(&base, 1)]);
        let graph = doc.semantic_graph.as_mut().unwrap();
        // A node someone wrote, tied to a derived one: it and its edge stay.
        let derived = graph.nodes()[0].id.clone();
        let note = smg_format::model::NonEmpty::from_static("note-1");
        graph.nodes.as_mut().unwrap().push(smg_format::model::Node::new(note.clone(), smg_format::model::NonEmpty::from_static("concept")));
        graph.edges.get_or_insert_with(Vec::new).push(smg_format::model::Edge::new(note, smg_format::model::NonEmpty::from_static("mentions"), derived.clone()));
        if marked {
            // Curation's marks keep a derived node in a lean read, and through the append.
            let at = smg_format::model::Timestamp::from_static("2025-03-02T00:00:00Z");
            smg_engine::curate::record_access(&mut doc, &[&derived], &at, None).unwrap();
        }
        // Every derived node but a marked one is left out: none, when a one-message
        // memory's only derived node is the one marked.
        let left_out: Vec<String> = doc.semantic_graph.as_ref().unwrap().nodes().iter()
            .filter(|n| n.is_derived() && !(marked && n.id == derived))
            .map(|n| n.id.to_string())
            .collect();
        appends_lean_alike(&doc, &left_out, &more)?;
    }
}

#[test]
fn an_append_of_an_mcp_memory_to_a_memory_read_lean_reads_it_whole() {
    let doc = grown(
        &Document::new(smg_format::model::Timestamp::from_static(
            "2025-03-01T00:00:00Z",
        )),
        [export(
            &[Message {
                conversation: 0,
                id: "b0".into(),
                minute: 5,
                user: true,
                text: "My sister Anna lives near Lyon.".into(),
            }],
            1,
        )],
    );
    let mcp = Input::bytes("memory.jsonl", br#"{"type":"entity","name":"Anna","entityType":"person","observations":["lives near Lyon"]}"#.to_vec());
    let (options, write) = (
        IngestOptions::default(),
        WriteOptions::new(Encoding::Brotli),
    );
    let got = ingest_lean_into_bytes(
        Lean::new(doc),
        read(vec![mcp.clone()]),
        &options,
        &Silent,
        &write,
    )
    .unwrap();
    match got {
        LeanIngested::ReadWhole(given) => assert_eq!(given, read(vec![mcp])),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_memory_no_ingest_made_gets_no_derived_graph_from_a_merge() {
    let said = |n: u64, text: &str| Turn {
        conversation_id: Some("c".into()),
        message_id: Some(format!("m{n}").into()),
        timestamp: Some(
            smg_format::model::Timestamp::new(format!("2025-03-01T10:0{n}:00Z")).unwrap(),
        ),
        ..Turn::new(
            smg_format::model::Ordinal::new(n).unwrap(),
            smg_format::model::role::USER,
            text,
        )
    };
    let options = smg_format::archive::ArchiveOptions::default();
    let append = |doc: &Document, turns: &[Turn]| {
        let mut doc = doc.clone();
        smg_format::archive::append_turns(&mut doc, turns, &options).unwrap();
        doc
    };
    let base = append(
        &Document::new(smg_format::model::Timestamp::from_static(
            "2025-03-01T00:00:00Z",
        )),
        &[said(1, "We decided to use Postgres.")],
    );
    let ours = append(&base, &[said(2, "I prefer tea.")]);
    let theirs = append(&base, &[said(3, "My sister Anna lives in Lyon.")]);
    let merged = merge(&base, &ours, &theirs, &MergeOptions::default()).unwrap();
    assert!(merged.report.rederive, "a new union of turns");
    assert!(merged.document.semantic_graph.is_none());
    assert_eq!(
        read_archive(&merged.document, &Limits::default())
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn an_indexed_merge_stores_the_index_of_the_merged_memory() {
    let said = |prefix: &str, conversation: usize, texts: &[&str]| -> Vec<Message> {
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| Message {
                conversation,
                id: format!("{prefix}{i}"),
                minute: 10 * i as u32,
                user: i % 2 == 0,
                text: (*text).to_string(),
            })
            .collect()
    };
    let start = grown(
        &Document::new(smg_format::model::Timestamp::from_static(
            "2025-03-01T00:00:00Z",
        )),
        [export(
            &said(
                "b",
                0,
                &[
                    "We decided to use Postgres because it is simpler.",
                    "My sister Anna lives near Lyon.",
                ],
            ),
            1,
        )],
    );
    let ours = grown(
        &start,
        [export(
            &said("o", 0, &["I prefer tea over everything else."]),
            2,
        )],
    );
    let theirs = grown(
        &start,
        [export(
            &said("t", 1, &["Let's use Redis for the cache layer with Ravi."]),
            3,
        )],
    );
    let packed = WriteOptions::new(Encoding::Packed);
    let limits = Limits::default();
    let docs = || [start.clone(), ours.clone(), theirs.clone()];
    let indexed = merge_into_indexed_bytes(docs(), &MergeOptions::default(), &packed).unwrap();
    assert!(indexed.rederived > 0);
    // The same file as the merged document written with an index made from it.
    let merged = merge(&start, &ours, &theirs, &MergeOptions::default()).unwrap();
    let expected = encode_with_search_index(merged.document, &packed, &limits).unwrap();
    assert!(indexed.bytes.as_deref() == Some(expected.as_slice()));
    // A side that changed nothing: the other, with its index.
    let same = [start.clone(), ours.clone(), start.clone()];
    let same = merge_into_indexed_bytes(same, &MergeOptions::default(), &packed).unwrap();
    let expected = encode_with_search_index(ours.clone(), &packed, &limits).unwrap();
    assert!(same.bytes.as_deref() == Some(expected.as_slice()));
    // The index is stored in the packed layout only.
    let brotli = WriteOptions::new(Encoding::Brotli);
    let err = merge_into_indexed_bytes(docs(), &MergeOptions::default(), &brotli).unwrap_err();
    assert_eq!(err.code(), "SMG-E020");
}
