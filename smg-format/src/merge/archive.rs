//! The deep archive of a merge: the union of both sides' turns by identity (spec
//! §17.3), numbered as one ingest of both sides' new turns would number them.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use foldhash::fast::FixedState;

use serde::Serialize;

use super::blocks::{blocks, decode, held, keeps_vault, parts, shares, side_turns, Part};
use super::{Conflict, MergeOptions, Side};
use crate::archive::{append_turns, read_archive, ArchivedTurn};
use crate::error::Result;
use crate::limits::Limits;
use crate::model::{Block, Document, Ordinal, ShortText, Turn};

/// What a turn is, whatever its number: its conversation and message id, or, for a
/// turn without a message id, its canonical JSON without the number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Identity {
    Message(Option<ShortText>, ShortText),
    Content(Vec<u8>),
}

fn identity(t: &Turn) -> Result<Identity> {
    Ok(match &t.message_id {
        Some(m) => Identity::Message(t.conversation_id.clone(), m.clone()),
        // Every turn gets the same number, so that only what was said compares.
        None => Identity::Content(crate::canonical::to_vec(&Turn {
            turn: Ordinal::FIRST,
            ..t.clone()
        })?),
    })
}

/// Turn numbers of one side that are another in the merge: (its number, the merge's).
pub(super) type Renumbering = BTreeMap<u64, u64>;

/// What each side added since the base (turns, artifact versions), as the merge
/// took it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Taken {
    /// Added on our side only.
    pub ours: usize,
    /// Added on their side only.
    pub theirs: usize,
    /// Added on both sides (the same message, the same content): taken once.
    pub both: usize,
}

/// The base's archive, decoded once (when a merge needs its turns) and lent to the
/// plan: the turns both sides kept are never copied.
#[derive(Default)]
pub(super) struct BaseTurns(std::cell::OnceCell<Vec<Vec<ArchivedTurn>>>);

impl BaseTurns {
    /// The base's turns, in order, when the plan decoded them.
    pub(super) fn turns(&self) -> Option<Vec<&Turn>> {
        let blocks = self.0.get()?;
        Some(blocks.iter().flatten().map(|a| &a.turn).collect())
    }

    /// The merged archive's turns: the base's, then `added` (with their parts), when
    /// the plan decoded the base.
    pub(super) fn then(self, added: Appended) -> Option<Vec<ArchivedTurn>> {
        let blocks = self.0.into_inner()?;
        let len = blocks.iter().map(Vec::len).sum::<usize>() + added.len();
        let mut all = Vec::with_capacity(len);
        for block in blocks {
            all.extend(block);
        }
        all.extend(
            added
                .into_iter()
                .map(|(turn, artifacts)| ArchivedTurn { turn, artifacts }),
        );
        Some(all)
    }
}

/// How the merged archive is made, decided before the rest of the document merges
/// (its numbering rewrites both sides' references first).
pub(super) struct Plan<'a> {
    kind: PlanKind<'a>,
    /// Whether some of the base's turns were decoded without their source records.
    lean_base: bool,
    pub(super) ours: Renumbering,
    pub(super) theirs: Renumbering,
    pub(super) taken: Taken,
    pub(super) conflicts: Vec<Conflict>,
}

impl Plan<'_> {
    /// Whether the archive is a new union, not one side's as it is.
    pub(super) fn is_union(&self) -> bool {
        matches!(self.kind, PlanKind::Union { .. })
    }
}

enum PlanKind<'a> {
    /// One side's archive is the merge's, as it is.
    Side(Side),
    /// The union, every turn in order.
    Union {
        turns: Vec<Cow<'a, Turn>>,
        /// Whether each side's archive holds exactly these turns.
        exact: [bool; 2],
        /// How many turns are the base's, unchanged and first, when all of them are.
        base_first: Option<usize>,
    },
}

/// What a side holds of a turn of the union.
enum Held {
    Absent,
    /// The base's turn, in a block the side shares with the base byte for byte.
    AsBase,
    /// A turn of the side's own blocks (boxed: most entries hold none).
    Own(Box<Turn>),
}

/// A turn of the union, as each document has it.
struct Entry<'a> {
    base: Option<&'a Turn>,
    sides: [Held; 2],
    /// (time in ms, side, position in the side): where ingest would put a new turn.
    order: (i64, usize, usize),
}

/// Plan the merged archive of `ours` and `theirs`, both changed from `base`.
pub(super) fn plan<'a>(
    base: &'a Document,
    ours: &Document,
    theirs: &Document,
    decoded: &'a BaseTurns,
    options: &MergeOptions,
) -> Result<Plan<'a>> {
    let same =
        |x: &Document, y: &Document| blocks(x) == blocks(y) && x.artifact_vault == y.artifact_vault;
    let untouched = |side| Plan {
        kind: PlanKind::Side(side),
        lean_base: false,
        ours: Renumbering::new(),
        theirs: Renumbering::new(),
        taken: Taken::default(),
        conflicts: Vec::new(),
    };
    if same(ours, theirs) || same(theirs, base) {
        return Ok(untouched(Side::Ours));
    }
    if same(ours, base) {
        return Ok(untouched(Side::Theirs));
    }
    let shared = [ours, theirs].map(|side| shares(side, base));
    // A base block both sides hold byte for byte is the merge's as it is, and its
    // turns are each side's own: they are never compared by value, and are written
    // again only from the base decoded whole ([`write`]), so their source records
    // (most of their memory) are not read.
    let held_ours = held(ours, base, shared[0]);
    let held_theirs = held(theirs, base, shared[1]);
    let lean: Vec<bool> = held_ours
        .iter()
        .zip(&held_theirs)
        .map(|(o, t)| *o && *t)
        .collect();
    let base_blocks: &'a [Vec<ArchivedTurn>] = match decoded.0.get() {
        Some(b) => b,
        None => {
            let b = decode(base, &options.limits, &lean)?;
            decoded.0.get_or_init(|| b)
        }
    };
    let (op, tp) = (
        parts(ours, base, &options.limits, shared[0])?,
        parts(theirs, base, &options.limits, shared[1])?,
    );
    if holds_base(&op, base_blocks) {
        return Ok(untouched(Side::Theirs));
    }
    if holds_base(&tp, base_blocks) {
        return Ok(untouched(Side::Ours));
    }
    let mut union = Union::of_base(base_blocks)?;
    // New turns are numbered after sealed ones too, whichever document sealed them.
    union.floor = [base, ours, theirs]
        .map(crate::archive::last_sealed_turn)
        .into_iter()
        .max()
        .unwrap_or(0);
    for (side, parts) in [op, tp].into_iter().enumerate() {
        union.add(side, parts)?;
    }
    let mut plan = union.finish(options.prefer)?;
    plan.lean_base = lean.contains(&true);
    Ok(plan)
}

/// Whether a side's turns are the base's, in order. A turn of a block the side shares
/// with the base is the base's own (the same reference), compared no further.
fn holds_base(parts: &[Part], base: &[Vec<ArchivedTurn>]) -> bool {
    let all = base.iter().flatten().map(|a| &a.turn);
    let (mut side, mut all) = (side_turns(parts, base), all);
    loop {
        match (side.next(), all.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if std::ptr::eq(x, y) || x == y => {}
            _ => return false,
        }
    }
}

/// The union under construction: every turn once, by identity, with what each
/// document holds of it.
struct Union<'a> {
    base: &'a [Vec<ArchivedTurn>],
    entries: Vec<Entry<'a>>,
    index: HashMap<Identity, usize, FixedState>,
    /// Where each base block's turns start among the entries.
    starts: Vec<usize>,
    /// Each side's turns in its order: (its number, entry).
    numbers: [Vec<(u64, usize)>; 2],
    /// The highest number a sealed turn holds.
    floor: u64,
}

impl<'a> Union<'a> {
    fn of_base(base: &'a [Vec<ArchivedTurn>]) -> Result<Self> {
        // Sized once: grown by doubling, a large archive's entries and index would
        // each be copied into fresh memory several times over.
        let turns = base.iter().map(Vec::len).sum::<usize>();
        let mut u = Union {
            base,
            entries: Vec::with_capacity(turns),
            index: HashMap::with_capacity_and_hasher(turns, FixedState::default()),
            starts: Vec::with_capacity(base.len()),
            numbers: [Vec::with_capacity(turns), Vec::with_capacity(turns)],
            floor: 0,
        };
        for block in base {
            u.starts.push(u.entries.len());
            for a in block {
                let t = &a.turn;
                u.index.insert(identity(t)?, u.entries.len());
                u.entries.push(Entry {
                    base: Some(t),
                    sides: [Held::Absent, Held::Absent],
                    order: (i64::MIN, 0, 0),
                });
            }
        }
        Ok(u)
    }

    /// Add `side`'s turns (0 ours, 1 theirs), in its order.
    fn add(&mut self, side: usize, parts: Vec<Part>) -> Result<()> {
        let mut times: HashMap<Option<ShortText>, i64, FixedState> = HashMap::default();
        let mut time_of = |t: &Turn| {
            let last = times.get_mut(&t.conversation_id);
            let time = match t.timestamp.as_deref().and_then(millis) {
                Some(ms) => ms,
                None => last.as_deref().copied().unwrap_or(i64::MIN),
            };
            match last {
                Some(last) => *last = time,
                None => {
                    times.insert(t.conversation_id.clone(), time);
                }
            }
            time
        };
        let mut position = 0;
        for part in parts {
            match part {
                Part::Base(i) => {
                    for (j, a) in self.base[i].iter().enumerate() {
                        time_of(&a.turn);
                        let t = &a.turn;
                        self.hold(side, t.turn.get(), self.starts[i] + j, Held::AsBase);
                        position += 1;
                    }
                }
                Part::Own(turns) => {
                    for t in turns {
                        let order = (time_of(&t), side, position);
                        let at = match self.index.entry(identity(&t)?) {
                            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                            std::collections::hash_map::Entry::Vacant(e) => {
                                self.entries.push(Entry {
                                    base: None,
                                    sides: [Held::Absent, Held::Absent],
                                    order,
                                });
                                *e.insert(self.entries.len() - 1)
                            }
                        };
                        self.hold(side, t.turn.get(), at, Held::Own(Box::new(t)));
                        position += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// `side` holds entry `at` as its turn `number`; a side that holds one message
    /// twice keeps its first.
    fn hold(&mut self, side: usize, number: u64, at: usize, held: Held) {
        self.numbers[side].push((number, at));
        let slot = &mut self.entries[at].sides[side];
        if matches!(slot, Held::Absent) {
            *slot = held;
        }
    }

    fn finish(self, prefer: Option<Side>) -> Result<Plan<'a>> {
        union(self.entries, self.numbers, self.floor, prefer)
    }
}

/// Number the union and settle turns both sides changed.
fn union<'a>(
    entries: Vec<Entry<'a>>,
    numbers: [Vec<(u64, usize)>; 2],
    floor: u64,
    prefer: Option<Side>,
) -> Result<Plan<'a>> {
    let base_max = entries
        .iter()
        .filter_map(|e| e.base.map(|t| t.turn.get()))
        .max()
        .unwrap_or(0)
        .max(floor);
    let mut added: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].base.is_none())
        .collect();
    added.sort_by_key(|&i| entries[i].order);
    let mut number: Vec<Option<Ordinal>> = entries.iter().map(|e| e.base.map(|t| t.turn)).collect();
    for (k, &i) in added.iter().enumerate() {
        number[i] = Some(Ordinal::after(base_max + k as u64));
    }
    let mut taken = Taken::default();
    for &i in &added {
        match &entries[i].sides {
            [Held::Absent, _] => taken.theirs += 1,
            [_, Held::Absent] => taken.ours += 1,
            _ => taken.both += 1,
        }
    }
    let renumbering = |side: &[(u64, usize)]| -> Renumbering {
        side.iter()
            .filter_map(|&(n, at)| Some((n, number[at]?.get())).filter(|(n, m)| n != m))
            .collect()
    };
    let (ours, theirs) = (renumbering(&numbers[0]), renumbering(&numbers[1]));
    let mut conflicts = Vec::new();
    let mut order: Vec<(Ordinal, Cow<'a, Turn>)> = Vec::with_capacity(entries.len());
    // Whether the base, ours and theirs have each kept turn as it is taken.
    let mut all_kept = [true; 3];
    let (mut base_kept, base_len) = (0, entries.iter().filter(|e| e.base.is_some()).count());
    for (entry, n) in entries.into_iter().zip(number) {
        // A base turn both sides deleted is gone.
        let Some(n) = n else { continue };
        let Some((t, kept)) = settle(entry, n, prefer, &mut conflicts)? else {
            continue;
        };
        base_kept += usize::from(kept[0]);
        for (all, k) in all_kept.iter_mut().zip(kept) {
            *all &= k;
        }
        order.push((n, t));
    }
    order.sort_by_key(|(n, _)| *n);
    let turns: Vec<Cow<'a, Turn>> = order
        .into_iter()
        .map(|(n, t)| match t {
            Cow::Owned(t) if t.turn != n => Cow::Owned(Turn { turn: n, ..t }),
            t => t,
        })
        .collect();
    let exact = [0, 1].map(|s| {
        let renumbered = [&ours, &theirs][s];
        all_kept[s + 1] && renumbered.is_empty() && numbers[s].len() == turns.len()
    });
    Ok(Plan {
        kind: PlanKind::Union {
            turns,
            exact,
            base_first: (base_kept == base_len).then_some(base_len),
        },
        lean_base: false,
        ours,
        theirs,
        taken,
        conflicts,
    })
}

/// One turn of the union: a side's change taken, both sides' same change once, two
/// different changes a conflict (under `n` in the pointer). With the turn, whether the
/// base, ours and theirs hold it as taken; `None` when neither side holds it.
fn settle<'a>(
    entry: Entry<'a>,
    n: Ordinal,
    prefer: Option<Side>,
    conflicts: &mut Vec<Conflict>,
) -> Result<Option<(Cow<'a, Turn>, [bool; 3])>> {
    let b = entry.base;
    let [o, t] = entry.sides.map(|held| match held {
        Held::Absent => None,
        Held::AsBase => b.map(Cow::Borrowed),
        Held::Own(t) => Some(Cow::Owned(*t)),
    });
    let eq = |x: Option<&Turn>, y: Option<&Turn>| match (x, y) {
        (Some(x), Some(y)) => same_turn(x, y),
        _ => false,
    };
    let (ob, tb) = (o.as_deref(), t.as_deref());
    let pick = if o.is_none() {
        Side::Theirs
    } else if t.is_none() || eq(ob, tb) || eq(tb, b) {
        Side::Ours
    } else if eq(ob, b) {
        Side::Theirs
    } else {
        let value = |x: Option<&Turn>| -> Result<Option<serde_json::Value>> {
            x.map(|t| {
                serde_json::to_value(Turn {
                    turn: n,
                    ..t.clone()
                })
            })
            .transpose()
            .map_err(|e| crate::Error::InvalidArgument(e.to_string()))
        };
        conflicts.push(Conflict {
            pointer: format!("/deepArchive/turns/{n}"),
            base: value(b)?,
            ours: value(ob)?,
            theirs: value(tb)?,
            resolved: prefer,
        });
        prefer.unwrap_or(Side::Ours)
    };
    let taken = if pick == Side::Ours { ob } else { tb };
    // The base's number is the merge's; a side's is when nothing renumbered it.
    let holds = |x: Option<&Turn>| eq(x, taken) && x.map(|x| x.turn) == Some(n);
    let kept = [holds(b), holds(ob), holds(tb)];
    let turn = match pick {
        Side::Ours => o,
        Side::Theirs => t,
    };
    Ok(turn.map(|turn| (turn, kept)))
}

/// Whether two turns say the same, whatever their numbers.
fn same_turn(x: &Turn, y: &Turn) -> bool {
    // Both sides hold most turns as the base's own: the same turn, compared no further.
    if std::ptr::eq(x, y) {
        return true;
    }
    if x.turn == y.turn {
        x == y
    } else {
        *x == Turn {
            turn: x.turn,
            ..y.clone()
        }
    }
}

fn millis(t: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// The turns appended to the base's blocks, each with the artifact versions its
/// stored form refers to.
pub(super) type Appended = Vec<(Turn, Vec<(String, u64)>)>;

/// Give `merged` (whose vault is merged) the planned archive. Blocks are kept byte for
/// byte where they can be: a side's whole archive when it holds exactly the turns
/// taken, or the base's blocks with the new turns appended; only while the merged vault
/// numbers the artifact versions their turns refer to as that side did (a turn's
/// stored form can be a reference to a version). In the last case, the turns
/// appended are returned.
pub(super) fn write(
    plan: Plan<'_>,
    [base, ours, theirs]: [&Document; 3],
    merged: &mut Document,
    options: &MergeOptions,
) -> Result<Option<Appended>> {
    let sides = [ours, theirs];
    let (turns, exact, base_first) = match plan.kind {
        PlanKind::Side(side) => (Vec::new(), [side == Side::Ours, side == Side::Theirs], None),
        PlanKind::Union {
            turns,
            exact,
            base_first,
        } => (turns, exact, base_first),
    };
    for (doc, exact) in sides.into_iter().zip(exact) {
        if exact && keeps_vault(doc, merged) {
            set_blocks(merged, blocks(doc).to_vec());
            return Ok(None);
        }
    }
    let turns: Vec<Cow<'_, Turn>> = match sides.into_iter().zip(exact).find(|(_, e)| *e) {
        // A side's archive, whose blocks name versions the merged vault numbers otherwise.
        Some((doc, _)) if turns.is_empty() => read_archive(doc, &options.limits)?
            .into_iter()
            .map(|a| Cow::Owned(a.turn))
            .collect(),
        _ => turns,
    };
    let owned = |turns: &[Cow<'_, Turn>]| -> Vec<Turn> {
        turns.iter().map(|t| t.as_ref().clone()).collect()
    };
    let base_first = base_first.filter(|_| !blocks(base).is_empty() && keeps_vault(base, merged));
    if let Some(kept) = base_first {
        set_blocks(merged, blocks(base).to_vec());
        let added = owned(&turns[kept..]);
        let report = append_turns(merged, &added, &options.archive)?;
        return Ok(Some(added.into_iter().zip(report.artifacts).collect()));
    }
    let whole = match plan.lean_base {
        true => whole_base(&turns, base, &options.limits)?,
        false => owned(&turns),
    };
    set_blocks(merged, Vec::new());
    append_turns(merged, &whole, &options.archive)?;
    Ok(None)
}

/// `turns` owned, each of the base's own (borrowed) with its source record, from the
/// base's archive decoded whole: the plan read some without theirs.
fn whole_base(turns: &[Cow<'_, Turn>], base: &Document, limits: &Limits) -> Result<Vec<Turn>> {
    let mut said: HashMap<u64, Turn, FixedState> = read_archive(base, limits)?
        .into_iter()
        .map(|a| (a.turn.turn.get(), a.turn))
        .collect();
    Ok(turns
        .iter()
        .map(|t| match t {
            Cow::Borrowed(t) => said.remove(&t.turn.get()).unwrap_or_else(|| (*t).clone()),
            Cow::Owned(t) => t.clone(),
        })
        .collect())
}

fn set_blocks(doc: &mut Document, blocks: Vec<Block>) {
    doc.deep_archive.get_or_insert_with(Default::default).blocks =
        (!blocks.is_empty()).then_some(blocks);
}
