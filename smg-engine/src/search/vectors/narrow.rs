//! Narrowing a search over many rows before it is scored. Each row also keeps one bit
//! per component, set when the component is above the rows' mean; a query first
//! counts, for every row, the bits where it differs from the query's (48 bytes a row
//! at 384 dimensions, against the row's 384 components), and only the rows nearest
//! by that count are scored exactly. The count follows the angle between the two
//! (centred) vectors; a row it misplaces by a few bits still falls inside the many
//! times more rows than wanted that are scored.

use rayon::prelude::*;

/// Rows from which a search is narrowed first; below, every row is scored (at most
/// 25 MB of components at 384 dimensions: a few milliseconds).
pub(super) const NARROW_FROM: usize = 1 << 16;
/// Rows of each kind scored exactly for each one wanted.
const OVERSAMPLE: usize = 16;
/// Rows of each kind scored exactly, at least.
const AT_LEAST: usize = 1024;
/// Rows counted by one task.
const ROWS_A_TASK: usize = 1 << 14;
/// The kind bit of a counted row (set: a node's row).
const NODE: u32 = 1 << 31;
/// A row left out of the count (no distance is this far).
const LEFT_OUT: u32 = u32::MAX;

/// The 64-bit words of sign bits a row of `dimensions` components has.
pub(super) fn words(dimensions: usize) -> usize {
    dimensions.div_ceil(64)
}

/// The sign bits of `row` (a quantised row or query) about `center`: bit `k` of word
/// `k / 64` set when component `k` is above `center[k]`.
pub(super) fn signs(row: &[i8], center: &[f32]) -> Vec<u64> {
    let mut words = vec![0u64; words(center.len())];
    for (k, (&x, c)) in row.iter().zip(center).enumerate() {
        if f32::from(x) > *c {
            words[k / 64] |= 1 << (k % 64);
        }
    }
    words
}

/// [`signs`] as the stored index keeps them (words, little-endian), appended to `out`.
pub(super) fn push_signs(row: &[i8], center: &[f32], out: &mut Vec<u8>) {
    out.extend(signs(row, center).iter().flat_map(|w| w.to_le_bytes()));
}

/// The bits where `row` (its words' bytes) and `query` differ.
fn distance(row: &[u8], query: &[u64]) -> u32 {
    row.chunks_exact(8)
        .zip(query)
        .map(|(w, q)| (u64::from_le_bytes(w.try_into().unwrap_or_default()) ^ q).count_ones())
        .sum()
}

/// The rows to score for the `n` best of each kind (`kind(row)`: whether it is a
/// node's, `None` for a row left out), in row order: of each kind the `max(16 n,
/// 1024)` rows nearest to `query` by sign bits, and every other row as near as the
/// farthest of them (so that no order of rows decides). `signs` holds each row's
/// words, row after row.
pub(super) fn candidates(
    signs: &[u8],
    query: &[u64],
    kind: impl Fn(usize) -> Option<bool> + Sync,
    n: usize,
) -> Vec<usize> {
    let row = 8 * query.len();
    if row == 0 {
        return Vec::new();
    }
    let bins = 64 * query.len() + 1;
    let counted: Vec<(Vec<u32>, [Vec<usize>; 2])> = signs
        .par_chunks(ROWS_A_TASK * row)
        .enumerate()
        .map(|(task, rows)| {
            let mut hist = [vec![0usize; bins], vec![0usize; bins]];
            let far = rows
                .chunks_exact(row)
                .enumerate()
                .map(|(j, r)| {
                    let Some(node) = kind(task * ROWS_A_TASK + j) else {
                        return LEFT_OUT;
                    };
                    let d = distance(r, query);
                    hist[usize::from(node)][d as usize] += 1;
                    if node {
                        d | NODE
                    } else {
                        d
                    }
                })
                .collect();
            (far, hist)
        })
        .collect();
    let wanted = n.saturating_mul(OVERSAMPLE).max(AT_LEAST);
    let within: Vec<u32> = (0..2)
        .map(|kind| {
            let mut seen = 0;
            (0..bins)
                .find(|&d| {
                    seen += counted.iter().map(|c| c.1[kind][d]).sum::<usize>();
                    seen >= wanted
                })
                .unwrap_or(bins) as u32
        })
        .collect();
    counted
        .iter()
        .flat_map(|c| &c.0)
        .enumerate()
        .filter(|(_, &d)| {
            let kind = usize::from(d & NODE != 0);
            d != LEFT_OUT && d & !NODE <= within[kind]
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs_of(rows: &[Vec<i8>], center: &[f32]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in rows {
            push_signs(r, center, &mut out);
        }
        out
    }

    #[test]
    fn bits_are_set_above_the_centre() {
        let center = vec![0.0; 70];
        let mut row = vec![-1i8; 70];
        row[0] = 1;
        row[65] = 1;
        let bytes = signs_of(&[row], &center);
        assert_eq!(bytes.len(), 16);
        assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 1);
        assert_eq!(u64::from_le_bytes(bytes[8..].try_into().unwrap()), 2);
        let mut q = vec![-76i8; 70];
        q[0] = 127;
        assert_eq!(signs(&q, &center), [1, 0]);
        assert_eq!(distance(&bytes, &[1, 0]), 1);
    }

    #[test]
    fn the_nearest_rows_of_each_kind_are_kept_and_no_row_left_out() {
        let center = vec![0.0; 64];
        // Row i differs from the all-positive query in its first i bits.
        let rows: Vec<Vec<i8>> = (0..3000)
            .map(|i| (0..64).map(|k| if k < i % 65 { -1 } else { 1 }).collect())
            .collect();
        let stored = signs_of(&rows, &center);
        let query = signs(&[1; 64], &center);
        // Every fifth row is left out (a period's search keeps to the others).
        let kind = |i: usize| (!i.is_multiple_of(5)).then_some(i % 2 == 1);
        let kept = candidates(&stored, &query, kind, 10);
        assert!(kept.iter().all(|&i| kind(i).is_some()));
        let nodes = kept.iter().filter(|&&i| kind(i) == Some(true)).count();
        assert!(
            nodes >= 1024 && kept.len() - nodes >= 1024,
            "{}",
            kept.len()
        );
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        // Whatever was kept is at least as near as whatever was not, kind by kind.
        let d = |i: usize| i % 65;
        for node in [false, true] {
            let far_kept = kept
                .iter()
                .filter(|&&i| kind(i) == Some(node))
                .map(|&i| d(i))
                .max();
            let near_left = (0..3000)
                .filter(|i| kind(*i) == Some(node) && !kept.contains(i))
                .map(d)
                .min();
            assert!(far_kept < near_left, "{far_kept:?} {near_left:?}");
        }
        assert!(candidates(&[], &[], kind, 10).is_empty());
        let none = candidates(&stored, &query, |_| None::<bool>, 10);
        assert!(none.is_empty());
    }
}
