//! The deep archive of a merge: the union of both sides' turns.

use std::collections::{BTreeMap, BTreeSet};

use super::MergeOptions;
use crate::archive::{append_turns, read_archive};
use crate::error::Result;
use crate::model::{Block, Document, Turn};

/// A turn's identity: its number and its canonical bytes.
type TurnKey = (u64, Vec<u8>);
/// Turns given another number: (number on its side, number in the merge).
type Renumbered = Vec<(u64, u64)>;

/// Give `merged` (whose vault is already merged) its archived turns, returning the
/// turns renumbered because both sides used their number.
///
/// When one side's turns are the base's, the other side's turns are taken (its
/// deletions too); otherwise the union of both sides' turns. Blocks are kept byte for
/// byte where they can be: a side's whole archive when it holds exactly the turns
/// taken, or the base's blocks with the new turns appended. Blocks are only kept while
/// the merged vault numbers the artifact versions their turns refer to as that side did
/// (a turn's stored form can be a reference to a version).
pub(super) fn merge(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    merged: &mut Document,
    options: &MergeOptions,
) -> Result<Renumbered> {
    let bb = blocks(base);
    let same =
        |x: &Document, y: &Document| blocks(x) == blocks(y) && x.artifact_vault == y.artifact_vault;
    let untouched = if same(ours, theirs) || same(theirs, base) {
        Some(ours)
    } else if same(ours, base) {
        Some(theirs)
    } else {
        None
    };
    if let Some(side) = untouched.filter(|side| keeps_vault(side, merged)) {
        set_blocks(merged, blocks(side).to_vec());
        return Ok(Vec::new());
    }
    let read = |d: &Document| -> Result<BTreeMap<TurnKey, Turn>> {
        read_archive(d, &options.limits)?
            .into_iter()
            .map(|a| Ok(((a.turn.turn, crate::canonical::to_vec(&a.turn)?), a.turn)))
            .collect()
    };
    let (bs, mut os, ts) = (read(base)?, read(ours)?, read(theirs)?);
    let holds = |x: &BTreeMap<TurnKey, Turn>, y: &BTreeMap<TurnKey, Turn>| {
        y.keys().all(|k| x.contains_key(k))
    };
    let same_turns =
        |x: &BTreeMap<TurnKey, Turn>, y: &BTreeMap<TurnKey, Turn>| x.keys().eq(y.keys());
    let (taken, mut sides) = if same_turns(&ts, &bs) {
        (os, vec![ours])
    } else if same_turns(&os, &bs) {
        (ts, vec![theirs])
    } else {
        // A side holds the whole union when it holds the other side's turns.
        let mut sides: Vec<&Document> = Vec::new();
        if holds(&os, &ts) {
            sides.push(ours);
        }
        if holds(&ts, &os) {
            sides.push(theirs);
        }
        // The same turns in other blocks: the smaller encoding first, whichever side.
        sides.sort_by_cached_key(|side| canonical_blocks(blocks(side)));
        os.extend(ts);
        (os, sides)
    };
    sides.retain(|side| keeps_vault(side, merged));
    if let Some(side) = sides.first() {
        set_blocks(merged, blocks(side).to_vec());
        return Ok(Vec::new());
    }
    let base_kept = holds(&taken, &bs);
    let (turns, renumbered) = number(&bs, taken);
    let base_max = bs.keys().map(|k| k.0).max().unwrap_or(0);
    // Base blocks stay when every base turn does and every other turn comes after them.
    let appendable = base_kept
        && turns
            .iter()
            .all(|(t, from_base)| *from_base || t.turn > base_max)
        && keeps_vault(base, merged);
    let (blocks_kept, to_append): (Vec<Block>, Vec<Turn>) = if appendable {
        let new = turns.into_iter().filter(|(_, b)| !b).map(|(t, _)| t);
        (bb.to_vec(), new.collect())
    } else {
        (Vec::new(), turns.into_iter().map(|(t, _)| t).collect())
    };
    set_blocks(merged, blocks_kept);
    append_turns(merged, &to_append, &options.archive)?;
    Ok(renumbered)
}

/// Number the union: a turn keeps its number unless another turn (the base's, or one
/// sorting first by content) holds it; those go after the last number, in order. Each
/// turn comes with whether it is one of the base's.
fn number(
    base: &BTreeMap<TurnKey, Turn>,
    union: BTreeMap<TurnKey, Turn>,
) -> (Vec<(Turn, bool)>, Renumbered) {
    let mut taken: BTreeSet<u64> = base
        .keys()
        .filter(|k| union.contains_key(*k))
        .map(|k| k.0)
        .collect();
    let mut kept = Vec::new();
    let mut moved = Vec::new();
    for (k, turn) in union {
        let from_base = base.contains_key(&k);
        if from_base || taken.insert(k.0) {
            kept.push((turn, from_base));
        } else {
            moved.push(turn);
        }
    }
    let mut next = kept.iter().map(|(t, _)| t.turn).max().unwrap_or(0);
    let mut renumbered = Vec::new();
    for mut turn in moved {
        next += 1;
        renumbered.push((turn.turn, next));
        turn.turn = next;
        kept.push((turn, false));
    }
    kept.sort_by_key(|(t, _)| t.turn);
    (kept, renumbered)
}

fn blocks(doc: &Document) -> &[Block] {
    doc.deep_archive
        .as_ref()
        .map(|a| a.blocks())
        .unwrap_or_default()
}

fn set_blocks(doc: &mut Document, blocks: Vec<Block>) {
    doc.deep_archive.get_or_insert_with(Default::default).blocks =
        (!blocks.is_empty()).then_some(blocks);
}

fn canonical_blocks(blocks: &[Block]) -> Vec<u8> {
    crate::canonical::to_vec(blocks).unwrap_or_default()
}

/// Whether `merged`'s vault numbers every artifact version of `side` as `side` does,
/// so that `side`'s blocks still point at the right content.
fn keeps_vault(side: &Document, merged: &Document) -> bool {
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
