//! The semantic checks of a document's frame: the vault, the deep archive and the
//! collaborators. A writer that streams a large document out compresses these first,
//! while its graph is still being built; what the graph's checks then need from them
//! (the artifact ids, the archived turns' ids) is kept in a [`Frame`].

use std::collections::HashSet;

use foldhash::fast::FixedState;
use rayon::prelude::*;

use super::provenance::Archived;
use super::Finding;
use crate::archive::{decode_block, parse_turn_range};
use crate::limits::Limits;
use crate::model::{escape_pointer, Block, DeepArchive, Document, Ordinal, Scope, Turn};
use crate::vault::{content_hash, rebuild_versions};

const ROLES: &[&str] = &["user", "assistant", "system", "tool"];
const ARTIFACT_TYPES: &[&str] = &["code", "document", "canvas", "data"];

type Map<K, V> = std::collections::HashMap<K, V, FixedState>;

/// How many archive blocks are decoded side by side.
const DECODED_TOGETHER: usize = 32;

/// What the frame's checks found, and what the checks of the graph need from it.
pub(crate) struct Frame {
    /// Findings of the vault, then the archive and its vectors.
    pub(super) out: Vec<Finding>,
    /// Ids of the vault's artifacts.
    pub(super) artifacts: HashSet<String, FixedState>,
    /// Ids of the listed collaborators.
    pub(super) collaborators: HashSet<String>,
    /// The archived turns' numbers and ids, for provenance.
    pub(super) archived: Archived,
}

impl Frame {
    /// Check `doc`'s frame. The archive's turns are `held` as the writer that wrote
    /// them holds them (every turn of its unsealed blocks); otherwise every block is
    /// decoded.
    pub(crate) fn read(doc: &Document, limits: &Limits, held: Option<&[&Turn]>) -> Frame {
        let mut frame = Frame::of(doc);
        if let Some(archive) = &doc.deep_archive {
            frame.archived.complete = true;
            match held {
                Some(turns) => frame.held(archive, turns),
                None => {
                    let shapes = frame.shapes(archive.blocks());
                    let all: Vec<usize> = (0..shapes.len()).collect();
                    frame.decoded(doc, &shapes, &all, limits);
                }
            }
            frame.close(doc, archive);
        }
        frame
    }

    /// The frame's checks of everything but the archive's blocks: the vault's (its
    /// findings first), the artifacts' and collaborators' ids kept.
    pub(super) fn of(doc: &Document) -> Frame {
        let mut frame = Frame::empty();
        frame.artifacts = doc
            .artifact_vault
            .as_ref()
            .and_then(|v| v.artifacts.as_ref())
            .map(|a| a.keys().cloned().collect())
            .unwrap_or_default();
        frame.collaborators = doc
            .collaborators
            .iter()
            .flatten()
            .map(|c| c.id.to_string())
            .collect();
        frame.vault(doc);
        frame
    }

    /// A frame with nothing checked yet.
    pub(super) fn empty() -> Frame {
        Frame {
            out: Vec::new(),
            artifacts: HashSet::default(),
            collaborators: HashSet::new(),
            archived: Archived::default(),
        }
    }

    /// The archive's checks once every block's turns are in: its vectors, the sealed
    /// ranges provenance may not be checked in.
    pub(super) fn close(&mut self, doc: &Document, archive: &DeepArchive) {
        self.archived.sealed = doc
            .sealed_sections
            .iter()
            .flatten()
            .flat_map(|s| s.turn_ranges.iter().flatten())
            .filter_map(|r| parse_turn_range(r))
            .collect();
        self.vectors(archive);
        self.archived.finish();
    }

    fn err(&mut self, code: &'static str, ptr: String, msg: String) {
        self.out.push(Finding::error(code, ptr, msg));
    }

    fn warn(&mut self, code: &'static str, ptr: String, msg: String) {
        self.out.push(Finding::warning(code, ptr, msg));
    }

    fn vault(&mut self, doc: &Document) {
        let Some(vault) = &doc.artifact_vault else {
            return;
        };
        if vault.extra.contains_key("deduplicationIndex") {
            self.warn("SMG-W006", "/artifactVault/deduplicationIndex".into(),
                "`deduplicationIndex` is the draft name of `artifacts`; its content is kept but not checked".into());
        }
        // Every version is rebuilt, on every core; only the newest's hash is kept.
        let artifacts: Vec<_> = vault.artifacts.iter().flatten().collect();
        let newest: Vec<_> = artifacts
            .par_iter()
            .map(|(id, art)| {
                let contents = rebuild_versions(id, art)?;
                Ok::<_, crate::Error>(contents.last().map(|c| content_hash(c)))
            })
            .collect();
        for ((id, art), newest) in artifacts.into_iter().zip(newest) {
            let ptr = format!("/artifactVault/artifacts/{}", escape_pointer(id));
            if !ARTIFACT_TYPES.contains(&art.kind.as_str()) {
                self.warn(
                    "SMG-W003",
                    format!("{ptr}/type"),
                    format!("artifact type `{}` is not defined in v1", art.kind),
                );
            }
            match newest {
                Err(e) => {
                    let idx = art.versions.iter().position(
                        |v| matches!(&e, crate::Error::Artifact { version, .. } if v.v == *version),
                    );
                    let at = idx
                        .map(|i| format!("{ptr}/versions/{i}"))
                        .unwrap_or(ptr.clone());
                    self.err(e.code(), at, e.to_string());
                }
                Ok(newest) => {
                    let newest = newest.unwrap_or_default();
                    if art.versions.is_empty() {
                        self.err(
                            "SMG-E100",
                            format!("{ptr}/versions"),
                            format!("artifact {id} has no versions"),
                        );
                    } else if art.hash != newest {
                        self.err("SMG-E115", format!("{ptr}/hash"), format!(
                            "artifact {id}: hash is {} but the newest version hashes to {newest}", art.hash
                        ));
                    }
                }
            }
        }
    }

    /// The blocks `which` of `doc`'s archive decoded, on every core, a few at a time:
    /// memory holds the turns of one chunk, not of the archive.
    pub(super) fn decoded(
        &mut self,
        doc: &Document,
        shapes: &[Shape],
        which: &[usize],
        limits: &Limits,
    ) {
        let Some(archive) = &doc.deep_archive else {
            return;
        };
        let method = archive.compression_method.unwrap_or_default();
        let vault = doc.artifact_vault.as_ref();
        let blocks = archive.blocks();
        for chunk in which.chunks(DECODED_TOGETHER) {
            let decoded: Vec<_> = chunk
                .par_iter()
                .map(|&i| {
                    let turns = decode_block(&blocks[i], method, vault, limits)?;
                    Ok::<Vec<Turn>, crate::Error>(turns.into_iter().map(framed).collect())
                })
                .collect();
            for (&i, turns) in chunk.iter().zip(decoded) {
                match turns {
                    Ok(turns) => self.block(i, shapes, &turns),
                    Err(e) => self.undecodable(i, &e),
                }
            }
        }
    }

    /// Each block's id used once and its turn range readable; what the checks of
    /// its turns read of it.
    pub(super) fn shapes(&mut self, blocks: &[Block]) -> Vec<Shape> {
        let mut ids = HashSet::new();
        blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let ptr = format!("/deepArchive/blocks/{i}");
                if !ids.insert(b.id) {
                    let msg = format!("block id {} is used twice", b.id);
                    self.err("SMG-E118", format!("{ptr}/id"), msg);
                }
                let range = parse_turn_range(&b.turn_range);
                if range.is_none() {
                    let msg = format!(
                        "`{}` is not a turn range \"first-last\" with first <= last",
                        b.turn_range
                    );
                    self.err("SMG-E114", format!("{ptr}/turnRange"), msg);
                }
                Shape {
                    id: b.id,
                    turn_range: b.turn_range.as_str().to_string(),
                    scope: scope(b.scope),
                    range,
                }
            })
            .collect()
    }

    /// Block `i`, which did not decode: its turns are unknown.
    pub(super) fn undecodable(&mut self, i: usize, e: &crate::Error) {
        let at = format!("/deepArchive/blocks/{i}/compressedData");
        self.err(e.code(), at, e.to_string());
        self.archived.complete = false;
    }

    /// Block `i` of `shapes` holding `turns`.
    pub(super) fn block(&mut self, i: usize, shapes: &[Shape], turns: &[Turn]) {
        let b = &shapes[i];
        let at = || format!("/deepArchive/blocks/{i}/compressedData");
        for t in turns {
            if let Some((lo, hi)) = b.range {
                if t.turn < lo || t.turn > hi {
                    let msg = format!(
                        "block {}: turn {} lies outside its turnRange {}",
                        b.id, t.turn, b.turn_range
                    );
                    self.err("SMG-E119", at(), msg);
                }
            }
            if scope(t.scope) != b.scope {
                let msg = format!(
                    "block {}: turn {} has scope {}, its block {}",
                    b.id,
                    t.turn,
                    scope(t.scope).name(),
                    b.scope.name()
                );
                self.err("SMG-E128", at(), msg);
            }
            if let Some(other) = self.archived.add(t, i) {
                let msg = format!(
                    "turn {} is archived twice (blocks {} and {})",
                    t.turn, shapes[other].id, b.id
                );
                self.err("SMG-E118", at(), msg);
            }
            role(&mut self.out, at, t);
        }
    }

    /// The turns a writer holds, each within the range of a block of its scope; the
    /// blocks it has just written are not decoded again.
    fn held(&mut self, archive: &DeepArchive, turns: &[&Turn]) {
        let mut ranges = Ranges::default();
        for shape in self.shapes(archive.blocks()) {
            if let Some(range) = shape.range {
                ranges.add(shape.scope, range);
            }
        }
        ranges.sort();
        let at = || "/deepArchive/blocks".to_string();
        for t in turns {
            let n = t.turn.get();
            let own = scope(t.scope);
            if !ranges.holds(own, n) {
                match ranges.holding(n) {
                    Some(other) => {
                        // The block, for the pointer: sought only when one is wrong.
                        let i = archive.blocks().iter().position(|b| {
                            scope(b.scope) == other
                                && parse_turn_range(&b.turn_range)
                                    .is_some_and(|(lo, hi)| (lo..=hi).contains(&n))
                        });
                        let ptr = i
                            .map_or_else(at, |i| format!("/deepArchive/blocks/{i}/compressedData"));
                        let (own, other) = (own.name(), other.name());
                        let msg =
                            format!("turn {n} has scope {own}, the block that holds it {other}");
                        self.err("SMG-E128", ptr, msg);
                    }
                    None => {
                        let msg = format!("turn {n} lies in no block's turnRange");
                        self.err("SMG-E119", at(), msg);
                    }
                }
            }
            // The block a held turn is in is not sought: no pointer names it.
            if self.archived.add(t, 0).is_some() {
                self.err("SMG-E118", at(), format!("turn {n} is archived twice"));
            }
            role(&mut self.out, at, t);
        }
    }

    fn vectors(&mut self, archive: &DeepArchive) {
        let Some(vi) = &archive.vector_index else {
            return;
        };
        for (i, e) in vi.embeddings.iter().flatten().enumerate() {
            if vi.dimensions.is_some_and(|d| d != e.vector.len() as u64) {
                let msg = format!(
                    "vector has {} dimensions, the index declares {}",
                    e.vector.len(),
                    vi.dimensions.map_or(0, Ordinal::get)
                );
                let ptr = format!("/deepArchive/vectorIndex/embeddings/{i}/vector");
                self.err("SMG-E125", ptr, msg);
            }
        }
    }
}

/// A turn's role is one v1 defines (a warning otherwise, at the pointer `ptr` makes:
/// made only then, as a million turns pass through here).
pub(super) fn role(out: &mut Vec<Finding>, ptr: impl FnOnce() -> String, t: &Turn) {
    if !ROLES.contains(&t.role.as_str()) {
        let msg = format!("turn {}: role `{}` is not defined in v1", t.turn, t.role);
        out.push(Finding::warning("SMG-W004", ptr(), msg));
    }
}

/// What the frame's checks read of a decoded turn. The rest (its text, its source
/// record) is freed by the thread that decoded it: freed by another, its memory
/// would come back to the decoders more slowly than they ask for more (a million
/// turns' validation held 50 MB more for it).
fn framed(t: Turn) -> Turn {
    Turn {
        conversation_id: t.conversation_id,
        message_id: t.message_id,
        scope: t.scope,
        ..Turn::new(t.turn, t.role, String::new())
    }
}

/// What the checks of a block's turns read of the block.
pub(super) struct Shape {
    id: u64,
    turn_range: String,
    scope: Scope,
    /// Its turn range, when readable.
    range: Option<(u64, u64)>,
}

impl Shape {
    /// Whether `b` is the block this was read from (its data aside).
    pub(super) fn is(&self, b: &Block) -> bool {
        self.id == b.id && self.turn_range == b.turn_range.as_str() && self.scope == scope(b.scope)
    }
}

/// A block's scope, personal when it names none.
fn scope(s: Option<Scope>) -> Scope {
    s.unwrap_or(Scope::Personal)
}

/// The blocks' turn ranges by scope, each list sorted by its first turn with the
/// highest last turn so far beside it: whether some range holds a turn is one binary
/// search, ranges overlapping or not.
#[derive(Default)]
struct Ranges(Map<Scope, Vec<(u64, u64)>>);

impl Ranges {
    fn add(&mut self, scope: Scope, range: (u64, u64)) {
        self.0.entry(scope).or_default().push(range);
    }

    fn sort(&mut self) {
        for ranges in self.0.values_mut() {
            ranges.sort_unstable();
            let mut reach = 0;
            for r in ranges.iter_mut() {
                reach = reach.max(r.1);
                r.1 = reach;
            }
        }
    }

    /// Whether a range of `scope` holds turn `n`: the ranges that start at or before
    /// it reach it.
    fn holds(&self, scope: Scope, n: u64) -> bool {
        let Some(ranges) = self.0.get(&scope) else {
            return false;
        };
        let k = ranges.partition_point(|r| r.0 <= n);
        k > 0 && ranges[k - 1].1 >= n
    }

    /// The scope of a range that holds turn `n`, the first by name if several do.
    fn holding(&self, n: u64) -> Option<Scope> {
        let scopes = self.0.keys().copied();
        scopes
            .filter(|&s| self.holds(s, n))
            .min_by_key(|s| s.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{append_turns, ArchiveOptions};
    use crate::model::{role, Timestamp};

    fn turn(n: u64) -> Turn {
        Turn::new(Ordinal::new(n).unwrap(), role::USER, "words")
    }

    /// A document whose archive holds turns 1–6 in blocks of two (the second block
    /// departmental), and what the held-turn checks find with `held` as its turns.
    fn found(held: &[Turn]) -> Vec<(&'static str, String)> {
        let mut doc = Document::new(Timestamp::from_static("2026-01-01T00:00:00Z"));
        let options = ArchiveOptions {
            max_turns: 2,
            ..ArchiveOptions::default()
        };
        let turns: Vec<Turn> = (1..=6).map(turn).collect();
        append_turns(&mut doc, &turns, &options).unwrap();
        let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
        blocks[1].scope = Some(Scope::Departmental);
        let held: Vec<&Turn> = held.iter().collect();
        let frame = Frame::read(&doc, &Limits::default(), Some(&held));
        frame.out.into_iter().map(|f| (f.code, f.pointer)).collect()
    }

    #[test]
    fn held_turns_lie_in_a_block_of_their_scope_once_each() {
        let mut held: Vec<Turn> = (1..=6).map(turn).collect();
        for t in &mut held[2..4] {
            t.scope = Some(Scope::Departmental);
        }
        assert!(found(&held).is_empty());
        let mut wrong = held.clone();
        wrong[2].scope = None;
        assert_eq!(
            found(&wrong),
            [(
                "SMG-E128",
                "/deepArchive/blocks/1/compressedData".to_string()
            )]
        );
        let mut outside = held.clone();
        outside.push(turn(9));
        outside.push(turn(6));
        assert_eq!(
            found(&outside),
            [
                ("SMG-E119", "/deepArchive/blocks".to_string()),
                ("SMG-E118", "/deepArchive/blocks".to_string())
            ]
        );
    }

    #[test]
    fn ranges_that_overlap_hold_what_any_of_them_holds() {
        let mut r = Ranges::default();
        for range in [(10, 20), (1, 30), (12, 14), (40, 50)] {
            r.add(Scope::Personal, range);
        }
        r.sort();
        for n in [1, 15, 25, 30, 40, 50] {
            assert!(r.holds(Scope::Personal, n), "{n}");
        }
        for n in [0, 31, 39, 51] {
            assert!(!r.holds(Scope::Personal, n), "{n}");
        }
        assert!(!r.holds(Scope::Global, 15));
        assert_eq!(r.holding(15), Some(Scope::Personal));
    }
}
