//! Where the retriever's turns are: all in memory (read from a document), or in the
//! frames of a packed file's stored search index, read a frame at a time when one is
//! asked for, the last few frames kept.
//!
//! A frame holds [`FRAME`] turns as a search shows them (without their source records)
//! and costs a few microseconds to read, where the archive block that holds the same
//! turn costs milliseconds: a block holds up to 250 turns with their source records,
//! under Brotli, and most of a query's time went to reading them.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smg_format::Turn;

use super::bm25::blob;
use crate::error::{Error, Result};

/// Turns in a frame: few enough that reading one turn decodes little, enough that
/// the frame compresses well.
const FRAME: usize = 32;
/// Zstandard level of the frames: written once, read often.
const LEVEL: i32 = 9;
/// Frames kept decoded.
const CACHED_FRAMES: usize = 256;
/// The most bytes of a dictionary trained on the frames: their common words and
/// fields, which a frame of a few kilobytes alone cannot share.
const DICTIONARY: usize = 112 * 1024;
/// Frames sampled to train it: every so many.
const SAMPLE_EVERY: usize = 8;
/// The most a frame decompresses to.
const MOST_FRAME: usize = 256 << 20;

/// The archived turns, in archive order, without their source records.
#[derive(Debug)]
pub(crate) enum TurnStore {
    /// Every turn, decoded.
    Loaded(Vec<Turn>),
    /// Turns read from the frames of a stored index when asked for.
    Framed(Frames),
}

/// Turns a frame at a time, each frame Zstandard of the postcard of [`Columns`],
/// compressed with a dictionary trained on the frames.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct Frames {
    /// How many turns.
    len: usize,
    #[serde(with = "blob")]
    dictionary: Vec<u8>,
    /// The dictionary made ready, when the frames are read back.
    #[serde(skip)]
    prepared: Option<zstd::dict::DecoderDictionary<'static>>,
    /// Where each frame ends in `bytes`.
    ends: Vec<usize>,
    #[serde(with = "blob")]
    bytes: Vec<u8>,
    /// Frames decoded lately, the newest last.
    #[serde(skip)]
    cache: Mutex<VecDeque<(usize, Arc<Vec<Turn>>)>>,
}

/// The turns of a frame as it keeps them: every field of [`Turn`] but the source
/// record, a field at a time (all the times together, all the speakers…), which
/// compresses far better than a turn at a time.
#[derive(Default, Serialize, Deserialize)]
struct Columns {
    turn: Vec<u64>,
    timestamp: Vec<Option<String>>,
    role: Vec<String>,
    content: Vec<String>,
    importance: Vec<Option<f64>>,
    speaker: Vec<Option<String>>,
    conversation_id: Vec<Option<String>>,
    session_id: Vec<Option<String>>,
    message_id: Vec<Option<String>>,
}

impl Columns {
    fn of(turns: &[Turn]) -> Self {
        let mut c = Columns::default();
        for t in turns {
            c.turn.push(t.turn);
            c.timestamp.push(t.timestamp.clone());
            c.role.push(t.role.clone());
            c.content.push(t.content.clone());
            c.importance.push(t.importance);
            c.speaker.push(t.speaker.clone());
            c.conversation_id.push(t.conversation_id.clone());
            c.session_id.push(t.session_id.clone());
            c.message_id.push(t.message_id.clone());
        }
        c
    }

    /// The turns, or `None` unless every column holds `n`.
    fn into_turns(self, n: usize) -> Option<Vec<Turn>> {
        let lens = [
            self.turn.len(),
            self.timestamp.len(),
            self.role.len(),
            self.content.len(),
            self.importance.len(),
            self.speaker.len(),
            self.conversation_id.len(),
            self.session_id.len(),
            self.message_id.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            return None;
        }
        let mut timestamp = self.timestamp.into_iter();
        let mut role = self.role.into_iter();
        let mut content = self.content.into_iter();
        let mut importance = self.importance.into_iter();
        let mut speaker = self.speaker.into_iter();
        let mut conversation_id = self.conversation_id.into_iter();
        let mut session_id = self.session_id.into_iter();
        let mut message_id = self.message_id.into_iter();
        self.turn
            .into_iter()
            .map(|turn| {
                Some(Turn {
                    turn,
                    timestamp: timestamp.next()?,
                    role: role.next()?,
                    content: content.next()?,
                    importance: importance.next()?,
                    speaker: speaker.next()?,
                    conversation_id: conversation_id.next()?,
                    session_id: session_id.next()?,
                    message_id: message_id.next()?,
                    extra: Default::default(),
                })
            })
            .collect()
    }
}

fn damaged(detail: String) -> Error {
    Error::Format(smg_format::Error::Decompress {
        encoding: "search index",
        detail,
    })
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frames")
            .field("len", &self.len)
            .field("frames", &self.ends.len())
            .field("bytes", &self.bytes.len())
            .field("dictionary", &self.dictionary.len())
            .finish()
    }
}

impl Frames {
    /// `turns` in frames (compressed in parallel; the same turns give the same bytes).
    pub(crate) fn of(turns: &[Turn]) -> Result<Self> {
        let raw: Vec<Vec<u8>> = turns
            .par_chunks(FRAME)
            .map(|chunk| {
                postcard::to_stdvec(&Columns::of(chunk)).map_err(|e| damaged(e.to_string()))
            })
            .collect::<Result<_>>()?;
        let samples: Vec<&Vec<u8>> = raw.iter().step_by(SAMPLE_EVERY).collect();
        // Too few samples train no dictionary: small memories go without.
        let dictionary = zstd::dict::from_samples(&samples, DICTIONARY).unwrap_or_default();
        let frames: Vec<Vec<u8>> = raw
            .par_iter()
            .map_init(
                || zstd::bulk::Compressor::with_dictionary(LEVEL, &dictionary),
                |c, frame| match c {
                    Ok(c) => c.compress(frame).map_err(|e| damaged(e.to_string())),
                    Err(e) => Err(damaged(e.to_string())),
                },
            )
            .collect::<Result<_>>()?;
        let mut out = Frames {
            len: turns.len(),
            dictionary,
            ..Frames::default()
        };
        for f in frames {
            out.bytes.extend(f);
            out.ends.push(out.bytes.len());
        }
        Ok(out.restored())
    }

    /// Whether stored frames hold together: `n` turns, one frame per [`FRAME`],
    /// in order and inside the bytes.
    pub(crate) fn holds_together(&self, n: usize) -> bool {
        self.len == n
            && self.ends.len() == n.div_ceil(FRAME)
            && self.ends.windows(2).all(|w| w[0] <= w[1])
            && self.ends.last().copied().unwrap_or(0) == self.bytes.len()
    }

    /// These frames read back from a stored index: the dictionary made ready.
    pub(crate) fn restored(mut self) -> Self {
        self.prepared = (!self.dictionary.is_empty())
            .then(|| zstd::dict::DecoderDictionary::copy(&self.dictionary));
        self
    }

    /// The same frames, for another stored index.
    pub(crate) fn copy(&self) -> Self {
        Frames {
            len: self.len,
            ends: self.ends.clone(),
            bytes: self.bytes.clone(),
            dictionary: self.dictionary.clone(),
            prepared: None,
            cache: Mutex::default(),
        }
    }

    fn frame(&self, f: usize) -> Result<Arc<Vec<Turn>>> {
        let cached = |c: &VecDeque<(usize, Arc<Vec<Turn>>)>| {
            c.iter().find(|(k, _)| *k == f).map(|(_, t)| Arc::clone(t))
        };
        if let Some(turns) = cached(&self.cache.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(turns);
        }
        let start = f.checked_sub(1).map_or(0, |p| self.ends[p]);
        let bytes = &self.bytes[start..self.ends[f]];
        let bad = |e: &dyn std::fmt::Display| damaged(format!("turn frame {f}: {e}"));
        let size = zstd::zstd_safe::get_frame_content_size(bytes)
            .ok()
            .flatten()
            .filter(|&n| n <= MOST_FRAME as u64)
            .ok_or_else(|| bad(&"no size within bounds"))?;
        let mut d = match &self.prepared {
            Some(p) => zstd::bulk::Decompressor::with_prepared_dictionary(p),
            None => zstd::bulk::Decompressor::new(),
        }
        .map_err(|e| bad(&e))?;
        let raw = d.decompress(bytes, size as usize).map_err(|e| bad(&e))?;
        let columns: Columns =
            postcard::from_bytes(&raw).map_err(|e| damaged(format!("turn frame {f}: {e}")))?;
        let expected = FRAME.min(self.len - f * FRAME);
        let turns = columns.into_turns(expected).ok_or_else(|| {
            damaged(format!(
                "turn frame {f} does not hold the {expected} turns it should: store the index again with `smg index`"
            ))
        })?;
        let turns = Arc::new(turns);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED_FRAMES {
            cache.pop_front();
        }
        cache.push_back((f, Arc::clone(&turns)));
        Ok(turns)
    }
}

impl TurnStore {
    /// How many turns.
    pub(crate) fn len(&self) -> usize {
        match self {
            TurnStore::Loaded(turns) => turns.len(),
            TurnStore::Framed(frames) => frames.len,
        }
    }

    /// The turns in frames, as a stored index keeps them.
    pub(crate) fn frames(&self) -> Result<Frames> {
        match self {
            TurnStore::Loaded(turns) => Frames::of(turns),
            TurnStore::Framed(frames) => Ok(frames.copy()),
        }
    }

    /// Turn `i` (a position in archive order); reading its frame may fail.
    pub(crate) fn get(&self, i: usize) -> Result<Cow<'_, Turn>> {
        if i >= self.len() {
            return Err(Error::Format(smg_format::Error::InvalidArgument(format!(
                "the archive has no turn at position {i}"
            ))));
        }
        match self {
            TurnStore::Loaded(turns) => Ok(Cow::Borrowed(&turns[i])),
            TurnStore::Framed(frames) => {
                let frame = frames.frame(i / FRAME)?;
                Ok(Cow::Owned(frame[i % FRAME].clone()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(n: usize) -> Vec<Turn> {
        (0..n)
            .map(|i| Turn {
                turn: i as u64 + 1,
                role: "user".into(),
                content: format!("turn number {i}"),
                speaker: Some("Ann".into()),
                timestamp: (i % 2 == 0).then(|| "2024-05-01T10:00:00Z".into()),
                ..Turn::default()
            })
            .collect()
    }

    #[test]
    fn frames_give_back_every_turn_and_tell_damage() {
        let all = turns(FRAME * 2 + 5);
        let frames = Frames::of(&all).unwrap();
        assert!(frames.holds_together(all.len()) && !frames.holds_together(all.len() + 1));
        assert_eq!(Frames::of(&all).unwrap().bytes, frames.bytes);
        let store = TurnStore::Framed(frames);
        for (i, t) in all.iter().enumerate() {
            assert_eq!(&*store.get(i).unwrap(), t);
        }
        assert!(store.get(all.len()).is_err());
        let TurnStore::Framed(mut frames) = store else {
            unreachable!()
        };
        frames.cache = Mutex::default();
        frames.bytes[3] ^= 0xff;
        assert_eq!(
            TurnStore::Framed(frames).get(0).unwrap_err().code(),
            "SMG-E006"
        );
    }
}
