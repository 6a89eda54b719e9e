//! Scores of the turns one query touches.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a small number (a turn position, a session number) by one multiplication: the
/// keys are not input an attacker chooses, so SipHash's protection buys nothing here.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by a turn position or a session number.
pub(crate) type IdMap<V> = HashMap<u32, V, BuildHasherDefault<IdHasher>>;

/// A score per touched turn, ascending by turn: every pass over them runs, and sums,
/// in the same order in every run. The turns touched are a few thousand of up to
/// millions: a list, where a table of every turn would cost a page fault for most of
/// the few it touches.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scores {
    entries: Vec<(u32, f64)>,
}

impl Scores {
    /// `matches`: (turn, score), ascending by turn, each turn once.
    pub(crate) fn new(matches: Vec<(u32, f64)>) -> Self {
        debug_assert!(matches.windows(2).all(|w| w[0].0 < w[1].0));
        Scores { entries: matches }
    }

    /// Each touched turn lends to the turns at most `reach` away: `share(from, to)`
    /// of its score, when it lends to that one at all. A turn's own score comes
    /// first, then what it is lent, from the nearest turns below it upwards.
    pub(crate) fn lend(&mut self, reach: u32, share: impl Fn(u32, u32) -> Option<f64>) {
        let base = std::mem::take(&mut self.entries);
        let mut touched: Vec<u32> = Vec::with_capacity(base.len() * (2 * reach as usize + 1));
        for &(d, _) in &base {
            touched.extend(
                (d.saturating_sub(reach)..=d.saturating_add(reach))
                    .filter(|&j| j == d || share(d, j).is_some()),
            );
        }
        touched.sort_unstable();
        touched.dedup();
        // The first match that can lend to the turn at hand.
        let mut from = 0;
        self.entries = touched
            .into_iter()
            .map(|j| {
                while base
                    .get(from)
                    .is_some_and(|b| b.0.saturating_add(reach) < j)
                {
                    from += 1;
                }
                let near = || {
                    base[from..]
                        .iter()
                        .take_while(move |b| b.0 <= j.saturating_add(reach))
                };
                let mut score = near().find(|b| b.0 == j).map_or(0.0, |b| b.1);
                for &(d, s) in near().filter(|b| b.0 != j) {
                    if let Some(w) = share(d, j) {
                        score = score.max(0.0) + w * s;
                    }
                }
                (j, score)
            })
            .collect();
    }

    /// The score of turn `d`, if touched.
    pub(crate) fn get_mut(&mut self, d: u32) -> Option<&mut f64> {
        let i = self.entries.binary_search_by_key(&d, |e| e.0).ok()?;
        Some(&mut self.entries[i].1)
    }

    /// How many turns are touched.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Touched turns and their scores, ascending by turn.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.entries.iter().copied()
    }

    /// The touched scores, ascending by turn.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.entries.iter_mut().map(|e| &mut e.1)
    }

    /// Change every touched score: `f(turn, score)`.
    pub(crate) fn update(&mut self, mut f: impl FnMut(u32, &mut f64)) {
        for (d, s) in &mut self.entries {
            f(*d, s);
        }
    }

    /// Keep the touched turns `keep(turn)` is true of.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        self.entries.retain(|e| keep(e.0));
    }

    /// Touched turns, best first; ties go to the earlier turn.
    pub(crate) fn ranked(&self) -> Vec<(usize, f64)> {
        self.top(usize::MAX)
    }

    /// The `n` best of [`Scores::ranked`], without sorting the rest.
    pub(crate) fn top(&self, n: usize) -> Vec<(usize, f64)> {
        let mut out = self.entries.clone();
        if n < out.len() {
            out.select_nth_unstable_by(n, best_first);
            out.truncate(n);
        }
        out.sort_by(best_first);
        out.into_iter().map(|(d, s)| (d as usize, s)).collect()
    }
}

/// Higher score first; ties to the earlier turn.
pub(crate) fn best_first(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn ranks_ties_by_turn() {
        let mut s = Scores::new(vec![(1, 2.0), (3, 2.0), (4, 2.0)]);
        assert_eq!(s.ranked(), [(1, 2.0), (3, 2.0), (4, 2.0)]);
        assert_eq!(s.top(2), [(1, 2.0), (3, 2.0)]);
        assert_eq!(s.top(0), []);
        assert!(s.get_mut(0).is_none() && s.get_mut(9).is_none());
        *s.get_mut(3).unwrap() += 1.0;
        s.update(|d, v| *v += f64::from(d));
        assert_eq!(s.ranked()[..2], [(3, 6.0), (4, 6.0)]);
        assert_eq!(s.iter().map(|e| e.0).collect::<Vec<_>>(), [1, 3, 4]);
    }

    /// Lending the plain way: every match keeps its score, then each, in turn order,
    /// lends to the turns near it, touching them.
    fn lend_plainly(
        matches: &[(u32, f64)],
        reach: u32,
        share: impl Fn(u32, u32) -> Option<f64>,
    ) -> Vec<(u32, f64)> {
        let mut scores: BTreeMap<u32, f64> = matches.iter().copied().collect();
        for &(d, s) in matches {
            for j in d.saturating_sub(reach)..=d + reach {
                if let Some(w) = share(d, j).filter(|_| j != d) {
                    let e = scores.entry(j).or_insert(0.0);
                    *e = e.max(0.0) + w * s;
                }
            }
        }
        scores.into_iter().collect()
    }

    proptest! {
        #[test]
        fn lending_gives_what_lending_plainly_gives_to_the_bit(
            turns in proptest::collection::btree_map(0u32..300, 0.0f64..20.0, 0..120),
            session in 2u32..12,
            len in 250u32..310,
        ) {
            let matches: Vec<(u32, f64)> = turns.into_iter().filter(|t| t.0 < len).collect();
            // Sessions of `session` turns; nothing past the last turn.
            let share = |from: u32, to: u32| match from.abs_diff(to) {
                _ if to >= len || from / session != to / session => None,
                1 => Some(0.35),
                2 => Some(0.2),
                _ => None,
            };
            let mut s = Scores::new(matches.clone());
            s.lend(2, share);
            let got: Vec<(u32, u64)> = s.iter().map(|(d, v)| (d, v.to_bits())).collect();
            let want: Vec<(u32, u64)> = lend_plainly(&matches, 2, share)
                .into_iter()
                .map(|(d, v)| (d, v.to_bits()))
                .collect();
            prop_assert_eq!(got, want);
        }
    }
}
