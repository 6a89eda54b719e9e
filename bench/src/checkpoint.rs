//! Checkpoint benchmark: delta files against full files. A LoCoMo dev conversation
//! grown by one session and by 1% of its turns, the seed's three checkpoints (v1 and
//! two deltas against three full files), and diff / delta / apply on a 100 MB file,
//! next to `zstd --patch-from` (the obvious alternative) in the same run.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use smg_engine::ingest::{ingest, IngestOptions, Silent};
use smg_format::{
    codec::to_canonical_json,
    delta::{apply_delta, make_delta, DeltaOptions},
    to_bytes, Document, Encoding, Limits, WriteOptions,
};
use smg_import::{read_all, Format, Input};

use crate::{kb, time};

fn sessions(v: &Value) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = v
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, t)| t.is_array())
        .filter_map(|(k, _)| Some((k.strip_prefix("session_")?.parse().ok()?, k.clone())))
        .collect();
    out.sort();
    out
}

fn turn_count(v: &Value) -> usize {
    sessions(v)
        .iter()
        .map(|(_, k)| v[k].as_array().map_or(0, Vec::len))
        .sum()
}

/// The export as it was `drop` turns earlier (sessions emptied by the cut are removed).
fn without_last_turns(v: &Value, mut drop: usize) -> Value {
    let mut v = v.clone();
    for (n, key) in sessions(&v).into_iter().rev() {
        let Some(turns) = v[&key].as_array_mut() else {
            continue;
        };
        let cut = drop.min(turns.len());
        turns.truncate(turns.len() - cut);
        drop -= cut;
        if turns.is_empty() {
            let obj = v.as_object_mut().expect("an object");
            obj.remove(&key);
            obj.remove(&format!("session_{n}_date_time"));
        }
        if drop == 0 {
            break;
        }
    }
    v
}

/// The `.smg` file (Brotli, as `smg ingest` writes) of ingesting `exports` in turn.
fn ingested(name: &str, exports: &[&Value]) -> Vec<u8> {
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    for export in exports {
        let input = vec![Input::bytes(
            name.to_string(),
            serde_json::to_vec(export).expect("json"),
        )];
        ingest(
            &mut doc,
            read_all(input, Format::Auto, false, &Silent).expect("read"),
            &IngestOptions::default(),
            &Silent,
        )
        .expect("ingest");
    }
    to_bytes(&doc, &WriteOptions::new(Encoding::Brotli)).expect("write")
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

fn pct(part: usize, whole: usize) -> String {
    format!("{:.2}%", 100.0 * part as f64 / whole.max(1) as f64)
}

/// Make and apply a delta, checking the rebuilt bytes; (delta, make time, apply time).
fn measure(base: &[u8], target: &[u8]) -> (Vec<u8>, Duration, Duration) {
    let options = DeltaOptions::default();
    let (delta, made) = time(|| make_delta(base, target, &options).expect("delta").bytes);
    let (rebuilt, applied) = time(|| apply_delta(base, &delta, &options).expect("apply"));
    assert!(
        rebuilt == target,
        "apply must rebuild the target byte for byte"
    );
    (delta, made, applied)
}

fn locomo(dir: &Path) {
    println!("| conversation | change | turns added | full new file | delta | delta / full | make | apply |");
    println!("|---|---|---|---|---|---|---|---|");
    for f in crate::json_files(dir) {
        let full: Value = serde_json::from_slice(&std::fs::read(&f).expect("read")).expect("json");
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let total = turn_count(&full);
        let last = sessions(&full)
            .last()
            .map_or(0, |(_, k)| full[k].as_array().map_or(0, Vec::len));
        let one_percent = total.div_ceil(100);
        for (change, drop) in [("one more session", last), ("1% more turns", one_percent)] {
            let earlier = without_last_turns(&full, drop);
            let v1 = ingested(&name, &[&earlier]);
            let v2 = ingested(&name, &[&earlier, &full]);
            let (delta, made, applied) = measure(&v1, &v2);
            println!(
                "| {name} ({total} turns) | {change} | {drop} ({}) | {} | {} | **{}** | {} | {} |",
                pct(drop, total),
                kb(v2.len()),
                kb(delta.len()),
                pct(delta.len(), v2.len()),
                ms(made),
                ms(applied)
            );
        }
    }
}

/// The seed's example (SMG §6.2): three checkpoints kept as v1 + two deltas.
fn seed_example(file: &Path) {
    let full: Value = serde_json::from_slice(&std::fs::read(file).expect("read")).expect("json");
    let n = sessions(&full).len();
    let cut = |keep: usize| {
        let drop: usize = sessions(&full)
            .iter()
            .filter(|(s, _)| *s > keep)
            .map(|(_, k)| full[k].as_array().map_or(0, Vec::len))
            .sum();
        without_last_turns(&full, drop)
    };
    let (e1, e2) = (cut(n - 2), cut(n - 1));
    let name = "conversation.json";
    let v1 = ingested(name, &[&e1]);
    let v2 = ingested(name, &[&e1, &e2]);
    let v3 = ingested(name, &[&e1, &e2, &full]);
    let (d2, _, _) = measure(&v1, &v2);
    let (d3, _, _) = measure(&v2, &v3);
    let full_total = v1.len() + v2.len() + v3.len();
    let delta_total = v1.len() + d2.len() + d3.len();
    println!(
        "| storage of three checkpoints ({}, sessions 1–{}, 1–{}, 1–{n}) | bytes |",
        file.display(),
        n - 2,
        n - 1
    );
    println!("|---|---|");
    println!("| three full files (v1 + v2 + v3) | {} |", kb(full_total));
    println!(
        "| v1 + delta v1→v2 + delta v2→v3 | **{}** ({} of the full files) |",
        kb(delta_total),
        pct(delta_total, full_total)
    );
    println!(
        "| of which the two deltas | {} + {} |",
        kb(d2.len()),
        kb(d3.len())
    );
}

fn zstd_patch(dir: &Path, base: &Path, target: &Path, out: &str) -> Option<(usize, Duration)> {
    let out = dir.join(out);
    let (status, d) = time(|| {
        Command::new("zstd")
            .args(["-q", "-f", "-19", "--long=31"])
            .arg(format!("--patch-from={}", base.display()))
            .arg(target)
            .arg("-o")
            .arg(&out)
            .status()
    });
    status.ok().filter(|s| s.success())?;
    Some((std::fs::metadata(&out).ok()?.len() as usize, d))
}

fn large(size_mb: usize, dir: &Path) {
    let v1_doc = crate::generate::document(size_mb * 1_000_000, 7);
    let v2_doc = crate::generate::document(size_mb * 1_010_000, 7);
    let write = WriteOptions::new(Encoding::Brotli);
    let (v1, v2) = (
        to_bytes(&v1_doc, &write).expect("v1"),
        to_bytes(&v2_doc, &write).expect("v2"),
    );
    let (j1, j2) = (
        to_canonical_json(&v1_doc).expect("j1"),
        to_canonical_json(&v2_doc).expect("j2"),
    );
    drop((v1_doc, v2_doc));
    std::fs::create_dir_all(dir).expect("bench dir");
    let paths = ["v1.smg", "v2.smg", "v1.json", "v2.json"].map(|n| dir.join(n));
    for (p, b) in paths.iter().zip([&v1, &v2, &j1, &j2]) {
        std::fs::write(p, b).expect("write");
    }
    let limits = Limits::default();
    let (_, diffed) = time(|| {
        let a = smg_format::from_bytes(&v1, &limits).expect("read v1").0;
        let b = smg_format::from_bytes(&v2, &limits).expect("read v2").0;
        smg_format::diff::diff(&a, &b)
    });
    let (delta, made, applied) = measure(&v1, &v2);
    println!(
        "v1: {} of canonical JSON, {} as Brotli .smg; v2 = v1 grown by 1% (nodes, edges, archive blocks, artifacts).\n",
        kb(j1.len()),
        kb(v1.len())
    );
    println!("| operation | time | output |");
    println!("|---|---|---|");
    println!(
        "| `smg diff` (read both, semantic diff) | {} | — |",
        ms(diffed)
    );
    println!(
        "| make delta (`smg diff --delta`) | {} | {} ({} of v2) |",
        ms(made),
        kb(delta.len()),
        pct(delta.len(), v2.len())
    );
    println!(
        "| apply delta (`smg apply`), byte-identical v2 | {} | {} |",
        ms(applied),
        kb(v2.len())
    );
    for (what, base, target, out) in [
        (
            "`zstd -19 --long=31 --patch-from` of the canonical JSON",
            &paths[2],
            &paths[3],
            "json.zst",
        ),
        (
            "`zstd -19 --long=31 --patch-from` of the .smg files",
            &paths[0],
            &paths[1],
            "smg.zst",
        ),
    ] {
        match zstd_patch(dir, base, target, out) {
            Some((bytes, d)) => println!(
                "| {what} | {} | {} ({} of v2) |",
                ms(d),
                kb(bytes),
                pct(bytes, v2.len())
            ),
            None => println!("| {what} | — | zstd not available |"),
        }
    }
}

pub(crate) fn run(locomo_dir: &Path, size_mb: usize, dir: &Path) {
    println!("### Deltas of a LoCoMo conversation\n");
    locomo(locomo_dir);
    println!("\n### Three checkpoints\n");
    seed_example(&locomo_dir.join("26.json"));
    println!("\n### A {size_mb} MB file\n");
    large(size_mb, dir);
}
