//! The best documents for a query without scoring every posting: MaxScore (Turtle and
//! Flood, 1995) over the skip blocks, scored a window of documents at a time (as
//! Lucene's bulk scorers do). Terms whose most together cannot lift a document into the
//! results are "non-essential": their lists are not walked, only looked up for the
//! documents the other terms make promising (which terms those are is chosen to leave
//! the most postings unread). A window whose blocks together cannot lift any document
//! is passed over whole. Within a window each essential term adds its postings to a
//! small table, in a tight loop with no choice of which list comes next; then each
//! non-essential term, a term at a time, adds to the documents that can still reach,
//! which fewer and fewer do. When two halves of the documents are searched side by
//! side, they share a bar.
//!
//! What each term adds is summed in fixed point ([`fixed`]): integer sums come out the
//! same in any order, so the results are those of scoring every posting, to the last
//! bit, however the work is cut up.

use std::cmp::{Ordering, Reverse};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{take_posting, Bm25};

/// Headroom on bounds, which are summed in floating point, against scores summed in
/// fixed point: relative, and for each term's rounding.
const SLACK: f64 = 1.0 + 1e-9;
const ROUNDING: f64 = 1e-6;
/// The document of a cursor past its last posting.
const DONE: u32 = u32::MAX;
/// How a query is cut up: the property tests cut small corpora as finely as a large
/// one is, to check every way against scoring everything.
#[derive(Clone, Copy)]
struct Plan {
    /// Documents in a window (a multiple of 64).
    window: usize,
    /// Postings over which a query is answered in two halves side by side.
    split: usize,
}

const PLAN: Plan = Plan {
    window: 2048,
    split: 50_000,
};
/// Units of a score in [`fixed`] point.
const ONE: f64 = (1u64 << 32) as f64;

/// What a term adds to a score, in fixed point: a 2^-32 is far finer than any two
/// scores that rank apart, and a sum of a query's terms stays far inside an `i64`.
fn fixed(v: f64) -> i64 {
    // Rounded to the nearest unit (v is never negative): `f64::round` is a call into
    // libm on the baseline target, and this is the innermost loop.
    (v * ONE + 0.5) as i64
}

/// A fixed-point sum as a score.
fn score_of(sum: i64) -> f64 {
    sum as f64 / ONE
}

/// A place in one query term's postings.
#[derive(Clone)]
struct Cursor<'a> {
    ix: &'a Bm25,
    /// The term's weight in the query times its idf.
    weight: f64,
    /// The most the term adds to any document.
    most: f64,
    /// How many documents hold the term.
    postings: u32,
    /// Where the next posting begins in `ix.postings`, and where the term's end.
    at: usize,
    end: usize,
    /// The block of the current posting, and the end of the term's blocks.
    block: usize,
    blocks_end: usize,
    /// The current posting, `DONE` past the last.
    doc: u32,
    tf: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor on the first posting of term `t`.
    fn new(ix: &'a Bm25, t: usize, weight: f64) -> Self {
        let blocks = ix.block_starts[t]..ix.block_starts[t + 1];
        let most = ix.block_max[blocks.clone()]
            .iter()
            .fold(0.0f64, |m, &b| m.max(f64::from(b)));
        let mut c = Cursor {
            ix,
            weight,
            most: weight * most,
            postings: ix.counts[t],
            at: ix.starts[t],
            end: ix.starts[t + 1],
            block: blocks.start,
            blocks_end: blocks.end,
            doc: 0,
            tf: 0,
        };
        // The first posting, in the term's first block.
        c.step(c.bytes());
        c
    }

    /// The postings up to the term's end, as [`Cursor::step`] reads them.
    fn bytes(&self) -> &'a [u8] {
        self.ix.postings.get(..self.end).unwrap_or_default()
    }

    /// Move to the next posting of `bytes` (the postings up to the term's end),
    /// leaving the block behind: see [`Cursor::find_block`].
    fn step(&mut self, bytes: &[u8]) {
        if self.at >= self.end {
            self.doc = DONE;
            return;
        }
        match take_posting(bytes, &mut self.at) {
            Some((gap, tf)) if (self.doc as usize + gap as usize) < self.ix.lengths.len() => {
                self.doc += gap;
                self.tf = tf;
            }
            // A damaged stored index reads as fewer postings.
            _ => self.doc = DONE,
        }
    }

    /// Catch the block up with the current posting after [`Cursor::step`]s: the
    /// first block that ends at or after its document.
    fn find_block(&mut self) {
        let doc = self.doc;
        let rest = &self.ix.block_last[self.block..self.blocks_end];
        self.block += rest.partition_point(|&last| last < doc);
    }

    /// Move to the first posting at or after document `target`, jumping over the
    /// blocks that end before it.
    fn seek(&mut self, target: u32) {
        if self.doc >= target {
            return;
        }
        let ix = self.ix;
        let rest = &ix.block_last[self.block..self.blocks_end];
        // Targets come in order, mostly close together: the current block first,
        // then the blocks beyond by a search that widens (galloping).
        let b = self.block + gallop(rest, target);
        if b == self.blocks_end {
            self.doc = DONE;
            return;
        }
        if b > self.block {
            self.at = ix.block_end[b - 1];
            self.doc = ix.block_last[b - 1];
            self.block = b;
        }
        // The posting is in block b: no block to keep up with on the way.
        let bytes = self.bytes();
        while self.doc < target {
            self.step(bytes);
        }
    }

    /// The most the term adds to a document from the current one up to (not
    /// including) `end`, by the blocks that hold them; nothing is decoded.
    fn most_below(&self, end: u32) -> f64 {
        let ix = self.ix;
        if self.doc >= end {
            return 0.0;
        }
        let mut m = 0.0f32;
        for b in self.block..self.blocks_end {
            m = m.max(ix.block_max[b]);
            if ix.block_last[b] >= end.saturating_sub(1) {
                break;
            }
        }
        self.weight * f64::from(m)
    }

    /// What the current posting adds to its document's score.
    fn score(&self) -> f64 {
        let dl = self.ix.lengths[self.doc as usize];
        self.weight * self.ix.posting_norm(self.tf, dl)
    }
}

/// The first place in `lasts` (ascending) whose value is at or past `target`, found
/// from the front in steps that double, then by halves: as many steps as the log of
/// the distance, not of the length.
fn gallop(lasts: &[u32], target: u32) -> usize {
    let mut below = 0;
    let mut step = 1;
    while below + step <= lasts.len() && lasts[below + step - 1] < target {
        below += step;
        step *= 2;
    }
    let upto = (below + step).min(lasts.len());
    below + lasts[below..upto].partition_point(|&last| last < target)
}

/// A scored document, greater when better: a higher score, then the lower document.
#[derive(Clone, Copy, PartialEq)]
struct Ranked(f64, u32);

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// The `k` best so far, among up to twice as many: a document that reaches the bar
/// is put with them, and when there are twice `k` the worse half is dropped and the
/// bar raised to the `k`-th best. That is a constant cost per document, where a heap
/// costs the log of `k` for each, and a query may keep thousands.
struct Best<'s> {
    k: usize,
    kept: Vec<Ranked>,
    /// What a document's sum is scaled by, at most.
    most_scale: f64,
    /// The bar a document must reach: the `k`-th best score when the worse were
    /// last dropped (or the bar both halves share, if higher), −∞ before.
    worst: f64,
    /// When this is one half of a query: what the halves share, and which this is.
    shared: Option<(&'s Shared, usize)>,
}

/// What the two halves of a query share: each one's ⌈k/2⌉-th best score so far.
/// Together they hold at least `k` documents that score at least the lower of the
/// two, so neither half need keep a document below it. That bar is near the `k`-th
/// best of all, where a half alone knows only its own `k`-th best (about the
/// `2k`-th of all).
struct Shared([AtomicU64; 2]);

impl Shared {
    fn new() -> Self {
        let none = f64::NEG_INFINITY.to_bits();
        Shared([AtomicU64::new(none), AtomicU64::new(none)])
    }

    /// A half's `⌈k/2⌉`-th best, which only rises.
    fn publish(&self, half: usize, score: f64) {
        self.0[half].store(score.to_bits(), Relaxed);
    }

    /// The bar both halves may use.
    fn bar(&self) -> f64 {
        let [a, b] = &self.0;
        f64::from_bits(a.load(Relaxed)).min(f64::from_bits(b.load(Relaxed)))
    }
}

impl<'s> Best<'s> {
    fn new(k: usize, most_scale: f64, shared: Option<(&'s Shared, usize)>) -> Self {
        Best {
            k,
            kept: Vec::with_capacity(k.saturating_mul(2).min(1 << 16)),
            most_scale,
            worst: f64::NEG_INFINITY,
            shared,
        }
    }

    /// Take up the bar the halves share, when it has risen above this half's own.
    fn refresh(&mut self) {
        if let Some((shared, _)) = self.shared {
            self.worst = self.worst.max(shared.bar());
        }
    }

    /// Whether a document whose sum is at most `bound` cannot be among the best: it
    /// would score below the worst of `k` (a tie goes to the lower document, so only
    /// a strictly lower bound is out of reach whatever the order documents come in).
    fn out_of_reach(&self, bound: f64) -> bool {
        (bound * SLACK + ROUNDING) * self.most_scale < self.worst
    }

    fn offer(&mut self, score: f64, doc: u32) {
        // A score equal to the bar may still win its tie on the document.
        if score >= self.worst {
            self.kept.push(Ranked(score, doc));
            if self.kept.len() >= self.k.saturating_mul(2) {
                self.keep_best();
            }
        }
    }

    /// Drop all but the `k` best, and raise the bar to the `k`-th.
    fn keep_best(&mut self) {
        if self.k == 0 || self.kept.len() <= self.k {
            return;
        }
        self.kept
            .select_nth_unstable_by(self.k - 1, |a, b| b.cmp(a));
        self.kept.truncate(self.k);
        self.worst = self.worst.max(self.kept[self.k - 1].0);
        if let Some((shared, half)) = self.shared {
            let (_, mid, _) = self
                .kept
                .select_nth_unstable_by(self.k.div_ceil(2) - 1, |a, b| b.cmp(a));
            shared.publish(half, mid.0);
            self.refresh();
        }
    }

    /// The `k` best, unordered.
    fn into_best(mut self) -> Vec<(u32, f64)> {
        self.keep_best();
        self.kept.into_iter().map(|Ranked(s, d)| (d, s)).collect()
    }
}

/// One window's scores: per document, the fixed-point sum of its essential terms, and
/// which documents have one.
struct Window {
    sums: Vec<i64>,
    seen: Vec<u64>,
}

impl Window {
    fn new(size: usize) -> Self {
        Window {
            sums: vec![0; size],
            seen: vec![0; size.div_ceil(64)],
        }
    }

    /// Add the postings of `c` below `end`, from `start`. This is the innermost
    /// loop: the block is found once at the end, not kept up posting by posting.
    fn add(&mut self, c: &mut Cursor, start: u32, end: u32) {
        let bytes = c.bytes();
        while c.doc < end {
            let slot = (c.doc - start) as usize;
            self.sums[slot] += fixed(c.score());
            self.seen[slot / 64] |= 1 << (slot % 64);
            c.step(bytes);
        }
        c.find_block();
    }

    /// Keep only the documents whose sum `reaches`; the others are cleared. How many
    /// are left.
    fn keep(&mut self, mut reaches: impl FnMut(i64) -> bool) -> usize {
        let mut left = 0;
        for w in 0..self.seen.len() {
            let mut bits = self.seen[w];
            let mut kept = bits;
            while bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let slot = w * 64 + bit;
                // Without a branch: which documents reach is hard to foretell.
                let out = u64::from(!reaches(self.sums[slot]));
                kept &= !(out << bit);
                self.sums[slot] *= 1 - out as i64;
            }
            self.seen[w] = kept;
            left += kept.count_ones() as usize;
        }
        left
    }

    /// Add what the non-essential term of `c` gives the `left` documents still in the
    /// window (from `start` to `end`). When its postings there are not many more than
    /// those documents, they are read one after another, as looking each document
    /// up would read them anyway; else each document is looked up, jumping over
    /// the blocks between.
    fn add_to_kept(&mut self, c: &mut Cursor, start: u32, end: u32, left: usize) {
        let expected = u64::from(c.postings) * u64::from(end - start) / c.ix.len().max(1) as u64;
        if expected <= 8 * left as u64 {
            c.seek(start);
            let bytes = c.bytes();
            while c.doc < end {
                let slot = (c.doc - start) as usize;
                if self.seen[slot / 64] & 1 << (slot % 64) != 0 {
                    self.sums[slot] += fixed(c.score());
                }
                c.step(bytes);
            }
            c.find_block();
            return;
        }
        for w in 0..self.seen.len() {
            let mut bits = self.seen[w];
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                c.seek(start + slot as u32);
                if c.doc == start + slot as u32 {
                    self.sums[slot] += fixed(c.score());
                }
            }
        }
    }

    /// The documents scored, in order (as positions in the window), each cleared as
    /// it is given.
    fn take_each(&mut self, mut f: impl FnMut(usize, i64)) {
        for w in 0..self.seen.len() {
            let mut bits = std::mem::take(&mut self.seen[w]);
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                f(slot, std::mem::take(&mut self.sums[slot]));
            }
        }
    }
}

impl Bm25 {
    /// The `k` best documents for `query` (weighted terms), best first, ties to the
    /// lower document. A document's score is `scale(document, its BM25)`, which must
    /// be at most `most_scale` times its BM25.
    ///
    /// A query over many postings is answered in two halves of the documents side by
    /// side, each half's best then merged: the same results, in about half the time
    /// on two cores.
    pub(crate) fn top(
        &self,
        query: &[(String, f64)],
        k: usize,
        scale: impl Fn(u32, f64) -> f64 + Sync,
        most_scale: f64,
    ) -> Vec<(u32, f64)> {
        self.top_by(query, k, scale, most_scale, PLAN)
    }

    fn top_by(
        &self,
        query: &[(String, f64)],
        k: usize,
        scale: impl Fn(u32, f64) -> f64 + Sync,
        most_scale: f64,
        plan: Plan,
    ) -> Vec<(u32, f64)> {
        let cursors: Vec<Cursor> = merged(query)
            .into_iter()
            .filter_map(|(term, weight)| {
                let t = self.term(term)?;
                Some(Cursor::new(self, t, weight * self.idf(term)))
            })
            .collect();
        if k == 0 || cursors.is_empty() {
            return Vec::new();
        }
        let postings: usize = query.iter().map(|(t, _)| self.df(t)).sum();
        let docs = u32::try_from(self.len()).unwrap_or(u32::MAX);
        let mut best = if postings >= plan.split {
            let mid = docs / 2;
            let mut upper = cursors.clone();
            for c in &mut upper {
                c.seek(mid);
            }
            let shared = Shared::new();
            let (mut low, high) = rayon::join(
                || {
                    best_in(
                        cursors,
                        mid,
                        k,
                        &scale,
                        most_scale,
                        plan.window,
                        Some((&shared, 0)),
                    )
                },
                || {
                    best_in(
                        upper,
                        DONE,
                        k,
                        &scale,
                        most_scale,
                        plan.window,
                        Some((&shared, 1)),
                    )
                },
            );
            low.extend(high);
            low
        } else {
            best_in(cursors, DONE, k, &scale, most_scale, plan.window, None)
        };
        best.sort_by_key(|&(d, s)| Reverse(Ranked(s, d)));
        best.truncate(k);
        best
    }
}

/// `query` with each term once, weighed by the sum of its weights, in the order terms
/// first come: a word said a thousand times is one list read once, where reading it a
/// thousand times took minutes at a million turns.
fn merged(query: &[(String, f64)]) -> Vec<(&str, f64)> {
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out: Vec<(&str, f64)> = Vec::new();
    for (term, weight) in query {
        match at.get(term.as_str()) {
            Some(&i) => out[i].1 += weight,
            None => {
                at.insert(term, out.len());
                out.push((term, *weight));
            }
        }
    }
    out
}

/// The `k` best documents below `below` from where `cursors` are, unordered (when
/// `shared`, those of the `k` best of both halves that are in this one, at least):
/// see [`Bm25::top`].
fn best_in(
    mut cursors: Vec<Cursor>,
    below: u32,
    k: usize,
    scale: &impl Fn(u32, f64) -> f64,
    most_scale: f64,
    window_size: usize,
    shared: Option<(&Shared, usize)>,
) -> Vec<(u32, f64)> {
    // Which terms are looked up rather than walked is a knapsack: as many postings
    // left unread as can be, under the bound their most together must stay below.
    // Filled greedily: terms by postings per unit of bound, most first; the first
    // ones, while their bounds together cannot lift a document, are non-essential. A
    // common word of little weight is left unread before a rare one that adds little.
    let mut order: Vec<usize> = (0..cursors.len()).collect();
    order.sort_by(|&a, &b| {
        let saves = |c: &Cursor| c.postings as f64 / c.most;
        saves(&cursors[b])
            .total_cmp(&saves(&cursors[a]))
            .then(a.cmp(&b))
    });
    // What the first i terms add at most.
    let mut most = vec![0.0];
    for &c in &order {
        most.push(most.last().copied().unwrap_or(0.0) + cursors[c].most);
    }
    let mut best = Best::new(k, most_scale, shared);
    let mut window = Window::new(window_size);
    let mut lookups = 0;
    // The non-essential terms, the most a term adds first, and what by_most[j..]
    // add at most: a document is looked up in them while it can still reach.
    let mut by_most: Vec<usize> = Vec::new();
    let mut rest = vec![0.0];
    loop {
        best.refresh();
        // order[..lookups] are the non-essential terms, for this window: more of them
        // as the best get better.
        let now = (0..order.len())
            .take_while(|&i| best.out_of_reach(most[i + 1]))
            .count();
        if now != lookups {
            lookups = now;
            by_most = order[..lookups].to_vec();
            by_most.sort_by(|&a, &b| cursors[b].most.total_cmp(&cursors[a].most));
            rest = vec![0.0; lookups + 1];
            for j in (0..lookups).rev() {
                rest[j] = rest[j + 1] + cursors[by_most[j]].most;
            }
        }
        let Some(start) = order[lookups..]
            .iter()
            .map(|&c| cursors[c].doc)
            .min()
            .filter(|&d| d < below)
        else {
            break;
        };
        let end = start.saturating_add(window_size as u32).min(below);
        let blocks: f64 = order[lookups..]
            .iter()
            .map(|&c| cursors[c].most_below(end))
            .sum();
        if best.out_of_reach(blocks + most[lookups]) {
            for &c in &order[lookups..] {
                cursors[c].seek(end);
            }
            continue;
        }
        for &c in &order[lookups..] {
            window.add(&mut cursors[c], start, end);
        }
        // The non-essential terms, the most a term adds first, a term at a time,
        // for the documents that can still reach.
        let mut left = window.keep(|sum| !best.out_of_reach(score_of(sum) + rest[0]));
        for (j, &c) in by_most.iter().enumerate() {
            if left == 0 {
                break;
            }
            window.add_to_kept(&mut cursors[c], start, end, left);
            left = window.keep(|sum| !best.out_of_reach(score_of(sum) + rest[j + 1]));
        }
        window.take_each(|slot, sum| {
            let d = start + slot as u32;
            best.offer(scale(d, score_of(sum)), d);
        });
    }
    best.into_best()
}

#[cfg(test)]
mod tests {
    use super::super::BLOCK;
    use super::*;
    use proptest::prelude::*;

    /// What scoring every posting gives: the `k` best, ties to the lower document.
    fn everything(
        ix: &Bm25,
        query: &[(String, f64)],
        k: usize,
        scale: impl Fn(u32, f64) -> f64,
    ) -> Vec<(u32, f64)> {
        let mut sums = std::collections::BTreeMap::new();
        for (term, weight) in merged(query) {
            if ix.df(term) == 0 {
                continue;
            }
            let w = weight * ix.idf(term);
            for (d, tf) in ix.postings(term) {
                let dl = u32::from(ix.lengths[d as usize]);
                *sums.entry(d).or_insert(0) += fixed(w * ix.norm(tf, dl));
            }
        }
        let mut all: Vec<(u32, f64)> = sums
            .into_iter()
            .map(|(d, s)| (d, scale(d, score_of(s))))
            .collect();
        all.sort_by_key(|&(d, s)| Reverse(Ranked(s, d)));
        all.truncate(k);
        all
    }

    fn weighted(terms: &[&str], weights: &[f64]) -> Vec<(String, f64)> {
        terms
            .iter()
            .zip(weights.iter().cycle())
            .map(|(t, &w)| (t.to_string(), w))
            .collect()
    }

    /// Documents of words from a small vocabulary, the first words far more common
    /// than the last (as in text), long enough for several skip blocks per term.
    fn corpus() -> impl Strategy<Value = Vec<Vec<String>>> {
        let word = (0u32..400).prop_map(|r| format!("w{}", r * r / 4000));
        proptest::collection::vec(proptest::collection::vec(word, 0..12), 0..700)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn the_best_are_those_of_scoring_everything(
            docs in corpus(),
            query in proptest::collection::vec(0u32..45, 1..7),
            weights in proptest::collection::vec(0.05f64..2.0, 1..4),
            k in 1usize..40,
            scales in proptest::collection::vec(0.0f64..1.0, 1..50),
        ) {
            let ix = Bm25::new(docs);
            let names: Vec<String> = query.iter().map(|w| format!("w{w}")).collect();
            let terms: Vec<&str> = names.iter().map(String::as_str).collect();
            let q = weighted(&terms, &weights);
            let scale = |d: u32, s: f64| s * scales[d as usize % scales.len()];
            // As a large corpus is cut (one window here), and cut finer: windows of 64
            // documents, and halves side by side from a few postings on.
            let fine = Plan { window: 64, split: 64 };
            for plan in [PLAN, fine] {
                let plain = ix.top_by(&q, k, |_, s| s, 1.0, plan);
                prop_assert_eq!(plain, everything(&ix, &q, k, |_, s| s));
                prop_assert_eq!(ix.top_by(&q, k, scale, 1.0, plan), everything(&ix, &q, k, scale));
            }
        }
    }

    #[test]
    fn skips_blocks_and_reads_a_damaged_index_as_fewer_postings() {
        // One rare word among many common ones: its documents are found by jumps.
        let docs: Vec<Vec<String>> = (0..5000)
            .map(|d| {
                let mut words = vec!["common".to_string()];
                if d % 997 == 0 {
                    words.push("rare".into());
                }
                words
            })
            .collect();
        let mut ix = Bm25::new(docs);
        assert!(ix.block_last.len() > 5000 / BLOCK);
        let q = weighted(&["common", "rare"], &[1.0]);
        let top = ix.top(&q, 3, |_, s| s, 1.0);
        assert_eq!(top, everything(&ix, &q, 3, |_, s| s));
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 997, 1994]);
        assert!(ix.top(&q, 0, |_, s| s, 1.0).is_empty());
        assert!(ix
            .top(&weighted(&["absent"], &[1.0]), 3, |_, s| s, 1.0)
            .is_empty());
        ix.postings.truncate(ix.postings.len() / 2);
        assert!(ix.top(&q, 10, |_, s| s, 1.0).len() <= 10);
    }
}
