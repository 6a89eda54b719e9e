//! Memory in and out of the MCP memory server's JSON Lines, as a user moves it.

use std::path::Path;

use crate::common::ok;
use serde_json::Value;

#[test]
fn the_sample_imports_validates_and_exports_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/imports/mcp-memory/memory.jsonl");
    let summary = ok(
        &["ingest", "-o", "m.smg", sample.to_str().unwrap(), "--json"],
        d,
    );
    let s: Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(
        (s["entities"].as_u64(), s["relations"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(s["implicitEntities"], serde_json::json!(["Stripe"]));
    ok(&["validate", "m.smg"], d);
    assert!(ok(&["search", "m.smg", "peanuts"], d).contains("Ada Park"));
    let report: Value = serde_json::from_str(&ok(
        &[
            "export",
            "m.smg",
            "--to",
            "mcp-memory",
            "-o",
            "out.jsonl",
            "--json",
        ],
        d,
    ))
    .unwrap();
    assert_eq!(
        (report["entities"].as_u64(), report["relations"].as_u64()),
        (Some(4), Some(3))
    );
    let lines: Vec<Value> = std::fs::read_to_string(d.join("out.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ada = lines.iter().find(|l| l["name"] == "Ada Park").unwrap();
    assert_eq!(
        ada["observations"].as_array().unwrap().len(),
        4,
        "merged, repeat dropped"
    );
    assert!(lines.iter().any(|l| l["name"] == "Café Ñandú"));
    // Written back in, the export is the same memory.
    ok(
        &[
            "ingest",
            "-o",
            "again.smg",
            "--from",
            "mcp-memory",
            "out.jsonl",
        ],
        d,
    );
    let again = ok(&["export", "again.smg", "--to", "mcp-memory"], d);
    assert_eq!(again, std::fs::read_to_string(d.join("out.jsonl")).unwrap());
}

#[test]
fn a_memory_reads_as_markdown_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = crate::common::fixtures().join("valid/full.smg");
    let md = ok(
        &[
            "export",
            full.to_str().unwrap(),
            "--to",
            "markdown",
            "-o",
            "m.md",
            "--json",
        ],
        d,
    );
    let report: Value = serde_json::from_str(&md).unwrap();
    let left = report["leftOut"].as_array().unwrap();
    assert!(
        left.iter().any(|l| l["why"] == "restricted tier"),
        "{report}"
    );
    let text = std::fs::read_to_string(d.join("m.md")).unwrap();
    assert!(text.starts_with("# Website builder\n"), "{text}");
    assert!(text.contains("## Decisions") && text.contains("```javascript"));
    assert!(!text.contains("contract renegotiation"));
}
