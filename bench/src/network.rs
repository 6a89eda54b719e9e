//! A network of linked memories at scale (issue 77): a million archived turns (20,000
//! conversations of 50 turns) split over 20 files, each packed with its search index
//! stored, the first linking the other 19 (`smg link add`); beside it the same turns
//! in one file. Each is opened in a fresh process as `smg search` opens it: the time
//! to open and answer the first query, and the latency of search and context over
//! the same queries; and the wall time of `smg search` itself, as a user runs it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use smg_engine::search::{open_file, Network, Period, Retriever, SearchOptions};
use smg_format::Limits;

use crate::generate::Rng;
use crate::retrieval::{fresh as bench, percentiles, query, rss_mb, QUERIES};

/// Files of the network.
const FILES: usize = 20;

/// Generate the turns, make the network and the one file, and measure both.
pub(crate) fn run(conversations: usize, smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let all = crate::ingest::many(conversations);
    let lines: Vec<&[u8]> = all
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    // Whole conversations to each file (each is 50 lines, in order).
    let per = conversations.div_ceil(FILES) * 50;
    let start = Instant::now();
    let mut parts = Vec::new();
    for (i, chunk) in lines.chunks(per).enumerate() {
        let input = dir.join(format!("part-{i:02}.jsonl"));
        let text: Vec<u8> = chunk
            .iter()
            .flat_map(|l| l.iter().chain(b"\n"))
            .copied()
            .collect();
        std::fs::write(&input, text).expect("write a part");
        let file = dir.join(format!("part-{i:02}.smg"));
        packed(smg, &input, &file);
        std::fs::remove_file(&input).expect("remove a part's input");
        parts.push(file);
    }
    for other in &parts[1..] {
        let args = ["link", "add"].map(String::from);
        let paths = [&parts[0], other].map(|p| p.display().to_string());
        run_smg(smg, &[&args[..], &paths[..]].concat());
    }
    let made = start.elapsed();
    let input = dir.join("all.jsonl");
    std::fs::write(&input, &all).expect("write the input");
    drop(all);
    let one = dir.join("one.smg");
    let start = Instant::now();
    packed(smg, &input, &one);
    std::fs::remove_file(&input).expect("remove the input");
    println!(
        "{conversations} conversations × 50 turns: {} files (ingested, packed, indexed, linked from the first) in {:.1} s; one file of them all in {:.1} s.\n",
        parts.len(),
        made.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    let root = parts[0].to_str().expect("a UTF-8 path");
    let one = one.to_str().expect("a UTF-8 path");
    println!(
        "| measure | {} linked files | one file | target |\n|---|---|---|---|",
        parts.len()
    );
    let network = Measured::of(&bench(&["network-read", root, "links"]));
    let single = Measured::of(&bench(&["network-read", one, "alone"]));
    network.print(&single);
    let cli = |file: &str| cli_search(smg, file, &network.first);
    println!(
        "| `smg search FILE QUERY --json`, a fresh process each, wall time (median of 5) | {:.0} ms | {:.0} ms | |",
        cli(root),
        cli(one)
    );
}

/// `smg ingest` of `input` into `file`, packed, its search index stored.
fn packed(smg: &Path, input: &Path, file: &Path) {
    let (input, file) = (input.display().to_string(), file.display().to_string());
    run_smg(
        smg,
        &[
            "ingest".into(),
            "-q".into(),
            input,
            "-o".into(),
            file.clone(),
        ],
    );
    let convert = ["convert", &file, "-o", &file, "--layout", "packed"].map(String::from);
    run_smg(smg, &convert);
    run_smg(smg, &["index".into(), file]);
}

fn run_smg(smg: &Path, args: &[String]) {
    let out = Command::new(smg).args(args).output().expect("run smg");
    assert!(
        out.status.success(),
        "smg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The median wall time of `smg search FILE QUERY --json` in ms.
fn cli_search(smg: &Path, file: &str, query: &str) -> f64 {
    let ms: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let args = ["search", file, query, "--json"].map(String::from);
            run_smg(smg, &args);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    percentiles(ms).0
}

/// What one `network-read` process printed: `key value` lines.
struct Measured {
    first: String,
    values: std::collections::HashMap<String, f64>,
}

impl Measured {
    fn of(out: &str) -> Self {
        let mut first = String::new();
        let mut values = std::collections::HashMap::new();
        for line in out.lines() {
            if let Some(q) = line.strip_prefix("query ") {
                first = q.to_string();
            } else if let Some((k, v)) = line.split_once(' ') {
                values.insert(k.to_string(), v.parse().unwrap_or(f64::NAN));
            }
        }
        Measured { first, values }
    }

    fn get(&self, key: &str) -> f64 {
        self.values.get(key).copied().unwrap_or(f64::NAN)
    }

    fn print(&self, one: &Measured) {
        let row = |what: &str, key: &str, unit: &str, target: &str| {
            println!(
                "| {what} | {:.1} {unit} | {:.1} {unit} | {target} |",
                self.get(key),
                one.get(key)
            );
        };
        row("open (every file by its stored index)", "open", "ms", "");
        row("open and answer the first query", "first", "ms", "≤ 200 ms");
        row("resident memory after opening", "rss", "MB", "");
        let ratio = self.get("s99") / one.get("s99");
        for (what, p) in [("p50", "s50"), ("p95", "s95")] {
            row(
                &format!("hybrid search, k = 10 ({QUERIES} queries): {what}"),
                p,
                "ms",
                "",
            );
        }
        row(
            &format!("hybrid search, k = 10 ({QUERIES} queries): p99"),
            "s99",
            "ms",
            &format!("≤ 2× one file's (here {ratio:.2}×)"),
        );
        row("context of 2,000 tokens: p50", "c50", "ms", "");
        row("context of 2,000 tokens: p99", "c99", "ms", "");
        row("links not followed (warnings)", "warnings", "", "0");
    }
}

/// `smg-bench network-read FILE links|alone`: open FILE as `smg search` does (with
/// the files its links reach, or alone), answer, measure; prints `key value` lines.
/// The queries are the same for the network and the one file: words of turns drawn
/// by a fixed seed from the files opened.
pub(crate) fn read(path: &Path, follow: bool) {
    let limits = Limits::default();
    let start = Instant::now();
    let root = open_file(path, &limits, None).expect("open");
    let net = if follow {
        let open = |p: &Path, _: &str| open_file(p, &limits, None);
        Network::open(path, root, &open)
    } else {
        Network::single(path, root)
    };
    let opened = start.elapsed();
    let rss = rss_mb();
    let queries = queries(path);
    let options = SearchOptions::new(10);
    let asked = Instant::now();
    std::hint::black_box(net.search(&queries[0], &options).expect("search"));
    let first = opened + asked.elapsed();
    println!("query {}", queries[0]);
    println!("open {:.1}", opened.as_secs_f64() * 1e3);
    println!("first {:.1}", first.as_secs_f64() * 1e3);
    println!("rss {rss:.0}");
    println!("warnings {}", net.warnings().len());
    let timed = |f: &dyn Fn(&str)| -> Vec<f64> {
        queries[1..]
            .iter()
            .map(|q| {
                let t = Instant::now();
                f(q);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect()
    };
    let search = timed(&|q| {
        std::hint::black_box(net.search(q, &options).expect("search"));
    });
    let context = timed(&|q| {
        std::hint::black_box(net.prompt(q, None, 2000, &Period::ALL).expect("context"));
    });
    let (s50, s95, s99) = percentiles(search);
    let (c50, _, c99) = percentiles(context);
    println!("s50 {s50:.2}\ns95 {s95:.2}\ns99 {s99:.2}\nc50 {c50:.2}\nc99 {c99:.2}");
}

/// The first query and [`QUERIES`] more, drawn from the network's files: the same
/// for the network and the one file, which holds the same turns (its queries come
/// from the network's files beside it).
fn queries(path: &Path) -> Vec<String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let limits = Limits::default();
    let parts: Vec<Retriever> = (0..FILES)
        .map(|i| dir.join(format!("part-{i:02}.smg")))
        .filter(|p| p.exists())
        .map(|p| open_file(&p, &limits, None).expect("open a part"))
        .collect();
    let mut rng = Rng::new(29);
    (0..=QUERIES)
        .map(|_| {
            let r = &parts[rng.below(parts.len() as u64) as usize];
            query(&mut rng, r)
        })
        .collect()
}

/// Where the network is made.
pub(crate) fn dir() -> PathBuf {
    PathBuf::from("bench/out/network")
}
