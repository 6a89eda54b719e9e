//! The turns of a stored search index, a frame at a time: each frame holds [`FRAME`]
//! turns as a search shows them (without their source records), a field at a time,
//! under Zstandard with a dictionary trained on the frames, and costs microseconds to
//! read, where the archive block that holds the same turn costs milliseconds (a block
//! holds up to 250 turns with their source records, under Brotli). A lazy open reads
//! none of them: a frame is read from the file when one of its turns is asked for.
//!
//! Stored: the head (turn count, dictionary, where each frame ends) as its own part
//! of the index, then the frames. Every frame carries a checksum, since a frame is
//! read alone, without the check of the whole extension.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use smg_format::{model::Turn, packed::PackedArchive};
use zstd::zstd_safe::DCtx;

use super::bytes;
use crate::error::{Error, Result};

/// Turns in a frame: few enough that reading one turn decodes little, enough that
/// the frame compresses well.
const FRAME: usize = 32;
/// Zstandard level of the frames: with the dictionary, level 9 took 3.5 s more of a
/// million turns' `smg index` and gave frames 0.2 MB larger (bench/RESULTS.md).
const LEVEL: i32 = 3;
/// Frames kept decompressed.
const CACHED_FRAMES: usize = 256;
/// The most bytes of a dictionary trained on the frames: their common words and
/// fields, which a frame of a few kilobytes alone cannot share.
const DICTIONARY: usize = 112 * 1024;
/// Frames sampled to train it: every so many.
const SAMPLE_EVERY: usize = 8;
/// The most a frame decompresses to.
const MOST_FRAME: u64 = 256 << 20;

/// What is known of the frames before any is read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Head {
    /// How many turns.
    len: usize,
    #[serde(with = "bytes")]
    dictionary: Vec<u8>,
    /// Where each frame ends, from the first frame's start.
    ends: Vec<u64>,
}

impl Head {
    /// Whether the head holds together: `n` turns, one frame per [`FRAME`], in order,
    /// the last ending at `bytes`.
    pub(crate) fn holds_together(&self, n: usize, bytes: u64) -> bool {
        self.len == n
            && self.ends.len() == n.div_ceil(FRAME)
            && self.ends.windows(2).all(|w| w[0] <= w[1])
            && self.ends.last().copied().unwrap_or(0) == bytes
    }

    /// How many bytes the frames take.
    fn bytes(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }
}

/// Where the frames' bytes are.
enum Bytes {
    Memory(Vec<u8>),
    /// In extension `name` of a packed file, from `start`.
    File {
        // Boxed: the open file (with its index and limits) is far larger than a Vec.
        file: Box<PackedArchive>,
        name: &'static str,
        start: u64,
    },
}

/// Turns a frame at a time.
pub(crate) struct Frames {
    head: Head,
    bytes: Bytes,
    /// The dictionary made ready.
    prepared: Option<zstd::dict::DecoderDictionary<'static>>,
    /// Frames decompressed lately, the newest last.
    cache: Mutex<VecDeque<(usize, Arc<Vec<u8>>)>>,
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frames")
            .field("len", &self.head.len)
            .field("frames", &self.head.ends.len())
            .field("dictionary", &self.head.dictionary.len())
            .finish()
    }
}

/// The turns of a frame as it keeps them: every field of [`Turn`] but the source
/// record, a field at a time (all the times together, all the speakers…), which
/// compresses far better than a turn at a time. Written from borrowed text, and read
/// as text borrowed from the frame's bytes: a turn read makes only its own strings.
#[derive(Default, Serialize, Deserialize)]
struct Columns<'a> {
    turn: Vec<u64>,
    #[serde(borrow)]
    timestamp: Vec<Option<&'a str>>,
    #[serde(borrow)]
    role: Vec<&'a str>,
    #[serde(borrow)]
    content: Vec<&'a str>,
    importance: Vec<Option<f64>>,
    #[serde(borrow)]
    speaker: Vec<Option<&'a str>>,
    #[serde(borrow)]
    conversation_id: Vec<Option<&'a str>>,
    #[serde(borrow)]
    session_id: Vec<Option<&'a str>>,
    #[serde(borrow)]
    message_id: Vec<Option<&'a str>>,
    scope: Vec<Option<smg_format::model::Scope>>,
}

impl<'a> Columns<'a> {
    fn of(turns: &'a [Turn]) -> Self {
        let mut c = Columns::default();
        for t in turns {
            c.turn.push(t.turn.get());
            c.timestamp.push(t.timestamp.as_deref());
            c.role.push(&t.role);
            c.content.push(&t.content);
            c.importance.push(t.importance.map(f64::from));
            c.speaker.push(t.speaker.as_deref());
            c.conversation_id.push(t.conversation_id.as_deref());
            c.session_id.push(t.session_id.as_deref());
            c.message_id.push(t.message_id.as_deref());
            c.scope.push(t.scope);
        }
        c
    }

    /// The columns of a frame's bytes, or `None` unless they parse and every one
    /// holds `n` turns.
    fn read(raw: &'a [u8], n: usize) -> Option<Self> {
        let c: Columns = postcard::from_bytes(raw).ok()?;
        let lens = [
            c.turn.len(),
            c.timestamp.len(),
            c.role.len(),
            c.content.len(),
            c.importance.len(),
            c.speaker.len(),
            c.conversation_id.len(),
            c.session_id.len(),
            c.message_id.len(),
            c.scope.len(),
        ];
        lens.iter().all(|&l| l == n).then_some(c)
    }

    /// Turn `i` of the frame (below the `n` it was read with).
    fn turn(&self, i: usize) -> Result<Turn> {
        let bad = |field: &str, e: smg_format::model::Refused| {
            damaged(format!("turn {} of a frame: {field} {e}", self.turn[i]))
        };
        let role = smg_format::model::NonEmpty::new(self.role[i]).map_err(|e| bad("role", e))?;
        let importance = self.importance[i]
            .map(smg_format::model::Unit::new)
            .transpose()
            .map_err(|e| bad("importance", e))?;
        let turn = smg_format::model::Ordinal::new(self.turn[i]).map_err(|e| bad("turn", e))?;
        Ok(Turn {
            turn,
            timestamp: (self.timestamp[i].map(smg_format::model::Timestamp::new))
                .transpose()
                .map_err(|e| bad("timestamp", e))?,
            role,
            content: self.content[i].to_string(),
            importance,
            speaker: self.speaker[i].map(Into::into),
            conversation_id: self.conversation_id[i].map(Into::into),
            session_id: self.session_id[i].map(Into::into),
            message_id: self.message_id[i].map(Into::into),
            scope: self.scope[i],
            extra: Default::default(),
        })
    }
}

pub(crate) fn damaged(detail: String) -> Error {
    Error::Format(smg_format::Error::Decompress {
        encoding: "search index",
        detail,
    })
}

/// A Zstandard compressor that puts a checksum in every frame.
pub(crate) fn compressor(level: i32, dictionary: &[u8]) -> Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::with_dictionary(level, dictionary)
        .map_err(|e| damaged(e.to_string()))?;
    c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
        .map_err(|e| damaged(e.to_string()))?;
    Ok(c)
}

/// Zstandard frame `bytes` decompressed (within bounds, its checksum checked).
pub(crate) fn decompress(
    bytes: &[u8],
    dictionary: Option<&zstd::dict::DecoderDictionary<'static>>,
    most: u64,
) -> std::result::Result<Vec<u8>, String> {
    let size = zstd::zstd_safe::get_frame_content_size(bytes)
        .ok()
        .flatten()
        .filter(|&n| n <= most)
        .ok_or("no size within bounds")?;
    let mut out = Vec::with_capacity(size as usize);
    with_context(|context| {
        match dictionary {
            Some(p) => context.decompress_using_ddict(&mut out, bytes, p.as_ddict()),
            None => context.decompress(&mut out, bytes),
        }
        .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())
    })?;
    Ok(out)
}

/// `f` with this thread's Zstandard context.
pub(crate) fn with_context<T>(
    f: impl FnOnce(&mut DCtx<'static>) -> std::result::Result<T, String>,
) -> std::result::Result<T, String> {
    CONTEXT.with_borrow_mut(|kept| {
        let context = match kept {
            Some(c) => c,
            None => kept.insert(DCtx::try_create().ok_or("no memory for Zstandard")?),
        };
        f(context)
    })
}

thread_local! {
    /// Each thread's Zstandard context, kept: making one costs more than reading a
    /// frame does.
    static CONTEXT: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
}

/// Each frame's columns of `turns`, encoded, [`FRAME`] turns a frame.
fn serialized(turns: &[Turn]) -> Result<Vec<Vec<u8>>> {
    turns
        .par_chunks(FRAME)
        .map(|chunk| postcard::to_stdvec(&Columns::of(chunk)).map_err(|e| damaged(e.to_string())))
        .collect()
}

/// Each of `raw` compressed with `dictionary`, in parallel.
fn compressed(raw: &[Vec<u8>], dictionary: &[u8]) -> Result<Vec<Vec<u8>>> {
    raw.par_iter()
        .map_init(
            || compressor(LEVEL, dictionary),
            |c, frame| match c {
                Ok(c) => c.compress(frame).map_err(|e| damaged(e.to_string())),
                Err(e) => Err(damaged(e.to_string())),
            },
        )
        .collect()
}

/// The frames of `len` turns: those in `bytes` (ending at `ends`), then `frames`.
fn joined(
    mut bytes: Vec<u8>,
    mut ends: Vec<u64>,
    frames: Vec<Vec<u8>>,
    len: usize,
    dictionary: Vec<u8>,
) -> Frames {
    for f in frames {
        bytes.extend(f);
        ends.push(bytes.len() as u64);
    }
    let head = Head {
        len,
        dictionary,
        ends,
    };
    Frames::new(head, Bytes::Memory(bytes))
}

impl Frames {
    /// `turns` in frames (compressed in parallel; the same turns give the same bytes).
    pub(crate) fn of(turns: &[Turn]) -> Result<Self> {
        let raw = serialized(turns)?;
        let samples: Vec<&Vec<u8>> = raw.iter().step_by(SAMPLE_EVERY).collect();
        // Too few samples train no dictionary: small memories go without.
        let dictionary = zstd::dict::from_samples(&samples, DICTIONARY).unwrap_or_default();
        let frames = compressed(&raw, &dictionary)?;
        Ok(joined(
            Vec::new(),
            Vec::new(),
            frames,
            turns.len(),
            dictionary,
        ))
    }

    /// `turns` in frames, the first of them being these frames' turns: the frames
    /// that are full are kept as they are, and the rest of the turns are framed with
    /// the same dictionary (the same frames and turns give the same bytes).
    pub(crate) fn appended(&self, turns: &[Turn]) -> Result<Self> {
        let kept = self.head.len / FRAME;
        let ends = self.head.ends[..kept].to_vec();
        let bytes = self
            .read(0, ends.last().copied().unwrap_or(0))?
            .into_owned();
        let rest = turns
            .get(kept * FRAME..)
            .ok_or_else(|| damaged("fewer turns than the frames hold".into()))?;
        let dictionary = self.head.dictionary.clone();
        let frames = compressed(&serialized(rest)?, &dictionary)?;
        Ok(joined(bytes, ends, frames, turns.len(), dictionary))
    }

    fn new(head: Head, bytes: Bytes) -> Self {
        Frames {
            prepared: (!head.dictionary.is_empty())
                .then(|| zstd::dict::DecoderDictionary::copy(&head.dictionary)),
            head,
            bytes,
            cache: Mutex::default(),
        }
    }

    /// Frames of `head` read from extension `name` of `file`, from `start`.
    pub(crate) fn in_file(head: Head, file: PackedArchive, name: &'static str, start: u64) -> Self {
        let file = Box::new(file);
        Frames::new(head, Bytes::File { file, name, start })
    }

    /// How many turns.
    pub(crate) fn len(&self) -> usize {
        self.head.len
    }

    /// The head and every frame's bytes, to store.
    pub(crate) fn parts(&self) -> Result<(&Head, std::borrow::Cow<'_, [u8]>)> {
        let all = self.read(0, self.head.bytes())?;
        Ok((&self.head, all))
    }

    /// `len` bytes of the frames from `at`.
    fn read(&self, at: u64, len: u64) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.bytes {
            Bytes::Memory(b) => usize::try_from(at)
                .ok()
                .zip(usize::try_from(at + len).ok())
                .and_then(|(a, z)| b.get(a..z))
                .map(std::borrow::Cow::Borrowed)
                .ok_or_else(|| damaged(format!("frame bytes {at}..+{len} are missing"))),
            Bytes::File { file, name, start } => file
                .extension_range(name, start + at, len)?
                .map(std::borrow::Cow::Owned)
                .ok_or_else(|| damaged(format!("the {name} extension is gone"))),
        }
    }

    /// Turn `i` (below [`Frames::len`]).
    pub(crate) fn get(&self, i: usize) -> Result<Turn> {
        self.get_many(&[i])?
            .pop()
            .ok_or_else(|| damaged(format!("no turn at position {i}")))
    }

    /// Turns `indices` (each below [`Frames::len`]), in that order: their frames
    /// are read side by side, each once.
    pub(crate) fn get_many(&self, indices: &[usize]) -> Result<Vec<Turn>> {
        let mut frames: Vec<usize> = indices.iter().map(|i| i / FRAME).collect();
        frames.sort_unstable();
        frames.dedup();
        let read: Vec<Arc<Vec<u8>>> = frames
            .par_iter()
            .map(|&f| self.frame(f))
            .collect::<Result<_>>()?;
        // Each frame's columns, parsed once (text borrowed from its bytes).
        let columns: Vec<(Columns, usize)> = frames
            .iter()
            .zip(&read)
            .map(|(&f, raw)| {
                let n = FRAME.min(self.head.len.saturating_sub(f * FRAME));
                let c = Columns::read(raw, n).ok_or_else(|| {
                    damaged(format!(
                        "turn frame {f} does not hold the {n} turns it should: \
                         store the index again with `smg index`"
                    ))
                })?;
                Ok((c, n))
            })
            .collect::<Result<_>>()?;
        indices
            .iter()
            .map(|&i| {
                frames
                    .binary_search(&(i / FRAME))
                    .ok()
                    .map(|at| &columns[at])
                    .filter(|(_, n)| i % FRAME < *n)
                    .map(|(c, _)| c.turn(i % FRAME))
                    .ok_or_else(|| damaged(format!("no turn at position {i}")))?
            })
            .collect()
    }

    /// The decompressed bytes of frame `f`; the latest frames are kept.
    fn frame(&self, f: usize) -> Result<Arc<Vec<u8>>> {
        let cached = |c: &VecDeque<(usize, Arc<Vec<u8>>)>| {
            c.iter().find(|(k, _)| *k == f).map(|(_, t)| Arc::clone(t))
        };
        if let Some(raw) = cached(&self.cache.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(raw);
        }
        let ends = &self.head.ends;
        let start = f.checked_sub(1).map_or(0, |p| ends[p]);
        let bytes = self.read(start, ends[f] - start)?;
        let raw = decompress(&bytes, self.prepared.as_ref(), MOST_FRAME)
            .map_err(|e| damaged(format!("turn frame {f}: {e}")))?;
        let raw = Arc::new(raw);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED_FRAMES {
            cache.pop_front();
        }
        cache.push_back((f, Arc::clone(&raw)));
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(n: usize) -> Vec<Turn> {
        (0..n)
            .map(|i| Turn {
                speaker: Some("Ann".into()),
                timestamp: (i % 2 == 0)
                    .then(|| smg_format::model::Timestamp::from_static("2024-05-01T10:00:00Z")),
                ..Turn::new(
                    smg_format::model::Ordinal::new(i as u64 + 1).unwrap(),
                    smg_format::model::role::USER,
                    format!("turn number {i}"),
                )
            })
            .collect()
    }

    #[test]
    fn frames_give_back_every_turn_and_tell_damage() {
        let all = turns(FRAME * 2 + 5);
        let frames = Frames::of(&all).unwrap();
        let (head, bytes) = frames.parts().unwrap();
        assert!(head.holds_together(all.len(), bytes.len() as u64));
        assert!(!head.holds_together(all.len() + 1, bytes.len() as u64));
        assert_eq!(Frames::of(&all).unwrap().parts().unwrap().1, bytes);
        for (i, t) in all.iter().enumerate() {
            assert_eq!(&frames.get(i).unwrap(), t);
        }
        let mut bytes = bytes.into_owned();
        bytes[3] ^= 0xff;
        let head = Head {
            len: frames.head.len,
            dictionary: frames.head.dictionary.clone(),
            ends: frames.head.ends.clone(),
        };
        let damaged = Frames::new(head, Bytes::Memory(bytes));
        assert_eq!(damaged.get(0).unwrap_err().code(), "SMG-E006");
        assert!(damaged.get(FRAME).is_ok());
    }

    #[test]
    fn appended_frames_keep_the_full_ones_and_give_back_every_turn() {
        let all = turns(FRAME * 40 + 7);
        let first = Frames::of(&all[..FRAME * 30 + 5]).unwrap();
        let (head, bytes) = first.parts().unwrap();
        let kept = head.ends[29] as usize;
        let grown = first.appended(&all).unwrap();
        let (grown_head, grown_bytes) = grown.parts().unwrap();
        assert!(grown_head.holds_together(all.len(), grown_bytes.len() as u64));
        assert_eq!(&grown_bytes[..kept], &bytes[..kept]);
        assert_eq!(grown_head.dictionary, head.dictionary);
        assert_eq!(
            grown.appended(&all).unwrap().parts().unwrap().1,
            grown_bytes
        );
        for (i, t) in all.iter().enumerate() {
            assert_eq!(&grown.get(i).unwrap(), t);
        }
        assert!(first.appended(&all[..FRAME]).is_err());
    }
}
