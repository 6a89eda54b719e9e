//! The retriever's indexes stored in a packed file as its `search` extension (spec
//! §2.3), so that opening the file reads them instead of tokenising every turn. The
//! bytes: `smg-search`, a format version (u16, little-endian), the lengths of seven
//! parts (u64 each, little-endian), the seven parts, then the turns' frames
//! ([`Frames`]). The first three parts are each Zstandard (with a checksum) of a
//! postcard encoding: the turns' indexes (with a digest of the turns they describe),
//! the nodes' (the two are read side by side), and the frames' head. The next two are
//! the full-text indexes of the turns and of the nodes ([`FullText`] blobs), then the
//! embeddings' rows ([`super::vectors`]) and each turn's place in the graph
//! ([`super::placed`]); all four are stored as they are so that a lazy open reads them
//! in place from the memory-mapped file. A lazy open
//! decompresses the three first parts and reads no frame: frames are read when their
//! turns are asked for. Since the extension is read a part at a time, each part and each frame
//! checks itself. A stored index that does not fit is not used: the file is indexed
//! anew.

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::Path;

use smg_format::{model::Turn, packed::PackedArchive, Document, Encoding, Limits, WriteOptions};

use super::frames::{Frames, Head};
use super::fulltext::{self, FullText};
use super::pieces;
use super::turns::TurnStore;
use super::{load_turns, Indexes, Retriever, Tokens};
use crate::error::Result;
use tantivy::directory::FileSlice;

/// The name of the extension.
pub const EXTENSION: &str = "search";
const MAGIC: &[u8] = b"smg-search";
const VERSION: u16 = 22;
/// The versions read. 15 and before held smg's own postings rather than tantivy's;
/// 16 kept what is known of each turn and node in the compressed parts rather than
/// in the full-text indexes; 17 did not link a turn to the nodes drawn from it; 18
/// kept the embeddings in the first compressed part, decoded at every open; 19 kept
/// no sign bits of the embeddings, by which a search narrows many rows; 20 kept each
/// turn's segment and the nodes drawn from it in the turns' full-text index, which an
/// append could then not add to; 21 kept no links (which a network follows). Such an
/// index is not read (search builds one in memory, and says so) and the next write
/// stores a new one.
const READS: [u16; 1] = [VERSION];
/// The parts: three compressed, the two full-text indexes, the embeddings' rows,
/// the turns' places in the graph.
const PARTS: usize = 7;
/// The part that holds the embeddings' rows.
const VECTORS: usize = 5;
/// The part that holds the turns' places in the graph.
const PLACED: usize = 6;
/// Bytes before the parts: the magic, the version, the parts' lengths.
const PREFIX: usize = MAGIC.len() + 2 + PARTS * 8;
/// Zstandard level: the index is written once and read at every open.
const LEVEL: i32 = 9;

/// What the stored index must describe: every turn's number, in archive order.
pub(crate) fn digest(turns: &[Turn]) -> [u8; 32] {
    let mut h = Sha256::new();
    for t in turns {
        h.update(t.turn.get().to_le_bytes());
    }
    h.finalize().into()
}

impl Retriever {
    /// The indexes as the bytes of a packed file's `search` extension (see
    /// [`smg_format::packed::with_extension`]); the same memory gives the same bytes.
    pub fn index_bytes(&self) -> Result<Vec<u8>> {
        let part = |raw: postcard::Result<Vec<u8>>| {
            pieces::compress(&raw.map_err(|e| internal(e.to_string()))?, LEVEL)
        };
        let built;
        let frames = match &self.turns {
            TurnStore::Loaded(turns) => {
                built = Frames::of(turns)?;
                &built
            }
            TurnStore::Framed(frames) => frames,
        };
        let (head, frame_bytes) = frames.parts()?;
        let parts = [
            part(postcard::to_stdvec(&self.ix))?,
            part(postcard::to_stdvec(&self.ix.nodes))?,
            part(postcard::to_stdvec(head))?,
            self.ix.index.to_bytes()?,
            self.ix.nodes.index.to_bytes()?,
            self.ix
                .vectors
                .as_ref()
                .map_or(Vec::new(), |v| v.row_bytes().to_vec()),
            self.ix.placed.to_bytes()?,
        ];
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        for p in &parts {
            bytes.extend_from_slice(&(p.len() as u64).to_le_bytes());
        }
        bytes.extend(parts.concat());
        bytes.extend_from_slice(&frame_bytes);
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
        let read = |b: &[u8]| {
            let layout = Layout::of(b.get(..PREFIX)?, b.len() as u64)?;
            let fetch = |start: usize, len: usize| b.get(start..start + len).map(Cow::Borrowed);
            let raw = |i: usize| {
                let (start, len) = layout.part(i);
                Some(FileSlice::from(b.get(start..start + len)?.to_vec()))
            };
            read(fetch, raw, &layout, limits)
        };
        if let Some((ix, _)) = stored.and_then(read).filter(|r| fits(&r.0)) {
            return Ok(Retriever {
                turns: TurnStore::Loaded(turns),
                ix,
                stored: true,
                tokens: Tokens::Chars,
                tuning: super::Tuning::default(),
            });
        }
        Retriever::index(doc, turns, block_sizes, None)
    }

    /// Open the bytes of a memory file (`doc`, already read from them): with the
    /// indexes it stores, when it is a packed file with a current `search`
    /// extension, else indexed anew.
    pub fn open(bytes: &[u8], doc: &Document, limits: &Limits) -> Result<Self> {
        let stored = smg_format::packed::read_extension(bytes, EXTENSION)?;
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
        if smg_format::envelope::detect(&head).ok() != Some(smg_format::Encoding::Packed) {
            return Ok(None);
        }
        let file = PackedArchive::open(path, limits)?;
        let Some(total) = file.extension_len(EXTENSION) else {
            return Ok(None);
        };
        // A range outside the extension is a damaged index: none to use.
        let range = |start: usize, len: usize| {
            file.extension_range(EXTENSION, start as u64, len as u64)
                .ok()
                .flatten()
        };
        let Some(layout) = range(0, PREFIX).and_then(|p| Layout::of(&p, total)) else {
            return Ok(None);
        };
        // The frames are read ahead while the parts are decompressed.
        let start = total - layout.frames;
        file.prefetch_extension(EXTENSION, start, layout.frames);
        let fetch = |start: usize, len: usize| range(start, len).map(Cow::Owned);
        let Some((offset, file_len)) = file.extension_offset(EXTENSION) else {
            return Ok(None);
        };
        // The full-text indexes and the embeddings are read in place, from the file
        // mapped.
        let mapped = fulltext::map_file(path, file_len);
        let raw = |i: usize| {
            let (start, len) = layout.part(i);
            let at = usize::try_from(offset).ok()?.checked_add(start)?;
            Some(mapped.as_ref()?.slice(at..at.checked_add(len)?))
        };
        let Some((ix, head)) = read(fetch, raw, &layout, limits) else {
            return Ok(None);
        };
        if ix.block_sizes.len() != file.block_count() {
            return Ok(None);
        }
        let turns = TurnStore::Framed(Box::new(Frames::in_file(head, file, EXTENSION, start)));
        Ok(Some(Retriever {
            turns,
            ix,
            stored: true,
            tokens: Tokens::Chars,
            tuning: super::Tuning::default(),
        }))
    }

    /// Whether the indexes came from the file rather than from indexing it.
    pub fn used_stored_index(&self) -> bool {
        self.stored
    }
}

/// Whether a file's bytes store a search index (a rewrite of it should store a new one).
pub fn has_search_index(bytes: &[u8]) -> bool {
    smg_format::packed::read_extension(bytes, EXTENSION)
        .ok()
        .flatten()
        .is_some()
}

/// The document of the packed file at `path`, read section by section (its search
/// index, often as large as the rest, is neither read nor held), and whether it
/// stores a search index; `None` when the file is not packed.
pub fn read_packed(path: &Path, limits: &Limits) -> Result<Option<(Document, bool)>> {
    let Some(file) = PackedArchive::open_if_packed(path, limits)? else {
        return Ok(None);
    };
    let indexed = file.extension_len(EXTENSION).is_some();
    Ok(Some((file.document()?, indexed)))
}

/// The packed file `packed` (a whole file's bytes) with its search index stored as
/// its `search` extension, so that [`Retriever::open`] reads it instead of indexing;
/// any other layout is `SMG-E020`.
pub fn with_search_index(packed: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    // The layout is told by the first bytes: no document is parsed to refuse one.
    packed_only(smg_format::envelope::detect(packed)?)?;
    let (doc, _) = smg_format::from_bytes(packed, limits)?;
    let bytes = Retriever::new(&doc, limits)?.index_bytes()?;
    Ok(smg_format::packed::with_extension(
        packed, EXTENSION, &bytes,
    )?)
}

/// `doc` written with `options`, which must name the packed layout (else
/// `SMG-E020`), with its search index stored: made from the document in hand, as
/// [`with_search_index`] makes it from the written file.
pub fn encode_with_search_index(
    doc: Document,
    options: &WriteOptions,
    limits: &Limits,
) -> Result<Vec<u8>> {
    packed_only(options.encoding)?;
    let retriever = Retriever::new(&doc, limits)?;
    encode_indexed(doc, options, &retriever)
}

/// [`encode_with_search_index`] with the index of `retriever`, which must have been
/// made from `doc` (by [`Retriever::new`], or [`Retriever::after_ingest`] of the
/// ingest that wrote it).
pub fn encode_indexed(
    doc: Document,
    options: &WriteOptions,
    retriever: &Retriever,
) -> Result<Vec<u8>> {
    packed_only(options.encoding)?;
    let index = retriever.index_bytes()?;
    let bytes = smg_format::codec::into_bytes(doc, options)?;
    Ok(smg_format::packed::with_extension(
        &bytes, EXTENSION, &index,
    )?)
}

/// [`crate::ingest::ingest_into_bytes`] for a memory that keeps a search index:
/// `imported` ingested into `doc`, written with `write` (the packed layout, else
/// `SMG-E020`) with an index of the result, made from the turns the ingest held and
/// added to `previous`, the retriever of `doc`'s file before
/// ([`Retriever::after_ingest`]). What `smg ingest --append` writes into a packed
/// file that stores an index.
pub fn ingest_into_indexed_bytes(
    mut doc: Document,
    imported: Vec<crate::ingest::Imported>,
    options: &crate::ingest::IngestOptions,
    progress: &dyn crate::ingest::Progress,
    write: &WriteOptions,
    previous: Option<&Retriever>,
    limits: &Limits,
) -> Result<(crate::ingest::IngestReport, Vec<u8>)> {
    packed_only(write.encoding)?;
    let (report, archived) =
        crate::ingest::ingest_keeping_turns(&mut doc, imported, options, progress)?;
    archived.check(&doc, limits)?;
    let retriever = Retriever::after_ingest(&doc, archived, previous, limits)?;
    Ok((report, encode_indexed(doc, write, &retriever)?))
}

/// `SMG-E020` unless `encoding` is the packed layout, the only one a search index is
/// stored in.
pub(crate) fn packed_only(encoding: Encoding) -> Result<()> {
    if encoding == Encoding::Packed {
        return Ok(());
    }
    Err(crate::Error::Format(smg_format::Error::InvalidArgument(
        format!(
            "a search index is stored in the packed layout only; this is {}: \
             rewrite it with `smg convert --layout packed` first",
            encoding.name()
        ),
    )))
}

/// The file `bytes` (any layout, not encrypted) in the packed layout with its
/// search index stored: a packed file keeps its sections and gains the index (or a
/// fresh one), as [`with_search_index`] gives it; a file in another layout is
/// rewritten packed first. What `smg convert --layout packed --index` writes, in
/// one step, for callers that hold a file of either kind.
pub fn packed_with_search_index(bytes: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    if smg_format::envelope::detect(bytes)? == Encoding::Packed {
        return with_search_index(bytes, limits);
    }
    let (doc, _) = smg_format::from_bytes(bytes, limits)?;
    encode_with_search_index(doc, &WriteOptions::new(Encoding::Packed), limits)
}

/// Where the parts and the frames of a stored index lie.
struct Layout {
    /// The length of each part; the parts run one after another from [`PREFIX`]
    /// (their sum is known not to overflow).
    lengths: [usize; PARTS],
    /// The frames' bytes, to the end of the extension.
    frames: u64,
}

impl Layout {
    /// The layout of an index of `total` bytes, from the bytes before its parts;
    /// `None` for another version, no index at all, or lengths that do not fit.
    fn of(prefix: &[u8], total: u64) -> Option<Self> {
        let rest = prefix.strip_prefix(MAGIC)?;
        let (version, rest) = rest.split_first_chunk::<2>()?;
        if !READS.contains(&u16::from_le_bytes(*version)) {
            return None;
        }
        let mut lengths = [0; PARTS];
        for (i, chunk) in rest.chunks_exact(8).take(PARTS).enumerate() {
            lengths[i] = usize::try_from(u64::from_le_bytes(chunk.try_into().ok()?)).ok()?;
        }
        let size = lengths
            .iter()
            .try_fold(0usize, |sum, &l| sum.checked_add(l))?;
        let end = u64::try_from(PREFIX.checked_add(size)?).ok()?;
        Some(Layout {
            lengths,
            frames: total.checked_sub(end)?,
        })
    }

    /// Where part `i` begins in the extension, and its length.
    fn part(&self, i: usize) -> (usize, usize) {
        (
            PREFIX + self.lengths[..i].iter().sum::<usize>(),
            self.lengths[i],
        )
    }
}

/// The indexes and the frames' head from the parts, when they hold together with
/// each other and with the frames. `fetch(start, len)` gives bytes of the index; each
/// compressed part is fetched by the task that decodes it, so that reading one
/// overlaps decoding another. `raw(i)` gives part `i`, to read in place.
fn read<'a>(
    fetch: impl Fn(usize, usize) -> Option<Cow<'a, [u8]>> + Sync,
    raw: impl Fn(usize) -> Option<FileSlice>,
    layout: &Layout,
    limits: &Limits,
) -> Option<(Indexes, Head)> {
    let part = |i: usize| {
        let (start, len) = layout.part(i);
        pieces::decompress(&fetch(start, len)?, limits.max_bytes).ok()
    };
    let (ix, (nodes, head)) = rayon::join(
        || postcard::from_bytes::<Indexes>(&part(0)?).ok(),
        || {
            rayon::join(
                || postcard::from_bytes::<super::nodes::Nodes>(&part(1)?).ok(),
                || postcard::from_bytes::<Head>(&part(2)?).ok(),
            )
        },
    );
    let mut ix = ix?;
    ix.nodes = nodes?;
    ix.index = FullText::open(raw(3)?)?;
    ix.nodes.index = FullText::open(raw(4)?)?;
    ix.placed = super::placed::Placed::open(raw(PLACED)?)?;
    if let Some(vectors) = ix.vectors.take() {
        ix.vectors = Some(vectors.with_rows(raw(VECTORS)?.read_bytes().ok()?));
    }
    let head = head.filter(|h| h.holds_together(ix.index.len(), layout.frames))?;
    ix.holds_together().then(|| (ix.restored(), head))
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
    use crate::search::{Period, QueryVector, SearchOptions};

    /// The same search results and the same context for `q`.
    fn assert_answers_alike(a: &Retriever, b: &Retriever, q: &str, budget: usize) {
        let o = SearchOptions::new(5);
        assert_eq!(a.search(q, &o).unwrap(), b.search(q, &o).unwrap(), "{q}");
        let (x, y) = (
            a.context(q, None, budget, &Period::ALL).unwrap(),
            b.context(q, None, budget, &Period::ALL).unwrap(),
        );
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
        let seg = built.segment(0).unwrap().unwrap();
        assert_eq!(lazy.expand(&seg).unwrap(), built.expand(&seg).unwrap());
    }

    #[test]
    fn embeddings_are_stored_read_in_place_and_answer_alike() {
        let mut doc = document(CHAT);
        let vector = |k: u64| -> Vec<f64> {
            (0..4)
                .map(|j| ((k * 7 + j * 3) % 11) as f64 - 5.0)
                .collect()
        };
        let vectors = (1..=CHAT.len() as u64).map(vector).collect();
        crate::search::tests::with_turn_vectors(&mut doc, vectors);
        let limits = Limits::default();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.smg");
        let options = smg_format::WriteOptions::new(smg_format::Encoding::Packed);
        let bytes = encode_with_search_index(doc.clone(), &options, &limits).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let built = Retriever::new(&doc, &limits).unwrap();
        let read = Retriever::open(&bytes, &doc, &limits).unwrap();
        let lazy = Retriever::open_packed(&path, &limits).unwrap().unwrap();
        assert!(read.used_stored_index() && lazy.used_stored_index());
        for (q, k) in [("Where did Ann go hiking?", 2), ("zebra", 5), ("bakery", 9)] {
            let mut o = SearchOptions::new(3);
            o.vector = Some(QueryVector {
                model: "toy".into(),
                values: vector(k),
            });
            let want = built.search(q, &o).unwrap();
            // "zebra" matches no word: only meaning finds its turns.
            assert!(q != "zebra" || !want.turns.is_empty());
            assert_eq!(read.search(q, &o).unwrap(), want, "{q}");
            assert_eq!(lazy.search(q, &o).unwrap(), want, "{q}");
        }
        assert_eq!(lazy.index_bytes().unwrap(), built.index_bytes().unwrap());
    }

    #[test]
    fn a_damaged_frame_is_an_error_for_its_turns_alone() {
        // Two frames' worth of turns.
        let lines: Vec<(String, String)> = (0..50)
            .map(|i| (format!("P{}", i % 2), format!("message {i} about hiking")))
            .collect();
        let lines: Vec<(&str, &str)> = lines
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let doc = document(&lines);
        let limits = Limits::default();
        let packed = smg_format::to_bytes(
            &doc,
            &smg_format::WriteOptions::new(smg_format::Encoding::Packed),
        )
        .unwrap();
        let index = Retriever::new(&doc, &limits)
            .unwrap()
            .index_bytes()
            .unwrap();
        let mut file = smg_format::packed::with_extension(&packed, EXTENSION, &index).unwrap();
        // A byte of the last frame, which ends the extension.
        let at = file.windows(index.len()).position(|w| w == index).unwrap();
        file[at + index.len() - 8] ^= 0x55;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.smg");
        std::fs::write(&path, &file).unwrap();
        let lazy = Retriever::open_packed(&path, &limits).unwrap().unwrap();
        assert_eq!(lazy.turn(49).unwrap_err().code(), "SMG-E006");
        assert_eq!(lazy.turn(0).unwrap().content, "message 0 about hiking");
    }

    #[test]
    fn a_damaged_full_text_index_in_the_file_is_never_a_panic() {
        let doc = document(CHAT);
        let limits = Limits::default();
        let options = smg_format::WriteOptions::new(smg_format::Encoding::Packed);
        let packed = smg_format::to_bytes(&doc, &options).unwrap();
        let index = Retriever::new(&doc, &limits)
            .unwrap()
            .index_bytes()
            .unwrap();
        let file = smg_format::packed::with_extension(&packed, EXTENSION, &index).unwrap();
        let at = file.windows(index.len()).position(|w| w == index).unwrap();
        let (start, len) = Layout::of(&index[..PREFIX], index.len() as u64)
            .unwrap()
            .part(3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.smg");
        for i in (0..len).step_by(7) {
            let mut bad = file.clone();
            bad[at + start + i] ^= 0x5a;
            std::fs::write(&path, &bad).unwrap();
            // The blob is not checked by the section's CRC: opening it is the test.
            if let Some(r) = Retriever::open_packed(&path, &limits).unwrap() {
                if let Err(e) = r.search_turns("hiking bakery", 3) {
                    assert_eq!(e.code(), "SMG-E006", "byte {i}");
                }
            }
        }
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
        damaged.ix.index = Retriever::new(&other, &limits).unwrap().ix.index;
        let short = damaged.index_bytes().unwrap();
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 3);
        let mut huge = bytes.clone();
        huge[MAGIC.len() + 2..PREFIX].fill(0xff);
        for (what, doc, b) in [
            ("other turns", &other, &bytes[..]),
            ("another version", &doc, &old[..]),
            ("cut short", &doc, &cut[..]),
            ("lengths past any end", &doc, &huge[..]),
            ("not an index", &doc, &b"smg-search"[..]),
            ("the full text of other turns", &doc, &short[..]),
        ] {
            let r = Retriever::with_stored(doc, &limits, Some(b)).unwrap();
            assert!(!r.used_stored_index(), "{what}");
            assert!(!r.search_turns("hiking", 1).unwrap().is_empty(), "{what}");
        }
    }
}
