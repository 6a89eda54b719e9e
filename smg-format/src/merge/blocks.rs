//! A side's archive read block by block for a merge: the blocks it shares with the
//! base byte for byte are decoded once, as the base's.

use std::collections::{BTreeMap, HashMap, HashSet};

use foldhash::fast::FixedState;

use serde_json::value::RawValue;

use crate::archive::{decode_block, every_source, read_block, ArchivedTurn};
use crate::error::Result;
use crate::limits::Limits;
use crate::model::{Block, BlockData, Document, Turn};

/// A side's archive block by block: one the base has byte for byte (by its index
/// there), or the side's own turns.
pub(super) enum Part {
    Base(usize),
    Own(Vec<Turn>),
}

/// A side's turns in order, given its parts and the base's decoded blocks.
pub(super) fn side_turns<'p>(
    parts: &'p [Part],
    base: &'p [Vec<ArchivedTurn>],
) -> impl Iterator<Item = &'p Turn> {
    parts
        .iter()
        .flat_map(move |p| -> Box<dyn Iterator<Item = &'p Turn>> {
            match p {
                Part::Base(i) => Box::new(base[*i].iter().map(|a| &a.turn)),
                Part::Own(turns) => Box::new(turns.iter()),
            }
        })
}

/// Every block of `doc`, decoded: its turns, with the artifact versions they hold.
/// The turns of a block marked `lean` leave out their source records, but those of
/// turns without a message id (whose identity is all they hold).
pub(super) fn decode(
    doc: &Document,
    limits: &Limits,
    lean: &[bool],
) -> Result<Vec<Vec<ArchivedTurn>>> {
    use rayon::prelude::*;
    let method = doc
        .deep_archive
        .as_ref()
        .and_then(|a| a.compression_method)
        .unwrap_or_default();
    let vault = doc.artifact_vault.as_ref();
    let identified = |t: &Turn, record: &RawValue| match t.message_id {
        Some(_) => Ok(None),
        None => every_source(t, record),
    };
    blocks(doc)
        .par_iter()
        .enumerate()
        .map(|(i, b)| match lean.get(i) {
            Some(true) => read_block(b, method, vault, limits, &identified),
            _ => read_block(b, method, vault, limits, &every_source),
        })
        .collect()
}

/// Whether `side`'s blocks that are the base's byte for byte hold the base's turns:
/// compressed alike, and with the base's artifact versions numbered as the base does
/// (a turn can refer to a version).
pub(super) fn shares(side: &Document, base: &Document) -> bool {
    let method = |d: &Document| d.deep_archive.as_ref().and_then(|a| a.compression_method);
    method(side) == method(base) && keeps_vault(base, side)
}

/// Which of the base's blocks `side` holds byte for byte, when it [`shares`] them.
pub(super) fn held(side: &Document, base: &Document, shares: bool) -> Vec<bool> {
    let data: HashSet<&BlockData, FixedState> = match shares {
        true => blocks(side).iter().map(|b| &b.compressed_data).collect(),
        false => HashSet::default(),
    };
    blocks(base)
        .iter()
        .map(|b| data.contains(&b.compressed_data))
        .collect()
}

/// `side`'s archive as [`Part`]s: only the blocks the base lacks are decoded. A block
/// the base has byte for byte holds the base's turns when the side [`shares`] them.
pub(super) fn parts(
    side: &Document,
    base: &Document,
    limits: &Limits,
    shares: bool,
) -> Result<Vec<Part>> {
    use rayon::prelude::*;
    let known: HashMap<&BlockData, usize, FixedState> = if shares {
        let data = blocks(base).iter().map(|b| &b.compressed_data);
        data.enumerate().map(|(i, d)| (d, i)).collect()
    } else {
        HashMap::default()
    };
    let vault = side.artifact_vault.as_ref();
    let method = side
        .deep_archive
        .as_ref()
        .and_then(|a| a.compression_method)
        .unwrap_or_default();
    blocks(side)
        .par_iter()
        .map(|b| match known.get(&b.compressed_data) {
            Some(&i) => Ok(Part::Base(i)),
            None => decode_block(b, method, vault, limits).map(Part::Own),
        })
        .collect()
}

pub(super) fn blocks(doc: &Document) -> &[Block] {
    doc.deep_archive
        .as_ref()
        .map(|a| a.blocks())
        .unwrap_or_default()
}

/// Whether `merged`'s vault numbers every artifact version of `side` as `side` does,
/// so that `side`'s blocks still point at the right content.
pub(super) fn keeps_vault(side: &Document, merged: &Document) -> bool {
    fn arts(d: &Document) -> Option<&BTreeMap<String, crate::model::Artifact>> {
        d.artifact_vault.as_ref().and_then(|v| v.artifacts.as_ref())
    }
    let Some(mine) = arts(side) else {
        return true;
    };
    let theirs = arts(merged);
    mine.iter().all(|(id, a)| {
        theirs
            .and_then(|m| m.get(id))
            .is_some_and(|m| m.versions.starts_with(&a.versions))
    })
}
