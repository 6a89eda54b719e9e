//! A git repository and a folder of Markdown documents into memory, as a user
//! brings them: commits as turns, file versions into the vault, decisions found.

use std::path::Path;
use std::process::Command;

use crate::common::{fails, ok};
use serde_json::Value;

/// `git ARGS` in `dir`, with a fixed identity and clock, which must succeed.
fn git(dir: &Path, args: &[&str], day: u32) {
    let date = format!("2025-03-{day:02}T10:00:00+02:00");
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Ada Park")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Park")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git is installed (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        crate::common::text(&out.stderr)
    );
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap()
}

#[test]
fn a_repository_gives_its_commits_as_turns_and_its_files_as_versions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let repo = d.join("shop");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], 1);
    std::fs::write(
        repo.join("app.py"),
        "def total(items):\n    return sum(items)\n",
    )
    .unwrap();
    std::fs::write(repo.join("README.md"), "# Shop\n").unwrap();
    git(&repo, &["add", "."], 1);
    git(&repo, &["commit", "-q", "-m", "Start the shop: totals"], 1);
    std::fs::write(
        repo.join("app.py"),
        "def total(items):\n    return round(sum(items), 2)\n",
    )
    .unwrap();
    std::fs::write(repo.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 1, 2]).unwrap();
    git(&repo, &["add", "."], 2);
    git(
        &repo,
        &[
            "commit",
            "-q",
            "-m",
            "Round totals to cents\n\nWe decided to use round() for money.",
        ],
        2,
    );
    std::fs::create_dir(repo.join("docs")).unwrap();
    git(&repo, &["mv", "README.md", "docs/README.md"], 3);
    git(
        &repo,
        &["commit", "-q", "-m", "Move the readme under docs"],
        3,
    );

    let report = json(&ok(
        &["ingest", "--from", "git", "shop", "-o", "m.smg", "--json"],
        d,
    ));
    assert_eq!(report["turnsAdded"], 3);
    assert_eq!(report["versionsAdded"], 3, "app.py twice, the readme once");
    assert_eq!(report["filesSkipped"], 1, "the binary logo");
    ok(&["validate", "m.smg"], d);
    let vault = ok(&["vault", "list", "m.smg"], d);
    assert!(vault.contains("app.py"), "{vault}");
    assert!(
        vault
            .lines()
            .any(|l| l.contains("app.py") && l.contains("2 versions")),
        "{vault}"
    );
    let first = ok(&["vault", "show", "m.smg", "app.py", "--version", "1"], d);
    assert_eq!(first, "def total(items):\n    return sum(items)\n");
    // The commit's turn: author, time (UTC), message and the files it changed.
    let turn = ok(&["archive", "show", "m.smg", "3"], d);
    assert!(turn.contains("Move the readme under docs"), "{turn}");
    assert!(turn.contains("docs/README.md (renamed)"), "{turn}");
    let hits = ok(&["search", "m.smg", "round totals to cents", "--json"], d);
    assert!(hits.contains("2025-03-02T08:00:00Z"), "{hits}");
    // Working memory names the branch and the latest commits.
    let doc = json(&ok(&["cat", "m.smg"], d));
    let repo_wm = &doc["workingMemory"]["repository"];
    assert_eq!(repo_wm["name"], "shop");
    assert_eq!(repo_wm["branch"], "main");
    assert_eq!(repo_wm["commits"], 3);
    assert_eq!(
        repo_wm["recentCommits"][0]["subject"],
        "Move the readme under docs"
    );
    let decisions = ok(&["query", "m.smg", "FIND decisions"], d);
    assert!(decisions.contains("round()"), "{decisions}");

    // Read again after one more commit: only the new commit and version come in.
    std::fs::write(repo.join("app.py"), "def total(items):\n    return round(sum(items), 2)\n\n\ndef count(items):\n    return len(items)\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "Count items"], 4);
    let again = json(&ok(
        &[
            "ingest", "--from", "git", "shop", "--append", "m.smg", "--json",
        ],
        d,
    ));
    assert_eq!(
        (again["turnsAdded"].as_u64(), again["turnsKnown"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(again["versionsAdded"], 1);
    ok(&["validate", "m.smg"], d);
    let log = ok(&["vault", "log", "m.smg", "app.py"], d);
    assert_eq!(
        log.lines()
            .filter(|l| l.trim_start().starts_with('v'))
            .count(),
        3,
        "{log}"
    );
}

#[test]
fn a_repository_without_commits_gives_an_empty_memory_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("new")).unwrap();
    git(&d.join("new"), &["init", "-q", "-b", "trunk"], 1);
    let report = json(&ok(
        &["ingest", "--from", "git", "new", "-o", "m.smg", "--json"],
        d,
    ));
    assert_eq!(report["turnsAdded"], 0);
    ok(&["validate", "m.smg"], d);
    let doc = json(&ok(&["cat", "m.smg"], d));
    assert_eq!(doc["workingMemory"]["repository"]["branch"], "trunk");
    assert_eq!(doc["workingMemory"]["repository"]["commits"], 0);
}

#[test]
fn a_folder_that_is_no_repository_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("plain")).unwrap();
    let out = fails(
        &["ingest", "--from", "git", "plain", "-o", "m.smg"],
        d,
        1,
        "SMG-E210",
    );
    assert!(crate::common::text(&out.stderr).contains("plain"));
    assert!(!d.join("m.smg").exists());
    let out = fails(
        &["ingest", "--from", "markdown", "plain", "-o", "m.smg"],
        d,
        1,
        "SMG-E210",
    );
    assert!(crate::common::text(&out.stderr).contains("no Markdown documents"));
}

#[test]
fn documents_go_to_the_vault_and_their_decisions_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let docs = d.join("decisions");
    std::fs::create_dir_all(docs.join("incidents")).unwrap();
    std::fs::create_dir_all(docs.join(".drafts")).unwrap();
    std::fs::write(
        docs.join("0002-use-postgres.md"),
        "# 2. Use PostgreSQL\n\nDate: 2025-03-08\n\n## Status\n\nAccepted\n\n## Decision\n\nWe decided to use PostgreSQL 16 for the order service.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("incidents/2025-04-02-checkout-outage.md"),
        "# Checkout outage\n\nThe webhook queue filled up.\n\n- Decision: retries move to exponential backoff with jitter.\n",
    )
    .unwrap();
    std::fs::write(docs.join(".drafts/secret.md"), "# Not ready\n").unwrap();
    std::fs::write(docs.join("notes.txt"), "not markdown").unwrap();
    let report = json(&ok(
        &[
            "ingest",
            "--from",
            "markdown",
            "decisions",
            "-o",
            "m.smg",
            "--json",
        ],
        d,
    ));
    assert_eq!(report["turnsAdded"], 2);
    assert_eq!(report["versionsAdded"], 2);
    ok(&["validate", "m.smg"], d);
    let vault = ok(&["vault", "list", "m.smg"], d);
    assert!(
        vault.contains("document markdown   incidents/2025-04-02-checkout-outage.md"),
        "{vault}"
    );
    assert!(!vault.contains("secret"), "{vault}");
    let decisions = ok(&["query", "m.smg", "FIND decisions"], d);
    assert!(decisions.contains("PostgreSQL 16"), "{decisions}");
    assert!(decisions.contains("2025-03-08"), "{decisions}");
    assert!(decisions.contains("exponential backoff"), "{decisions}");
    assert!(decisions.contains("2025-04-02"), "{decisions}");
}
