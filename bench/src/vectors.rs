//! Embeddings at scale: the retrieval bench's memory with a vector for every archived
//! turn (int8 components, as `smg embed` stores them; drawn at random here, since
//! embedding a million turns with the model takes hours on two cores), stored in the
//! packed file with its search index, then opened in a fresh process as `smg search`
//! opens it and searched with a query vector beside the words.

use std::path::Path;
use std::time::Instant;

use smg_engine::search::{
    encode_with_search_index, Period, QueryVector, Retriever, SearchOptions, SearchResults,
};
use smg_format::model::{Embedding, Ordinal, Vector, VectorIndex};
use smg_format::{from_bytes, Encoding, Limits, WriteOptions};

use crate::generate::Rng;
use crate::retrieval::{percentiles, query, rss_mb, QUERIES};

/// The model the vectors are said to come from.
const MODEL: &str = "random-int8";

/// A vector of `dimensions` components in −127..=127.
fn random(rng: &mut Rng, dimensions: usize) -> Vec<f64> {
    (0..dimensions)
        .map(|_| rng.below(255) as f64 - 127.0)
        .collect()
}

/// `smg-bench vectors PACKED OUT DIMENSIONS`: PACKED with a vector for each archived
/// turn, written to OUT (packed, its search index stored).
pub(crate) fn write(packed: &Path, out: &Path, dimensions: usize) {
    let limits = Limits::default();
    let start = Instant::now();
    let (mut doc, _) = from_bytes(&std::fs::read(packed).expect("read"), &limits).expect("parse");
    let archive = doc.deep_archive.as_mut().expect("an archive");
    let turns: Vec<u64> = archive
        .blocks()
        .iter()
        .filter_map(|b| smg_format::archive::parse_turn_range(&b.turn_range))
        .flat_map(|(first, last)| first..=last)
        .collect();
    let mut rng = Rng::new(29);
    let embeddings = turns
        .iter()
        .map(|&t| Embedding {
            turn: Ordinal::new(t).ok(),
            vector: Vector::new(random(&mut rng, dimensions)).expect("finite"),
            ..Embedding::default()
        })
        .collect();
    archive.vector_index = Some(VectorIndex {
        enabled: true,
        model: Some(MODEL.into()),
        dimensions: Ordinal::new(dimensions as u64).ok(),
        quantization: Some("int8".into()),
        embeddings: Some(embeddings),
        ..VectorIndex::default()
    });
    let made = start.elapsed();
    let options = WriteOptions::new(Encoding::Packed);
    let bytes = encode_with_search_index(doc, &options, &limits).expect("write");
    std::fs::write(out, &bytes).expect("write the file");
    println!(
        "{} turns, {dimensions} dimensions each: read and given vectors in {:.1} s, written packed with its search index in {:.1} s more ({} MB).\n",
        turns.len(),
        made.as_secs_f64(),
        (start.elapsed() - made).as_secs_f64(),
        bytes.len() / 1_000_000
    );
}

/// `smg-bench vectors-read FILE`: open by the stored index, then search with words
/// and a query vector (a turn's own vector moved a little: that turn should come
/// back), and with words alone; prints one Markdown table.
pub(crate) fn read(path: &Path, dimensions: usize) {
    let limits = Limits::default();
    let start = Instant::now();
    let retriever = Retriever::open_packed(path, &limits)
        .expect("open")
        .expect("a packed file with its search index");
    let opened = start.elapsed();
    let rss = rss_mb();
    // The vectors `write` drew, drawn again in the same order.
    let mut drawn = Rng::new(29);
    let rows: Vec<Vec<f64>> = (0..retriever.turn_count())
        .map(|_| random(&mut drawn, dimensions))
        .collect();
    let mut rng = Rng::new(31);
    let asked: Vec<(String, usize, QueryVector)> = (0..QUERIES)
        .map(|_| {
            let words = query(&mut rng, &retriever);
            let i = rng.below(rows.len() as u64) as usize;
            let values = rows[i]
                .iter()
                .map(|x| x + rng.below(21) as f64 - 10.0)
                .collect();
            let vector = QueryVector {
                model: MODEL.into(),
                values,
            };
            (words, i, vector)
        })
        .collect();
    let search = |(words, _, vector): &(String, usize, QueryVector), exact: bool| {
        let mut o = SearchOptions::new(10);
        o.vector = Some(vector.clone());
        o.exact = exact;
        retriever.search(words, &o).expect("search")
    };
    let with = |a: &(String, usize, QueryVector)| search(a, false);
    let first = Instant::now();
    with(&asked[0]);
    let first = first.elapsed();
    let mut found = 0;
    let timed: Vec<f64> = asked
        .iter()
        .map(|a| {
            let t = Instant::now();
            let r = with(a);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let turn = retriever.turn(a.1).expect("a turn").turn;
            let hit = |h: &smg_engine::search::Found| {
                matches!(&h.item, smg_engine::search::Item::Turn { turn: t, .. } if t.turn == turn)
            };
            found += usize::from(r.turns.iter().any(hit));
            ms
        })
        .collect();
    let words: Vec<f64> = asked
        .iter()
        .map(|(w, _, _)| {
            let t = Instant::now();
            std::hint::black_box(
                retriever
                    .search(w, &SearchOptions::new(10))
                    .expect("search"),
            );
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    // The obvious alternative: every row scored (what this build did before it
    // narrowed by sign bits); and how many of its hits the narrowed search shares.
    let (mut shared, mut hits) = (0, 0);
    let exact: Vec<f64> = asked
        .iter()
        .map(|a| {
            let t = Instant::now();
            let all = search(a, true);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let narrowed = with(a);
            let ids = |r: &smg_engine::search::SearchResults| -> Vec<String> {
                r.turns
                    .iter()
                    .chain(&r.nodes)
                    .map(|h| format!("{:?}", h.item))
                    .collect()
            };
            let (all, narrowed) = (ids(&all), ids(&narrowed));
            hits += all.len();
            shared += all.iter().filter(|h| narrowed.contains(h)).count();
            ms
        })
        .collect();
    let (e50, e95, e99) = percentiles(exact);
    let (v50, v95, v99) = percentiles(timed);
    let (w50, w95, w99) = percentiles(words);
    println!("| measure | smg |\n|---|---|");
    println!(
        "| open: the stored search index alone, vectors mapped | {:.0} ms |",
        opened.as_secs_f64() * 1e3
    );
    println!("| resident memory after opening | {rss:.0} MB |");
    println!(
        "| first search with a query vector | {:.1} ms |",
        first.as_secs_f64() * 1e3
    );
    println!("| hybrid search with a query vector ({QUERIES} queries): p50 / p95 / p99 | {v50:.1} / {v95:.1} / {v99:.1} ms |");
    println!(
        "| the same queries by words alone: p50 / p95 / p99 | {w50:.1} / {w95:.1} / {w99:.1} ms |"
    );
    println!("| queries whose vector's turn is among the 10 turns found | {found} of {QUERIES} |");
    println!("| the same with every embedding scored (`--exact`): p50 / p95 / p99 | {e50:.1} / {e95:.1} / {e99:.1} ms |");
    println!("| hits (turns and nodes) the exact search also gives | {shared} of {hits} |");
    within_spans(&retriever, &asked);
}

/// The same searches kept to a span about the query vector's turn (30 days: few
/// enough rows inside that each is scored; a year: so many that they are narrowed
/// first; and all time): what `--since/--until` does, beside the reference (every
/// row inside scored, `--exact`) and the obvious alternative (the best 1,000 of all
/// time, kept if inside); with how many of the reference's turns each finds.
fn within_spans(retriever: &Retriever, asked: &[(String, usize, QueryVector)]) {
    const DAY_MS: i64 = 86_400_000;
    for days in [Some(30), Some(365), None] {
        let mut times = [Vec::new(), Vec::new()];
        let (mut wanted, mut found) = (0, [0; 2]);
        for (words, i, vector) in asked {
            let turn = retriever.turn(*i).expect("a turn");
            let Some(at) = turn.timestamp.as_deref().and_then(millis) else {
                continue;
            };
            let period = days.map_or(Period::ALL, |days| {
                let half = days * DAY_MS / 2;
                Period::millis(Some(at - half), Some(at + half)).expect("a period")
            });
            let mut o = SearchOptions::new(10);
            o.vector = Some(vector.clone());
            o.period = period;
            o.exact = true;
            let reference = vector_turns(&retriever.search(words, &o).expect("search"), &period);
            o.exact = false;
            let mut wide = SearchOptions::new(1000);
            wide.vector = Some(vector.clone());
            // All time, the alternative is the search itself.
            let alternative = days.map(|_| wide);
            for (k, options) in std::iter::once(o).chain(alternative).enumerate() {
                let t = Instant::now();
                let got = retriever.search(words, &options).expect("search");
                times[k].push(t.elapsed().as_secs_f64() * 1e3);
                let got = vector_turns(&got, &period);
                found[k] += reference.iter().filter(|t| got.contains(t)).count();
            }
            wanted += reference.len();
        }
        let span = days.map_or("of all time".into(), |d| {
            format!("within {d} days about its turn")
        });
        let rows = [
            format!("with the vector, {span}"),
            "the alternative: the best 1,000 of all time, kept if inside".into(),
        ];
        let measured = times.into_iter().filter(|t| !t.is_empty());
        for ((row, ms), found) in rows.iter().zip(measured).zip(found) {
            let (p50, p95, p99) = percentiles(ms);
            println!("| {row}: p50 / p95 / p99; of the {wanted} turns the vectors give with every row inside scored, found | {p50:.1} / {p95:.1} / {p99:.1} ms; {found} |");
        }
    }
}

/// An RFC 3339 time in ms.
fn millis(t: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// The turns of `found` that the vectors brought and that fall in `period`, the
/// first ten, by number.
fn vector_turns(found: &SearchResults, period: &Period) -> Vec<u64> {
    crate::retrieval::turns_inside(found, period, Some("vector"))
}
