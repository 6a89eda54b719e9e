//! Ingest benchmark: throughput on the LoCoMo dev files (in process) and, through the
//! `smg` binary under `/usr/bin/time -v`, on a generated chat transcript and on an
//! export of 10,000 conversations of 50 turns; next to `brotli -q 2` and `-q 5` of
//! the same bytes, which only compress.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use smg_engine::ingest::{ingest, IngestOptions, Silent};
use smg_format::Document;
use smg_import::{read_all, Format, Input};

use crate::generate::{Rng, Words};
use crate::{kb, median, MB};

const NAMES: &[&str] = &[
    "Postgres",
    "Redis",
    "Kafka",
    "Alice",
    "Berlin",
    "Acme Corp",
    "Tokio",
    "React",
    "Maria",
    "Lisbon",
    "GraphQL",
    "Kubernetes",
];

/// One JSONL line of the generic format.
fn line(out: &mut Vec<u8>, conv: usize, msg: usize, role: &str, content: &str, time: u64) {
    let v = json!({
        "conversation_id": format!("c{conv}"), "message_id": msg.to_string(), "role": role,
        "content": content, "timestamp": time,
    });
    out.extend(serde_json::to_vec(&v).expect("json"));
    out.push(b'\n');
}

fn paragraph(rng: &mut Rng, words: &Words) -> String {
    let n = 2 + rng.below(5) as usize;
    (0..n)
        .map(|_| {
            let len = 6 + rng.below(14) as usize;
            let mut s = words.sentence(rng, len);
            if rng.below(6) == 0 {
                s.push_str(&format!(
                    " with {}",
                    NAMES[rng.below(NAMES.len() as u64) as usize]
                ));
            }
            s + "."
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn code(rng: &mut Rng, idents: &Words) -> String {
    let lines: Vec<String> = (0..10 + rng.below(40))
        .map(|i| {
            format!(
                "    let {} = {};",
                idents.sentence(rng, 1),
                i * rng.below(100)
            )
        })
        .collect();
    format!(
        "```rust\nfn {}() {{\n{}\n}}\n```",
        idents.sentence(rng, 1),
        lines.join("\n")
    )
}

/// A chat transcript of about `target` bytes: conversations of 40-60 turns, questions
/// and long answers with lists, code, decisions and preferences.
pub(crate) fn transcript(target: usize) -> (Vec<u8>, usize) {
    let mut rng = Rng::new(5);
    let words = Words::new(&mut rng, 5000);
    let idents = Words::new(&mut rng, 600);
    let (mut out, mut turns, mut conv) = (Vec::new(), 0, 0);
    while out.len() < target {
        let time = 1_700_000_000 + conv as u64 * 7200;
        for m in 0..40 + rng.below(21) as usize {
            let user = m % 2 == 0;
            let mut text = if user {
                {
                    let len = 8 + rng.below(30) as usize;
                    words.sentence(&mut rng, len) + "?"
                }
            } else {
                let paras: Vec<String> = (0..2 + rng.below(4))
                    .map(|_| paragraph(&mut rng, &words))
                    .collect();
                paras.join("\n\n")
            };
            match rng.below(10) {
                0 => text.push_str(&format!(
                    "\n\nWe decided to use {} because {}.",
                    NAMES[rng.below(NAMES.len() as u64) as usize],
                    words.sentence(&mut rng, 8)
                )),
                1 if user => {
                    text.push_str(&format!("\n\nI prefer {}.", words.sentence(&mut rng, 6)))
                }
                2 | 3 => text.push_str(&format!("\n\n{}", code(&mut rng, &idents))),
                _ => {}
            }
            line(
                &mut out,
                conv,
                m,
                if user { "user" } else { "assistant" },
                &text,
                time + m as u64 * 30,
            );
            turns += 1;
        }
        conv += 1;
    }
    (out, turns)
}

/// `conversations` conversations of 50 short turns each.
pub(crate) fn many(conversations: usize) -> Vec<u8> {
    let mut rng = Rng::new(9);
    let words = Words::new(&mut rng, 3000);
    let mut out = Vec::new();
    for c in 0..conversations {
        for m in 0..50 {
            let len = 8 + rng.below(30) as usize;
            let mut text = words.sentence(&mut rng, len);
            if m % 7 == 0 {
                text = format!(
                    "I love {text} with my friend {}.",
                    NAMES[rng.below(NAMES.len() as u64) as usize]
                );
            }
            let role = if m % 2 == 0 { "user" } else { "assistant" };
            line(
                &mut out,
                c,
                m,
                role,
                &text,
                1_700_000_000 + (c * 50 + m) as u64 * 60,
            );
        }
    }
    out
}

/// [`many`]'s conversations with a credential or an address said in one turn of
/// every `every` (a distinct value each time, one kind after another), for `smg
/// share` to find: the input of `bash bench/run.sh share`.
pub(crate) fn many_with_secrets(conversations: usize, every: usize) -> Vec<u8> {
    let plain = many(conversations);
    let mut out = Vec::with_capacity(plain.len() + plain.len() / 50);
    for (i, l) in plain
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let mut v: serde_json::Value = serde_json::from_slice(l).expect("a line many wrote");
        if i % every == 0 {
            let said = match (i / every) % 4 {
                0 => format!(" Write to user{i}@example.org about it."),
                1 => format!(" The key is AKIA{:016}.", i).replace(['0', '1', '8', '9'], "Q"),
                2 => format!(" Call +1 415 555 {:04}.", i % 10_000),
                _ => format!(" db password: Pw{i}-secret!"),
            };
            let content = v["content"].as_str().unwrap_or_default().to_string() + &said;
            v["content"] = json!(content);
        }
        out.extend(serde_json::to_vec(&v).expect("json"));
        out.push(b'\n');
    }
    out
}

/// Wall time, max RSS and the JSON summary of `smg ingest FILE -o OUT`.
fn ingest_cli(smg: &Path, input: &Path, output: &Path) -> (Duration, u64, Value) {
    let args = [
        "ingest".as_ref(),
        "--quiet".as_ref(),
        "--json".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
    ];
    let (d, rss, stdout) = crate::timed(smg, Path::new("."), &args);
    let summary = serde_json::from_slice(&stdout).expect("smg ingest --json");
    (d, rss, summary)
}

/// `brotli -q QUALITY` of the same bytes: the cost of only compressing the input.
fn brotli(input: &Path, quality: &str) -> Option<(Duration, usize)> {
    let start = std::time::Instant::now();
    let out = Command::new("brotli")
        .args(["-q", quality, "-c"])
        .arg(input)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| (start.elapsed(), out.stdout.len()))
}

fn row(what: &str, bytes: usize, turns: u64, d: Duration, rss: Option<u64>, out: usize) {
    let s = d.as_secs_f64();
    println!(
        "| {what} | {} | {turns} | {s:.2} s | {:.1} MB/s | {:.0} turns/s | {} | {} |",
        kb(bytes),
        bytes as f64 / MB / s,
        turns as f64 / s,
        rss.map_or("—".into(), |r| format!("{} MB", r / 1000)),
        kb(out),
    );
}

pub(crate) fn run(locomo: &Path, size_mb: usize, conversations: usize, smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    println!("| input | bytes | turns | time | throughput | turns/s | max RSS | .smg |");
    println!("|---|---|---|---|---|---|---|---|");
    let files = crate::json_files(locomo);
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        let mut turns = 0;
        let mut out = 0;
        let d = median(5, || {
            let mut doc = Document::new(smg_format::model::Timestamp::from_static(
                "1970-01-01T00:00:00Z",
            ));
            let input = vec![Input::bytes(f.display().to_string(), bytes.clone())];
            let r = ingest(
                &mut doc,
                read_all(input, Format::Auto, false, &Silent).expect("read"),
                &IngestOptions::default(),
                &Silent,
            )
            .expect("ingest");
            turns = r.turns_added as u64;
            out = smg_format::to_bytes(
                &doc,
                &smg_format::WriteOptions::new(smg_format::Encoding::Brotli),
            )
            .expect("write")
            .len();
        });
        let name = format!(
            "LoCoMo {} (in process, median of 5)",
            f.file_name().unwrap_or_default().to_string_lossy()
        );
        row(&name, bytes.len(), turns, d, None, out);
    }
    let (text, _) = transcript(size_mb * 1_000_000);
    let many = many(conversations);
    for (name, bytes) in [
        (format!("generated transcript, {size_mb} MB"), text),
        (format!("{conversations} conversations × 50 turns"), many),
    ] {
        let path = dir.join(if name.contains("transcript") {
            "transcript.jsonl"
        } else {
            "conversations.jsonl"
        });
        std::fs::write(&path, &bytes).expect("write input");
        let output = dir.join("output.smg");
        let (d, rss, summary) = ingest_cli(smg, &path, &output);
        let turns = summary["turns"].as_u64().unwrap_or(0);
        let out = summary["bytesOut"].as_u64().unwrap_or(0) as usize;
        eprintln!("{name}: {summary}");
        row(
            &format!("{name} (`smg ingest`)"),
            bytes.len(),
            turns,
            d,
            Some(rss),
            out,
        );
        // Quality 2 is what ingest writes blocks at; 5 was, before.
        for quality in ["2", "5"] {
            if let Some((d, size)) = brotli(&path, quality) {
                row(
                    &format!("{name} (`brotli -q {quality}`, compression only)"),
                    bytes.len(),
                    0,
                    d,
                    None,
                    size,
                );
            }
        }
    }
}
