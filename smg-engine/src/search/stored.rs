//! The retriever's indexes stored in a packed file as its `search` extension (spec
//! §2.3), so that opening the file reads them instead of tokenising every turn. The
//! bytes: `smg-search`, a format version (u16, little-endian), the lengths of the
//! first two parts (u64 each, little-endian), then three parts. The first two are each
//! Zstandard of a postcard encoding: the turns' indexes (with a digest of the turns
//! they describe), and the nodes'; they are read side by side. The third is the turns
//! themselves in small frames ([`Frames`]), which a lazy open reads from instead of
//! the archive's blocks. A stored index that does not fit is not used: the file is
//! indexed anew.

use sha2::{Digest, Sha256};
use std::path::Path;

use smg_format::{Document, Limits, PackedArchive, Turn};

use super::turns::{Frames, TurnStore};
use super::{load_turns, Indexes, Retriever};
use crate::error::Result;

/// The name of the extension.
pub const EXTENSION: &str = "search";
const MAGIC: &[u8] = b"smg-search";
const VERSION: u16 = 11;
/// Zstandard level: the index is written once and read at every open.
const LEVEL: i32 = 9;

/// What the stored index must describe: every turn's number, in archive order.
pub(crate) fn digest(turns: &[Turn]) -> [u8; 32] {
    let mut h = Sha256::new();
    for t in turns {
        h.update(t.turn.to_le_bytes());
    }
    h.finalize().into()
}

impl Retriever {
    /// The indexes as the bytes of a packed file's `search` extension (see
    /// [`smg_format::with_extension`]); the same memory gives the same bytes.
    pub fn index_bytes(&self) -> Result<Vec<u8>> {
        let part = |raw: postcard::Result<Vec<u8>>| {
            let raw = raw.map_err(|e| internal(e.to_string()))?;
            zstd::bulk::compress(&raw, LEVEL).map_err(|e| internal(e.to_string()))
        };
        let turns = part(postcard::to_stdvec(&self.ix))?;
        let nodes = part(postcard::to_stdvec(&self.ix.nodes))?;
        let frames =
            postcard::to_stdvec(&self.turns.frames()?).map_err(|e| internal(e.to_string()))?;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(turns.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&(nodes.len() as u64).to_le_bytes());
        bytes.extend(turns);
        bytes.extend(nodes);
        bytes.extend(frames);
        Ok(bytes)
    }

    /// Read `doc`'s archive and take the indexes from `stored` (a `search`
    /// extension) when it describes these turns; otherwise index them, as
    /// [`Retriever::new`] does. [`Retriever::used_stored_index`] tells which.
    pub(crate) fn with_stored(
        doc: &Document,
        limits: &Limits,
        stored: Option<&[u8]>,
    ) -> Result<Self> {
        let (turns, block_sizes) = load_turns(doc, limits)?;
        let fits = |ix: &Indexes| ix.digest == digest(&turns) && ix.block_sizes == block_sizes;
        if let Some((ix, _)) = stored.and_then(|b| read(b, limits)).filter(|r| fits(&r.0)) {
            return Ok(Retriever {
                turns: TurnStore::Loaded(turns),
                ix,
                stored: true,
            });
        }
        Retriever::index(doc, turns, block_sizes)
    }

    /// Open the bytes of a memory file (`doc`, already read from them): with the
    /// indexes it stores, when it is a packed file with a current `search`
    /// extension, else indexed anew.
    pub fn open(bytes: &[u8], doc: &Document, limits: &Limits) -> Result<Self> {
        let stored = smg_format::read_extension(bytes, EXTENSION)?;
        Retriever::with_stored(doc, limits, stored)
    }

    /// Open the packed file at `path` by its stored search index alone: nothing of
    /// the document is parsed and no archive block is read; turns are read from the
    /// index's frames when asked for. `None` when the file is not packed or has no current index (open it
    /// with [`Retriever::open`]).
    pub fn open_packed(path: &Path, limits: &Limits) -> Result<Option<Self>> {
        let mut head = Vec::with_capacity(20);
        std::fs::File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 20), &mut head))
            .map_err(|source| smg_format::Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if smg_format::detect_encoding(&head).ok() != Some(smg_format::Encoding::Packed) {
            return Ok(None);
        }
        let file = PackedArchive::open(path, limits)?;
        let Some(bytes) = file.extension(EXTENSION)? else {
            return Ok(None);
        };
        let Some((ix, frames)) = read(&bytes, limits) else {
            return Ok(None);
        };
        if ix.block_sizes.len() != file.block_count() {
            return Ok(None);
        }
        let turns = TurnStore::Framed(frames);
        Ok(Some(Retriever {
            turns,
            ix,
            stored: true,
        }))
    }

    /// Whether the indexes came from the file rather than from indexing it.
    pub fn used_stored_index(&self) -> bool {
        self.stored
    }
}

/// The packed file `packed` (a whole file's bytes) with its search index stored as
/// its `search` extension, so that [`Retriever::open`] reads it instead of indexing;
/// any other layout is `SMG-E020`.
pub fn with_search_index(packed: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    let (doc, encoding) = smg_format::from_bytes(packed, limits)?;
    if encoding != smg_format::Encoding::Packed {
        return Err(crate::Error::Format(smg_format::Error::InvalidArgument(
            format!(
                "a search index is stored in the packed layout only; this file is {}: \
             rewrite it with `smg convert --layout packed` first",
                encoding.name()
            ),
        )));
    }
    let bytes = Retriever::new(&doc, limits)?.index_bytes()?;
    Ok(smg_format::with_extension(packed, EXTENSION, &bytes)?)
}

/// The indexes of a stored index, and its frames.
fn read(bytes: &[u8], limits: &Limits) -> Option<(Indexes, Frames)> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (version, rest) = rest.split_first_chunk::<2>()?;
    if u16::from_le_bytes(*version) != VERSION {
        return None;
    }
    let len = |b: &[u8; 8]| usize::try_from(u64::from_le_bytes(*b)).ok();
    let (first, rest) = rest.split_first_chunk::<8>()?;
    let (second, rest) = rest.split_first_chunk::<8>()?;
    let (turns, rest) = rest.split_at_checked(len(first)?)?;
    let (nodes, frames) = rest.split_at_checked(len(second)?)?;
    // The turns' indexes and the nodes', read side by side.
    let most = limits.max_bytes.try_into().unwrap_or(usize::MAX);
    let part = |data: &[u8]| zstd::bulk::decompress(data, most).ok();
    let (ix, (nodes, frames)) = rayon::join(
        || postcard::from_bytes::<Indexes>(&part(turns)?).ok(),
        || {
            rayon::join(
                || postcard::from_bytes::<super::nodes::Nodes>(&part(nodes)?).ok(),
                || postcard::from_bytes::<Frames>(frames).ok(),
            )
        },
    );
    let mut ix = ix?;
    ix.nodes = nodes?;
    let frames = frames
        .filter(|f| f.holds_together(ix.chars.len()))?
        .restored();
    ix.holds_together().then(|| (ix.restored(), frames))
}

fn internal(detail: String) -> crate::Error {
    crate::Error::Format(smg_format::Error::InvalidArgument(format!(
        "the search index could not be encoded: {detail}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::{document, CHAT};
    use crate::search::SearchOptions;

    /// The same search results and the same context for `q`.
    fn assert_answers_alike(a: &Retriever, b: &Retriever, q: &str, budget: usize) {
        let o = SearchOptions::new(5);
        assert_eq!(a.search(q, &o).unwrap(), b.search(q, &o).unwrap(), "{q}");
        let (x, y) = (a.context(q, budget).unwrap(), b.context(q, budget).unwrap());
        assert_eq!(x, y, "{q}");
    }

    #[test]
    fn a_stored_index_answers_as_the_one_it_was_made_from() {
        let doc = document(CHAT);
        let limits = Limits::default();
        let built = Retriever::new(&doc, &limits).unwrap();
        let bytes = built.index_bytes().unwrap();
        assert_eq!(
            bytes,
            Retriever::new(&doc, &limits)
                .unwrap()
                .index_bytes()
                .unwrap()
        );
        let read = Retriever::with_stored(&doc, &limits, Some(&bytes)).unwrap();
        assert!(read.used_stored_index() && !built.used_stored_index());
        for q in [
            "Where did Ann go hiking?",
            "bakery job Monday",
            "Bob",
            "When was it cold?",
        ] {
            assert_answers_alike(&read, &built, q, 40);
        }
        assert_eq!(read.index_bytes().unwrap(), bytes);
    }

    #[test]
    fn a_packed_file_opens_by_its_index_alone() {
        let doc = document(CHAT);
        let limits = Limits::default();
        let dir = tempfile::tempdir().unwrap();
        let [json, packed, indexed] = ["j.smg", "p.smg", "i.smg"].map(|n| dir.path().join(n));
        let write = |path: &Path, encoding| {
            let options = smg_format::WriteOptions::new(encoding);
            std::fs::write(path, smg_format::to_bytes(&doc, &options).unwrap()).unwrap();
        };
        write(&json, smg_format::Encoding::Brotli);
        write(&packed, smg_format::Encoding::Packed);
        let bytes = with_search_index(&std::fs::read(&packed).unwrap(), &limits).unwrap();
        std::fs::write(&indexed, bytes).unwrap();
        assert!(Retriever::open_packed(&json, &limits).unwrap().is_none());
        assert!(Retriever::open_packed(&packed, &limits).unwrap().is_none());
        let lazy = Retriever::open_packed(&indexed, &limits).unwrap().unwrap();
        let built = Retriever::new(&doc, &limits).unwrap();
        assert_eq!(lazy.turn_count(), CHAT.len());
        for i in 0..CHAT.len() {
            assert_eq!(lazy.turn(i).unwrap(), built.turn(i).unwrap());
        }
        assert!(lazy.turn(CHAT.len()).is_err());
        for q in ["Where did Ann go hiking?", "bakery job Monday"] {
            assert_answers_alike(&lazy, &built, q, 30);
        }
        let seg = built.segment(0).unwrap().clone();
        assert_eq!(lazy.expand(&seg).unwrap(), built.expand(&seg).unwrap());
    }

    #[test]
    fn an_index_that_does_not_fit_is_not_used() {
        let doc = document(CHAT);
        let limits = Limits::default();
        let bytes = Retriever::new(&doc, &limits)
            .unwrap()
            .index_bytes()
            .unwrap();
        let other = document(&CHAT[..4]);
        let mut old = bytes.clone();
        old[MAGIC.len()] = 0;
        let mut damaged = Retriever::new(&doc, &limits).unwrap();
        damaged.ix.sketches.pop();
        let short = damaged.index_bytes().unwrap();
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 3);
        for (what, doc, b) in [
            ("other turns", &other, &bytes[..]),
            ("another version", &doc, &old[..]),
            ("cut short", &doc, &cut[..]),
            ("not an index", &doc, &b"smg-search"[..]),
            ("one list short", &doc, &short[..]),
        ] {
            let r = Retriever::with_stored(doc, &limits, Some(b)).unwrap();
            assert!(!r.used_stored_index(), "{what}");
            assert!(!r.search_turns("hiking", 1).unwrap().is_empty(), "{what}");
        }
    }
}
