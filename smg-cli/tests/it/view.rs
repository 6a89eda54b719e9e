//! `smg view` as a user runs it: where the page goes, what it reports, and that the
//! same memory gives the same page. The page itself is opened in Chromium by
//! smg-view/tests/browser/.

use crate::common::{fixtures, ok, smg, smg_stdin, text};
use serde_json::Value;

#[test]
fn the_page_goes_beside_the_file_and_is_the_same_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chat = fixtures().join("ingest/sample-chat.jsonl");
    ok(&["ingest", chat.to_str().unwrap(), "-o", "m.smg"], d);
    let said = ok(&["view", "m.smg"], d);
    assert!(said.starts_with("m.html: "), "{said}");
    let first = std::fs::read(d.join("m.html")).unwrap();
    let report: Value = serde_json::from_str(&ok(&["view", "m.smg", "--json"], d)).unwrap();
    assert_eq!(
        std::fs::read(d.join("m.html")).unwrap(),
        first,
        "same memory, same page"
    );
    assert_eq!(report["bytes"].as_u64(), Some(first.len() as u64));
    assert_eq!(report["output"], "m.html");
    let doc: Value = serde_json::from_str(&ok(&["cat", "m.smg"], d)).unwrap();
    let nodes = doc["semanticGraph"]["nodes"].as_array().unwrap().len();
    assert_eq!(report["nodes"].as_u64(), Some(nodes as u64));
    assert_eq!(report["artifacts"], 2);
    assert_eq!(report["turns"], 12);
    let html = text(&first);
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    assert!(!html.contains("<script src") && !html.contains("<link"));
}

#[test]
fn stdin_and_stdout_work_and_the_report_goes_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = std::fs::read(fixtures().join("valid/full.smg")).unwrap();
    let out = smg_stdin(&["view", "-", "--shown", "2"], d, &full);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("<!DOCTYPE html>"));
    assert!(
        text(&out.stderr).contains("(2 shown first"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(d).unwrap().count(),
        0,
        "nothing written beside"
    );
}

#[test]
fn sealed_sections_show_by_id_never_by_ciphertext() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sealed = fixtures().join("valid/sealed-sections.smg");
    ok(&["view", sealed.to_str().unwrap(), "-o", "s.html"], d);
    let html = std::fs::read_to_string(d.join("s.html")).unwrap();
    let doc: Value = serde_json::from_str(&ok(&["cat", sealed.to_str().unwrap()], d)).unwrap();
    for s in doc["sealedSections"].as_array().unwrap() {
        assert!(html.contains(s["id"].as_str().unwrap()));
        assert!(!html.contains(s["ciphertext"].as_str().unwrap()));
        assert!(!html.contains(s["encryption"]["salt"].as_str().unwrap()));
    }
    let failed = smg(&["view", "no-such.smg", "-o", "x.html"], d);
    assert_eq!(failed.status.code(), Some(2));
    assert!(!d.join("x.html").exists());
}
