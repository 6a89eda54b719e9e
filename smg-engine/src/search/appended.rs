//! An ingest that adds to the stored index of the file it appends to answers as an
//! index made anew of the whole memory.

use std::path::Path;

use smg_format::{Document, Encoding, Limits, WriteOptions};

use super::{encode_indexed, Period, Retriever, SearchOptions};
use crate::ingest::{ingest_keeping_turns, IngestOptions, Silent};

/// `n` turns of conversation `c` from message `from` on, as JSON Lines: names,
/// decisions and plain talk, so that the graph has segments, entities and decisions.
fn turns(c: &str, from: usize, n: usize) -> crate::ingest::Imported {
    let topics = [
        "hiking", "bakery", "rust", "garden", "chess", "piano", "sailing",
    ];
    let lines: String = (from..from + n)
        .map(|i| {
            let topic = topics[i % topics.len()];
            let text = match i % 4 {
                0 => format!("We decided to use {topic} planner v{i} because it is simpler."),
                1 => format!("Ann Lee said the {topic} club meets on day {i}."),
                2 => format!("I love {topic} with my friend Bob Stone, note {i}."),
                _ => format!("What about the {topic} idea number {i}?"),
            };
            let record = serde_json::json!({
                "conversation_id": c, "message_id": i.to_string(),
                "role": if i % 2 == 0 { "user" } else { "assistant" },
                "content": text,
                "timestamp": format!("2024-03-{:02}T10:{:02}:00Z", 1 + i / 60 % 28, i % 60),
            });
            format!("{record}\n")
        })
        .collect();
    crate::ingest::testing::jsonl(lines.into_bytes())
}

/// A memory with nothing in it.
fn empty() -> Document {
    Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ))
}

/// `doc` written packed with the index of `r` to `path`, and opened by that index.
fn stored(doc: &Document, r: &Retriever, path: &Path, limits: &Limits) -> Retriever {
    let options = WriteOptions::new(Encoding::Packed);
    let bytes = encode_indexed(doc.clone(), &options, r).unwrap();
    std::fs::write(path, bytes).unwrap();
    let read = Retriever::open_packed(path, limits).unwrap().unwrap();
    assert!(read.used_stored_index());
    read
}

/// `a` and `b` hold the same turns, in the same places of the same graph, and
/// answer alike.
fn assert_alike(a: &Retriever, b: &Retriever) {
    assert_eq!(a.turn_count(), b.turn_count());
    for i in 0..a.turn_count() {
        assert_eq!(a.turn(i).unwrap(), b.turn(i).unwrap(), "turn {i}");
        assert_eq!(a.segment(i).unwrap(), b.segment(i).unwrap(), "turn {i}");
        assert_eq!(a.drawn(i), b.drawn(i), "turn {i}");
    }
    let o = SearchOptions::new(8);
    for q in [
        "hiking club",
        "Why did we decide on the rust planner?",
        "Bob Stone piano",
        "sailing idea",
        "When does the chess club meet?",
    ] {
        assert_eq!(a.search(q, &o).unwrap(), b.search(q, &o).unwrap(), "{q}");
        let month = Period::parse(Some("2024-03-02"), Some("2024-03-05")).unwrap();
        for period in [Period::ALL, month] {
            let (x, y) = (
                a.context(q, None, 300, &period).unwrap(),
                b.context(q, None, 300, &period).unwrap(),
            );
            assert_eq!(x, y, "{q}");
        }
    }
    let seg = b.segment(b.turn_count() - 1).unwrap().unwrap();
    assert_eq!(a.expand(&seg).unwrap(), b.expand(&seg).unwrap());
}

#[test]
fn appends_add_to_the_stored_index_and_answer_as_one_made_anew() {
    let limits = Limits::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.smg");
    let options = IngestOptions::default();
    let mut doc = empty();
    let (_, archived) =
        ingest_keeping_turns(&mut doc, vec![turns("a", 0, 150)], &options, &Silent).unwrap();
    let first = Retriever::after_ingest(&doc, archived, None, &limits).unwrap();
    let mut previous = stored(&doc, &first, &path, &limits);
    // A new conversation, then more of the first: its last segment may grow and the
    // graph's nodes are numbered anew.
    for input in [turns("b", 0, 25), turns("a", 150, 10), turns("c", 0, 3)] {
        let (_, archived) = ingest_keeping_turns(&mut doc, vec![input], &options, &Silent).unwrap();
        let grown = Retriever::after_ingest(&doc, archived, Some(&previous), &limits).unwrap();
        assert!(grown.ix.index.segments() > 1, "a segment added");
        let anew = Retriever::new(&doc, &limits).unwrap();
        assert_alike(&grown, &anew);
        previous = stored(&doc, &grown, &path, &limits);
        assert_alike(&previous, &anew);
    }
}

#[test]
fn an_index_of_other_turns_or_of_few_of_them_is_made_anew() {
    let limits = Limits::default();
    let options = IngestOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.smg");
    let mut small = empty();
    let (_, archived) =
        ingest_keeping_turns(&mut small, vec![turns("a", 0, 10)], &options, &Silent).unwrap();
    let r = Retriever::after_ingest(&small, archived, None, &limits).unwrap();
    let previous = stored(&small, &r, &path, &limits);
    // Many more turns than the index holds: made anew, in one segment.
    let (_, archived) =
        ingest_keeping_turns(&mut small, vec![turns("b", 0, 40)], &options, &Silent).unwrap();
    let grown = Retriever::after_ingest(&small, archived, Some(&previous), &limits).unwrap();
    assert_eq!(grown.ix.index.segments(), 1);
    assert_alike(&grown, &Retriever::new(&small, &limits).unwrap());
    // The index of another memory's turns: made anew.
    let mut other = empty();
    let (_, archived) =
        ingest_keeping_turns(&mut other, vec![turns("z", 5, 12)], &options, &Silent).unwrap();
    let grown = Retriever::after_ingest(&other, archived, Some(&previous), &limits).unwrap();
    assert_eq!(grown.ix.index.segments(), 1);
    assert_alike(&grown, &Retriever::new(&other, &limits).unwrap());
}

#[test]
fn a_memory_changed_since_its_index_was_stored_is_renewed_from_it() {
    let limits = Limits::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.smg");
    let options = IngestOptions::default();
    let mut doc = empty();
    crate::ingest::ingest(&mut doc, vec![turns("a", 0, 120)], &options, &Silent).unwrap();
    let previous = stored(
        &doc,
        &Retriever::new(&doc, &limits).unwrap(),
        &path,
        &limits,
    );
    // New turns, and a graph derived again, as any writer that holds no turns leaves it.
    crate::ingest::ingest(&mut doc, vec![turns("b", 0, 9)], &options, &Silent).unwrap();
    let renewed = Retriever::renewed(&doc, &previous, &limits).unwrap();
    assert_eq!(renewed.ix.index.segments(), 2);
    let anew = Retriever::new(&doc, &limits).unwrap();
    assert_alike(&renewed, &anew);
    assert_alike(&stored(&doc, &renewed, &path, &limits), &anew);
}
