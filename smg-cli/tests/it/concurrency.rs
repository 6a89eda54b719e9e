//! Writers of one file take turns: concurrent `smg ingest --append` runs keep every
//! update, and a writer that cannot get the lock in time fails with its own code.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{smg, text};

/// A conversation of `turns` messages, its own by `id`.
fn conversation(id: &str, turns: usize) -> String {
    (0..turns)
        .map(|i| {
            format!(
                "{{\"conversation_id\":\"{id}\",\"message_id\":\"{i}\",\"role\":\"user\",\"content\":\"{id} says thing number {i} about the deploy\"}}\n"
            )
        })
        .collect()
}

/// A folder holding `m.smg`, made from one conversation of `turns` messages.
fn memory(id: &str, turns: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let input = format!("{id}.jsonl");
    std::fs::write(dir.path().join(&input), conversation(id, turns)).unwrap();
    let out = smg(&["ingest", &input, "-o", "m.smg"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    dir
}

fn archived_turns(d: &Path) -> u64 {
    let info = smg(&["info", "m.smg", "--json"], d);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    v["stats"]["archivedTurns"].as_u64().unwrap()
}

#[test]
fn concurrent_appends_keep_every_turn() {
    for trial in 0..10 {
        let writers = 2 + trial % 3;
        let dir = memory("base", 5);
        let d = dir.path();
        for w in 0..writers {
            std::fs::write(
                d.join(format!("w{w}.jsonl")),
                conversation(&format!("w{w}"), 40),
            )
            .unwrap();
        }
        let children: Vec<_> = (0..writers)
            .map(|w| {
                Command::new(env!("CARGO_BIN_EXE_smg"))
                    .args([
                        "ingest",
                        "--append",
                        "m.smg",
                        &format!("w{w}.jsonl"),
                        "--quiet",
                    ])
                    .current_dir(d)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "trial {trial}: {}", text(&out.stderr));
        }
        assert_eq!(
            archived_turns(d),
            5 + 40 * writers as u64,
            "trial {trial}, {writers} writers"
        );
        assert!(smg(&["validate", "m.smg"], d).status.success());
        let strays: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".smg-tmp"))
            .collect();
        assert!(strays.is_empty(), "no temporary file left: {strays:?}");
    }
}

#[test]
fn a_writer_that_cannot_get_the_lock_in_time_fails_and_changes_nothing() {
    let dir = memory("a", 3);
    let d = dir.path();
    let before = std::fs::read(d.join("m.smg")).unwrap();
    // Another writer holds the lock for the whole of this test.
    let held = smg_format::file::WriteLock::acquire(&d.join("m.smg"), Default::default()).unwrap();
    std::fs::write(d.join("b.jsonl"), conversation("b", 3)).unwrap();
    let out = smg(
        &["ingest", "--append", "m.smg", "b.jsonl", "--wait", "0.2"],
        d,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("error[SMG-E021]"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(d.join("m.smg")).unwrap(), before);
    drop(held);
    let out = smg(&["ingest", "--append", "m.smg", "b.jsonl"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
