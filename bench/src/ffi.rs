//! Per-call overhead of search through the Python and Node packages (the C ABI),
//! against the same search in Rust: the hits as one buffer (`search`), the same with
//! every hit's fields read, and the JSON of `search_all`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use smg_engine::ingest::{ingest, IngestOptions, Silent};
use smg_engine::search::{Retriever, SearchOptions};
use smg_format::Limits;
use smg_import::{read_all, Format, Input};

const QUERY: &str = "When did Caroline go to the LGBTQ support group?";

/// Batches the calls are timed in; the fastest batch's mean is the figure, so that
/// batches slowed by the shared machine do not move it.
const BATCHES: u32 = 20;

/// Rounds of all callers, one after another.
const ROUNDS: usize = 3;

/// What the Python and Node scripts time, in the order of the table's rows.
const HOST_KEYS: [&str; 3] = ["search_us", "read_us", "json_us"];

/// Microseconds a call of `f` takes: the mean of the fastest of [`BATCHES`] batches.
fn per_call(n: u32, mut f: impl FnMut()) -> f64 {
    f();
    let size = (n / BATCHES).max(1);
    (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..size {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / f64::from(size)
        })
        .fold(f64::INFINITY, f64::min)
}

/// What `script` (run by `cmd`) measured: microseconds a call by name.
fn other(cmd: &str, script: &str, file: &Path, n: u32) -> Option<serde_json::Value> {
    let out = Command::new(cmd)
        .arg(script)
        .arg(file)
        .arg(QUERY)
        .arg(n.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("{cmd} {script}: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

pub(crate) fn run(locomo: &Path, dir: &Path, n: u32) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let file = dir.join("memory.smg");
    let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ));
    let input = Input::bytes(
        locomo.display().to_string(),
        std::fs::read(locomo).expect("read the LoCoMo file"),
    );
    ingest(
        &mut doc,
        read_all(vec![input], Format::Auto, false, &Silent).expect("read"),
        &IngestOptions::default(),
        &Silent,
    )
    .expect("ingest");
    smg_format::write_file(
        &file,
        &doc,
        &smg_format::WriteOptions::new(smg_format::Encoding::Brotli),
    )
    .expect("write");
    // Opened from the file's bytes, as `smg_memory_open` opens it.
    let bytes = std::fs::read(&file).expect("read the memory back");
    let (doc, _) = smg_format::from_bytes(&bytes, &Limits::default()).expect("parse");
    let retriever = Retriever::open(&bytes, &doc, &Limits::default()).expect("retriever");
    let options = SearchOptions::new(10);
    // Rounds of every caller in turn; each row keeps its fastest round, the one the
    // shared machine disturbed least.
    let mut best: Vec<Option<f64>> = vec![None; 2 + 2 * HOST_KEYS.len()];
    for _ in 0..ROUNDS {
        let engine = per_call(n, || {
            std::hint::black_box(retriever.search(QUERY, &options).expect("search"));
        });
        // What smg_memory_search does: the search, then the results as JSON.
        let json = per_call(n, || {
            let found = retriever.search(QUERY, &options).expect("search");
            std::hint::black_box(found.to_json(QUERY).to_string());
        });
        let mut round = vec![Some(engine), Some(json)];
        for (cmd, script) in [
            ("python3", "bench/ffi/search.py"),
            ("node", "bench/ffi/search.js"),
        ] {
            let v = other(cmd, script, &file, n);
            round.extend(
                HOST_KEYS
                    .iter()
                    .map(|k| v.as_ref().and_then(|v| v[k].as_f64())),
            );
        }
        for (b, r) in best.iter_mut().zip(round) {
            *b = match (*b, r) {
                (Some(b), Some(r)) => Some(b.min(r)),
                (b, r) => b.or(r),
            };
        }
    }
    let engine = best[0].unwrap_or(f64::NAN);
    println!(
        "Search for one LoCoMo question (top 10 turns and 10 nodes) in LoCoMo 26: {n} calls \
         a caller in {BATCHES} batches, its fastest batch; the fastest of {ROUNDS} rounds:\n"
    );
    println!("| caller | per call | overhead vs the Rust call |");
    println!("|---|---|---|");
    let mut rows = vec![
        "Rust, engine only (`Retriever::search`)".to_string(),
        "Rust, search + results as JSON (the work of `smg_memory_search`)".to_string(),
    ];
    for (host, via) in [("Python", "ctypes"), ("Node", "koffi")] {
        rows.push(format!(
            "{host} `search` ({via} → `smg_memory_search_hits`, hits returned)"
        ));
        rows.push(format!(
            "{host} `search`, then every hit's score and text read"
        ));
        rows.push(format!(
            "{host} `search_all` (`smg_memory_search`, JSON parsed)"
        ));
    }
    for (what, us) in rows.iter().zip(best) {
        let cell = us.map_or("—".into(), |u| format!("{u:.1} µs"));
        let over = us.map_or("—".into(), |u| format!("{:+.1} µs", u - engine));
        println!("| {what} | {cell} | {over} |");
    }
}
