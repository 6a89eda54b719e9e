//! `smg neo4j` as a user runs it, against a real Bolt server (FalkorDB) that the test
//! starts itself.

#[path = "../../../smg-neo4j/tests/server/mod.rs"]
mod server;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::common::{fails, fixtures, ok, smg, text};
use serde_json::Value;
use server::FalkorDb;

fn json(out: &str) -> Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn push_pull_round_trip_through_the_command_line() {
    let Some(db) = FalkorDb::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("valid/full.smg"), d.join("a.smg")).unwrap();
    let uri = db.uri();
    let push = [
        "neo4j",
        "push",
        "a.smg",
        "--uri",
        &uri,
        "--dialect",
        "falkordb",
        "--memory",
        "alice",
        "--json",
    ];
    let first = json(&ok(&push, d));
    assert_eq!(first["nodes"]["written"], 12, "{first}");
    let second = json(&ok(&push, d));
    assert_eq!(
        (
            second["nodes"]["written"].as_u64(),
            second["edges"]["written"].as_u64()
        ),
        (Some(0), Some(0))
    );
    // Into the file it came from: byte for byte the same document.
    let before = ok(&["cat", "a.smg"], d);
    ok(
        &[
            "neo4j",
            "pull",
            "--uri",
            &uri,
            "--dialect",
            "falkordb",
            "-o",
            "a.smg",
        ],
        d,
    );
    assert_eq!(ok(&["cat", "a.smg"], d), before);
    // A new file, one tier, validates.
    let pulled = json(&ok(
        &[
            "neo4j",
            "pull",
            "--uri",
            &uri,
            "--dialect",
            "falkordb",
            "--tier",
            "global",
            "-o",
            "g.smg",
            "--json",
        ],
        d,
    ));
    assert_eq!(
        (pulled["nodes"].as_u64(), pulled["memory"].as_str()),
        (Some(1), Some("alice"))
    );
    ok(&["validate", "g.smg"], d);
    // To stdout, with the summary on stderr.
    let out = smg(
        &[
            "neo4j",
            "pull",
            "--uri",
            &uri,
            "-o",
            "-",
            "--tier",
            "departmental",
        ],
        d,
    );
    assert!(out.status.success() && text(&out.stderr).contains("pulled memory `alice`"));
    std::fs::write(d.join("d.smg"), &out.stdout).unwrap();
    ok(&["validate", "d.smg"], d);
}

#[test]
fn a_server_that_is_down_or_silent_gives_its_code_within_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("valid/full.smg"), d.join("a.smg")).unwrap();
    let down = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    fails(
        &[
            "neo4j",
            "push",
            "a.smg",
            "--uri",
            &format!("bolt://127.0.0.1:{down}"),
        ],
        d,
        2,
        "SMG-E300",
    );

    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("bolt://{}", silent.local_addr().unwrap());
    let held = std::thread::spawn(move || silent.incoming().take(2).collect::<Vec<_>>());
    let started = Instant::now();
    fails(
        &[
            "neo4j",
            "push",
            "a.smg",
            "--uri",
            &uri,
            "--connect-timeout",
            "0.5",
        ],
        d,
        2,
        "SMG-E301",
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    drop(held);

    // A pull that fails leaves the file it would have written into as it was.
    let before = std::fs::read(d.join("a.smg")).unwrap();
    fails(
        &[
            "neo4j",
            "pull",
            "--uri",
            &format!("bolt://127.0.0.1:{down}"),
            "-o",
            "a.smg",
        ],
        d,
        2,
        "SMG-E300",
    );
    assert_eq!(std::fs::read(d.join("a.smg")).unwrap(), before);
}

#[test]
fn credentials_come_from_a_file_or_the_environment_and_a_refusal_is_named() {
    let Some(db) = FalkorDb::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("valid/full.smg"), d.join("a.smg")).unwrap();
    std::fs::write(d.join("pw"), "secret\n").unwrap();
    // FalkorDB refuses any password: the refusal must be reported as such.
    fails(
        &[
            "neo4j",
            "push",
            "a.smg",
            "--uri",
            &db.uri(),
            "--password-file",
            "pw",
        ],
        d,
        1,
        "SMG-E302",
    );
    fails(
        &[
            "neo4j",
            "push",
            "a.smg",
            "--uri",
            "bolt://user:pw@localhost",
        ],
        d,
        1,
        "SMG-E306",
    );
}

#[test]
fn the_schema_prints_for_either_dialect_and_applies_twice_without_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let neo = ok(&["neo4j", "schema", "--dimensions", "1536"], d);
    assert!(
        neo.contains("REQUIRE (n.memory, n.id) IS UNIQUE")
            && neo.contains("`vector.dimensions`: 1536"),
        "{neo}"
    );
    let falkor = ok(&["neo4j", "schema", "--dialect", "falkordb"], d);
    assert!(
        !falkor.contains("IF NOT EXISTS") && falkor.contains("CREATE INDEX FOR (n:SmgNode)"),
        "{falkor}"
    );
    let Some(db) = FalkorDb::start() else { return };
    for _ in 0..2 {
        ok(
            &[
                "neo4j",
                "schema",
                "--dialect",
                "falkordb",
                "--uri",
                &db.uri(),
            ],
            d,
        );
    }
}

#[test]
fn a_sealed_tier_goes_to_the_database_and_back_only_with_its_key() {
    let Some(db) = FalkorDb::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(
        fixtures().join("valid/sealed-conversation.smg"),
        d.join("s.smg"),
    )
    .unwrap();
    std::fs::write(d.join("key.txt"), "restricted\n").unwrap();
    let key = ["--seal-passphrase-file", "key.txt"];
    let uri = db.uri();
    let server = ["--uri", uri.as_str(), "--dialect", "falkordb", "--json"];
    let push = [&["neo4j", "push", "s.smg", "--memory", "s"][..], &server].concat();
    let pull = [&["neo4j", "pull", "-o", "s.smg"][..], &server].concat();
    // What the file holds once opened, to compare with after the round trips.
    std::fs::copy(d.join("s.smg"), d.join("open.smg")).unwrap();
    ok(
        &[&["unseal", "open.smg", "tier:restricted"][..], &key].concat(),
        d,
    );
    let open = ok(&["cat", "open.smg"], d);

    let without = json(&ok(&push, d));
    assert_eq!(
        without["sealed"],
        serde_json::json!(["restricted"]),
        "{without}"
    );
    let with = json(&ok(&[&push[..], &key].concat(), d));
    assert_eq!(with["sealed"], serde_json::json!([]), "{with}");
    assert!(with["nodes"]["written"].as_u64() > Some(0), "{with}");

    // Without the key a pull leaves the sealed tier as it is; with it, the tier is
    // pulled and sealed again.
    let sealed = std::fs::read(d.join("s.smg")).unwrap();
    let left = json(&ok(&pull, d));
    assert_eq!(left["sealed"], serde_json::json!(["restricted"]), "{left}");
    ok(&["validate", "s.smg"], d);
    let only_restricted = [&pull[..], &["--tier", "restricted"]].concat();
    fails(&only_restricted, d, 1, "SMG-E146");
    let pulled = json(&ok(&[&pull[..], &key].concat(), d));
    assert_eq!(pulled["sealed"], serde_json::json!([]), "{pulled}");
    ok(&["validate", "s.smg"], d);
    assert_ne!(std::fs::read(d.join("s.smg")).unwrap(), sealed);
    let list = ok(&["scope", "list", "s.smg", "--json"], d);
    assert!(list.contains("tier:restricted"), "{list}");
    ok(
        &[&["unseal", "s.smg", "tier:restricted"][..], &key].concat(),
        d,
    );
    assert_eq!(ok(&["cat", "s.smg"], d), open);
}
