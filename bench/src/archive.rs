//! Archive benchmark: LoCoMo conversations and a generated code-heavy chat archived by
//! smg, against `brotli -q 11` and `zstd -19 --long` of the raw transcript, and the
//! time to open a packed file and read one turn against decompressing the whole
//! transcript.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use smg_format::{
    archive::{append_turns, ArchiveOptions},
    model::Turn,
    packed::PackedArchive,
    Document, Encoding, Limits, WriteOptions,
};

use crate::generate::{Rng, Words};
use crate::{kb, time};

/// A LoCoMo file's turns, session by session, with the source fields kept.
fn locomo_turns(conv: &Value) -> Vec<Turn> {
    let mut out = Vec::new();
    for s in 1.. {
        let Some(session) = conv.get(format!("session_{s}")).and_then(Value::as_array) else {
            break;
        };
        for t in session {
            let mut turn: Turn = serde_json::from_value(json!({
                "turn": out.len() + 1,
                "role": if t["speaker"] == conv["speaker_a"] { "user" } else { "assistant" },
                "speaker": t["speaker"], "content": t["text"], "sessionId": format!("session_{s}"),
                "messageId": t["dia_id"],
            }))
            .expect("turn");
            for k in ["img_url", "blip_caption", "query"] {
                if let Some(v) = t.get(k) {
                    turn.extra.insert(k.into(), v.clone());
                }
            }
            out.push(turn);
        }
    }
    out
}

/// The raw transcript a user would export: one JSON object per turn, one per line.
fn raw_jsonl(turns: &[Turn]) -> Vec<u8> {
    let mut out = Vec::new();
    for t in turns {
        out.extend(serde_json::to_vec(t).expect("turn"));
        out.push(b'\n');
    }
    out
}

/// The output of a compression tool run on `input`.
fn cli(dir: &Path, name: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let path = dir.join("raw.jsonl");
    std::fs::write(&path, input).ok()?;
    let out = Command::new(name).args(args).arg(&path).output().ok()?;
    out.status.success().then_some(out.stdout)
}

struct Sizes {
    raw: usize,
    json_brotli: usize,
    packed: usize,
    brotli11: Option<Vec<u8>>,
    zstd19: Option<u64>,
}

fn measure(dir: &Path, turns: &[Turn]) -> (Sizes, Document, Duration) {
    let raw = raw_jsonl(turns);
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    let (report, build) =
        time(|| append_turns(&mut doc, turns, &ArchiveOptions::default()).expect("archive"));
    eprintln!(
        "  {} turns, {} blocks, {} code blocks ({} already stored)",
        report.turns, report.blocks, report.code_blocks, report.code_deduplicated
    );
    let json_brotli = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Brotli))
        .expect("write")
        .len();
    let vault_json = serde_json::to_vec(&doc.artifact_vault)
        .expect("vault")
        .len();
    let blocks: usize = doc.deep_archive.as_ref().map_or(0, |a| {
        a.blocks().iter().map(|b| b.compressed_data.len()).sum()
    });
    let arts = doc
        .artifact_vault
        .as_ref()
        .and_then(|v| v.artifacts.as_ref());
    let versions: usize = arts.map_or(0, |a| a.values().map(|x| x.versions.len()).sum());
    let fulls: usize = arts.map_or(0, |a| {
        a.values()
            .map(|x| x.versions.iter().filter(|v| v.content.is_some()).count())
            .sum()
    });
    eprintln!("  vault JSON {} bytes ({} artifacts, {versions} versions, {fulls} full); archive blocks {} bytes",
        vault_json, arts.map_or(0, |a| a.len()), blocks);
    let packed = smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Packed))
        .expect("write")
        .len();
    let brotli11 = cli(dir, "brotli", &["-q", "11", "-c"], &raw);
    let zstd19 = cli(dir, "zstd", &["-19", "--long", "-q", "-c"], &raw).map(|r| r.len() as u64);
    (
        Sizes {
            raw: raw.len(),
            json_brotli,
            packed,
            brotli11,
            zstd19,
        },
        doc,
        build,
    )
}

fn row(name: &str, s: &Sizes, build: Duration) {
    let opt = |v: Option<u64>| v.map_or("—".into(), |b| kb(b as usize));
    let ratio = |v: Option<u64>| {
        v.map_or("—".into(), |b| {
            format!("{:.2}×", s.packed as f64 / b as f64)
        })
    };
    let b11 = s.brotli11.as_ref().map(|b| b.len() as u64);
    println!(
        "| {name} | {} | {} | {} | {} | {} | {} | {:.1} s |",
        kb(s.raw),
        kb(s.json_brotli),
        kb(s.packed),
        opt(b11),
        opt(s.zstd19),
        ratio(b11),
        build.as_secs_f64()
    );
}

/// A coding chat of about `target` bytes: a few dozen files, each pasted and revised
/// many times (small edits), with questions, explanations and error messages.
fn code_chat(target: usize) -> Vec<Turn> {
    let mut rng = Rng::new(11);
    let words = Words::new(&mut rng, 3000);
    let idents = Words::new(&mut rng, 800);
    let mut files: Vec<(String, Vec<String>)> = (0..40)
        .map(|i| {
            let lines = (0..80 + rng.below(240))
                .map(|l| match l % 7 {
                    0 => format!("fn {}_{l}(x: u64) -> u64 {{", idents.sentence(&mut rng, 1)),
                    6 => "}".to_string(),
                    _ => format!(
                        "    let {} = x + {};",
                        idents.sentence(&mut rng, 1).replace(' ', "_"),
                        rng.below(1000)
                    ),
                })
                .collect();
            (format!("src/module_{i}.rs"), lines)
        })
        .collect();
    let (mut out, mut bytes, mut n) = (Vec::new(), 0usize, 1u64);
    while bytes < target {
        let f = rng.below(files.len() as u64) as usize;
        for _ in 0..1 + rng.below(4) {
            let len = files[f].1.len() as u64;
            let at = rng.below(len) as usize;
            let edit = format!(
                "    let {} = x * {};",
                idents.sentence(&mut rng, 1).replace(' ', "_"),
                rng.below(100)
            );
            match rng.below(3) {
                0 => files[f].1.insert(at, edit),
                1 if len > 10 => {
                    files[f].1.remove(at);
                }
                _ => files[f].1[at] = edit,
            }
        }
        let (name, lines) = &files[f];
        let code = lines.join("\n") + "\n";
        let question = format!(
            "{} in {name}? {}",
            words.sentence(&mut rng, 12),
            words.sentence(&mut rng, 20)
        );
        let labelled = rng.below(2) == 0;
        let fence = if labelled {
            format!("```rust {name}")
        } else {
            "```rust".to_string()
        };
        let user = if rng.below(3) == 0 {
            format!(
                "{question}\n\n{fence}\n{code}```\n\nerror[E0308]: mismatched types at {name}:{}",
                rng.below(300)
            )
        } else {
            question
        };
        let answer = format!(
            "{}\n\n{fence}\n{code}```\n\n{}",
            words.sentence(&mut rng, 30),
            words.sentence(&mut rng, 40)
        );
        for (role, content) in [
            (smg_format::model::role::USER, user),
            (smg_format::model::role::ASSISTANT, answer),
        ] {
            bytes += content.len();
            let secs = n * 41;
            out.push(Turn {
                timestamp: Some(
                    smg_format::model::Timestamp::new(format!(
                        "2025-06-{:02}T{:02}:{:02}:{:02}Z",
                        1 + (secs / 86_400) % 28,
                        (secs / 3600) % 24,
                        (secs / 60) % 60,
                        secs % 60
                    ))
                    .expect("a date-time"),
                ),
                ..Turn::new(smg_format::model::Ordinal::new(n).unwrap(), role, content)
            });
            n += 1;
        }
    }
    out
}

/// Brotli at quality 11 with a window as large as Brotli allows.
fn brotli11(data: &[u8]) -> usize {
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 24,
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut &data[..], &mut out, &params).expect("brotli");
    out.len()
}

/// What the archive's parts cost at best, to show where the bytes go: every block's
/// JSON as one Brotli stream (no block boundaries, so no lazy reads: a floor for the
/// blocks), the vault without its per-version hashes, and those hashes (32 random
/// bytes each, which no compressor shrinks).
fn floors(doc: &Document) {
    let json: Vec<u8> = doc
        .deep_archive
        .iter()
        .flat_map(|a| a.blocks())
        .flat_map(|b| {
            let raw = b.compressed_data.bytes().expect("base64");
            let mut out = Vec::new();
            brotli::BrotliDecompress(&mut &raw[..], &mut out).expect("block");
            out
        })
        .collect();
    let mut vault = doc.artifact_vault.clone().unwrap_or_default();
    let mut hashes = 0;
    for art in vault.artifacts.iter_mut().flat_map(|a| a.values_mut()) {
        for v in &mut art.versions {
            hashes += usize::from(v.hash.take().is_some());
        }
    }
    let vault_json = serde_json::to_vec(&vault).expect("vault");
    println!(
        "\nWhere the bytes go (code-heavy chat, Brotli q11): the blocks' JSON as one stream {} (the {} blocks: {}); the vault without version hashes {}; the {hashes} version hashes {} (32 bytes each).",
        kb(brotli11(&json)),
        doc.deep_archive.as_ref().map_or(0, |a| a.blocks().len()),
        kb(doc.deep_archive.iter().flat_map(|a| a.blocks()).map(|b| b.compressed_data.len()).sum()),
        kb(brotli11(&vault_json)),
        kb(hashes * 32),
    );
}

/// Open `path` and read one random turn, 300 times, each with a fresh open; prints the
/// samples in milliseconds, one a line. Runs in a process of its own (`smg-bench
/// archive-read`), so the heap the benchmark built does not slow the reads down.
pub(crate) fn read_samples(path: &Path, turns: u64) {
    let mut rng = Rng::new(5);
    for _ in 0..300 {
        let n = 1 + rng.below(turns);
        let (_, d) = time(|| {
            let a = PackedArchive::open(path, &Limits::default()).expect("open");
            a.turn(n).expect("turn")
        });
        println!("{}", d.as_secs_f64() * 1e3);
    }
}

fn read_latency(dir: &Path, doc: &Document, turns: usize, raw_br: Option<&[u8]>) {
    let path = dir.join("chat.packed.smg");
    std::fs::write(
        &path,
        smg_format::to_bytes(doc, &WriteOptions::new(Encoding::Packed)).expect("pack"),
    )
    .expect("write");
    let out = Command::new(std::env::current_exe().expect("bench binary"))
        .args([
            "archive-read".as_ref(),
            path.as_os_str(),
            turns.to_string().as_ref(),
        ])
        .output()
        .expect("read samples");
    let mut samples: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.parse().ok())
        .collect();
    assert_eq!(
        samples.len(),
        300,
        "archive-read failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    samples.sort_by(f64::total_cmp);
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    println!("\nOpen the packed file and read one random turn (300 samples, each a fresh open, in a fresh process): p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms.",
        pct(0.5), pct(0.95), pct(0.99), pct(1.0));
    if let Some(br) = raw_br {
        let (_, d) = time(|| {
            let mut out = Vec::new();
            brotli::BrotliDecompress(&mut &br[..], &mut out).expect("decompress");
            out
        });
        println!(
            "Decompressing the whole `brotli -q 11` transcript instead: {:.1} ms.",
            d.as_secs_f64() * 1e3
        );
    }
}

pub(crate) fn run(locomo: &Path, size_mb: usize, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    println!("| transcript | raw JSONL | .smg json layout, brotli | .smg packed | `brotli -q 11` raw | `zstd -19 --long` raw | packed vs brotli-11 | archive time |");
    println!("|---|---|---|---|---|---|---|---|");
    let files = crate::json_files(locomo);
    for f in &files {
        let conv: Value = serde_json::from_slice(&std::fs::read(f).expect("read")).expect("json");
        eprintln!("{}", f.display());
        let (s, _, build) = measure(dir, &locomo_turns(&conv));
        row(
            &format!(
                "LoCoMo {}",
                f.file_name().unwrap_or_default().to_string_lossy()
            ),
            &s,
            build,
        );
    }
    eprintln!("code-heavy chat");
    let turns = code_chat(size_mb * 1_000_000);
    let (s, doc, build) = measure(dir, &turns);
    row(
        &format!("generated code-heavy chat ({} turns)", turns.len()),
        &s,
        build,
    );
    read_latency(dir, &doc, turns.len(), s.brotli11.as_deref());
    floors(&doc);
}
