//! Each turn's place in the graph — the segment node it belongs to, the other nodes
//! drawn from it — as two columns beside the turns' full-text index, a row per turn
//! (tantivy's columnar format: bit-packed, read in place from a memory-mapped file).
//! Kept apart from the full-text index because node numbers change whenever the
//! graph is derived again, which every ingest does, while a turn's words never do:
//! the full-text index of the turns a memory held grows by a segment of the new
//! turns, and these columns are made anew, in a fraction of the time.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use tantivy::columnar::{Column, ColumnType, ColumnarReader, ColumnarWriter};
use tantivy::directory::FileSlice;

use crate::error::Result;

/// The column of each turn's segment node.
const SEGMENT: &str = "segment";
/// The column of the other nodes drawn from each turn (several values a row).
const DRAWN: &str = "drawn";

/// The columns; none (no turns) by default.
#[derive(Clone, Default)]
pub(crate) struct Placed(Option<Columns>);

#[derive(Clone)]
struct Columns {
    bytes: FileSlice,
    rows: u32,
    segment: Option<Column<u64>>,
    drawn: Option<Column<u64>>,
}

impl std::fmt::Debug for Placed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Placed({} turns)", self.len())
    }
}

impl Placed {
    /// The columns of `n` turns: `segment_of[i]` the segment of turn `i`, `drawn[i]`
    /// the other nodes drawn from it.
    pub(crate) fn build(
        segment_of: &[Option<u32>],
        drawn: &HashMap<usize, Vec<u32>>,
    ) -> Result<Self> {
        let rows = u32::try_from(segment_of.len())
            .map_err(|_| super::frames::damaged("more turns than an index can number".into()))?;
        let mut w = ColumnarWriter::default();
        // Typed, or the columns would narrow numbers to i64 and be read shifted.
        for name in [SEGMENT, DRAWN] {
            w.record_column_type(name, ColumnType::U64, false);
        }
        let mut drawn: Vec<(&usize, &Vec<u32>)> = drawn.iter().collect();
        drawn.sort_unstable_by_key(|(i, _)| **i);
        let mut drawn = drawn.into_iter().peekable();
        for (i, s) in segment_of.iter().enumerate() {
            if let Some(s) = s {
                w.record_numerical(i as u32, SEGMENT, u64::from(*s));
            }
            while let Some((_, nodes)) = drawn.next_if(|(d, _)| **d <= i) {
                for &n in nodes.iter() {
                    w.record_numerical(i as u32, DRAWN, u64::from(n));
                }
            }
        }
        let mut bytes = Vec::new();
        w.serialize(rows, None, &mut bytes)
            .map_err(|e| super::frames::damaged(e.to_string()))?;
        Self::open(FileSlice::from(bytes))
            .ok_or_else(|| super::frames::damaged("the turns' places could not be read".into()))
    }

    /// Read columns [`Placed::to_bytes`] made, in place; `None` when the bytes are
    /// not theirs.
    pub(crate) fn open(bytes: FileSlice) -> Option<Self> {
        let open = || -> std::io::Result<Columns> {
            let reader = ColumnarReader::open(bytes.clone())?;
            let column = |name: &str| -> std::io::Result<Option<Column<u64>>> {
                match reader.read_columns(name)?.as_slice() {
                    [] => Ok(None),
                    [one] if one.column_type() == ColumnType::U64 => one.open_u64_lenient(),
                    _ => Err(std::io::Error::other("not the columns of turns' places")),
                }
            };
            Ok(Columns {
                rows: reader.num_docs(),
                segment: column(SEGMENT)?,
                drawn: column(DRAWN)?,
                bytes: bytes.clone(),
            })
        };
        let columns = catch_unwind(AssertUnwindSafe(open)).ok()?.ok()?;
        let fits = |c: &Option<Column<u64>>| {
            c.as_ref()
                .is_none_or(|c| c.num_docs() == columns.rows && c.max_value() <= u32::MAX.into())
        };
        (fits(&columns.segment) && fits(&columns.drawn)).then_some(Placed(Some(columns)))
    }

    /// The columns as bytes, to store.
    pub(crate) fn to_bytes(&self) -> Result<Vec<u8>> {
        match &self.0 {
            Some(c) => Ok(c
                .bytes
                .read_bytes()
                .map_err(|e| super::frames::damaged(e.to_string()))?
                .to_vec()),
            None => Ok(Self::build(&[], &HashMap::new())?.to_bytes()?),
        }
    }

    /// How many turns.
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |c| c.rows as usize)
    }

    /// `f` of the columns, when turn `i` is one of theirs; `None` in damaged columns.
    fn read<T>(&self, i: usize, f: impl FnOnce(&Columns, u32) -> Option<T>) -> Option<T> {
        let c = self.0.as_ref()?;
        let row = u32::try_from(i).ok().filter(|&r| r < c.rows)?;
        catch_unwind(AssertUnwindSafe(|| f(c, row))).ok().flatten()
    }

    /// The segment node of turn `i`.
    pub(crate) fn segment(&self, i: usize) -> Option<u32> {
        self.read(i, |c, row| {
            u32::try_from(c.segment.as_ref()?.first(row)?).ok()
        })
    }

    /// The other nodes drawn from turn `i`, as stored.
    pub(crate) fn drawn(&self, i: usize) -> Vec<u32> {
        self.read(i, |c, row| {
            let values = c.drawn.as_ref()?.values_for_doc(row);
            Some(values.filter_map(|v| u32::try_from(v).ok()).collect())
        })
        .unwrap_or_default()
    }

    /// The turns of segment node `s`, in order: a scan of the column.
    pub(crate) fn turns_of(&self, s: u32) -> Vec<u32> {
        let Some(c) = self.0.as_ref() else {
            return Vec::new();
        };
        let v = u64::from(s);
        let scan = || super::fulltext::in_range(c.segment.as_ref(), v..=v, 0..c.rows);
        catch_unwind(AssertUnwindSafe(scan)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_read_back_in_place() {
        let segment_of = [Some(0), Some(0), None, Some(7), Some(0)];
        let drawn = HashMap::from([(1, vec![9, 3]), (4, vec![2])]);
        let built = Placed::build(&segment_of, &drawn).unwrap();
        let read = Placed::open(FileSlice::from(built.to_bytes().unwrap())).unwrap();
        for p in [&built, &read] {
            assert_eq!(p.len(), 5);
            let segments: Vec<Option<u32>> = (0..6).map(|i| p.segment(i)).collect();
            assert_eq!(segments, [Some(0), Some(0), None, Some(7), Some(0), None]);
            let mut one = p.drawn(1);
            one.sort_unstable();
            assert_eq!((one, p.drawn(4), p.drawn(0)), (vec![3, 9], vec![2], vec![]));
            assert_eq!(p.turns_of(0), [0, 1, 4]);
            assert_eq!(p.turns_of(7), [3]);
            assert!(p.turns_of(8).is_empty() && p.turns_of(6).is_empty());
        }
        let none = Placed::build(&[None, None], &HashMap::new()).unwrap();
        assert_eq!(
            (none.segment(0), none.drawn(1), none.len()),
            (None, vec![], 2)
        );
        assert!(none.turns_of(0).is_empty());
    }

    #[test]
    fn damaged_bytes_are_never_a_panic() {
        let drawn = HashMap::from([(1, vec![9, 3])]);
        let bytes = Placed::build(&[Some(4), Some(5), None], &drawn)
            .unwrap()
            .to_bytes()
            .unwrap();
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5a;
            if let Some(p) = Placed::open(FileSlice::from(bad)) {
                let _ = (p.segment(1), p.drawn(1), p.turns_of(4), p.len());
            }
        }
        assert!(Placed::open(FileSlice::from(bytes[..bytes.len() / 2].to_vec())).is_none());
    }
}
