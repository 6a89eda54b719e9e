//! Retrieval at scale: a memory of 1,000,000 archived turns (20,000 conversations of 50
//! turns, ingested by `smg ingest`), opened in a fresh process as `smg search` and
//! `smg context` open it: the time to open the file and answer the first query, the
//! resident memory after opening, and the latency of search and of context building.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use smg_engine::search::{Item, Period, Retriever, SearchOptions};
use smg_format::{from_bytes, Limits};

use crate::generate::Rng;
use crate::kb;

/// Queries timed after the first.
pub(crate) const QUERIES: usize = 200;

/// Resident memory of this process, in MB.
pub(crate) fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Milliseconds at the 50th, 95th and 99th percentile.
pub(crate) fn percentiles(mut ms: Vec<f64>) -> (f64, f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.95), at(0.99))
}

/// A query of two to four words of an archived turn, as a user would remember it.
pub(crate) fn query(rng: &mut Rng, retriever: &Retriever) -> String {
    let i = rng.below(retriever.turn_count() as u64) as usize;
    let turn = retriever.turn(i).expect("read a turn");
    let words: Vec<&str> = turn
        .content
        .split_whitespace()
        .filter(|w| w.len() > 3)
        .collect();
    let n = 2 + rng.below(3) as usize;
    let start = rng.below(words.len().saturating_sub(n).max(1) as u64) as usize;
    words
        .iter()
        .skip(start)
        .take(n)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `smg-bench retrieval-read FILE`: open, answer, measure; prints one Markdown block.
/// A packed file with a stored search index is opened by the index alone
/// (`Retriever::open_packed`, as `smg search` does); any other is read and indexed.
pub(crate) fn read(path: &Path) {
    let limits = Limits::default();
    let start = Instant::now();
    let lazy = Retriever::open_packed(path, &limits).expect("open");
    let (retriever, parsed) = match lazy {
        Some(r) => (r, None),
        None => {
            let bytes = std::fs::read(path).expect("read");
            let (doc, _) = from_bytes(&bytes, &limits).expect("parse");
            let parsed = start.elapsed();
            (
                Retriever::open(&bytes, &doc, &limits).expect("index"),
                Some(parsed),
            )
        }
    };
    let opened = start.elapsed();
    let mut rng = Rng::new(17);
    // Picking the first query reads a turn: not part of what is timed.
    let first = query(&mut rng, &retriever);
    let options = SearchOptions::new(10);
    let asked = Instant::now();
    let first_found = retriever.search(&first, &options).expect("search");
    let answered = opened + asked.elapsed();
    let rss = rss_mb();
    let queries: Vec<String> = (0..QUERIES).map(|_| query(&mut rng, &retriever)).collect();
    // The same queries for plain tantivy (`smg-bench tantivy-read`).
    let asked: String = std::iter::once(&first)
        .chain(&queries)
        .map(|q| format!("{q}\n"))
        .collect();
    std::fs::write(queries_of(path), asked).expect("write the queries");
    let search: Vec<f64> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            std::hint::black_box(retriever.search(q, &options).expect("search"));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    // Turns ranked alone, nothing read: what plain tantivy's top ten by BM25 does,
    // with smg's feedback pass and turn rules on top.
    let ranked: Vec<f64> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            std::hint::black_box(retriever.rank(q, None, &Period::ALL).expect("rank"));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let context: Vec<f64> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            std::hint::black_box(
                retriever
                    .context(q, None, 2000, &Period::ALL)
                    .expect("context"),
            );
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let within = Within::measure(&retriever, &queries);
    let (s50, s95, s99) = percentiles(search);
    let (r50, r95, r99) = percentiles(ranked);
    let (c50, c95, c99) = percentiles(context);
    println!(
        "{} archived turns, {} nodes, file {}; first query {first:?} ({} turns, {} nodes).\n",
        retriever.turn_count(),
        retriever.node_count(),
        kb(std::fs::metadata(path).map_or(0, |m| m.len() as usize)),
        first_found.turns.len(),
        first_found.nodes.len()
    );
    println!("| measure | smg | target |\n|---|---|---|");
    match parsed {
        Some(parsed) => {
            println!(
                "| open: read and parse the file | {:.0} ms | |",
                parsed.as_secs_f64() * 1e3
            );
            println!(
                "| open: + {} | {:.0} ms | |",
                if retriever.used_stored_index() {
                    "decode every block, read the stored search index"
                } else {
                    "decode every block, index every turn"
                },
                opened.as_secs_f64() * 1e3
            );
        }
        None => println!(
            "| open: the stored search index alone (no document parsed, blocks read when needed) | {:.0} ms | |",
            opened.as_secs_f64() * 1e3
        ),
    }
    println!(
        "| open and answer the first query | {:.0} ms | < 300 ms |",
        answered.as_secs_f64() * 1e3
    );
    println!("| resident memory after opening | {rss:.0} MB | < 300 MB |");
    println!("| hybrid search, k = 10 turns + 10 nodes ({QUERIES} queries): p50 / p95 / p99 | {s50:.1} / {s95:.1} / {s99:.1} ms | p99 < 10 ms |");
    println!("| turns ranked alone (`Retriever::rank`: BM25, feedback, neighbours, sessions; no turn read): p50 / p95 / p99 | {r50:.1} / {r95:.1} / {r99:.1} ms | |");
    println!("| context (the turns of a 2,000-token context): p50 / p95 / p99 | {c50:.1} / {c95:.1} / {c99:.1} ms | p99 < 20 ms |");
    within.print();
}

/// Search kept to a month, in the indexes, beside the obvious alternative: the best
/// 1,000 of all time, kept if inside. Each query its own month (a set of the turns
/// inside is made per range and kept for the next query of the same one: a month
/// per query makes every query pay for its own).
struct Within {
    inside: Vec<f64>,
    thinned: Vec<f64>,
    /// Turns found in the month, and how many of those the alternative found too.
    found: usize,
    also: usize,
    /// Turns the alternative gave.
    gave: usize,
}

/// The months searched start on days from this one on, inside the bench's two years
/// of turns.
const FIRST_MONTH: &str = "2023-12-01T00:00:00Z";
const DAY_MS: i64 = 86_400_000;

impl Within {
    fn measure(retriever: &Retriever, queries: &[String]) -> Self {
        let first = chrono::DateTime::parse_from_rfc3339(FIRST_MONTH)
            .expect("a time")
            .timestamp_millis();
        let mut w = Within {
            inside: Vec::new(),
            thinned: Vec::new(),
            found: 0,
            also: 0,
            gave: 0,
        };
        let wide = SearchOptions::new(1000);
        for (i, q) in queries.iter().enumerate() {
            let since = first + (i as i64 % 300) * DAY_MS;
            let period = Period::millis(Some(since), Some(since + 30 * DAY_MS)).expect("a period");
            let mut options = SearchOptions::new(10);
            options.period = period;
            let t = Instant::now();
            let inside = turns_inside(
                &retriever.search(q, &options).expect("search"),
                &period,
                None,
            );
            w.inside.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let thinned = turns_inside(&retriever.search(q, &wide).expect("search"), &period, None);
            w.thinned.push(t.elapsed().as_secs_f64() * 1e3);
            w.found += inside.len();
            w.gave += thinned.len();
            w.also += inside.iter().filter(|t| thinned.contains(t)).count();
        }
        w
    }

    fn print(self) {
        let n = self.inside.len().max(1) as f64;
        let (i50, i95, i99) = percentiles(self.inside);
        let (t50, t95, t99) = percentiles(self.thinned);
        println!(
            "| search within 30 days (a different month each query), in the indexes: p50 / p95 / p99; turns found per query | {i50:.1} / {i95:.1} / {i99:.1} ms; {:.1} | |",
            self.found as f64 / n
        );
        println!(
            "| the alternative: the best 1,000 of all time, kept if inside: p50 / p95 / p99; turns per query, and of the month's best | {t50:.1} / {t95:.1} / {t99:.1} ms; {:.1}, {:.1} | |",
            self.gave as f64 / n,
            self.also as f64 / n
        );
    }
}

/// The first ten turns of `found` inside `period` (and, with `source`, brought by
/// it: `"vector"`), by number.
pub(crate) fn turns_inside(
    found: &smg_engine::search::SearchResults,
    period: &Period,
    source: Option<&str>,
) -> Vec<u64> {
    found
        .turns
        .iter()
        .filter(|f| source.is_none_or(|s| f.sources.contains(&s)))
        .filter_map(|f| match &f.item {
            Item::Turn { turn, .. }
                if turn
                    .timestamp
                    .as_deref()
                    .is_some_and(|t| period.contains(t)) =>
            {
                Some(turn.turn.get())
            }
            _ => None,
        })
        .take(10)
        .collect()
}

/// Generate and ingest `conversations` conversations, then measure in a fresh process.
pub(crate) fn run(conversations: usize, smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let input = dir.join("conversations.jsonl");
    let memory = dir.join("memory.smg");
    std::fs::write(&input, crate::ingest::many(conversations)).expect("write input");
    let start = Instant::now();
    let ingest = Command::new(smg)
        .args(["ingest", "--quiet"])
        .arg(&input)
        .arg("-o")
        .arg(&memory)
        .status()
        .expect("run smg ingest");
    assert!(ingest.success(), "smg ingest failed");
    println!(
        "Ingested {conversations} conversations × 50 turns in {:.1} s (`smg ingest`).",
        start.elapsed().as_secs_f64()
    );
    measure(&memory);
    // The same memory in the packed layout with its search index stored.
    let packed = dir.join("memory.packed.smg");
    let start = Instant::now();
    smg_run(
        smg,
        &["convert", "--layout", "packed", "-o"],
        &packed,
        &memory,
    );
    let converted = start.elapsed();
    smg_run(smg, &["index"], &packed, Path::new(""));
    println!(
        "\nThe same memory in the packed layout (`smg convert --layout packed`, {:.1} s) with its search index stored (`smg index`, {:.1} s more):\n",
        converted.as_secs_f64(),
        (start.elapsed() - converted).as_secs_f64()
    );
    measure(&packed);
    append(smg, dir);
    // Plain tantivy on the same turns and queries, each step in a fresh process.
    println!("\nPlain tantivy (0.27, its defaults: memory-mapped folder, writer threads = cores) on the same turns and queries:\n");
    println!("| measure | plain tantivy | |\n|---|---|---|");
    let index = dir.join("tantivy");
    let file = packed.to_str().expect("a UTF-8 path");
    let queries = queries_of(&packed);
    bench(&["tantivy-build", file, index.to_str().expect("a UTF-8 path")]);
    let queries = queries.to_str().expect("a UTF-8 path");
    bench(&[
        "tantivy-read",
        index.to_str().expect("a UTF-8 path"),
        queries,
    ]);
}

/// Turns appended to the packed file: the last of `input`'s, as a new conversation.
const APPENDED: usize = 50;

/// `smg ingest --append` of [`APPENDED`] turns of `dir`'s conversations to a copy of
/// its packed file, whose stored index the new turns join as a segment; beside it, the
/// same append to a copy whose stored index is of an older version, which the append
/// makes anew from every turn, as every append did before; then the grown file
/// searched.
pub(crate) fn append(smg: &Path, dir: &Path) {
    let (input, packed) = (
        dir.join("conversations.jsonl"),
        dir.join("memory.packed.smg"),
    );
    let all = std::fs::read_to_string(input).expect("read input");
    let lines: Vec<&str> = all.lines().collect();
    let new: String = lines[lines.len().saturating_sub(APPENDED)..]
        .iter()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let id = format!("appended-{}", v["conversation_id"].as_str().unwrap_or(""));
            v["conversation_id"] = id.into();
            format!("{v}\n")
        })
        .collect();
    let more = dir.join("appended.jsonl");
    std::fs::write(&more, new).expect("write appended turns");
    let grown = dir.join("memory.appended.smg");
    let anew = dir.join("memory.anew.smg");
    let bytes = std::fs::read(&packed).expect("read the packed file");
    std::fs::write(&grown, &bytes).expect("copy the packed file");
    std::fs::write(&anew, older_index(&bytes)).expect("write the copy");
    drop(bytes);
    let timed = |file: &Path| {
        let start = Instant::now();
        smg_run(smg, &["ingest", "-q", "--append"], file, &more);
        start.elapsed().as_secs_f64()
    };
    let (added, made) = (timed(&grown), timed(&anew));
    println!("\n{APPENDED} turns appended (`smg ingest --append`) to the packed file:\n");
    println!("| measure | time |\n|---|---|");
    println!("| the new turns added to the stored index as a segment | {added:.1} s |");
    println!("| the alternative: the index made anew from every turn (as before) | {made:.1} s |");
    println!("\nThe grown file, searched (its index in two segments):\n");
    measure(&grown);
    for f in [grown.clone(), anew, queries_of(&grown), more] {
        std::fs::remove_file(f).expect("remove a copy");
    }
}

/// The packed file `bytes` with its stored index marked as of an older version,
/// which no append adds to.
fn older_index(bytes: &[u8]) -> Vec<u8> {
    let name = smg_engine::search::EXTENSION;
    let mut index = smg_format::packed::read_extension(bytes, name)
        .expect("read the index")
        .expect("a stored index")
        .to_vec();
    index[b"smg-search".len()..][..2].copy_from_slice(&20u16.to_le_bytes());
    smg_format::packed::with_extension(bytes, name, &index).expect("store the index")
}

/// Where `smg-bench retrieval-read FILE` leaves the queries it asked.
fn queries_of(file: &Path) -> std::path::PathBuf {
    file.with_extension("queries.txt")
}

/// Run `smg ARGS FILE [INPUT]`.
fn smg_run(smg: &Path, args: &[&str], file: &Path, input: &Path) {
    let mut cmd = Command::new(smg);
    cmd.args(args).arg(file);
    if !input.as_os_str().is_empty() {
        cmd.arg(input);
    }
    let out = cmd.output().expect("run smg");
    assert!(
        out.status.success(),
        "smg {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Measure `file` in a fresh process.
fn measure(file: &Path) {
    bench(&["retrieval-read", file.to_str().expect("a UTF-8 path")]);
}

/// Run `smg-bench ARGS` in a fresh process and print what it prints.
fn bench(args: &[&str]) {
    print!("{}", fresh(args));
}

/// Run `smg-bench ARGS` in a fresh process; what it printed.
pub(crate) fn fresh(args: &[&str]) -> String {
    let out = Command::new(std::env::current_exe().expect("bench binary"))
        .args(args)
        .output()
        .expect("run the bench binary");
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
