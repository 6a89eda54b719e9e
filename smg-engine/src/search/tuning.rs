//! How meaning joins words when turns are ranked: the constants
//! `smg bench locomo DIR --leave-one-out --model M` chooses, each conversation's
//! measured with the constants chosen on the others (bench/RESULTS.md has the folds).

use std::collections::HashMap;

use super::scores;

/// How a query's embedding joins its words in [`super::Retriever::rank`] (and so in
/// every context).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    /// The share of meaning against words, 0–1: a turn's likeness to the query above
    /// the floor, scaled so that the best counts as much as the best word score,
    /// weighs this much; the words weigh the rest.
    pub meaning: f64,
    /// Word matches that score at least this share of the best word score keep their
    /// whole word score: meaning may lift them, never lower them, so that it breaks
    /// near ties and brings candidates of its own without pushing a strong word match
    /// down. 0 keeps every word match whole (meaning only adds); above 1, none.
    pub keep: f64,
    /// The rank of the likeness that counts as none: a sentence model finds unrelated
    /// lines somewhat alike, so likeness is measured from the 100th best.
    pub floor_rank: usize,
}

impl Tuning {
    /// Words alone: what a query without a vector gets.
    pub const WORDS: Tuning = Tuning {
        meaning: 0.0,
        keep: 0.0,
        floor_rank: FLOOR_RANK,
    };

    /// Meaning at share `meaning`, word matches from `keep` of the best kept whole.
    pub fn new(meaning: f64, keep: f64) -> Self {
        Tuning {
            meaning: meaning.clamp(0.0, 1.0),
            keep: keep.max(0.0),
            floor_rank: FLOOR_RANK,
        }
    }
}

impl Default for Tuning {
    /// What `smg bench locomo --leave-one-out`'s rule chooses on LoCoMo's dev split
    /// with all-MiniLM-L6-v2: meaning at a fifth, every word match kept whole. It is
    /// no worse than words alone on any of the three conversations in R@10 or any
    /// context (means 0.819 / 0.795 / 0.883 / 0.929 against 0.799 / 0.772 / 0.853 /
    /// 0.911), where the share of 0.3 with nothing kept whole lowered one
    /// conversation's 2000-token context by 0.018; bench/RESULTS.md has the folds.
    fn default() -> Self {
        Tuning::new(0.2, 0.0)
    }
}

/// The rank of the likeness that counts as none: on LoCoMo with all-MiniLM-L6-v2,
/// measuring from the 100th best took R@10 from 0.806 to 0.812 and Rtok1000 from
/// 0.874 to 0.887 (50th and 200th: within 0.006 of it).
const FLOOR_RANK: usize = 100;

/// Word matches and meaning matches in one list, in the words' units (the later
/// boosts add amounts of that size): a turn's word score and its likeness above
/// [`meaning_floor`], scaled so that the best counts as much as the best word score,
/// are mixed as `tuning` says. The `candidates` turns most like the query in meaning
/// join the word matches; with no word match, likeness alone ranks.
pub(super) fn blend(
    words: Vec<(u32, f64)>,
    meaning: Vec<(u32, f64)>,
    tuning: &Tuning,
    candidates: usize,
) -> Vec<(u32, f64)> {
    if tuning.meaning <= 0.0 {
        return words;
    }
    let mut meaning = meaning;
    if meaning.len() > candidates {
        meaning.select_nth_unstable_by(candidates, scores::best_first);
        meaning.truncate(candidates);
    }
    let best = |l: &[(u32, f64)]| l.iter().map(|e| e.1).fold(0.0, f64::max);
    let w = best(&words);
    // Alone, likenesses rank the same from any floor, and all of them are kept.
    let (share, scale, floor) = if w > 0.0 {
        let floor = meaning_floor(&meaning, tuning.floor_rank);
        (tuning.meaning, w, floor)
    } else {
        (1.0, 1.0, 0.0)
    };
    let m = best(&meaning) - floor;
    let mut mixed: HashMap<u32, f64> = HashMap::with_capacity(words.len() + meaning.len());
    for (i, s) in words {
        let kept = if s >= tuning.keep * w {
            1.0
        } else {
            1.0 - share
        };
        *mixed.entry(i).or_default() += kept * s;
    }
    if m > 0.0 {
        for (i, s) in meaning {
            *mixed.entry(i).or_default() += share * scale * (s - floor).max(0.0) / m;
        }
    }
    mixed.into_iter().filter(|e| e.1 > 0.0).collect()
}

/// The likeness that counts as none: the `rank`th best (the least, among fewer),
/// never below 0. A sentence model's cosines between unrelated lines are well above
/// 0, so measured from 0 they lift every turn alike and the few that mean what the
/// query asks stand out little.
fn meaning_floor(meaning: &[(u32, f64)], rank: usize) -> f64 {
    let mut sims: Vec<f64> = meaning.iter().map(|e| e.1).collect();
    if sims.is_empty() {
        return 0.0;
    }
    let at = rank.min(sims.len() - 1);
    let (_, floor, _) = sims.select_nth_unstable_by(at, |a, b| b.total_cmp(a));
    floor.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 150 turns alike to a common degree, turn 5 far more like the query.
    fn likeness() -> Vec<(u32, f64)> {
        (1..=150)
            .map(|i| (i, if i == 5 { 0.8 } else { 0.3 }))
            .collect()
    }

    fn sorted(mut l: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
        l.sort_by_key(|e| e.0);
        l
    }

    #[test]
    fn meaning_counts_from_the_hundredth_best_likeness() {
        let mixed = sorted(blend(
            vec![(0, 10.0)],
            likeness(),
            &Tuning::new(0.3, f64::INFINITY),
            2000,
        ));
        // Turn 5's likeness above the floor counts as much as the best word score.
        assert_eq!(mixed.len(), 2);
        assert!((mixed[0].1 - 7.0).abs() < 1e-9 && (mixed[1].1 - 3.0).abs() < 1e-9);
        // With no word match, every turn keeps its place by likeness.
        let alone = blend(Vec::new(), likeness(), &Tuning::default(), 2000);
        assert_eq!(alone.len(), 150);
    }

    #[test]
    fn strong_word_matches_keep_their_whole_score() {
        let words = vec![(0, 10.0), (7, 4.0)];
        let mixed = sorted(blend(
            words.clone(),
            likeness(),
            &Tuning::new(0.3, 0.5),
            2000,
        ));
        // Turn 0 is kept whole; turn 7, under half the best, gives meaning its share.
        assert_eq!(mixed, [(0, 10.0), (5, 3.0), (7, 2.8)]);
        // Words alone rank as a query without a vector does.
        assert_eq!(
            sorted(blend(words.clone(), likeness(), &Tuning::WORDS, 2000)),
            words
        );
    }
}
