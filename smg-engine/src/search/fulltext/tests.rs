use proptest::prelude::*;

use super::*;
use crate::search::words::tokens;

fn index(docs: &[&str]) -> FullText {
    FullText::build(docs.iter().map(|d| tokens(d))).unwrap()
}

fn query(text: &str) -> Vec<(String, f64)> {
    tokens(text).into_iter().map(|t| (t, 1.0)).collect()
}

#[test]
fn stems_and_ranks_the_matching_document_first() {
    let ix = index(&[
        "I painted a sunrise over the lake",
        "We went camping in the mountains",
        "Painting is my way to relax",
    ]);
    let hits = ix
        .top(&query("when did she paint the lake"), 10, None)
        .unwrap();
    assert_eq!(hits[0].0, 0);
    assert_eq!(hits.len(), 2);
    assert!(hits.iter().all(|&(d, _)| d != 1));
    assert_eq!((ix.df("paint"), ix.df("camp"), ix.df("absent")), (2, 1, 0));
    assert!(ix.top(&query("the of"), 10, None).unwrap().is_empty());
    assert!(ix.top(&query("lake"), 0, None).unwrap().is_empty());
}

#[test]
fn a_weight_counts_as_bm25_counts_it() {
    let ix = index(&["apple pie", "banana bread", "apple banana"]);
    let once = ix.top(&[("appl".into(), 1.0)], 3, None).unwrap();
    let twice = ix.top(&[("appl".into(), 2.0)], 3, None).unwrap();
    assert_eq!(once.len(), 2);
    for (a, b) in once.iter().zip(&twice) {
        assert_eq!(a.0, b.0);
        assert!((b.1 - 2.0 * a.1).abs() < 1e-4, "{a:?} {b:?}");
    }
    // A term said twice in a query is one term of the summed weight.
    let summed = ix
        .top(&[("appl".into(), 1.0), ("appl".into(), 1.0)], 3, None)
        .unwrap();
    assert_eq!(summed, twice);
}

#[test]
fn the_same_documents_give_the_same_bytes_and_read_back_alike() {
    let docs = ["red fox jumps", "lazy dog sleeps", "the fox and the dog"];
    let bytes = index(&docs).to_bytes().unwrap();
    assert_eq!(bytes, index(&docs).to_bytes().unwrap());
    let back = FullText::from_bytes(&bytes).unwrap();
    assert!(back.holds_together());
    assert_eq!(back.len(), 3);
    let q = query("fox dog");
    assert_eq!(
        back.top(&q, 5, None).unwrap(),
        index(&docs).top(&q, 5, None).unwrap()
    );
    assert_eq!(back.to_bytes().unwrap(), bytes);
    let empty = FullText::build(Vec::<Vec<String>>::new()).unwrap();
    let back = FullText::from_bytes(&empty.to_bytes().unwrap()).unwrap();
    assert_eq!(back.len(), 0);
    assert!(back.top(&q, 5, None).unwrap().is_empty());
    assert_eq!(
        FullText::default().to_bytes().unwrap(),
        empty.to_bytes().unwrap()
    );
}

#[test]
fn damaged_bytes_are_no_index_or_an_error_never_a_panic() {
    let docs: Vec<String> = (0..300)
        .map(|i| format!("turn {i} about hiking and the bakery {}", i % 7))
        .collect();
    let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let bytes = index(&docs).to_bytes().unwrap();
    assert!(FullText::from_bytes(&bytes[..bytes.len() - 1]).is_none());
    assert!(FullText::from_bytes(b"smgtanti").is_none());
    let q = query("hiking bakery");
    // Every eleventh byte flipped in turn: whatever tantivy makes of it, the answer
    // is an index or none, and a search an answer or SMG-E006.
    for at in (0..bytes.len()).step_by(11) {
        let mut bad = bytes.clone();
        bad[at] ^= 0xa5;
        if let Some(ix) = FullText::from_bytes(&bad) {
            if let Err(e) = ix.top(&q, 10, None) {
                assert_eq!(e.code(), "SMG-E006");
            }
        }
    }
}

#[test]
fn scaled_ranks_every_match_by_its_weight() {
    let ix = index(&["bakery job", "bakery bakery", "hiking"]);
    let q = query("bakery");
    let plain = ix.top_scaled(&q, 5, None, None, |_, s| s).unwrap();
    assert_eq!(plain, ix.top(&q, 5, None).unwrap());
    let favour_first = ix
        .top_scaled(&q, 1, None, None, |d, s| if d == 0 { s * 10.0 } else { s })
        .unwrap();
    assert_eq!(favour_first.len(), 1);
    assert_eq!(favour_first[0].0, 0);
}

fn corpus() -> impl Strategy<Value = Vec<Vec<String>>> {
    prop::collection::vec(corpus_doc(), 0..60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Pruning (block-max WAND) finds what scoring every match finds.
    #[test]
    fn the_best_are_those_of_scoring_everything(
        docs in corpus(),
        q in prop::collection::vec((prop::sample::select(vec!["a", "b", "c", "x"]), 0.1f64..2.0), 1..4),
        k in 1usize..8,
    ) {
        let ix = FullText::build(docs).unwrap();
        let q: Vec<(String, f64)> = q.into_iter().map(|(t, w)| (t.to_string(), w)).collect();
        let pruned = ix.top(&q, k, None).unwrap();
        let all = ix.top_scaled(&q, k, None, None, |_, s| s).unwrap();
        prop_assert_eq!(pruned.len(), all.len());
        for (a, b) in pruned.iter().zip(&all) {
            prop_assert!((a.1 - b.1).abs() < 1e-4, "{:?} {:?}", a, b);
        }
    }

    /// Within a time range, the best are the best of the matches inside it, by either
    /// way of finding them; documents without a time are never inside.
    #[test]
    fn the_best_within_a_range_are_the_best_of_those_inside(
        docs in prop::collection::vec((corpus_doc(), prop::option::of(0i64..20)), 0..60),
        q in prop::collection::vec((prop::sample::select(vec!["a", "b", "c", "x"]), 0.1f64..2.0), 1..4),
        k in prop::sample::select(vec![1usize, 3, 8, PRUNED_MOST + 1]),
        (from, len) in (0i64..20, 0i64..12),
    ) {
        let ix = FullText::build(docs.iter().map(|(terms, time)| Doc {
            terms: terms.clone(),
            time: *time,
            ..Doc::default()
        }))
        .unwrap();
        let q: Vec<(String, f64)> = q.into_iter().map(|(t, w)| (t.to_string(), w)).collect();
        let within = from..from + len;
        let inside = |n: u32| docs[n as usize].1.is_some_and(|t| within.contains(&t));
        let mut want: Vec<(u32, f64)> = ix
            .top_scaled(&q, usize::MAX, None, None, |_, s| s)
            .unwrap()
            .into_iter()
            .filter(|h| inside(h.0))
            .collect();
        want.truncate(k);
        for got in [
            ix.top(&q, k, Some(&within)).unwrap(),
            ix.top_scaled(&q, k, Some(&within), None, |_, s| s).unwrap(),
        ] {
            prop_assert!(got.iter().all(|h| inside(h.0)), "{:?}", got);
            prop_assert_eq!(got.len(), want.len());
            for (a, b) in got.iter().zip(&want) {
                prop_assert!((a.1 - b.1).abs() < 1e-4, "{:?} {:?}", a, b);
            }
        }
    }
}

fn corpus_doc() -> impl Strategy<Value = Vec<String>> {
    let word = prop::sample::select(vec!["a", "b", "c", "d", "e", "f"]);
    prop::collection::vec(word.prop_map(String::from), 0..6)
}

/// 3,000 documents: "common" 1 to `spread` times, and "rare" in every fifth.
fn common_and_rare(spread: usize) -> FullText {
    let docs: Vec<Vec<String>> = (0..3000)
        .map(|i| {
            let mut d = vec!["common".to_string(); 1 + i % spread];
            if i % 5 == 0 {
                d.push("rare".into());
            }
            d
        })
        .collect();
    FullText::build(docs).unwrap()
}

#[test]
fn many_results_are_found_alike_by_both_ways() {
    // More than PRUNED_MOST results: every match scored, the best kept as it goes.
    let ix = common_and_rare(3);
    let q = [("common".to_string(), 1.0), ("rare".to_string(), 0.5)];
    let many = ix.top(&q, PRUNED_MOST + 50, None).unwrap();
    let few = ix.top(&q, 20, None).unwrap();
    assert_eq!(many.len(), PRUNED_MOST + 50);
    assert_eq!(&many[..20], &few[..]);
    assert!(many.windows(2).all(|w| better(&w[0], &w[1]).is_le()));
    assert_eq!(
        many,
        ix.top_scaled(&q, PRUNED_MOST + 50, None, None, |_, s| s)
            .unwrap()
    );
    assert_eq!(ix.top(&q, 5000, None).unwrap().len(), 3000);
}

#[test]
fn candidates_are_the_best_in_the_order_of_their_numbers() {
    let ix = common_and_rare(7);
    let q = [("common".to_string(), 1.0), ("rare".to_string(), 0.5)];
    for k in [3, PRUNED_MOST, PRUNED_MOST + 1, 2000, 5000] {
        let mut best = ix.top(&q, k, None).unwrap();
        best.sort_unstable_by_key(|h| h.0);
        assert_eq!(ix.candidates(&q, k, None, None).unwrap(), best, "k = {k}");
    }
}

#[test]
fn a_large_segment_is_scored_in_halves_as_a_whole() {
    let n = SPLIT_FROM as usize + 1000;
    let docs = (0..n).map(|i| {
        let mut d = vec!["word".to_string()];
        if i % 1000 == 999 {
            d.push("rare".into());
        }
        d
    });
    let ix = FullText::build(docs).unwrap();
    let q = [("rare".to_string(), 1.0), ("word".to_string(), 0.1)];
    let all = ix.top(&q, n + 1, None).unwrap();
    assert_eq!(all.len(), n);
    let rare: Vec<u32> = all.iter().take(n / 1000).map(|&(d, _)| d).collect();
    let expected: Vec<u32> = (0..n as u32).filter(|i| i % 1000 == 999).collect();
    assert_eq!(rare, expected);
    assert_eq!(all[..10], ix.top(&q, 10, None).unwrap()[..]);
}

#[test]
fn segments_merge_in_the_order_of_their_documents() {
    let docs: Vec<Vec<String>> = (0..50)
        .map(|i| {
            tokens(&format!(
                "turn {i} about {}",
                ["hiking", "bakery", "lisbon"][i % 3]
            ))
        })
        .collect();
    let built = |every| FullText::build_committing(docs.clone(), every).unwrap();
    let (a, b) = (built(7), built(7));
    assert_eq!(a.to_bytes().unwrap(), b.to_bytes().unwrap());
    let one = FullText::build(docs.clone()).unwrap();
    let q = query("bakery lisbon");
    assert_eq!(a.top(&q, 50, None).unwrap(), one.top(&q, 50, None).unwrap());
    let back = FullText::from_bytes(&a.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.top(&q, 5, None).unwrap(),
        one.top(&q, 5, None).unwrap()
    );
}

/// Documents with values: every third without a time, one before 1970.
fn valued(n: usize) -> Vec<Doc> {
    (0..n)
        .map(|i| Doc {
            terms: tokens(&format!("turn {i} about hiking")),
            numbers: vec![
                (Column64::Session, (i / 10) as u64),
                (Column64::Flags, if i % 2 == 0 { FLAG_TIMED } else { 0 }),
            ],
            time: (i % 3 != 0).then(|| (i as i64 - 5) * 1000),
            weight: Some(i as f64 / 4.0),
            record: format!("record {i}").into_bytes(),
            links: (0..i % 4).map(|j| (j as u32, 0.25 * j as f32)).collect(),
            key: (i % 5 != 0).then(|| format!("id-{i}")),
        })
        .collect()
}

#[test]
fn values_are_read_by_number_in_place_and_after_a_merge() {
    let docs = valued(40);
    let built = FullText::build(docs.clone()).unwrap();
    let merged = FullText::build_committing(docs.clone(), 7).unwrap();
    let back = FullText::from_bytes(&merged.to_bytes().unwrap()).unwrap();
    for ix in [&built, &merged, &back] {
        for (i, d) in docs.iter().enumerate() {
            let n = i as u32;
            assert_eq!(ix.number(Column64::Session, n), Some((i / 10) as u64));
            assert_eq!(ix.number(Column64::Speaker, n), None, "never given");
            assert_eq!(ix.flag(FLAG_TIMED, n), i % 2 == 0);
            assert!(!ix.flag(FLAG_HIT, n));
            assert_eq!(ix.time(n), d.time);
            assert_eq!(ix.weight(n), d.weight);
            assert_eq!(ix.record(n).unwrap(), d.record);
            let mut links = ix.links(n);
            links.sort_by_key(|l| l.0);
            let given: Vec<(u32, f64)> = d.links.iter().map(|&(o, s)| (o, f64::from(s))).collect();
            assert_eq!(links, given);
            assert_eq!(ix.link_count(n), d.links.len());
            let key = d.key.as_deref().unwrap_or("none");
            assert_eq!(ix.find(key).unwrap(), d.key.as_ref().map(|_| n));
        }
        assert_eq!(ix.find("id-").unwrap(), None);
        assert_eq!((ix.links(40), ix.link_count(40)), (Vec::new(), 0));
        assert_eq!(ix.number(Column64::Session, 40), None);
        assert_eq!(ix.time(40), None);
        assert_eq!(ix.record(40).unwrap_err().code(), "SMG-E006");
        assert_eq!(ix.latest(), Some(33_000));
        // [-2 s, 4 s): turns 4 (-1 s) … 8 (3 s) but 6, which has no time.
        assert_eq!(ix.timed_within(-2000..4000), [4, 5, 7, 8]);
        assert!(ix.timed_within(4000..4000).is_empty());
        // The same as a set (what a search by meaning looks its rows up in).
        for within in [-2000..4000, 20_000..40_000, 99_000..99_999] {
            let inside = ix.inside(&within).unwrap();
            let found: Vec<u32> = (0..50).filter(|&n| inside.contains(n)).collect();
            assert_eq!(found, ix.timed_within(within.clone()), "{within:?}");
            assert_eq!(inside.len(), found.len());
        }
    }
    // In segments: a set each, looked up by number.
    let many = valued(100);
    let whole = FullText::build(many.clone()).unwrap();
    let grown = FullText::build(many[..90].to_vec())
        .unwrap()
        .appended(many[90..].to_vec())
        .unwrap();
    assert_eq!(grown.segments(), 2);
    for within in [-2000..4000, 10_000..90_000, 80_000..99_000] {
        let inside = grown.inside(&within).unwrap();
        let found: Vec<u32> = (0..110).filter(|&n| inside.contains(n)).collect();
        assert_eq!(found, whole.timed_within(within.clone()), "{within:?}");
        assert!(found.iter().any(|&n| n >= 90) || within.end < 85_000);
    }
    let empty = FullText::build(Vec::<Doc>::new()).unwrap();
    assert_eq!((empty.latest(), empty.time(0)), (None, None));
    assert!(empty.timed_within(i64::MIN..i64::MAX).is_empty());
}

#[test]
fn damaged_values_are_none_or_an_error_never_a_panic() {
    let docs = valued(300);
    let bytes = FullText::build(docs).unwrap().to_bytes().unwrap();
    for at in (0..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x5a;
        let Some(ix) = FullText::from_bytes(&bad) else {
            continue;
        };
        for n in [0, 1, 150, 299, 300] {
            let _ = (ix.number(Column64::Session, n), ix.time(n), ix.weight(n));
            let _ = (ix.links(n), ix.link_count(n));
            if let Err(e) = ix.find(&format!("id-{n}")) {
                assert_eq!(e.code(), "SMG-E006");
            }
            if let Err(e) = ix.record(n) {
                assert_eq!(e.code(), "SMG-E006");
            }
        }
        let _ = (ix.latest(), ix.timed_within(-10_000..10_000));
    }
}

#[test]
fn a_range_past_the_values_finds_nothing() {
    // tantivy reads a value range from the column's least value: one below the least
    // was read as the least, one above the most as the most.
    let ix = FullText::build((0..3u64).map(|i| Doc {
        terms: vec!["c".into()],
        time: Some(10 + i as i64),
        numbers: vec![(Column64::Session, 5 + i)],
        ..Doc::default()
    }))
    .unwrap();
    let q = vec![("c".to_string(), 1.0)];
    for (within, want) in [
        (0..10, vec![]),
        (13..20, vec![]),
        (0..11, vec![0]),
        (12..99, vec![2]),
    ] {
        let got: Vec<u32> = ix
            .top(&q, 5, Some(&within))
            .unwrap()
            .into_iter()
            .map(|h| h.0)
            .collect();
        let mut got = got;
        got.sort();
        assert_eq!(got, want, "{within:?}");
        assert_eq!(ix.timed_within(within.clone()), want, "{within:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// An index built in pieces — a build, then appends that add segments, stored
    /// and read back — answers as the index of every document built at once.
    #[test]
    fn an_index_appended_to_answers_as_one_built_at_once(
        docs in prop::collection::vec((corpus_doc(), prop::option::of(0i64..20)), 1..80),
        cuts in prop::collection::vec(0usize..80, 1..4),
        q in prop::collection::vec((prop::sample::select(vec!["a", "b", "c", "x"]), 0.1f64..2.0), 1..4),
        k in prop::sample::select(vec![1usize, 3, 8, PRUNED_MOST + 1]),
        (from, len) in (0i64..20, 0i64..12),
    ) {
        let doc = |(terms, time): &(Vec<String>, Option<i64>)| Doc {
            terms: terms.clone(),
            time: *time,
            weight: time.map(|t| t as f64),
            record: terms.join(" ").into_bytes(),
            numbers: vec![(Column64::Chars, terms.len() as u64)],
            ..Doc::default()
        };
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % docs.len()).collect();
        cuts.push(docs.len());
        cuts.sort_unstable();
        let mut pieces = FullText::build(docs[..cuts[0]].iter().map(doc)).unwrap();
        for w in cuts.windows(2) {
            pieces = pieces.appended(docs[w[0]..w[1]].iter().map(doc)).unwrap();
        }
        let stored = FullText::from_bytes(&pieces.to_bytes().unwrap()).unwrap();
        let whole = FullText::build(docs.iter().map(doc)).unwrap();
        let q: Vec<(String, f64)> = q.into_iter().map(|(t, w)| (t.to_string(), w)).collect();
        let within = from..from + len;
        for ix in [&pieces, &stored] {
            prop_assert_eq!(ix.len(), docs.len());
            prop_assert_eq!(ix.top(&q, k, None).unwrap(), whole.top(&q, k, None).unwrap());
            prop_assert_eq!(
                ix.top(&q, k, Some(&within)).unwrap(),
                whole.top(&q, k, Some(&within)).unwrap()
            );
            prop_assert_eq!(
                ix.top_scaled(&q, k, None, None, |n, s| s + f64::from(n)).unwrap(),
                whole.top_scaled(&q, k, None, None, |n, s| s + f64::from(n)).unwrap()
            );
            prop_assert_eq!(ix.timed_within(within.clone()), whole.timed_within(within.clone()));
            prop_assert_eq!(ix.latest(), whole.latest());
            let all: Vec<u32> = (0..=docs.len() as u32).collect();
            prop_assert_eq!(ix.numbers(Column64::Chars, &all), whole.numbers(Column64::Chars, &all));
            for n in all {
                prop_assert_eq!(ix.time(n), whole.time(n));
                prop_assert_eq!(ix.weight(n), whole.weight(n));
                prop_assert_eq!(ix.record(n).ok(), whole.record(n).ok());
            }
        }
    }
}
