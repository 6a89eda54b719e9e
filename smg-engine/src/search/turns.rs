//! Where the retriever's turns are: all in memory (read from a document), or left in
//! a packed file and read a block at a time when one is asked for, the last few
//! blocks kept.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use smg_format::{PackedArchive, Turn};

use crate::error::{Error, Result};

/// Blocks kept decoded (a block holds up to 250 turns).
const CACHED_BLOCKS: usize = 64;

/// The archived turns, in archive order, without their source records.
#[derive(Debug)]
pub(crate) enum TurnStore {
    /// Every turn, decoded.
    Loaded(Vec<Turn>),
    /// Turns read from a packed file when asked for.
    Packed(Lazy),
}

/// Turns in a packed file's blocks.
#[derive(Debug)]
pub(crate) struct Lazy {
    file: PackedArchive,
    /// Position of each block's first turn, then the number of turns.
    starts: Vec<usize>,
    /// Blocks decoded lately, the newest last.
    cache: Mutex<VecDeque<(usize, Arc<Vec<Turn>>)>>,
}

impl Lazy {
    /// The turns of `file`, whose blocks hold `sizes` turns each.
    pub(crate) fn new(file: PackedArchive, sizes: &[u32]) -> Self {
        let mut starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0;
        starts.push(0);
        for &n in sizes {
            at += n as usize;
            starts.push(at);
        }
        Lazy {
            file,
            starts,
            cache: Mutex::new(VecDeque::new()),
        }
    }

    fn block(&self, k: usize) -> Result<Arc<Vec<Turn>>> {
        let cached = |c: &VecDeque<(usize, Arc<Vec<Turn>>)>| {
            c.iter().find(|(b, _)| *b == k).map(|(_, t)| Arc::clone(t))
        };
        if let Some(turns) = cached(&self.cache.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(turns);
        }
        let turns = self.file.block_without_extras(k)?;
        let expected = self.starts[k + 1] - self.starts[k];
        if turns.len() != expected {
            return Err(Error::Format(smg_format::Error::Block {
                block: self.file.block_id(k).unwrap_or(k as u64),
                detail: format!(
                    "holds {} turns where the stored search index counts {expected}: store it again with `smg index`",
                    turns.len()
                ),
            }));
        }
        let turns = Arc::new(turns);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED_BLOCKS {
            cache.pop_front();
        }
        cache.push_back((k, Arc::clone(&turns)));
        Ok(turns)
    }
}

impl TurnStore {
    /// How many turns.
    pub(crate) fn len(&self) -> usize {
        match self {
            TurnStore::Loaded(turns) => turns.len(),
            TurnStore::Packed(lazy) => lazy.starts.last().copied().unwrap_or(0),
        }
    }

    /// Turn `i` (a position in archive order); reading its block may fail.
    pub(crate) fn get(&self, i: usize) -> Result<Cow<'_, Turn>> {
        match self {
            TurnStore::Loaded(turns) => turns.get(i).map(Cow::Borrowed).ok_or_else(|| {
                Error::Format(smg_format::Error::InvalidArgument(format!(
                    "the archive has no turn at position {i}"
                )))
            }),
            TurnStore::Packed(lazy) => {
                if i >= self.len() {
                    return Err(Error::Format(smg_format::Error::InvalidArgument(format!(
                        "the archive has no turn at position {i}"
                    ))));
                }
                let k = lazy.starts.partition_point(|&s| s <= i) - 1;
                let block = lazy.block(k)?;
                Ok(Cow::Owned(block[i - lazy.starts[k]].clone()))
            }
        }
    }
}
