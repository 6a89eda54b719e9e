//! No writer renames an invalid file into place (issue 31, item 3): a command that
//! changes content refuses, with SMG-E023 naming the field, to write what would not
//! validate, and leaves the old file as it was; a pure re-encoding keeps what it read,
//! invalid included, so that a broken file can be converted to JSON and mended.

use std::path::Path;

use crate::common::{fixtures, smg, smg_stdin, text};

/// The entries of `dir`, sorted; not the writers' lock files, which stay (spec §15).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    names.sort();
    names
}

#[test]
fn writers_refuse_to_write_a_file_that_would_not_validate() {
    // A constraint the types hold is refused as the file is read (SMG-E012); one on
    // the JSON the model keeps as it is, or a reference, before the write (SMG-E023,
    // with the validator's code).
    for (fixture, codes, pointer) in [
        (
            "importance-out-of-range",
            &["SMG-E012"][..],
            "/semanticGraph/nodes/1/importance",
        ),
        (
            "node-version-zero",
            &["SMG-E012"],
            "/semanticGraph/nodes/1/version",
        ),
        (
            "compression-ratio-negative",
            &["SMG-E012"],
            "/metadata/compressionRatio",
        ),
        (
            "conversation-format-not-text",
            &["SMG-E023", "SMG-E101"],
            "/deepArchive/conversations/c-old/format",
        ),
    ] {
        refused_by_every_writer(fixture, codes, pointer, WRITERS);
    }
    // An append and a migration derive the graph again and keep only the edges from
    // elsewhere that still join two nodes (an edge to a derived node may lose its
    // end): the file each writes validates. Every other writer refuses the reference
    // to nothing.
    let (deriving, others): (Vec<&[&str]>, Vec<&[&str]>) = WRITERS
        .iter()
        .partition(|w| matches!(w[0], "ingest" | "migrate"));
    let codes = &["SMG-E023", "SMG-E111"];
    refused_by_every_writer("dangling-edge", codes, "/semanticGraph/edges/0/to", &others);
    for args in deriving {
        let dir = tempfile::tempdir().unwrap();
        let bad = fixtures().join("invalid/dangling-edge.smg");
        std::fs::copy(&bad, dir.path().join("bad.smg")).unwrap();
        std::fs::write(dir.path().join("t.jsonl"), format!("{CHAT}\n")).unwrap();
        let out = smg(args, dir.path());
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        // Mended, and said so: the edge to nothing is named.
        let named = "dropped the edge n_stripe -[requires_decision]-> n_missing";
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        let out = smg(&["validate", "bad.smg"], dir.path());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stdout));
    }
}

/// The commands that change content, each on `bad.smg` (with `note.txt`, `t.jsonl`).
const WRITERS: &[&[&str]] = &[
    &["vault", "add", "bad.smg", "note.txt"],
    &["ingest", "--append", "bad.smg", "t.jsonl"],
    &["migrate", "bad.smg"],
    &["fork", "bad.smg", "-o", "child.smg", "--branch", "b"],
    &["merge", "bad.smg", "bad.smg", "bad.smg", "-o", "merged.smg"],
];

const CHAT: &str = r#"{"conversation_id":"c9","message_id":"m1","role":"user","content":"we use postgres","timestamp":"2025-02-28T10:10:00Z"}"#;

fn refused_by_every_writer(fixture: &str, codes: &[&str], pointer: &str, writers: &[&[&str]]) {
    let dir = tempfile::tempdir().unwrap();
    let bad = fixtures().join(format!("invalid/{fixture}.smg"));
    std::fs::copy(&bad, dir.path().join("bad.smg")).unwrap();
    let before = std::fs::read(&bad).unwrap();
    std::fs::write(dir.path().join("note.txt"), "a note\n").unwrap();
    std::fs::write(dir.path().join("t.jsonl"), format!("{CHAT}\n")).unwrap();
    let listed = listing(dir.path());
    for &args in writers {
        let out = smg(args, dir.path());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{fixture} {args:?}: {stderr}");
        for code in codes {
            assert!(stderr.contains(code), "{fixture} {args:?}: {stderr}");
        }
        assert!(stderr.contains(pointer), "{fixture} {args:?}: {stderr}");
        assert_eq!(std::fs::read(dir.path().join("bad.smg")).unwrap(), before);
        // Nothing new: no output, no temporary file.
        assert_eq!(listing(dir.path()), listed, "{fixture} {args:?}");
    }
}

#[test]
fn a_pure_re_encoding_keeps_an_invalid_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let bad = fixtures().join("invalid/node-version-zero.smg");
    let bad = bad.to_str().unwrap();
    let out = smg(
        &["convert", bad, "-o", "bad.json", "--encoding", "json"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = smg(&["validate", "--json", "bad.json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("SMG-E103"));
}

#[test]
fn what_the_writers_write_from_valid_files_validates() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixtures().join("valid/full.smg");
    std::fs::copy(good, dir.path().join("m.smg")).unwrap();
    std::fs::write(dir.path().join("note.txt"), "a note\n").unwrap();
    for args in [
        &["vault", "add", "m.smg", "note.txt"][..],
        &["migrate", "m.smg"],
        &["fork", "m.smg", "-o", "child.smg", "--branch", "b"],
        &["merge", "m.smg", "m.smg", "child.smg", "-o", "merged.smg"],
    ] {
        let out = smg(args, dir.path());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    let out = smg(
        &["validate", "m.smg", "child.smg", "merged.smg"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn an_argument_that_would_make_the_file_invalid_is_refused_as_an_argument() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures().join("valid/full.smg"), dir.path().join("m.smg")).unwrap();
    let before = std::fs::read(dir.path().join("m.smg")).unwrap();
    std::fs::write(dir.path().join("note.txt"), "a note\n").unwrap();
    let out = smg(
        &["vault", "add", "m.smg", "note.txt", "--kind", " "],
        dir.path(),
    );
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("SMG-E020"), "{stderr}");
    assert!(stderr.contains("type must not be empty"), "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("m.smg")).unwrap(), before);
}

/// A value the typed model holds by its type (a turn's role) is refused as the file is
/// read, naming the field, by every command that needs the model; `convert` to an
/// encoding of the JSON still keeps the file as it is, so that it can be mended.
#[test]
fn a_value_the_types_refuse_is_named_and_can_still_be_converted() {
    let dir = tempfile::tempdir().unwrap();
    let bad = fixtures().join("invalid/empty-role.smg");
    std::fs::copy(&bad, dir.path().join("bad.smg")).unwrap();
    let before = std::fs::read(&bad).unwrap();
    std::fs::write(dir.path().join("note.txt"), "a note\n").unwrap();
    for args in [
        &["info", "bad.smg"][..],
        &["vault", "add", "bad.smg", "note.txt"],
        &[
            "convert",
            "bad.smg",
            "-o",
            "packed.smg",
            "--layout",
            "packed",
        ],
    ] {
        let out = smg(args, dir.path());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("SMG-E012"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("/workingMemory/recentContext/0/role"),
            "{args:?}: {stderr}"
        );
        assert_eq!(std::fs::read(dir.path().join("bad.smg")).unwrap(), before);
    }
    let out = smg(
        &["convert", "bad.smg", "-o", "bad.zst", "--encoding", "zstd"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // From stdin, whose bytes cannot be read again, the same.
    let out = smg_stdin(
        &["convert", "-", "-o", "stdin.zst", "--encoding", "zstd"],
        dir.path(),
        &before,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let zst = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert!(zst("stdin.zst") == zst("bad.zst"));
    let out = smg(&["validate", "--json", "bad.zst"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(report.contains("SMG-E104"), "{report}");
    assert!(
        report.contains("/workingMemory/recentContext/0/role"),
        "{report}"
    );
}
