//! A writers' gate fed the archive's turns block by block by a writer that reads or
//! writes them anyway (a share, which decodes every block to scan it and encodes
//! some again): no block is decoded twice, and memory holds a block's turns only
//! while it is fed.

use super::frame::{Frame, Shape};
use super::Gate;
use crate::limits::Limits;
use crate::model::{Document, Turn};

/// The archive's half of a writers' gate, fed each block's turns by the writer
/// ([`Fed::block`]); [`Fed::gate`] decodes the blocks it was not given and checks the
/// rest of the frame (vault, vectors, collaborators) of the document as written.
///
/// ```
/// use smg_format::model::{role, Ordinal, Turn, Timestamp};
/// use smg_format::{archive::append_turns, validate::Gate, Document, Limits};
/// let mut doc = Document::new(Timestamp::from_static("2026-01-01T00:00:00Z"));
/// let turns = vec![Turn::new(Ordinal::new(1).unwrap(), role::USER, "hello")];
/// append_turns(&mut doc, &turns, &Default::default()).unwrap();
/// let mut fed = Gate::fed(&doc);
/// fed.block(0, &turns);
/// assert!(fed.gate(&doc, &Limits::default()).finish(&doc).is_ok());
/// ```
pub struct Fed {
    frame: Frame,
    shapes: Vec<Shape>,
    given: Vec<bool>,
}

impl Fed {
    /// The gate of `doc`'s archive as its blocks are now (ids, turn ranges, scopes);
    /// their data may still change before [`Fed::gate`].
    pub(super) fn new(doc: &Document) -> Fed {
        let mut frame = Frame::empty();
        let shapes = match &doc.deep_archive {
            Some(archive) => {
                frame.archived.complete = true;
                frame.shapes(archive.blocks())
            }
            None => Vec::new(),
        };
        Fed {
            frame,
            given: vec![false; shapes.len()],
            shapes,
        }
    }

    /// Block `i` holds `turns` (as its data decodes or was encoded from: their text
    /// is not read). A block given twice, or one the archive does not have, counts
    /// as not given: it is decoded by [`Fed::gate`].
    pub fn block(&mut self, i: usize, turns: &[Turn]) {
        match self.given.get_mut(i) {
            Some(given) if !*given => *given = true,
            _ => return,
        }
        self.frame.block(i, &self.shapes, turns);
    }

    /// The gate of `doc` as it will be written: the blocks not given decoded, the
    /// vault rebuilt. A document whose blocks are not the ones this gate was made
    /// for (another count, id, turn range or scope) is checked whole, every block
    /// decoded, as [`crate::validate::ensure_valid`] would.
    pub fn gate(self, doc: &Document, limits: &Limits) -> Gate {
        let blocks = doc.deep_archive.as_ref().map(|a| a.blocks());
        let same = match blocks {
            Some(blocks) => {
                blocks.len() == self.shapes.len()
                    && self.shapes.iter().zip(blocks).all(|(s, b)| s.is(b))
            }
            None => self.shapes.is_empty() && !self.frame.archived.complete,
        };
        if !same {
            return Gate(Frame::read(doc, limits, None));
        }
        let mut frame = Frame::of(doc);
        frame.out.extend(self.frame.out);
        frame.archived = self.frame.archived;
        let Some(archive) = &doc.deep_archive else {
            return Gate(frame);
        };
        let left: Vec<usize> = (0..self.given.len()).filter(|&i| !self.given[i]).collect();
        frame.decoded(doc, &self.shapes, &left, limits);
        frame.close(doc, archive);
        Gate(frame)
    }
}

impl std::fmt::Debug for Fed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given = self.given.iter().filter(|g| **g).count();
        f.debug_struct("Fed")
            .field("blocks", &self.given.len())
            .field("given", &given)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{append_turns, ArchiveOptions};
    use crate::model::{role, Ordinal, Timestamp};

    fn turn(n: u64) -> Turn {
        Turn::new(Ordinal::new(n).unwrap(), role::USER, "words")
    }

    /// Turns 1–6 in blocks of two.
    fn doc() -> (Document, Vec<Turn>) {
        let mut doc = Document::new(Timestamp::from_static("2026-01-01T00:00:00Z"));
        let options = ArchiveOptions {
            max_turns: 2,
            ..ArchiveOptions::default()
        };
        let turns: Vec<Turn> = (1..=6).map(turn).collect();
        append_turns(&mut doc, &turns, &options).unwrap();
        (doc, turns)
    }

    fn codes(fed: Fed, doc: &Document) -> Vec<(&'static str, String)> {
        let gate = fed.gate(doc, &Limits::default());
        let found = gate.0.out;
        found.into_iter().map(|f| (f.code, f.pointer)).collect()
    }

    #[test]
    fn blocks_given_are_checked_as_given_and_the_rest_decoded() {
        let (doc, turns) = doc();
        let mut fed = Gate::fed(&doc);
        fed.block(0, &turns[0..2]);
        fed.block(2, &turns[4..6]);
        assert!(codes(fed, &doc).is_empty());
        let mut fed = Gate::fed(&doc);
        fed.block(1, &turns[0..2]);
        let found = codes(fed, &doc);
        let outside = (
            "SMG-E119",
            "/deepArchive/blocks/1/compressedData".to_string(),
        );
        assert_eq!(
            found.iter().filter(|f| **f == outside).count(),
            2,
            "{found:?}"
        );
        assert!(
            found.iter().any(|(code, _)| *code == "SMG-E118"),
            "{found:?}"
        );
    }

    #[test]
    fn a_block_given_twice_or_out_of_range_counts_once() {
        let (doc, turns) = doc();
        let mut fed = Gate::fed(&doc);
        fed.block(0, &turns[0..2]);
        fed.block(0, &turns[0..2]);
        fed.block(9, &turns[0..2]);
        assert!(codes(fed, &doc).is_empty());
    }

    #[test]
    fn other_blocks_than_the_gate_was_made_for_are_decoded_whole() {
        let (mut doc, turns) = doc();
        let mut fed = Gate::fed(&doc);
        for (i, pair) in turns.chunks(2).enumerate() {
            fed.block(i, pair);
        }
        let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
        blocks[1].compressed_data = blocks[0].compressed_data.clone();
        assert!(
            codes(fed, &doc).is_empty(),
            "same shapes: the turns given count"
        );
        let mut fed = Gate::fed(&doc);
        fed.block(0, &turns[0..2]);
        let blocks = doc.deep_archive.as_mut().unwrap().blocks.as_mut().unwrap();
        blocks.pop();
        let found = codes(fed, &doc);
        assert!(
            found.iter().any(|(code, _)| *code == "SMG-E119"),
            "{found:?}"
        );
    }
}
