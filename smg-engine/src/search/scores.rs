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

/// A score per touched turn, in the order the turns were first touched: iteration
/// follows first touch, so sums come out the same in every run. The turns touched are
/// a few thousand of up to millions: a map, where a table of every turn would cost a
/// page fault for most of the few it touches.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scores {
    /// Per touched turn: its place in `entries`.
    at: IdMap<u32>,
    entries: Vec<(u32, f64)>,
}

impl Scores {
    /// Room for `n` turns without growing (growing a map rehashes all it holds).
    pub(crate) fn with_capacity(n: usize) -> Self {
        Scores {
            at: IdMap::with_capacity_and_hasher(n, Default::default()),
            entries: Vec::with_capacity(n),
        }
    }

    /// The score of turn `d`, touching it (0 until something is added).
    pub(crate) fn entry(&mut self, d: u32) -> &mut f64 {
        let next = self.entries.len() as u32;
        let i = *self.at.entry(d).or_insert(next) as usize;
        if i == self.entries.len() {
            self.entries.push((d, 0.0));
        }
        &mut self.entries[i].1
    }

    /// The score of turn `d`, if touched.
    pub(crate) fn get_mut(&mut self, d: u32) -> Option<&mut f64> {
        let i = *self.at.get(&d)? as usize;
        Some(&mut self.entries[i].1)
    }

    /// How many turns are touched.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Touched turns and their scores, in the order first touched.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.entries.iter().copied()
    }

    /// The touched scores, in the order first touched.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.entries.iter_mut().map(|e| &mut e.1)
    }

    /// Change every touched score: `f(turn, score)`.
    pub(crate) fn update(&mut self, mut f: impl FnMut(u32, &mut f64)) {
        for (d, s) in &mut self.entries {
            f(*d, s);
        }
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
fn best_first(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_touch_order_and_ranks_ties_by_turn() {
        let mut s = Scores::default();
        *s.entry(3) += 1.0;
        *s.entry(1) += 2.0;
        *s.entry(3) += 1.0;
        *s.entry(4) += 2.0;
        assert_eq!(s.iter().collect::<Vec<_>>(), [(3, 2.0), (1, 2.0), (4, 2.0)]);
        assert_eq!(s.ranked(), [(1, 2.0), (3, 2.0), (4, 2.0)]);
        assert_eq!(s.top(2), [(1, 2.0), (3, 2.0)]);
        assert_eq!(s.top(0), []);
        assert!(s.get_mut(0).is_none() && s.get_mut(9).is_none());
        s.update(|d, v| *v += f64::from(d));
        assert_eq!(s.ranked()[0], (4, 6.0));
    }
}
