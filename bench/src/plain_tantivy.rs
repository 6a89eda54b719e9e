//! Plain tantivy beside smg (issue 32's baseline): every turn of the memory indexed by
//! tantivy into a folder (its default memory-mapped directory, its default writer
//! threads), opened in a fresh process and asked the same queries as smg was. The
//! schema is the one the issue asks of smg's own: turn number, conversation, session
//! and speaker, the time as a fast field, the text stemmed (`en_stem`).

use std::path::Path;
use std::time::Instant;

use smg_engine::search::Retriever;
use smg_format::{from_bytes, Limits};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::{DateTime, Index, IndexWriter, ReloadPolicy, TantivyDocument};

use super::retrieval::{percentiles, rss_mb};
use crate::kb;

/// Bytes the writer may buffer before it writes a segment.
const WRITER_BUDGET: usize = 256 << 20;

struct Fields {
    turn: Field,
    conversation: Field,
    session: Field,
    speaker: Field,
    timestamp: Field,
    text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        turn: b.add_u64_field("turn", INDEXED | STORED | FAST),
        conversation: b.add_text_field("conversation", STRING | STORED | FAST),
        session: b.add_text_field("session", STRING | FAST),
        speaker: b.add_text_field("speaker", STRING | FAST),
        timestamp: b.add_date_field("timestamp", INDEXED | FAST),
        text: b.add_text_field("text", text),
    };
    (b.build(), fields)
}

/// Every turn of the memory in `file`, as `smg search` reads them.
fn turns(file: &Path) -> Vec<smg_format::model::Turn> {
    let limits = Limits::default();
    let retriever = match Retriever::open_packed(file, &limits).expect("open") {
        Some(r) => r,
        None => {
            let bytes = std::fs::read(file).expect("read");
            let (doc, _) = from_bytes(&bytes, &limits).expect("parse");
            Retriever::open(&bytes, &doc, &limits).expect("index")
        }
    };
    (0..retriever.turn_count())
        .map(|i| retriever.turn(i).expect("turn").into_owned())
        .collect()
}

/// Index `turns` into the folder `dir` (made anew) with `threads` writer threads
/// (`None`: tantivy's default); returns the seconds it took.
fn index_into(turns: &[smg_format::model::Turn], dir: &Path, threads: Option<usize>) -> f64 {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("index dir");
    let (schema, f) = schema();
    let start = Instant::now();
    let index = Index::create_in_dir(dir, schema).expect("create");
    let mut writer: IndexWriter = match threads {
        Some(n) => index.writer_with_num_threads(n, WRITER_BUDGET),
        None => index.writer(WRITER_BUDGET),
    }
    .expect("writer");
    for t in turns {
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.turn, t.turn.get());
        doc.add_text(f.conversation, t.conversation_id.as_deref().unwrap_or(""));
        doc.add_text(f.session, t.session_id.as_deref().unwrap_or(""));
        doc.add_text(f.speaker, t.speaker.as_deref().unwrap_or(&t.role));
        if let Some(secs) = t.timestamp.as_deref().and_then(seconds) {
            doc.add_date(f.timestamp, DateTime::from_timestamp_secs(secs));
        }
        doc.add_text(f.text, &t.content);
        writer.add_document(doc).expect("add");
    }
    writer.commit().expect("commit");
    writer.wait_merging_threads().expect("merge");
    start.elapsed().as_secs_f64()
}

/// `smg-bench tantivy-build FILE DIR`: index the turns of FILE into the folder DIR
/// as plain tantivy does. Prints the time, throughput and size.
pub(crate) fn build(file: &Path, dir: &Path) {
    let turns = turns(file);
    let text: usize = turns.iter().map(|t| t.content.len()).sum();
    let took = index_into(&turns, dir, None);
    let bytes: u64 = std::fs::read_dir(dir)
        .expect("list")
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "| plain tantivy: index {} turns ({} of text) | {took:.1} s, {:.0} turns/s, {:.1} MB/s of text | index {} in {} files |",
        turns.len(),
        kb(text),
        turns.len() as f64 / took,
        text as f64 / took / 1e6,
        kb(bytes as usize),
        std::fs::read_dir(dir).map_or(0, |d| d.count()),
    );
}

/// Seconds since 1970 of an RFC 3339 time.
fn seconds(t: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|d| d.timestamp())
}

/// `smg-bench tantivy-read DIR QUERIES`: open the index in the folder DIR, answer the
/// first line of QUERIES, then time the others; prints rows of a Markdown table.
pub(crate) fn read(path: &Path, queries: &Path) {
    let queries = std::fs::read_to_string(queries).expect("queries");
    let mut queries = queries.lines();
    let first = queries.next().expect("a first query");
    let start = Instant::now();
    let index = Index::open_in_dir(path).expect("open");
    let label = "plain tantivy";
    let text = index.schema().get_field("text").expect("text field");
    let reader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .expect("reader");
    let searcher = reader.searcher();
    let parser = QueryParser::for_index(&index, vec![text]);
    let top = TopDocs::with_limit(10).order_by_score();
    let found = searcher
        .search(&parser.parse_query_lenient(first).0, &top)
        .expect("search");
    let answered = start.elapsed().as_secs_f64() * 1e3;
    let rss = rss_mb();
    let times: Vec<f64> = queries
        .map(|q| {
            let t = Instant::now();
            let query = parser.parse_query_lenient(q).0;
            std::hint::black_box(searcher.search(&query, &top).expect("search"));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let n = times.len();
    let (p50, p95, p99) = percentiles(times);
    println!(
        "| {label}: open and answer the first query ({} hits) | {answered:.1} ms | |",
        found.len()
    );
    println!("| {label}: resident memory after opening | {rss:.0} MB | |");
    println!("| {label}: search, k = 10 turns ({n} queries): p50 / p95 / p99 | {p50:.2} / {p95:.2} / {p99:.2} ms | |");
}
