//! `smg-bench`: benchmarks recorded in bench/RESULTS.md.
//!
//! `smg-bench vault [VERSIONS]` stores a file's history in the vault (bench/src/vault.rs);
//! `smg-bench archive [LOCOMO_DIR] [SIZE_MB]` archives chats (bench/src/archive.rs);
//! `smg-bench ingest [LOCOMO_DIR] [SIZE_MB] [CONVERSATIONS]` ingests chats (bench/src/ingest.rs);
//! `smg-bench merge [SIZE_MB]` merges two forks of a memory (bench/src/merge.rs);
//! `smg-bench view [NODES…]` writes and opens `smg view` pages (bench/src/view.rs);
//! `smg-bench curate [DAYS] [NODES]` curates 90 days of agent activity daily (bench/src/curate.rs);
//! `smg-bench retrieval [CONVERSATIONS]` searches a memory of a million turns (bench/src/retrieval.rs);
//! `smg-bench retrieval-append [DIR]` appends to it, adding to its index or not;
//! `smg-bench network [CONVERSATIONS]` searches those turns over 20 linked files (bench/src/network.rs);
//! `smg-bench codec [SIZE_MB] [DIR]` generates a document of about SIZE_MB megabytes
//! of canonical JSON, then measures smg's write and read of it in every encoding next
//! to `serde_json::Value` and the `brotli -q 11` / `zstd -19` tools on the same bytes,
//! and prints a Markdown table.
#![forbid(unsafe_code)]

mod archive;
mod checkpoint;
mod crypt;
mod curate;
mod ffi;
mod generate;
mod ingest;
mod merge;
mod neo4j;
mod network;
mod plain_tantivy;
mod retrieval;
mod vault;
mod vectors;
mod view;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use smg_format::{Encoding, Limits, WriteOptions};

const MB: f64 = 1_000_000.0;

/// Bytes as kB or MB, for tables.
pub(crate) fn kb(bytes: usize) -> String {
    if bytes >= 10_000_000 {
        format!("{:.1} MB", bytes as f64 / MB)
    } else {
        format!("{:.1} kB", bytes as f64 / 1e3)
    }
}

pub(crate) fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// Wall time, max RSS (kB) and stdout of `smg ARGS` run in `dir` under
/// `/usr/bin/time -v`; panics when it fails.
pub(crate) fn timed(smg: &Path, dir: &Path, args: &[&std::ffi::OsStr]) -> (Duration, u64, Vec<u8>) {
    let smg = std::path::absolute(smg).expect("a path");
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(smg)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run /usr/bin/time smg");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "smg {args:?} failed: {stderr}");
    let field = |name: &str| {
        stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss):");
    let secs = wall.split(':').fold(0.0, |acc, part| {
        acc * 60.0 + part.parse::<f64>().unwrap_or(0.0)
    });
    let rss = field("Maximum resident set size (kbytes):")
        .parse()
        .unwrap_or(0);
    (Duration::from_secs_f64(secs), rss, out.stdout)
}

/// The `*.json` files of a folder, sorted.
pub(crate) fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Median of `n` runs.
pub(crate) fn median<T>(n: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut runs: Vec<Duration> = (0..n).map(|_| time(&mut f).1).collect();
    runs.sort();
    runs[n / 2]
}

struct Row {
    what: String,
    bytes: usize,
    write: Option<Duration>,
    read: Option<Duration>,
}

fn rate(json: usize, d: Option<Duration>) -> String {
    d.map_or("—".into(), |d| {
        format!(
            "{:.1} s ({:.0} MB/s)",
            d.as_secs_f64(),
            json as f64 / MB / d.as_secs_f64()
        )
    })
}

fn tool(dir: &Path, name: &str, args: &[&str], input: &Path, output: &Path) -> Option<Duration> {
    let out = std::fs::File::create(output).ok()?;
    let (status, d) = time(|| {
        Command::new(name)
            .args(args)
            .arg(input)
            .stdout(out)
            .status()
    });
    status.ok().filter(|s| s.success()).map(|_| d).or_else(|| {
        eprintln!("{name} not available in {}", dir.display());
        None
    })
}

fn codec(size_mb: usize, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let (doc, gen) = time(|| generate::document(size_mb * 1_000_000, 42));
    let json = smg_format::codec::to_canonical_json(&doc).expect("serialise");
    let n = json.len();
    eprintln!(
        "generated {:.1} MB in {:.1} s",
        n as f64 / MB,
        gen.as_secs_f64()
    );
    let json_path = dir.join("doc.json");
    std::fs::write(&json_path, &json).expect("write json");
    let limits = Limits::default();
    let mut rows = Vec::new();

    let canon = median(3, || {
        smg_format::codec::to_canonical_json(&doc).expect("serialise")
    });
    let parse = median(3, || {
        smg_format::codec::from_json_slice(&json).expect("parse")
    });
    rows.push(Row {
        what: "smg canonical JSON ↔ model (no compression)".into(),
        bytes: n,
        write: Some(canon),
        read: Some(parse),
    });
    let value_parse = median(3, || {
        serde_json::from_slice::<serde_json::Value>(&json).expect("parse")
    });
    let value: serde_json::Value = serde_json::from_slice(&json).expect("parse");
    let value_write = median(3, || serde_json::to_vec(&value).expect("write"));
    rows.push(Row {
        what: "serde_json::Value (baseline, no canonical form, no model)".into(),
        bytes: n,
        write: Some(value_write),
        read: Some(value_parse),
    });

    for (name, options) in [
        ("smg json", WriteOptions::new(Encoding::Json)),
        (
            "smg brotli (default, q5)",
            WriteOptions::new(Encoding::Brotli),
        ),
        (
            "smg brotli q9",
            WriteOptions::new(Encoding::Brotli).with_level(9),
        ),
        (
            "smg brotli q11",
            WriteOptions::new(Encoding::Brotli).with_level(11),
        ),
        ("smg zstd (default, 9)", WriteOptions::new(Encoding::Zstd)),
        (
            "smg zstd 19",
            WriteOptions::new(Encoding::Zstd).with_level(19),
        ),
    ] {
        eprintln!("{name}…");
        let (bytes, write) = time(|| smg_format::to_bytes(&doc, &options).expect("write"));
        let read = median(3, || smg_format::from_bytes(&bytes, &limits).expect("read"));
        rows.push(Row {
            what: name.into(),
            bytes: bytes.len(),
            write: Some(write),
            read: Some(read),
        });
    }
    for (name, cmd, cargs, dargs, ext) in [
        (
            "`brotli -q 11` (CLI)",
            "brotli",
            &["-q", "11", "-c"][..],
            &["-d", "-c"][..],
            "br",
        ),
        (
            "`zstd -19` (CLI)",
            "zstd",
            &["-19", "-q", "-c"][..],
            &["-d", "-q", "-c"][..],
            "zst",
        ),
    ] {
        eprintln!("{name}…");
        let packed = dir.join(format!("doc.json.{ext}"));
        let write = tool(dir, cmd, cargs, &json_path, &packed);
        let read = write.and_then(|_| tool(dir, cmd, dargs, &packed, &dir.join("roundtrip.json")));
        let bytes = std::fs::metadata(&packed).map_or(0, |m| m.len() as usize);
        rows.push(Row {
            what: format!("{name} of the same JSON bytes (compression only)"),
            bytes,
            write,
            read,
        });
    }
    println!("Document: {:.1} MB canonical JSON ({} nodes, {} archive blocks, {} artifacts); generated in {:.1} s.\n",
        n as f64 / MB,
        doc.semantic_graph.as_ref().map_or(0, |g| g.nodes().len()),
        doc.deep_archive.as_ref().map_or(0, |a| a.blocks().len()),
        doc.artifact_vault.as_ref().and_then(|v| v.artifacts.as_ref()).map_or(0, |a| a.len()),
        gen.as_secs_f64());
    println!("| what | size on disk | write (MB/s of JSON) | read (MB/s of JSON) |");
    println!("|---|---|---|---|");
    for r in rows {
        println!(
            "| {} | {:.2} MB ({:.1} %) | {} | {} |",
            r.what,
            r.bytes as f64 / MB,
            100.0 * r.bytes as f64 / n as f64,
            rate(n, r.write),
            rate(n, r.read)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codec") => {
            let size = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
            let dir = args
                .get(2)
                .map_or_else(|| PathBuf::from("bench/out"), PathBuf::from);
            codec(size, &dir);
        }
        Some("vault") => {
            let versions = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(150);
            vault::run(versions, &PathBuf::from("bench/out/vault"));
        }
        Some("crypt") => {
            let size = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
            crypt::run(size, &PathBuf::from("bench/out/crypt"));
        }
        Some("share-input") => {
            let conversations = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
            let out = args.get(2).map_or_else(
                || PathBuf::from("bench/out/share/talk.jsonl"),
                PathBuf::from,
            );
            let every = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
            std::fs::write(&out, ingest::many_with_secrets(conversations, every))
                .expect("write input");
        }
        Some("checkpoint") => {
            let locomo = args
                .get(1)
                .map_or_else(|| PathBuf::from("../shared/data/locomo-dev"), PathBuf::from);
            let size = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
            checkpoint::run(&locomo, size, &PathBuf::from("bench/out/checkpoint"));
        }
        Some("archive") => {
            let locomo = args
                .get(1)
                .map_or_else(|| PathBuf::from("../shared/data/locomo-dev"), PathBuf::from);
            let size = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
            archive::run(&locomo, size, &PathBuf::from("bench/out/archive"));
        }
        Some("archive-read") => {
            let turns = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
            archive::read_samples(&PathBuf::from(&args[1]), turns);
        }
        Some("retrieval") => {
            let conversations = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
            let smg = PathBuf::from("target/release/smg");
            retrieval::run(conversations, &smg, &PathBuf::from("bench/out/retrieval"));
        }
        Some("retrieval-read") => retrieval::read(&PathBuf::from(&args[1])),
        Some("network") => {
            let conversations = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
            let smg = PathBuf::from("target/release/smg");
            network::run(conversations, &smg, &network::dir());
        }
        Some("network-read") => network::read(
            &PathBuf::from(&args[1]),
            args.get(2).map(String::as_str) == Some("links"),
        ),
        Some("retrieval-append") => retrieval::append(
            &PathBuf::from("target/release/smg"),
            &PathBuf::from(args.get(1).map_or("bench/out/retrieval", String::as_str)),
        ),
        Some("vectors") => vectors::write(
            &PathBuf::from(&args[1]),
            &PathBuf::from(&args[2]),
            args.get(3).and_then(|s| s.parse().ok()).unwrap_or(384),
        ),
        Some("vectors-read") => vectors::read(
            &PathBuf::from(&args[1]),
            args.get(2).and_then(|s| s.parse().ok()).unwrap_or(384),
        ),
        Some("tantivy-build") => {
            plain_tantivy::build(&PathBuf::from(&args[1]), &PathBuf::from(&args[2]))
        }
        Some("tantivy-read") => {
            plain_tantivy::read(&PathBuf::from(&args[1]), &PathBuf::from(&args[2]))
        }
        Some("ingest") => {
            let locomo = args
                .get(1)
                .map_or_else(|| PathBuf::from("../shared/data/locomo-dev"), PathBuf::from);
            let size = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
            let conversations = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10_000);
            let smg = PathBuf::from("target/release/smg");
            ingest::run(
                &locomo,
                size,
                conversations,
                &smg,
                &PathBuf::from("bench/out/ingest"),
            );
        }
        Some("curate") => {
            let days = args.get(1).map_or(90, |a| a.parse().expect("DAYS"));
            let nodes = args.get(2).map_or(100_000, |a| a.parse().expect("NODES"));
            let smg = PathBuf::from("target/release/smg");
            curate::run(days, nodes, &smg, &PathBuf::from("bench/out/curate"));
        }
        Some("neo4j") => {
            let nodes = args.get(1).map_or(100_000, |a| a.parse().expect("NODES"));
            let smg = PathBuf::from("target/release/smg");
            neo4j::run(nodes, &smg, &PathBuf::from("bench/out/neo4j"));
        }
        Some("view") => {
            let sizes: Vec<usize> = args[1..]
                .iter()
                .map(|a| a.parse().expect("NODES"))
                .collect();
            let sizes = if sizes.is_empty() {
                vec![1_000, 100_000]
            } else {
                sizes
            };
            let smg = PathBuf::from("target/release/smg");
            view::run(&sizes, &smg, &PathBuf::from("bench/out/view"));
        }
        Some("merge") => {
            let size = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
            let smg = PathBuf::from("target/release/smg");
            merge::run(size, &smg, &PathBuf::from("bench/out/merge"));
        }
        Some("ffi") => {
            let locomo = args.get(1).map_or_else(
                || PathBuf::from("../shared/data/locomo-dev/26.json"),
                PathBuf::from,
            );
            let n = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
            ffi::run(&locomo, &PathBuf::from("bench/out/ffi"), n);
        }
        _ => {
            eprintln!("usage: smg-bench codec [SIZE_MB] [DIR] | vault [VERSIONS] | archive [LOCOMO_DIR] [SIZE_MB] | crypt [SIZE_MB] | ingest [LOCOMO_DIR] [SIZE_MB] [CONVERSATIONS] | ffi [LOCOMO_FILE] [CALLS] | checkpoint [LOCOMO_DIR] [SIZE_MB] | merge [SIZE_MB] | retrieval [CONVERSATIONS] | curate [DAYS] [NODES] | neo4j [NODES] | view [NODES…]");
            std::process::exit(2);
        }
    }
}
