use std::path::{Path, PathBuf};

use smg_format::model::Timestamp;
use smg_format::{Document, Limits};

use super::*;
use crate::search::tests::document;
use crate::search::{Item, Period, SearchOptions};

const HIKING: &[(&str, &str)] = &[
    ("Ann", "Guess where I went last weekend?"),
    ("Bob", "No idea, tell me!"),
    (
        "Ann",
        "I went hiking in the Rocky Mountains with my sister.",
    ),
    ("Bob", "Sounds amazing, was it cold?"),
];

const BAKING: &[(&str, &str)] = &[
    ("Cy", "The sourdough starter needs feeding twice a day."),
    ("Di", "Rye flour makes the starter stronger."),
    ("Cy", "Bake the loaf at 250 degrees with steam."),
    ("Di", "Hiking boots are in the car, by the way."),
    ("Cy", "Let the dough rest overnight in the fridge."),
];

fn at() -> Timestamp {
    Timestamp::from_static("2025-12-04T10:30:00Z")
}

/// Write `doc` to `path` (JSON), with links to `links` (name, file).
fn write(path: &Path, mut doc: Document, links: &[(&str, &Path)]) {
    for (name, other) in links {
        let bytes = std::fs::read(other).unwrap_or_default();
        let link = smg_format::links::new_link(path, other, name, &bytes, None, &at()).unwrap();
        smg_format::links::add(&mut doc, link).unwrap();
    }
    let bytes = smg_format::to_bytes(
        &doc,
        &smg_format::WriteOptions::new(smg_format::Encoding::Json),
    )
    .unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn opener(path: &Path, _name: &str) -> crate::Result<Retriever> {
    open_file(path, &Limits::default(), None)
}

fn network(path: &Path) -> Network {
    Network::open(path, opener(path, "").unwrap(), &opener)
}

/// `a.smg` (hiking) linked to `b.smg` (baking), which links back: a cycle.
fn two(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("a.smg"), dir.join("sub").join("b.smg"));
    std::fs::create_dir(dir.join("sub")).unwrap();
    write(&b, document(BAKING), &[]);
    write(&a, document(HIKING), &[("bakery", &b)]);
    write(&b, document(BAKING), &[("me", &a)]);
    (a, b)
}

fn texts(found: &[crate::search::Found]) -> Vec<(String, String)> {
    found
        .iter()
        .filter_map(|f| match &f.item {
            Item::Turn { turn, .. } => {
                Some((f.file.as_ref()?.label().to_string(), turn.content.clone()))
            }
            Item::Node { .. } => None,
        })
        .collect()
}

#[test]
fn links_are_followed_once_round_a_cycle_and_every_hit_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two(dir.path());
    let net = network(&a);
    assert_eq!(net.len(), 2, "a cycle adds no file twice");
    // Linking b back to a changed b after a linked to it: said, and b is read.
    let codes: Vec<&str> = net.warnings().iter().map(|w| w.code).collect();
    assert_eq!(codes, ["SMG-W031"], "{:?}", net.warnings());
    let files: Vec<&FileRef> = net.members().map(|m| m.0).collect();
    assert_eq!(files[1].name.as_deref(), Some("bakery"));
    assert!(files[1].path.ends_with("sub/b.smg"), "{}", files[1].path);
    let found = net
        .search("sourdough starter", &SearchOptions::new(3))
        .unwrap();
    let hits = texts(&found.turns);
    assert_eq!(hits[0].0, "bakery", "{hits:?}");
    assert!(hits[0].1.contains("starter"), "{hits:?}");
    // A word both files hold: one ranking over both.
    let found = net.search("hiking", &SearchOptions::new(4)).unwrap();
    let files: Vec<String> = texts(&found.turns).into_iter().map(|h| h.0).collect();
    assert!(
        files.contains(&"a.smg".to_string()) && files.contains(&"bakery".to_string()),
        "{files:?}"
    );
    let json = found.to_json("hiking");
    assert!(json["hits"][0]["file"]["path"].is_string(), "{json}");
}

#[test]
fn a_missing_changed_or_unopenable_link_warns_and_the_rest_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two(dir.path());
    std::fs::write(&b, b"not a memory at all").unwrap();
    let net = network(&a);
    let codes: Vec<&str> = net.warnings().iter().map(|w| w.code).collect();
    assert_eq!(codes, ["SMG-W031", "SMG-W032"], "{:?}", net.warnings());
    assert_eq!(net.len(), 1);
    let found = net.search("hiking", &SearchOptions::new(3)).unwrap();
    assert!(!found.turns.is_empty());
    assert!(
        found.warnings[0].starts_with("SMG-W031"),
        "{:?}",
        found.warnings
    );
    std::fs::remove_file(&b).unwrap();
    let net = network(&a);
    let codes: Vec<&str> = net.warnings().iter().map(|w| w.code).collect();
    assert_eq!(codes, ["SMG-W030"]);
    let p = net.prompt("hiking", None, 200, &Period::ALL).unwrap();
    assert!(p.warnings[0].contains("SMG-W030"), "{:?}", p.warnings);
    assert!(!p.items.is_empty());
}

#[test]
fn one_budget_holds_turns_of_both_files_under_date_lines_that_name_them() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two(dir.path());
    let net = network(&a);
    for budget in [5, 20, 40, 80, 400] {
        let p = net
            .prompt("hiking starter", None, budget, &Period::ALL)
            .unwrap();
        assert!(p.tokens <= budget, "{budget}: {}", p.text);
    }
    let p = net
        .prompt("hiking starter", None, 400, &Period::ALL)
        .unwrap();
    let files: std::collections::HashSet<&str> = p
        .items
        .iter()
        .map(|h| h.file.as_ref().unwrap().label())
        .collect();
    assert_eq!(files.len(), 2, "{}", p.text);
    assert!(p.text.contains("[no date] · bakery"), "{}", p.text);
    assert!(p.text.contains("[no date] · a.smg"), "{}", p.text);
}

#[test]
fn the_same_turn_held_by_two_files_is_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.smg"), dir.path().join("copy.smg"));
    write(&b, document(HIKING), &[]);
    write(&a, document(HIKING), &[("copy", &b)]);
    let net = network(&a);
    assert_eq!(net.len(), 2);
    assert!(net.warnings().is_empty(), "{:?}", net.warnings());
    let found = net
        .search("Rocky Mountains hiking", &SearchOptions::new(10))
        .unwrap();
    let hits = texts(&found.turns);
    let rocky = hits.iter().filter(|h| h.1.contains("Rocky")).count();
    assert_eq!(rocky, 1, "{hits:?}");
    assert_eq!(hits.len(), HIKING.len(), "{hits:?}");
    let p = net
        .prompt("Rocky Mountains hiking", None, 1000, &Period::ALL)
        .unwrap();
    assert_eq!(p.items.len(), HIKING.len(), "{}", p.text);
}

#[test]
fn a_segment_is_expanded_from_the_file_that_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = two(dir.path());
    let net = network(&a);
    let found = net.search("sourdough", &SearchOptions::new(1)).unwrap();
    let Item::Turn { segment, .. } = &found.turns[0].item else {
        panic!("a turn")
    };
    assert_eq!(found.turns[0].file.as_ref().unwrap().label(), "bakery");
    let segment = segment.as_deref().unwrap();
    let (file, turns) = net.expand(segment, Some("bakery")).unwrap();
    assert_eq!(file.label(), "bakery");
    assert!(turns.iter().any(|t| t.content.contains("sourdough")));
    // Both files made their segments of a conversation named alike: without the
    // link's name, the file asked comes first.
    let (file, turns) = net.expand(segment, None).unwrap();
    assert_eq!(file.name, None);
    assert!(turns.iter().any(|t| t.content.contains("Rocky")));
    let code = |e: crate::Error| e.code();
    assert_eq!(code(net.expand("no-such", None).unwrap_err()), "SMG-E201");
    assert_eq!(
        code(net.expand(segment, Some("nope")).unwrap_err()),
        "SMG-E020"
    );
}

#[test]
fn paths_resolve_against_the_linking_file_and_read_well() {
    assert_eq!(
        joined(Path::new("x/a.smg"), "../t/b.smg"),
        PathBuf::from("t/b.smg")
    );
    assert_eq!(
        joined(Path::new("a.smg"), "../b.smg"),
        PathBuf::from("../b.smg")
    );
    assert_eq!(
        joined(Path::new("/m/a.smg"), "./c/./d.smg"),
        PathBuf::from("/m/c/d.smg")
    );
    let root = FileRef {
        name: None,
        path: "dir/mine.smg".into(),
    };
    assert_eq!(root.label(), "mine.smg");
}

/// More matches than a search keeps as candidates, in two files: the network keeps
/// its best as one file of both would (not each file's best), so the turn rules
/// run on the same turns and the two score alike.
#[test]
fn a_network_of_many_matches_ranks_as_one_file_of_them_all() {
    let lines = |conversation: &str| -> Vec<String> {
        (0..1400)
            .map(|i| {
                let said = format!("the river {i} {}", "flows ".repeat(i % 23));
                serde_json::json!({"conversation_id": conversation, "message_id": i.to_string(), "speaker": "Ann", "content": said}).to_string()
            })
            .collect()
    };
    let (x, y) = (lines("x"), lines("y"));
    let jsonl = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let dir = tempfile::tempdir().unwrap();
    let [a, b, one] = ["a.smg", "b.smg", "one.smg"].map(|f| dir.path().join(f));
    write(&b, crate::search::tests::ingested(jsonl(&y)), &[]);
    write(&a, crate::search::tests::ingested(jsonl(&x)), &[("b", &b)]);
    let both = [x, y].concat();
    write(&one, crate::search::tests::ingested(jsonl(&both)), &[]);
    let net = network(&a);
    let alone = opener(&one, "").unwrap();
    let ranked = net.rank("river flows", None, &Period::ALL, 50).unwrap();
    let mut expected = alone.rank("river flows", None, &Period::ALL).unwrap();
    expected.truncate(50);
    assert_eq!(ranked.len(), 50);
    for (&(m, i, s), &(j, t)) in ranked.iter().zip(&expected) {
        let said = &net.members[m].1.turns.get(i).unwrap().content;
        assert_eq!(said, &alone.turns.get(j).unwrap().content);
        assert!(
            (s - t).abs() < 1e-9 * t.abs().max(1.0),
            "{said}: {s} against {t}"
        );
    }
}
