//! Per-call overhead of search through the Python and Node packages (the C ABI),
//! against the same search in Rust, with and without making the JSON the ABI returns.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use smg_engine::ingest::{ingest, IngestOptions, Input, Silent};
use smg_engine::search::{Retriever, SearchOptions};
use smg_format::Limits;

const QUERY: &str = "When did Caroline go to the LGBTQ support group?";

fn per_call(n: u32, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

fn other(cmd: &str, script: &str, file: &Path, n: u32, key: &str) -> Option<f64> {
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
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v[key].as_f64()
}

pub(crate) fn run(locomo: &Path, dir: &Path, n: u32) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let file = dir.join("memory.smg");
    let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
        "1970-01-01T00:00:00Z",
    ));
    let input = Input {
        name: locomo.display().to_string(),
        bytes: std::fs::read(locomo).expect("read the LoCoMo file"),
    };
    ingest(&mut doc, vec![input], &IngestOptions::default(), &Silent).expect("ingest");
    smg_format::write_file(
        &file,
        &doc,
        &smg_format::WriteOptions::new(smg_format::Encoding::Brotli),
    )
    .expect("write");
    let retriever = Retriever::new(&doc, &Limits::default()).expect("retriever");
    let options = SearchOptions::new(10);
    let engine = per_call(n, || {
        std::hint::black_box(retriever.search(QUERY, &options).expect("search"));
    });
    // What smg_memory_search does: the search, then the results as JSON.
    let rust = per_call(n, || {
        let found = retriever.search(QUERY, &options).expect("search");
        std::hint::black_box(found.to_json(QUERY).to_string());
    });
    let python = other("python3", "bench/ffi/search.py", &file, n, "python_us");
    let node = other("node", "bench/ffi/search.js", &file, n, "node_us");
    let row = |what: &str, us: Option<f64>| {
        let cell = us.map_or("—".into(), |u| format!("{u:.1} µs"));
        let over = us.map_or("—".into(), |u| format!("{:+.1} µs", u - rust));
        println!("| {what} | {cell} | {over} |");
    };
    println!("Search for one LoCoMo question (top 10) in LoCoMo 26, {n} calls each:\n");
    println!("| caller | per call | overhead vs Rust with JSON |");
    println!("|---|---|---|");
    row("Rust, engine only (`Retriever::search`)", Some(engine));
    row(
        "Rust, search + hits as JSON (the work of `smg_memory_search`)",
        Some(rust),
    );
    row(
        "Python package (ctypes → `smg_memory_search`, JSON parsed)",
        python,
    );
    row(
        "Node package (koffi → `smg_memory_search`, JSON parsed)",
        node,
    );
}
