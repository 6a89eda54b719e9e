//! Scores of the turns one query touches.

/// A score per turn, kept dense (indexed by turn position) with the list of the turns
/// touched in the order they were first touched: adding to a score is an index, not a
/// hash, which matters when a query touches tens of thousands of turns, and iteration
/// follows first touch, so sums come out the same in every run.
#[derive(Debug, Clone)]
pub(crate) struct Scores {
    value: Vec<f64>,
    seen: Vec<bool>,
    touched: Vec<u32>,
}

impl Scores {
    /// No turn touched yet, out of `n`.
    pub(crate) fn new(n: usize) -> Self {
        Scores {
            value: vec![0.0; n],
            seen: vec![false; n],
            touched: Vec::new(),
        }
    }

    /// The score of turn `d`, touching it (0 until something is added).
    pub(crate) fn entry(&mut self, d: u32) -> &mut f64 {
        let i = d as usize;
        if !self.seen[i] {
            self.seen[i] = true;
            self.touched.push(d);
        }
        &mut self.value[i]
    }

    /// The score of turn `d`, if touched.
    pub(crate) fn get_mut(&mut self, d: u32) -> Option<&mut f64> {
        let i = d as usize;
        self.seen
            .get(i)
            .copied()
            .unwrap_or(false)
            .then(|| &mut self.value[i])
    }

    /// Touched turns and their scores, in the order first touched.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.touched.iter().map(|&d| (d, self.value[d as usize]))
    }

    /// Change every touched score: `f(turn, score)`.
    pub(crate) fn update(&mut self, mut f: impl FnMut(u32, &mut f64)) {
        for &d in &self.touched {
            f(d, &mut self.value[d as usize]);
        }
    }

    /// Touched turns, best first; ties go to the earlier turn.
    pub(crate) fn ranked(&self) -> Vec<(usize, f64)> {
        self.top(usize::MAX)
    }

    /// The `n` best of [`Scores::ranked`], without sorting the rest.
    pub(crate) fn top(&self, n: usize) -> Vec<(usize, f64)> {
        let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut out: Vec<(usize, f64)> = self.iter().map(|(d, s)| (d as usize, s)).collect();
        if n < out.len() {
            out.select_nth_unstable_by(n, order);
            out.truncate(n);
        }
        out.sort_by(order);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_touch_order_and_ranks_ties_by_turn() {
        let mut s = Scores::new(5);
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
