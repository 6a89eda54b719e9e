//! Which artifacts hold which lines: how a paste finds the artifact it revises.

use std::collections::HashMap;
use std::hash::BuildHasher;

use foldhash::fast::FixedState;

/// Which artifacts hold which significant lines, to find the artifact a paste
/// revises. Artifacts are numbered, so that counting shared lines over thousands of
/// artifacts compares numbers and not strings.
#[derive(Debug, Default)]
pub(super) struct LineIndex {
    /// Hash of a significant line → numbers of the artifacts that had it, ascending.
    holders: HashMap<u64, Vec<u32>, FixedState>,
    numbers: HashMap<String, u32>,
    ids: Vec<String>,
    /// Distinct significant lines of each artifact's newest content.
    latest_lines: Vec<usize>,
}

impl LineIndex {
    /// Index the significant lines of `content`, the newest content of `id`.
    pub(super) fn add(&mut self, id: &str, content: &str) {
        self.add_lines(id, significant_lines(content));
    }

    /// [`LineIndex::add`] of content whose [`significant_lines`] are `lines`.
    pub(super) fn add_lines(&mut self, id: &str, lines: Vec<u64>) {
        let number = match self.numbers.get(id) {
            Some(&n) => n,
            None => {
                let n = self.ids.len() as u32;
                self.numbers.insert(id.to_string(), n);
                self.ids.push(id.to_string());
                self.latest_lines.push(0);
                n
            }
        };
        self.latest_lines[number as usize] = lines.len();
        for h in lines {
            let holders = self.holders.entry(h).or_default();
            if let Err(at) = holders.binary_search(&number) {
                holders.insert(at, number);
            }
        }
    }

    /// See [`VaultWriter::similar`](super::VaultWriter::similar).
    pub(super) fn similar(&self, content: &str) -> Option<String> {
        let mine = significant_lines(content);
        if mine.is_empty() {
            return None;
        }
        let mut holders: Vec<&[u32]> = mine
            .iter()
            .map(|h| self.holders.get(h).map_or(&[][..], Vec::as_slice))
            .collect();
        // Only an artifact that shares half of these lines or more can be the one. It
        // holds one of the rarest lines beyond the other half: those name the
        // candidates, and the common lines (held by thousands of artifacts) are only
        // looked up for them.
        holders.sort_by_key(|h| h.len());
        let (rare, common) = holders.split_at(mine.len() - mine.len().div_ceil(2) + 1);
        let mut shared: HashMap<u32, usize, FixedState> = HashMap::default();
        for &number in rare.iter().copied().flatten() {
            *shared.entry(number).or_default() += 1;
        }
        for (number, n) in &mut shared {
            *n += common
                .iter()
                .filter(|h| h.binary_search(number).is_ok())
                .count();
        }
        // Most lines shared; of equals, the smallest id.
        let ids = &self.ids;
        let (best, n) = shared.into_iter().min_by(|a, b| {
            (b.1.cmp(&a.1)).then_with(|| ids[a.0 as usize].cmp(&ids[b.0 as usize]))
        })?;
        let theirs = self.latest_lines[best as usize];
        (n * 2 >= mine.len().max(theirs) && n > 0).then(|| ids[best as usize].clone())
    }
}

/// Hashes of the distinct lines long enough to tell files apart, ascending.
pub(super) fn significant_lines(content: &str) -> Vec<u64> {
    // Fixed keys: the same line hashes the same in every run.
    let hasher = FixedState::default();
    let mut lines: Vec<u64> = content
        .lines()
        .map(str::trim)
        .filter(|l| l.len() >= 8)
        .map(|l| hasher.hash_one(l))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`LineIndex::similar`] the plain way: every artifact's shared lines counted.
    fn plain_similar(index: &LineIndex, content: &str) -> Option<String> {
        let mine = significant_lines(content);
        let mut shared: HashMap<u32, usize> = HashMap::new();
        for h in &mine {
            for &number in index.holders.get(h).into_iter().flatten() {
                *shared.entry(number).or_default() += 1;
            }
        }
        let ids = &index.ids;
        let (best, n) = shared.into_iter().min_by(|a, b| {
            (b.1.cmp(&a.1)).then_with(|| ids[a.0 as usize].cmp(&ids[b.0 as usize]))
        })?;
        let theirs = index.latest_lines[best as usize];
        (n * 2 >= mine.len().max(theirs)).then(|| ids[best as usize].clone())
    }

    /// Text made of lines picked from a small pool, so that artifacts share lines.
    fn lines_of(picks: &[u8]) -> String {
        picks
            .iter()
            .map(|p| format!("let line_{} = {};\n", p % 12, p % 3))
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn similar_is_the_plain_count(
            artifacts in proptest::collection::vec(
                (0u8..6, proptest::collection::vec(proptest::num::u8::ANY, 0..10)),
                0..12,
            ),
            paste in proptest::collection::vec(proptest::num::u8::ANY, 0..12),
        ) {
            let mut index = LineIndex::default();
            for (id, picks) in &artifacts {
                index.add(&format!("art_{id}"), &lines_of(picks));
            }
            let paste = lines_of(&paste);
            proptest::prop_assert_eq!(index.similar(&paste), plain_similar(&index, &paste));
        }
    }
}
