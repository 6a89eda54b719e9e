//! The turn rules that run on a query's candidates after BM25 (and meaning): a strong
//! hit lends to the turns around it in its session, the sessions that hold strong hits
//! gain, turns of a person the query names gain, for a "when" question turns that
//! place something in time gain, and turns inside a time the query names gain. What
//! they read of each turn (session, speaker, flags, time) comes from the turns' index,
//! in place.

use std::collections::HashMap;

use super::fulltext::{Column64, FLAG_TIMED};
use super::scores::Scores;
use super::{time, Retriever};

/// A turn inside the time the query names ("in May 2023", "last week") scores this
/// much more.
const WINDOW_BOOST: f64 = 1.0;
/// How far a strong hit lends its score to the turns around it.
const NEIGHBOUR_WEIGHT: f64 = 0.35;
/// The same for turns two away.
const SECOND_NEIGHBOUR_WEIGHT: f64 = 0.2;
/// For a "when" question, a turn that places something in time scores this much more.
const TIME_BOOST: f64 = 0.5;
/// A turn said by a person the query names scores this much more (× 1 + boost).
const SPEAKER_BOOST: f64 = 1.0;
/// Weight of a session's strength (its three best scores, against the best session's).
const SESSION_WEIGHT: f64 = 1.0;

impl Retriever {
    /// The rules, on `scores` (the candidates of `raw`, the query as written, whose
    /// terms are `query`), in the order that makes each see what it should: neighbours
    /// first, so that the session boost counts what they were lent.
    pub(super) fn apply_rules(&self, scores: &mut Scores, raw: &str, query: &[(String, f64)]) {
        let sessions = self.sessions_near(scores);
        self.lend_to_neighbours(scores, &sessions);
        self.session_boost(scores, &sessions);
        self.speaker_boost(scores, query);
        if time::is_when_question(raw) {
            self.time_boost(scores);
        }
        if let Some(window) = time::window(raw, self.now()) {
            for i in self.ix.index.timed_within(window.0..window.1) {
                if let Some(s) = scores.get_mut(i) {
                    *s *= 1.0 + WINDOW_BOOST;
                }
            }
        }
    }

    /// For "when" questions, turns that place something in time gain.
    fn time_boost(&self, scores: &mut Scores) {
        scores.update(|d, s| {
            if self.ix.index.flag(FLAG_TIMED, d) {
                *s *= 1.0 + TIME_BOOST;
            }
        });
    }

    /// Turns said by a person the query names gain a share of their score.
    fn speaker_boost(&self, scores: &mut Scores, query: &[(String, f64)]) {
        // The speakers the query names, found once rather than for each turn.
        let named: Vec<bool> = self
            .ix
            .speakers
            .iter()
            .map(|name| name.iter().any(|x| query.iter().any(|q| &q.0 == x)))
            .collect();
        if !named.contains(&true) {
            return;
        }
        scores.update(|d, s| {
            let speaker = self.value(Column64::Speaker, d as usize);
            if speaker.and_then(|n| named.get(usize::try_from(n).ok()?)) == Some(&true) {
                *s *= 1.0 + SPEAKER_BOOST;
            }
        });
    }

    /// Turns of a session that holds strong hits gain a share of the session's best
    /// scores: the rest of a conversation about the same thing.
    fn session_boost(&self, scores: &mut Scores, sessions: &Sessions) {
        // The three best scores of each session touched, best first; each session
        // numbered as first met, and each turn's number kept for the second pass.
        let mut number: HashMap<Option<u64>, u32> = HashMap::with_capacity(scores.len());
        let mut best: Vec<[f64; 3]> = Vec::new();
        let mut session_of: Vec<u32> = Vec::with_capacity(scores.len());
        // Turns come in order, so mostly a session's turns one after another.
        let mut last: Option<(Option<u64>, u32)> = None;
        for (d, s) in scores.iter() {
            let session = sessions.of(d);
            let n = match last {
                Some((k, n)) if k == session => n,
                _ => {
                    let next = best.len() as u32;
                    let n = *number.entry(session).or_insert(next);
                    if n == next {
                        best.push([f64::NEG_INFINITY; 3]);
                    }
                    n
                }
            };
            last = Some((session, n));
            session_of.push(n);
            let top = &mut best[n as usize];
            if let Some(at) = top.iter().position(|t| s > *t) {
                top[at..].rotate_right(1);
                top[at] = s;
            }
        }
        let strength: Vec<f64> = best
            .iter()
            .map(|top| top.iter().filter(|t| t.is_finite()).sum::<f64>())
            .collect();
        let max = strength
            .iter()
            .copied()
            .fold(0.0, f64::max)
            .max(f64::MIN_POSITIVE);
        for (s, n) in scores.values_mut().zip(session_of) {
            *s += SESSION_WEIGHT * strength[n as usize] / max;
        }
    }

    /// A turn next to a strong hit in the same session shares some of its score: the
    /// answer to a question, the question before an answer.
    fn lend_to_neighbours(&self, scores: &mut Scores, sessions: &Sessions) {
        scores.lend(2, |from, to| {
            let w = match from.abs_diff(to) {
                1 => NEIGHBOUR_WEIGHT,
                2 => SECOND_NEIGHBOUR_WEIGHT,
                _ => return None,
            };
            let to = sessions.of(to)?;
            (Some(to) == sessions.of(from)).then_some(w)
        });
    }
}

/// The sessions of some turns, read together from the index.
struct Sessions {
    /// The turns, in order.
    turns: Vec<u32>,
    of: Vec<Option<u64>>,
    /// Whether the turns are every turn from the first to the last.
    dense: bool,
}

impl Sessions {
    /// Turn `d`'s session, when `d` is one of the turns read.
    fn of(&self, d: u32) -> Option<u64> {
        let i = if self.dense {
            d.checked_sub(*self.turns.first()?)? as usize
        } else {
            self.turns.binary_search(&d).ok()?
        };
        *self.of.get(i)?
    }
}

impl Retriever {
    /// The sessions of the turns `scores` holds and of the turns two or fewer away
    /// from them: all that lending to neighbours and the session boost look up.
    fn sessions_near(&self, scores: &Scores) -> Sessions {
        let mut turns: Vec<u32> = Vec::with_capacity(scores.len() * 3);
        for (d, _) in scores.iter() {
            for j in d.saturating_sub(2)..=d.saturating_add(2) {
                if turns.last().is_none_or(|&last| j > last) {
                    turns.push(j);
                }
            }
        }
        // Where the turns are most of a span (a small archive), the whole span is
        // read, and a turn is looked up by its place rather than searched for.
        let span = match (turns.first(), turns.last()) {
            (Some(&first), Some(&last)) => (last - first) as usize + 1,
            _ => 0,
        };
        let dense = span <= 4 * turns.len();
        if dense {
            turns = (turns.first().copied().unwrap_or(0)..).take(span).collect();
        }
        let of = self.ix.index.numbers(Column64::Session, &turns);
        Sessions { turns, of, dense }
    }
}
