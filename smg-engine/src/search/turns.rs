//! Where the retriever's turns are: all in memory (read from a document), or in the
//! frames of a packed file's stored search index ([`Frames`]), read when asked for.

use std::borrow::Cow;

use smg_format::model::Turn;

use super::frames::Frames;
use crate::error::{Error, Result};

/// The archived turns, in archive order, without their source records.
#[derive(Debug)]
pub(crate) enum TurnStore {
    /// Every turn, decoded.
    Loaded(Vec<Turn>),
    /// Turns read from the frames of a stored index when asked for.
    Framed(Box<Frames>),
}

impl TurnStore {
    /// How many turns.
    pub(crate) fn len(&self) -> usize {
        match self {
            TurnStore::Loaded(turns) => turns.len(),
            TurnStore::Framed(frames) => frames.len(),
        }
    }

    /// Turn `i` (a position in archive order); reading its frame may fail.
    pub(crate) fn get(&self, i: usize) -> Result<Cow<'_, Turn>> {
        self.check(i)?;
        match self {
            TurnStore::Loaded(turns) => Ok(Cow::Borrowed(&turns[i])),
            TurnStore::Framed(frames) => frames.get(i).map(Cow::Owned),
        }
    }

    /// Turns `indices`, in that order: frames are read side by side.
    pub(crate) fn get_many(&self, indices: &[usize]) -> Result<Vec<Cow<'_, Turn>>> {
        for &i in indices {
            self.check(i)?;
        }
        match self {
            TurnStore::Loaded(turns) => {
                Ok(indices.iter().map(|&i| Cow::Borrowed(&turns[i])).collect())
            }
            TurnStore::Framed(frames) => Ok(frames
                .get_many(indices)?
                .into_iter()
                .map(Cow::Owned)
                .collect()),
        }
    }

    /// The store of `turns`, the first of them being this store's: frames keep the
    /// frames that are full and frame the rest; loaded turns are replaced.
    pub(crate) fn appended(&self, turns: Vec<Turn>) -> Result<TurnStore> {
        Ok(match self {
            TurnStore::Loaded(_) => TurnStore::Loaded(turns),
            TurnStore::Framed(frames) => TurnStore::Framed(Box::new(frames.appended(&turns)?)),
        })
    }

    fn check(&self, i: usize) -> Result<()> {
        if i >= self.len() {
            return Err(Error::Format(smg_format::Error::InvalidArgument(format!(
                "the archive has no turn at position {i}"
            ))));
        }
        Ok(())
    }
}
