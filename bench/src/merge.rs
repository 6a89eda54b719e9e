//! Merge benchmark (issue 23): two memories forked from one base, each grown by 1 %
//! of new conversations with `smg ingest --append`, merged with `smg merge` (the union
//! of archives and vaults, the graph derived again). Next to it, in the same run, the
//! obvious alternatives: ingesting every transcript again into one file, and appending
//! the other side's transcript to ours (when one still has it).

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::{ingest::transcript, kb, timed};

/// The transcript's lines split by conversation: the first `base` bytes, then two
/// slices of `share` bytes each.
fn split(text: &[u8], base: usize, share: usize) -> [Vec<u8>; 3] {
    let mut parts: [Vec<u8>; 3] = Default::default();
    let mut conversation = String::new();
    let mut part = 0;
    for line in text.split_inclusive(|b| *b == b'\n') {
        let v: Value = serde_json::from_slice(line).expect("a JSON line");
        let c = v["conversation_id"].as_str().unwrap_or_default();
        if c != conversation {
            conversation = c.to_string();
            let full = [base, share, share];
            while part < 2 && parts[part].len() >= full[part] {
                part += 1;
            }
        }
        parts[part].extend_from_slice(line);
    }
    parts
}

fn row(what: &str, d: Duration, rss: u64, out: &Path) {
    let bytes = std::fs::metadata(out).map_or(0, |m| m.len() as usize);
    println!(
        "| {what} | {:.2} s | {} MB | {} |",
        d.as_secs_f64(),
        rss / 1000,
        kb(bytes)
    );
}

pub(crate) fn run(size_mb: usize, smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let base_bytes = size_mb * 1_000_000;
    let share = base_bytes / 100;
    let (text, _) = transcript(base_bytes + 2 * share + 100_000);
    let names = ["base.jsonl", "ours.jsonl", "theirs.jsonl"];
    for (name, part) in names.iter().zip(split(&text, base_bytes, share)) {
        std::fs::write(dir.join(name), part).expect("write input");
    }
    drop(text);
    let run = |args: &[&str]| {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        // The files the step before wrote go to disk first, not while this one runs.
        let _ = std::process::Command::new("sync").status();
        timed(smg, dir, &args)
    };
    let (made, rss, _) = run(&["ingest", "-q", "base.jsonl", "-o", "base.smg"]);
    eprintln!("base: {:.1} s, {} MB", made.as_secs_f64(), rss / 1000);
    for (side, input) in [("ours", "ours.jsonl"), ("theirs", "theirs.jsonl")] {
        let file = format!("{side}.smg");
        run(&["fork", "base.smg", "-o", &file, "--branch", side]);
        run(&["ingest", "-q", "--append", &file, input]);
    }
    let size = |name: &str| kb(std::fs::metadata(dir.join(name)).map_or(0, |m| m.len() as usize));
    println!(
        "Transcripts: base {}, each side +{} (new conversations). Files: base {}, ours {}, theirs {}.\n",
        kb(base_bytes),
        kb(share),
        size("base.smg"),
        size("ours.smg"),
        size("theirs.smg")
    );
    println!("| what | time | max RSS | output |");
    println!("|---|---|---|---|");
    // The median of three merges: a 2-core VM's times vary by a tenth from run to run.
    let mut merges: Vec<(Duration, u64, Vec<u8>)> = (0..3)
        .map(|_| {
            run(&[
                "merge",
                "base.smg",
                "ours.smg",
                "theirs.smg",
                "-o",
                "merged.smg",
                "--json",
            ])
        })
        .collect();
    let times: Vec<String> = merges
        .iter()
        .map(|m| format!("{:.2}", m.0.as_secs_f64()))
        .collect();
    eprintln!("merge: {} s", times.join(", "));
    merges.sort_by_key(|m| m.0);
    let (d, rss, said) = merges.swap_remove(1);
    let report: Value = serde_json::from_slice(&said).expect("merge --json");
    assert_eq!(report["written"], true, "{report}");
    let mut said = report.to_string();
    said.truncate(400);
    eprintln!("merge: {said}…");
    row(
        "`smg merge BASE OURS THEIRS` (the graph derived again; median of 3)",
        d,
        rss,
        &dir.join("merged.smg"),
    );
    let (d, rss, _) = run(&[
        "ingest",
        "-q",
        "base.jsonl",
        "ours.jsonl",
        "theirs.jsonl",
        "-o",
        "one.smg",
    ]);
    row(
        "`smg ingest` of all three transcripts again",
        d,
        rss,
        &dir.join("one.smg"),
    );
    std::fs::copy(dir.join("ours.smg"), dir.join("appended.smg")).expect("copy");
    let (d, rss, _) = run(&["ingest", "-q", "--append", "appended.smg", "theirs.jsonl"]);
    row(
        "`smg ingest --append OURS` of their transcript",
        d,
        rss,
        &dir.join("appended.smg"),
    );
    let (_, _, diff) = run(&["diff", "one.smg", "merged.smg", "--stat"]);
    println!(
        "\nMerged vs ingested at once (`smg diff --stat`): {}",
        String::from_utf8_lossy(&diff).trim()
    );
}
